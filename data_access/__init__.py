"""Pure-Python data layer of the dialogue dashboard.

Parses the three corpora (CoDraw, A Game Of Sorts, Minecraft Collaborative Building) into pandas
frames, computes their metrics, renders their scenes and boards, and caches parsed frames as Parquet.
Nothing here imports streamlit: the UI wraps these functions (see ``ui/cached.py``).
"""
