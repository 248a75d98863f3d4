"""A Game Of Sorts' analysis page, "Game Of Sorts outcomes" (``pages/gos_outcomes.py``): mismatches and manual
unlocks, agreement between the rankings each board received, whether messages refer to the image ranked next, the
post-game survey and the published mentions. The page opens on a summary (each chart's finding); each view's charts
are a tab. Also its part of the Durations page (the charts and how its tab shows them)."""
from __future__ import annotations

from typing import Optional

import streamlit as st

from corpora.gos.data import figures as gos
from corpora.gos.views.layers import mention_counts
from dialogue_dashboard.plugin.views import Corpus, charts, stop_run

VIEWS = {
    "Locks": (gos.lock_outcome_chart,),
    "Agreement between rankings": (gos.board_agreement_chart, gos.rank_sum_chart),
    "Messages and rankings": (gos.next_rank_reference_chart, gos.survey_chart),
}


def show(corpus: Corpus) -> None:
    """The page's body, on ``corpus`` (this corpus, resolved)."""
    st.title("A Game Of Sorts outcomes")
    st.caption("Every round ends with all nine images ranked, so the outcome lies in how the pair got there and "
               "how much the three pairs that played a board agree.")
    if charts.corpus_splits(corpus) is None:
        stop_run()
    charts.slice_against_rest(corpus, "mismatches", "Mismatched locks per interaction")  # with a slice= in the URL

    def view_charts(label: str) -> list:
        return [charts.build(builder, corpus) for builder in VIEWS[label]]

    def chart_view(label: str):
        return lambda: charts.show_all(view_charts(label), corpus, columns=2 if label == "Messages and rankings" else 1)

    charts.views({charts.SUMMARY_VIEW: lambda: charts.findings({label: view_charts(label) for label in VIEWS}),
                  **{label: chart_view(label) for label in VIEWS},
                  "Mentions": lambda: mention_counts(charts)})


def duration_charts(corpus: Corpus, splits: Optional[tuple]) -> list:
    """Round durations, the time to each rank and interaction lengths (the corpus has no splits to filter)."""
    if splits is None:
        return []
    return [charts.build(builder, corpus) for builder in
            (gos.round_duration_chart, gos.rank_time_chart, gos.interaction_length_chart)]


def show_durations(corpus: Corpus, built: list, splits: Optional[tuple]) -> None:
    rounds, *others = built or [None]
    charts.show(rounds, corpus)
    charts.show_all(others, corpus, columns=2)

