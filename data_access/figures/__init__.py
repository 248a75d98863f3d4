"""Presentation: pure functions from a loaded corpus (and a tuple of splits) to a ``Chart``.

A ``Chart`` (``charts``) is a plotly figure, the frame it was drawn from and its one-line caption. The
corpus modules (``codraw``, ``gos``, ``minecraft``), ``overview`` and ``layers`` (charts of the published
annotation layers) build one per figure, so that ``ui.cached.derived`` can cache each of them; the numbers
come from ``data_access.analysis.stats`` and the corpus packages. Nothing here imports Streamlit, and
nothing here works around Streamlit: that belongs in ``ui/``.
"""
