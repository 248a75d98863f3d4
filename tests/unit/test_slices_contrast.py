"""The contrast of a measure on two slices (issue 46, item 3): the figures of independent and paired groups against
numpy written out here, the permutation p-value's bounds, the command's exact keys, the measures and groups a
slice pair gives, and the budget that stops a long one."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from data_access import slices
from data_access.slices import SliceError
from data_access.slices import contrast as contrast_module
from data_access.slices.budget import EvaluationBudget, SliceTooSlow
from data_access.slices.contrast import JSON_KEYS, contrast
from data_access.slices.measures import contrast_slices, groups, measure_values


def test_independent_groups_against_numpy():
    rng = np.random.default_rng(3)
    a, b = rng.normal(1.0, 1.0, 400), rng.normal(0.0, 1.0, 300)
    result = contrast("x", np.append(a, np.nan), b)
    assert (result.n_a, result.n_b) == (400, 300)  # the NaN left out
    assert math.isclose(result.diff, a.mean() - b.mean()) and math.isclose(result.median_diff, np.median(a) - np.median(b))
    pooled = math.sqrt(((399) * a.var(ddof=1) + 299 * b.var(ddof=1)) / 698)
    assert math.isclose(result.effect_size, (a.mean() - b.mean()) / pooled)
    # the interval brackets the difference, about ±1.96 standard errors wide
    se = math.sqrt(a.var(ddof=1) / 400 + b.var(ddof=1) / 300)
    assert result.ci_low < result.diff < result.ci_high
    assert abs((result.ci_high - result.ci_low) / (2 * 1.96 * se) - 1) < 0.15
    # a difference of six standard errors: no relabelling reaches it
    assert result.p == pytest.approx(1 / 2001) and not result.paired
    assert contrast("x", np.append(a, np.nan), b) == result  # seeded: the same figures on every load


def test_the_export_table_has_a_row_per_group_and_the_difference_in_booktabs():
    from data_access.exports import booktabs_table
    from data_access.slices.contrast import contrast_frame

    result = contrast("x", np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.0, 1.0, 1.0]))
    frame = contrast_frame(result, "crs > 0", "rest")
    assert frame["group"].tolist() == ["A", "B", "A − B"] and frame["slice"].tolist() == ["crs > 0", "rest", "independent"]
    assert frame["mean"].tolist() == [2.5, 2 / 3, result.diff] and frame["n"].tolist()[:2] == [4, 3]
    table = booktabs_table(frame, caption="x", digits=3)
    assert r"\toprule" in table and "mean [95\\% CI]" in table
    assert f"{result.diff:.3f} [{result.ci_low:.3f}, {result.ci_high:.3f}]" in table


def test_no_difference_gives_a_large_p_value():
    values = np.arange(100.0)
    result = contrast("x", values, values[::-1].copy())
    assert result.diff == 0 and result.p == 1.0 and result.ci_low <= 0 <= result.ci_high


def test_too_few_values_give_no_interval():
    result = contrast("x", [1.0], [2.0, 3.0])
    assert result.diff == -1.5 and math.isnan(result.ci_low) and math.isnan(result.p)
    empty = contrast("x", [], [1.0, 2.0])
    assert empty.n_a == 0 and "A has no value" in empty.describe()
    assert empty.as_json()["mean_a"] is None  # NaN is null in JSON


def test_paired_by_item_compares_per_item_means():
    items_a = ["b1", "b1", "b2", "b3", "b9"]
    a = [1.0, 3.0, 5.0, 4.0, 100.0]  # b9 is in A only: left out
    items_b = ["b1", "b2", "b2", "b3"]
    b = [1.0, 2.0, 4.0, 1.0]
    result = contrast("x", a, b, items_a=items_a, items_b=items_b, paired_by="board", paired_label="board")
    d = np.array([2.0 - 1.0, 5.0 - 3.0, 4.0 - 1.0])
    assert result.paired and result.n_pairs == 3 and (result.n_a, result.n_b) == (4, 4)
    assert math.isclose(result.diff, d.mean()) and math.isclose(result.mean_a - result.mean_b, d.mean())
    assert math.isclose(result.effect_size, d.mean() / d.std(ddof=1))
    assert result.p == pytest.approx(0.25, abs=0.03)  # three positive differences: 2 sign patterns in 8 as extreme
    assert "Paired by board" in result.method() and "3 boards" in result.method()


def test_the_json_keys_are_exactly_the_commands():
    result = contrast("peek_gain", [1.0, 2.0, 3.0], [0.0, 1.0])
    assert tuple(result.as_json()) == JSON_KEYS == ("measure", "n_a", "n_b", "mean_a", "mean_b", "diff", "ci_low",
                                                    "ci_high", "p", "paired")
    assert result.as_json()["paired"] is False and result.as_json()["measure"] == "peek_gain"


def test_a_budget_stops_a_long_contrast():
    clock = iter([0.0, 0.0, 100.0, 100.0, 100.0])
    budget = EvaluationBudget(1.0, clock=lambda: next(clock))
    with pytest.raises(SliceTooSlow):
        contrast("x", np.arange(10.0), np.arange(10.0), check=budget.check)



def test_int32_indices_give_the_figures_of_int64_ones(monkeypatch):
    """The bootstrap draws its indices as int32 (half the bytes): the interval is exactly the one of int64 indices
    drawn as before, and the figures are the same at any chunk size (a chunk is a run of the same draws)."""
    rng = np.random.default_rng(7)
    a, b = rng.normal(0.3, 1.0, 900), rng.normal(0.0, 1.0, 700)
    result = contrast("x", a, b, resamples=300, permutations=300)
    draws = np.random.default_rng(contrast_module.BOOTSTRAP_SEED)
    means = [x[draws.integers(0, len(x), size=(300, len(x)), dtype=np.int64)].mean(axis=1) for x in (a, b)]
    alpha = (1 - 0.95) / 2  # as the module writes it (0.025000000000000022)
    low, high = np.quantile(means[0] - means[1], [alpha, 1 - alpha])
    assert (result.ci_low, result.ci_high) == (float(low), float(high))
    monkeypatch.setattr(contrast_module, "CHUNK_VALUES", 1_000)
    assert contrast("x", a, b, resamples=300, permutations=300) == result

# ------------------------------------------------------------------------------------------ slices of a corpus

@pytest.fixture
def boards() -> slices.SliceData:
    dialogs = pd.DataFrame({"corpus": "tiny", "dialog_id": ["d1", "d2", "d3", "d4", "d5", "d6"],
                            "game": ["g1", "g1", "g2", "g2", "g3", "g3"], "cr": [True, False, True, False, True, False],
                            "gain": [1.0, 0.0, 2.0, 1.5, np.nan, 0.5], "split": "all", "label": "x"})
    return slices.SliceData("tiny", "Tiny", dialogs, paired_items={"dialog": ("game", "game")})


def test_slices_are_paired_by_the_corpus_item_when_both_have_it(boards):
    result = contrast_slices(boards, "gain", "cr", "cr = false")
    # d5 has no gain: g3 is in B only, so g1 and g2 pair: (1 − 0) and (2 − 1.5)
    assert result.paired_by == "game" and result.n_pairs == 2 and math.isclose(result.diff, 0.75)
    unpaired = contrast_slices(boards, "gain", "cr", "rest", paired="none")
    assert not unpaired.paired and math.isclose(unpaired.diff, 1.5 - (0 + 1.5 + 0.5) / 3) and (unpaired.n_a, unpaired.n_b) == (2, 3)
    by_dialog = contrast_slices(boards, "gain", "cr", "rest", paired="dialog_id")
    assert by_dialog.n_pairs == 0 and math.isnan(by_dialog.diff)  # no dialog is in both groups


def test_a_measure_is_one_numeric_feature(boards):
    assert measure_values("cr", boards, "dialog").tolist() == [1, 0, 1, 0, 1, 0]  # true / false count 1 / 0
    for measure, words in (("gain > 1", "is a condition"), ("label", "not a number"), ("nothing", "no feature"),
                           ("gain >", "not a feature")):
        with pytest.raises(SliceError, match=words):
            measure_values(measure, boards, "dialog")


def test_both_slices_are_of_one_level(boards):
    assert groups(boards, "cr", "rest").b.tolist() == [False, True, False, True, False, True]
    with pytest.raises(SliceError, match="one level"):
        groups(boards, "cr", "steps(x)")
