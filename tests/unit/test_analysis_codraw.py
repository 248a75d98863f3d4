"""CoDraw score and peek statistics on hand-made frames, and the peek figures of the full corpus."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from corpora.codraw.data import figures as codraw
from data_access.analysis.charts import selected_rows
from data_access.common import LoadedCorpus


def three_dialogs() -> pd.DataFrame:
    """d1 peeks before round 2 and gains 1.0; d2 never peeks; d3 peeks before round 3 and gains 0.5."""
    return pd.DataFrame({
        "corpus": "codraw", "dialog_id": ["d1", "d2", "d3"], "split": ["train", "train", "test"],
        "n_steps": [3, 2, 4], "n_utterances": [6, 4, 8], "duration_s": [np.nan, np.nan, np.nan],
        "n_rounds": [3, 2, 4], "peek_round": pd.array([2, pd.NA, 3], dtype="Int64"),
        "rounds_after_peek": pd.array([2, pd.NA, 2], dtype="Int64"),
        "score_before_peek": [3.0, np.nan, 4.0], "final_score": [4.0, 3.5, 4.5],
        "final_score_original": [3.0, 2.0, 4.0],
    })


def rounds_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "dialog_id": ["d1"] * 3 + ["d2"] * 2 + ["d3"] * 4,
        "split": ["train"] * 5 + ["test"] * 4,
        "round": [1, 2, 3, 1, 2, 1, 2, 3, 4],
        "after_scene": pd.array([1, 2, 3, 4, pd.NA, 5, 6, 7, 8], dtype="Int64"),
        "score_final": [1.0, 3.0, 4.0, 2.0, 0.0, 3.0, 4.0, 4.0, 4.5],
        "score_original": [1.0, 2.0, 3.0, 1.5, 0.0, 2.0, 3.0, 3.5, 4.0],
        "score_status": ["present", "present", "empty", "missing", "present", "present", "present", "present", "empty"],
        "stored_score": [1.0, 2.0, np.nan, np.nan, 0.0, 2.0, 3.25, 3.5, np.nan],
    })


def corpus() -> LoadedCorpus:
    return LoadedCorpus("codraw", "demo", True, {"dialogs": three_dialogs(), "rounds": rounds_frame()})


def test_peek_gain_on_three_dialogs():
    table = codraw.peek_table(three_dialogs())
    assert table["dialog_id"].tolist() == ["d1", "d3"]
    assert table["gain"].tolist() == [1.0, 0.5]
    summary = codraw.peek_summary(three_dialogs())
    assert (summary.n, summary.mean_before, summary.mean_after) == (2, 3.5, 4.25)
    assert summary.change.mean == pytest.approx(0.75)


def test_peek_table_derives_rounds_after_peek_when_missing():
    dialogs = three_dialogs().drop(columns="rounds_after_peek")
    assert codraw.peek_table(dialogs)["rounds_after_peek"].tolist() == [2, 2]


def test_final_score_stats_per_split_and_metric():
    stats = codraw.final_score_stats(three_dialogs()).set_index(["metric", "split"])
    assert stats.loc[("final_score", "train"), "mean"] == 3.75
    assert stats.loc[("final_score_original", "test"), "mean"] == 4.0
    assert stats.loc[("final_score", "train"), "n"] == 2


def test_score_by_round_skips_rounds_without_a_drawing():
    stats = codraw.score_by_round_stats(rounds_frame()).set_index("round")
    assert stats.loc[2, "n"] == 2  # d2's round 2 has no drawing
    assert stats.loc[2, "mean"] == 3.5
    assert stats.loc[1, "mean"] == 2.0
    assert codraw.score_by_round_stats(rounds_frame(), "score_original").loc[0, "mean"] == pytest.approx(1.5)


def test_stored_agreement_counts_reproduced_scores():
    pairs, checked, reproduced = codraw.stored_agreement(rounds_frame())
    assert (checked, reproduced) == (6, 5)  # d3 round 2 stores 3.25 but recomputes to 3.0
    assert pairs["rounds"].sum() == 6
    assert ((pairs["stored"] == 3.25) & (pairs["recomputed"] == 3.0)).any()


def test_peek_gain_chart_caption_and_selection_map_to_dialogs():
    chart = codraw.peek_gain_chart(corpus())
    assert chart.selectable
    assert "3.50 → 4.25" in chart.caption and "2 peeked dialogs" in chart.caption
    rows = selected_rows(chart.figure, {"points": [{"curve_number": 0, "point_numbers": [1]}]})
    assert chart.data.iloc[rows]["dialog_id"].tolist() == ["d3"]


def test_charts_follow_the_split_filter():
    chart = codraw.final_score_chart(corpus(), ("test",))
    assert chart.data["dialog_id"].tolist() == ["d3"]
    assert "over 1 dialog." in chart.caption
    assert codraw.peek_gain_chart(corpus(), ("train",)).data["dialog_id"].tolist() == ["d1"]
    assert codraw.peek_summary_for(corpus(), ("test",)).n == 1


def test_every_builder_copes_with_the_small_corpus_and_with_an_empty_split():
    builders = [codraw.final_score_chart, codraw.score_by_round_chart, codraw.stored_agreement_chart,
                codraw.score_vs_length_chart, codraw.peek_gain_chart, codraw.gain_by_peek_round_chart,
                codraw.peek_vs_no_peek_chart, codraw.rounds_after_peek_chart, codraw.duration_chart]
    for build in builders:
        assert build(corpus()).caption
        empty = build(corpus(), ("no-such-split",))
        assert empty.caption and (empty.empty or len(empty.data) == 0 or build is codraw.stored_agreement_chart)


def test_durations_come_from_stat_when_present():
    loaded = corpus()
    assert not codraw.has_durations(loaded)
    assert codraw.duration_chart(loaded).empty
    loaded.frames["dialogs"]["duration_s"] = [120.0, np.nan, 300.0]
    assert codraw.has_durations(loaded)
    chart = codraw.duration_chart(loaded)
    assert chart.data["duration_min"].tolist() == [2.0, 5.0]
    assert "over 2 dialogs; 1 dialog has none." in chart.caption


@pytest.mark.shared
def test_peek_effect_on_the_full_corpus(shared_data, real_cache):
    from data_access.corpora import load_path

    loaded = load_path("codraw", shared_data / "codraw" / "CoDraw_1_0.json.gz", cache_root=real_cache)
    summary = codraw.peek_summary(loaded.dialogs)
    assert summary.n == 9151
    assert round(summary.mean_before, 2) == 3.98 and round(summary.mean_after, 2) == 4.23
    assert math.isclose(summary.change.mean, summary.mean_after - summary.mean_before)
    stats = codraw.final_score_stats(loaded.dialogs).set_index(["metric", "split"])
    assert round(stats.loc[("final_score", "test"), "mean"], 2) == 4.17
    _pairs, checked, reproduced = codraw.stored_agreement(loaded.frames["rounds"])
    assert checked == reproduced == 68278


def test_a_mean_interval_ends_at_the_metrics_maximum_and_the_caption_says_so():
    dialogs = three_dialogs().assign(n_rounds=[3, 3, 4], final_score=[5.0, 4.0, 4.5])  # length 3: 4.5 ± 6.35
    chart = codraw.score_vs_length_chart(LoadedCorpus("codraw", "demo", True, {"dialogs": dialogs}))
    means = chart.figure.data[1]
    highs = [mean + above for mean, above in zip(means.y, means.error_y.array)]
    assert highs[0] == pytest.approx(5.0) and means.y[0] - means.error_y.arrayminus[0] < 0  # only the top ends
    assert "1 interval ends at 5, the metric's maximum." in chart.caption
