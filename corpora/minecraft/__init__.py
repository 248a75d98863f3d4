"""Minecraft Collaborative Building (Narayan-Chen et al., 2019): the corpus package (``data``, the corpus contract) and its views (``views``)."""
