"""Confidence intervals respect the range of what they describe: Wilson for shares (inside [0, 1]), a
seeded percentile bootstrap for skewed means and counts (inside the data's range, so never below 0 for a
count), Student-t only for unbounded means; every chart caption names the interval it draws."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from corpora.gos.data import figures as gos
from corpora.minecraft.data import figures as minecraft
from data_access.analysis.stats import grouped_mean_ci, interval_note, mean_ci, wilson_interval
from data_access.common import LoadedCorpus


def test_wilson_interval_known_values():
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert wilson_interval(9, 10) == pytest.approx((0.59585, 0.98212), abs=1e-5)
    assert wilson_interval(10, 10)[1] == 1.0
    share = mean_ci([1] * 9 + [0], method="wilson")
    assert share.high <= 1 and share.describe() == "0.90 (95% Wilson CI 0.60–0.98, n = 10)"
    assert mean_ci([1] * 9 + [0]).high > 1  # what the t interval gave


def test_bootstrap_of_a_count_stays_above_zero_and_is_reproducible():
    counts = [0] * 18 + [1, 3]
    assert mean_ci(counts).low < 0  # the t interval goes below 0
    first, second = mean_ci(counts, method="bootstrap"), mean_ci(counts, method="bootstrap")
    assert first == second and first.low >= 0 and first.low <= first.mean <= first.high
    assert first.describe().startswith("0.20 (95% bootstrap CI 0.00–")
    skewed = np.random.default_rng(3).exponential(10, 700)  # many distinct values: the resampling path
    interval = mean_ci(skewed, method="bootstrap")
    assert skewed.min() <= interval.low < interval.mean < interval.high <= skewed.max()
    constant = mean_ci([2.0, 2.0, 2.0], method="bootstrap")
    assert (constant.mean, constant.low, constant.high) == (2.0, 2.0, 2.0)


def test_grouped_intervals_per_method():
    frame = pd.DataFrame({"g": [1] * 10 + [2] * 10, "v": [0] * 9 + [1] + [1] * 10})
    wilson = grouped_mean_ci(frame, "g", "v", method="wilson").set_index("g")
    assert wilson.loc[1, "low"] == pytest.approx(0.01788, abs=1e-5) and wilson.loc[2, "high"] == 1 and wilson.loc[2, "low"] == pytest.approx(0.72247, abs=1e-5)
    boot = grouped_mean_ci(frame, ["g"], "v", method="bootstrap").set_index("g")
    assert (boot["low"] >= 0).all() and (boot["high"] <= 1).all()
    with pytest.raises(ValueError):
        mean_ci([1, 2], method="normal")


def test_gos_counts_and_shares_stay_in_range():
    rounds = pd.DataFrame({"interaction_id": [f"i{k}" for k in range(12)], "round": [1] * 12,
                           "duration_s": np.linspace(300, 1500, 12), "mismatches": [0] * 11 + [2],
                           "manual_unlocks": [0] * 10 + [1, 4]})
    outcomes = gos.lock_outcome_stats(rounds)
    assert (outcomes["low"] >= 0).all()
    assert (grouped_mean_ci(rounds.melt(id_vars=["round"], value_vars=["mismatches"]), "round", "value")["low"] < 0).all()
    references = pd.DataFrame({"round": [1] * 10, "hit": [True] * 9 + [False], "chance": 0.2,
                               "interaction_id": "i1"})
    stats = gos.next_rank_reference_stats(references)
    assert (stats["hit_high"] <= 1).all() and (stats["hit_low"] >= 0).all()


def test_minecraft_outcome_share_stays_below_one_and_captions_name_the_interval():
    dialogs = pd.DataFrame({"dialog_id": [f"g{k}" for k in range(10)], "split": "test", "gold_blocks": 5,
                            "outcome_match": [True] * 9 + [False], "outcome_f1": [1.0] * 9 + [0.4]})
    stats = minecraft.outcome_stats(dialogs).iloc[0]
    assert stats["match_high"] <= 1 and stats["f1_high"] <= 1 and stats["f1_low"] >= 0.4
    assert "Wilson" in interval_note("wilson") and "bootstrap" in interval_note("bootstrap")


def test_every_interval_on_the_demo_corpora_respects_its_range(tmp_path):
    from data_access.corpora import demo_path, load_path

    gos_corpus = load_path("gos", demo_path("gos", tmp_path))
    minecraft_corpus = load_path("minecraft", demo_path("minecraft", tmp_path))
    _check_ranges(gos_corpus, minecraft_corpus)


@pytest.mark.shared
def test_every_interval_on_the_real_corpora_respects_its_range(shared_data, real_cache):
    from data_access.corpora import load_path

    _check_ranges(load_path("gos", shared_data / "game-of-sorts", cache_root=real_cache),
                  load_path("minecraft", shared_data / "minecraft", cache_root=real_cache))


def _check_ranges(gos_corpus: LoadedCorpus, minecraft_corpus: LoadedCorpus) -> None:
    for chart, low, high, bounds, name in [
        (gos.lock_outcome_chart(gos_corpus), "low", "high", (0, None), "bootstrap"),
        (gos.round_duration_chart(gos_corpus), None, None, None, "bootstrap"),
        (gos.rank_time_chart(gos_corpus), "low", "high", (0, None), "bootstrap"),
        (gos.next_rank_reference_chart(gos_corpus), "hit_low", "hit_high", (0, 1), "Wilson"),
        (minecraft.outcome_chart(minecraft_corpus), "match_low", "match_high", (0, 1), "Wilson"),
        (minecraft.outcome_chart(minecraft_corpus), "f1_low", "f1_high", (0, 1), "bootstrap"),
        (minecraft.f1_progress_chart(minecraft_corpus), "low", "high", (0, 1), "bootstrap"),
    ]:
        assert "Intervals: 95%" in chart.caption and name in chart.caption, chart.caption
        if low is None or chart.data.empty:
            continue
        values = chart.data[[low, high]].dropna()
        if bounds[0] is not None:
            assert (values[low] >= bounds[0]).all(), chart.key
        if bounds[1] is not None:
            assert (values[high] <= bounds[1] + 1e-12).all(), chart.key
    durations = gos.round_duration_stats(gos_corpus.frames["rounds"].dropna(subset=["duration_s"]))
    assert (durations["low"].dropna() >= 0).all()


def test_wilson_interval_uses_the_exact_normal_quantile():
    # the 97.5 % point of the standard normal to double precision (the t quantile at df = 1e7 that stood in for it
    # was off by about 1e-7)
    z = 1.959963984540054
    for successes, n in [(7, 10), (1, 3), (480, 1000)]:
        p = successes / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        assert wilson_interval(successes, n) == pytest.approx((centre - half, centre + half), abs=1e-13)
