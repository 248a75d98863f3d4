"""The Durations page, over every corpus whose views offer durations (``CorpusViews.durations``, a ``DurationsView``): a split filter
per corpus that has splits (kept in the URL as ``<corpus>_split``), each corpus's slice against the rest on its
dialogs' duration, and one tab per corpus beside the summary."""
from __future__ import annotations

from typing import Callable, Optional

import streamlit as st

from data_access.corpus import Corpus
from ui.analysis import charts
from ui.shell.corpus_edge import every_corpus
from ui.shell.corpus_views import DurationsView


def _sections() -> list[tuple[Corpus, DurationsView]]:
    from ui.shell.corpus_views import views_of

    return [(corpus, view) for corpus in every_corpus() if (view := views_of(corpus).durations) is not None]


def durations_page() -> None:
    """The page: filters, each corpus against a slice, the summary and each corpus's tab."""
    sections = _sections()
    st.title("Durations")
    st.caption("How long the dialogues took, per corpus. Click a bar or point to list its dialogs.")
    chosen: dict[str, Optional[tuple]] = {}
    with_filter = [(corpus, view) for corpus, view in sections if view.split_label]
    columns = st.columns(max(1, len(with_filter)))
    for corpus, view in sections:
        available = charts.corpus_splits(corpus)
        if available is None or not view.split_label:
            chosen[corpus.name] = None if available is None else ()
            continue
        with columns[with_filter.index((corpus, view))]:
            chosen[corpus.name] = charts.split_filter(available, param=f"{corpus.name}_split", label=view.split_label)
    for corpus, _view in sections:
        if chosen[corpus.name] is not None:  # with a slice= in the URL
            charts.slice_against_rest(corpus, "duration_s", "Duration (s)", splits=chosen[corpus.name], digits=0,
                                      heading=True)

    def summary_view() -> None:
        built = {corpus.name: view.charts(corpus, chosen[corpus.name]) for corpus, view in sections}
        charts.findings({view.tab: built[corpus.name] for corpus, view in sections})
        for corpus, view in sections:
            view.summary_note(corpus, built[corpus.name], chosen[corpus.name])

    def tab(corpus: Corpus, view: DurationsView) -> Callable[[], None]:
        return lambda: view.show(corpus, view.charts(corpus, chosen[corpus.name]), chosen[corpus.name])

    charts.views({charts.SUMMARY_VIEW: summary_view, **{view.tab: tab(corpus, view) for corpus, view in sections}})
