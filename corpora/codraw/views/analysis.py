"""CoDraw's analysis page, "CoDraw scores & peeks" (``pages/codraw_scores.py``): final scores per split under both
metrics, the score by round, stored vs recomputed scores, score against dialog length, what the Teller's one peek
at the drawing did and the score by clarification request. The page opens on a summary (each chart's finding); each
view's charts are a tab. Also its part of the Durations page (the charts and how its tab shows them)."""
from __future__ import annotations

from typing import Optional

import streamlit as st

from corpora.codraw.data import figures as codraw
from corpora.codraw.views.layers import score_by_cr
from dialogue_dashboard.plugin.views import Corpus, charts, stop_run


def show(corpus: Corpus) -> None:
    """The page's body, on ``corpus`` (this corpus, resolved)."""
    st.title("CoDraw scores & peeks")
    st.caption("Scene similarity of the Drawer's canvas to the target: the paper's final metric (max 5) and the "
               "original 7-term metric the data stores. Click a bar or point to list its dialogs.")
    available = charts.corpus_splits(corpus)
    if available is None:
        stop_run()
    splits = charts.split_filter(available)
    charts.slice_against_rest(corpus, "final_score", "Final score", splits=splits)  # with a slice= in the URL

    def score_charts(metric: str = "score_final") -> list:
        return [charts.build(builder, corpus, splits, *args) for builder, *args in (
            (codraw.final_score_chart,), (codraw.score_by_round_chart, metric),
            (codraw.stored_agreement_chart,), (codraw.score_vs_length_chart,))]

    def peek_charts() -> list:
        return [charts.build(builder, corpus, splits) for builder in (
            codraw.peek_gain_chart, codraw.gain_by_peek_round_chart, codraw.rounds_after_peek_chart,
            codraw.peek_vs_no_peek_chart)]

    def peek_metrics() -> None:
        summary = charts.build(codraw.peek_summary_for, corpus, splits)
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
                                      default="score_final", format_func=lambda metric: codraw.ROUND_METRICS[metric],
                                      key="codraw_round_metric") or "score_final"
        final, by_round, stored, by_length = score_charts(metric)
        charts.show(final, corpus)
        charts.show(by_round, corpus)
        charts.show_all([stored, by_length], corpus, columns=2)

    def peeks_view() -> None:
        st.caption("Once per dialog the Teller may peek at the Drawer's canvas; the round after the peek is marked "
                   "“peeked”. The gain compares the last drawing before the peek with the final drawing.")
        peek_metrics()
        gain, by_peek_round, after_peek, with_without = peek_charts()
        charts.show(gain, corpus)
        charts.show_all([by_peek_round, after_peek], corpus, columns=2)
        charts.show(with_without, corpus)

    charts.views({charts.SUMMARY_VIEW: summary_view, "Scores": scores_view, "Peek effects": peeks_view,
                  "Clarification requests": lambda: score_by_cr(charts, splits)})


NO_STAT = ("This CoDraw source has no session durations: its `stat` section is empty (as in copies assembled from "
           "the per-dialog files). The official CoDraw_1_0.json has them.")


def duration_charts(corpus: Corpus, splits: Optional[tuple]) -> list:
    """The session durations, when the source's ``stat`` section has them."""
    if splits is None or not charts.build(codraw.has_durations, corpus):
        return []
    return [charts.build(codraw.duration_chart, corpus, splits)]


def show_durations(corpus: Corpus, built: list, splits: Optional[tuple]) -> None:
    duration_note(corpus, built, splits)
    charts.show_all(built, corpus)


def duration_note(corpus: Corpus, built: list, splits: Optional[tuple]) -> None:
    """Under the summary: why there is no CoDraw chart, when the source has no durations."""
    if splits is not None and not built:
        st.info(NO_STAT)

