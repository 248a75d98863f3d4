"""Presentation over every corpus: pure functions from loaded corpora (and a tuple of splits) to a ``Chart``.

A ``Chart`` (``analysis.charts``, below the corpus packages) is a plotly figure, the frame it was drawn from and
its one-line caption. This package holds only what is corpus-free: ``overview`` (every corpus side by side) and
``layers`` (charts of the published annotation layers); each corpus's own charts are its package's
``figures`` module (``corpora.codraw.data.figures``...). Each builds one chart per figure, so that
``ui.cached.derived`` can cache each of them; the numbers come from ``data_access.analysis.stats`` and the
corpus packages. Nothing here imports Streamlit, and nothing here works around Streamlit: that belongs in ``ui/``.
"""
