"""A Game Of Sorts outcomes: mismatches and manual unlocks, agreement between the rankings each board
received, whether messages refer to the image ranked next, and the post-game survey."""
import streamlit as st

from data_access.figures import gos
from ui import charts
from ui.layers import gos_mention_counts
from ui.router import ensure_routed

ensure_routed()

CORPUS = "gos"

st.title("A Game Of Sorts outcomes")
st.caption("Every round ends with all nine images ranked, so the outcome lies in how the pair got there and "
           "how much the three pairs that played a board agree.")

if charts.corpus_splits(CORPUS) is None:
    st.stop()

st.header("Locks")
charts.show(charts.build(gos.lock_outcome_chart, CORPUS), CORPUS)

st.header("Agreement between rankings")
charts.show(charts.build(gos.board_agreement_chart, CORPUS), CORPUS)
charts.show(charts.build(gos.rank_sum_chart, CORPUS), CORPUS)

st.header("Messages and rankings")
left, right = st.columns(2)
with left:
    charts.show(charts.build(gos.next_rank_reference_chart, CORPUS), CORPUS)
with right:
    charts.show(charts.build(gos.survey_chart, CORPUS), CORPUS)

gos_mention_counts(charts)
