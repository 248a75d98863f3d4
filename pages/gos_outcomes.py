"""A Game Of Sorts outcomes: mismatches and manual unlocks, agreement between the rankings each board
received, whether messages refer to the image ranked next, and the post-game survey. The page opens on a
summary (each chart's finding); each view's charts are a tab."""
import streamlit as st

from ui import charts
from ui.charts import gos_figures as gos
from ui.corpus_edge import drawn_by
from ui.layers import gos_mention_counts
from ui.router import ensure_routed
from ui.run_mark import stop_run

ensure_routed()

CORPUS = drawn_by(gos)  # this page's corpus, resolved once

st.title("A Game Of Sorts outcomes")
st.caption("Every round ends with all nine images ranked, so the outcome lies in how the pair got there and "
           "how much the three pairs that played a board agree.")

if charts.corpus_splits(CORPUS) is None:
    stop_run()
charts.slice_against_rest(CORPUS, "mismatches", "Mismatched locks per interaction")  # with a slice= in the URL

VIEWS = {
    "Locks": (gos.lock_outcome_chart,),
    "Agreement between rankings": (gos.board_agreement_chart, gos.rank_sum_chart),
    "Messages and rankings": (gos.next_rank_reference_chart, gos.survey_chart),
}


def view_charts(label: str) -> list:
    return [charts.build(builder, CORPUS) for builder in VIEWS[label]]


def chart_view(label: str):
    return lambda: charts.show_all(view_charts(label), CORPUS, columns=2 if label == "Messages and rankings" else 1)


charts.views({charts.SUMMARY_VIEW: lambda: charts.findings({label: view_charts(label) for label in VIEWS}),
              **{label: chart_view(label) for label in VIEWS},
              "Mentions": lambda: gos_mention_counts(charts)})
