"""CoDraw scores & peeks: final scores per split under both metrics, the score by round, stored vs
recomputed scores, score against dialog length, and what the Teller's one peek at the drawing did."""
import streamlit as st

from data_access.figures import codraw
from ui import charts
from ui.layers import codraw_score_by_cr
from ui.router import ensure_routed

ensure_routed()

CORPUS = "codraw"

st.title("CoDraw scores & peeks")
st.caption("Scene similarity of the Drawer's canvas to the target: the paper's final metric (max 5) and the "
           "original 7-term metric the data stores. Click a bar or point to list its dialogs.")

available = charts.corpus_splits(CORPUS)
if available is None:
    st.stop()
splits = charts.split_filter(available)

st.header("Scores")
charts.show(charts.build(codraw.final_score_chart, CORPUS, splits), CORPUS)
metric = st.segmented_control("Metric for the score by round", list(codraw.ROUND_METRICS),
                              default="score_final", format_func=codraw.ROUND_METRICS.get,
                              key="codraw_round_metric") or "score_final"
charts.show(charts.build(codraw.score_by_round_chart, CORPUS, splits, metric), CORPUS)
left, right = st.columns(2)
with left:
    charts.show(charts.build(codraw.stored_agreement_chart, CORPUS, splits), CORPUS)
with right:
    charts.show(charts.build(codraw.score_vs_length_chart, CORPUS, splits), CORPUS)

st.header("Peek effects")
st.caption("Once per dialog the Teller may peek at the Drawer's canvas; the round after the peek is marked "
           "“peeked”. The gain compares the last drawing before the peek with the final drawing.")
summary = charts.build(codraw.peek_summary_for, CORPUS, splits)
if summary is not None and summary.n:
    before, after, change = st.columns(3)
    before.metric("Score before the peek", f"{summary.mean_before:.2f}")
    after.metric("Final score", f"{summary.mean_after:.2f}")
    change.metric("Mean change (95% CI)", f"{summary.change.mean:+.2f}",
                  f"{summary.change.low:+.2f} to {summary.change.high:+.2f}", delta_color="off", delta_arrow="off",
                  help=f"Paired over {summary.n:,} peeked dialogs with a drawing before the peek.")
charts.show(charts.build(codraw.peek_gain_chart, CORPUS, splits), CORPUS)
left, right = st.columns(2)
with left:
    charts.show(charts.build(codraw.gain_by_peek_round_chart, CORPUS, splits), CORPUS)
with right:
    charts.show(charts.build(codraw.rounds_after_peek_chart, CORPUS, splits), CORPUS)
charts.show(charts.build(codraw.peek_vs_no_peek_chart, CORPUS, splits), CORPUS)

codraw_score_by_cr(charts, splits)
