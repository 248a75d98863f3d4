"""CoDraw scores & peeks: final scores per split under both metrics, the score by round, stored vs
recomputed scores, score against dialog length, and what the Teller's one peek at the drawing did.
The page opens on a summary (each chart's finding); each view's charts are a tab."""
import streamlit as st

from ui import charts
from ui.charts import codraw_figures as codraw
from ui.corpus_edge import drawn_by
from ui.layers import codraw_score_by_cr
from ui.router import ensure_routed
from ui.run_mark import stop_run

ensure_routed()

CORPUS = drawn_by(codraw)  # this page's corpus, resolved once

st.title("CoDraw scores & peeks")
st.caption("Scene similarity of the Drawer's canvas to the target: the paper's final metric (max 5) and the "
           "original 7-term metric the data stores. Click a bar or point to list its dialogs.")

available = charts.corpus_splits(CORPUS)
if available is None:
    stop_run()
splits = charts.split_filter(available)
charts.slice_against_rest(CORPUS, "final_score", "Final score", splits=splits)  # with a slice= in the URL


def score_charts(metric: str = "score_final") -> list:
    return [charts.build(builder, CORPUS, splits, *args) for builder, *args in (
        (codraw.final_score_chart,), (codraw.score_by_round_chart, metric),
        (codraw.stored_agreement_chart,), (codraw.score_vs_length_chart,))]


def peek_charts() -> list:
    return [charts.build(builder, CORPUS, splits) for builder in (
        codraw.peek_gain_chart, codraw.gain_by_peek_round_chart, codraw.rounds_after_peek_chart,
        codraw.peek_vs_no_peek_chart)]


def peek_metrics() -> None:
    summary = charts.build(codraw.peek_summary_for, CORPUS, splits)
    if summary is None or not summary.n:
        return
    before, after, change = st.columns(3)
    before.metric("Score before the peek", f"{summary.mean_before:.2f}")
    after.metric("Final score", f"{summary.mean_after:.2f}")
    change.metric("Mean change (95% CI)", f"{summary.change.mean:+.2f}",
                  f"{summary.change.low:+.2f} to {summary.change.high:+.2f}", delta_color="off", delta_arrow="off",
                  help=f"Paired over {summary.n:,} peeked dialogs with a drawing before the peek.")


def summary_view() -> None:
    charts.findings({"Scores": score_charts(), "Peek effects": peek_charts()})


def scores_view() -> None:
    metric = st.segmented_control("Metric for the score by round", list(codraw.ROUND_METRICS),
                                  default="score_final", format_func=codraw.ROUND_METRICS.get,
                                  key="codraw_round_metric") or "score_final"
    final, by_round, stored, by_length = score_charts(metric)
    charts.show(final, CORPUS)
    charts.show(by_round, CORPUS)
    charts.show_all([stored, by_length], CORPUS, columns=2)


def peeks_view() -> None:
    st.caption("Once per dialog the Teller may peek at the Drawer's canvas; the round after the peek is marked "
               "“peeked”. The gain compares the last drawing before the peek with the final drawing.")
    peek_metrics()
    gain, by_peek_round, after_peek, with_without = peek_charts()
    charts.show(gain, CORPUS)
    charts.show_all([by_peek_round, after_peek], CORPUS, columns=2)
    charts.show(with_without, CORPUS)


charts.views({charts.SUMMARY_VIEW: summary_view, "Scores": scores_view, "Peek effects": peeks_view,
              "Clarification requests": lambda: codraw_score_by_cr(charts, splits)})
