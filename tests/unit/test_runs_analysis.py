"""The Runs page's statistics and the replay marks, on hand-made units whose answers are worked out by hand."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from corpora.codraw.data.run_views import clipart_marks
from corpora.codraw.data.scenes import Clipart
from corpora.minecraft.data.run_views import block_marks
from data_access.runs.analysis import paired_bootstrap, paired_units, slice_gaps


def test_paired_bootstrap_of_means_is_centred_on_the_mean_difference():
    a = pd.DataFrame({"unit": list("abcdef"), "value": [4.0, 4.5, 3.0, 5.0, 2.0, 4.0]})
    b = pd.DataFrame({"unit": list("abcdeg"), "value": [3.0, 4.5, 2.0, 4.0, 2.0, 1.0]})  # g is not in a, f not in b
    result = paired_bootstrap(a, b, "codraw")
    # shared units a..e: differences 1, 0, 1, 1, 0 -> mean 0.6; every resample's mean lies in [0, 1]
    assert result["n"] == 5 and result["difference"] == pytest.approx(0.6)
    assert result["a"] == pytest.approx(3.7) and result["b"] == pytest.approx(3.1)
    assert 0.0 <= result["low"] < 0.6 < result["high"] <= 1.0
    same = paired_bootstrap(a, a, "codraw")
    assert same["difference"] == 0 and same["low"] == 0 and same["high"] == 0


def test_paired_bootstrap_of_micro_f1_sums_counts_before_dividing():
    # A: tp 3 fp 1 fn 0 and tp 1 fp 0 fn 2 -> sums 4/1/2: P 0.8, R 4/6, F1 = 2*0.8*(2/3)/(0.8+2/3) = 8/11
    a = pd.DataFrame({"unit": ["s1", "s2"], "tp": [3, 1], "fp": [1, 0], "fn": [0, 2], "value": [0.0, 0.0]})
    b = pd.DataFrame({"unit": ["s1", "s2"], "tp": [4, 3], "fp": [0, 0], "fn": [0, 0], "value": [1.0, 1.0]})
    result = paired_bootstrap(a, b, "minecraft")
    assert result["a"] == pytest.approx(8 / 11) and result["b"] == 1.0
    assert result["difference"] == pytest.approx(8 / 11 - 1)
    assert result["high"] <= 0 and result["low"] >= -1


def test_paired_units_put_the_largest_difference_first():
    a = pd.DataFrame({"unit": ["x", "y", "z"], "dialog_id": ["x", "y", "z"], "value": [1.0, 5.0, 2.0]})
    b = pd.DataFrame({"unit": ["x", "y", "z"], "value": [1.5, 1.0, 2.0]})
    table = paired_units(a, b)
    assert table["unit"].tolist() == ["y", "x", "z"] and table["difference"].tolist() == [4.0, -0.5, 0.0]


def test_slice_gaps_rank_slices_by_their_distance_from_the_whole():
    features = pd.DataFrame({"unit": list("abcdefgh"), "dialog_id": list("abcdefgh"),
                             "value": [1.0, 1.0, 1.0, 5.0, 5.0, 5.0, 3.0, 3.0],
                             "peek": ["no", "no", "no", "yes", "yes", "yes", "yes", "yes"],
                             "size": ["s", "s", "s", "s", "l", "l", "l", "l"]})
    table = slice_gaps(features, "codraw")
    # overall mean 3.0; peek=no 1.0 (gap -2), peek=yes 4.2 (+1.2), size=l 4.0 (+1), size=s 2.0 (-1)
    assert table[["feature", "slice"]].values.tolist()[:2] == [["peek", "no"], ["peek", "yes"]]
    assert table["gap"].tolist()[:2] == pytest.approx([-2.0, 1.2])
    assert set(table["n"]) == {3, 4, 5}
    other = features[["unit", "value"]].assign(value=3.0)  # a flat second run: gaps are the run's own gaps
    compared = slice_gaps(features, "codraw", other)
    assert compared["gap"].tolist() == pytest.approx(table["gap"].tolist())


def clip(identity, x, y, z=0, flip=0, obj=0, type_=1):
    return Clipart(identity, "p_0s.png", type_, obj, x, y, z, flip)


def test_clipart_marks_against_the_target():
    target = [clip(8, 100, 100), clip(9, 200, 200), clip(10, 300, 300), clip(18, 250, 250, type_=2, obj=3)]
    drawing = [clip(8, 105, 100),            # 5 px off: correct
               clip(9, 300, 200),            # 100 px / 500 = 0.2 > 0.1: misplaced
               clip(18, 250, 250, type_=2, obj=4),  # another expression: wrong pose
               clip(30, 50, 50)]             # not in the target: extra
    marks = {(m, (d or t).identity) for m, d, t in clipart_marks(drawing, target)}
    assert marks == {("correct", 8), ("misplaced", 9), ("missing", 10), ("wrong pose/flip/depth", 18), ("extra", 30)}


def test_block_marks_of_a_predicted_structure():
    initial = {(0, 1, 0): "red"}
    predicted = {(0, 1, 0): "red", (1, 1, 0): "blue"}
    gold = {(0, 1, 0): "red", (0, 2, 0): "blue"}
    assert block_marks(initial, predicted, gold) == {"correct": [(0, 1, 0, "red")], "missing": [(0, 2, 0, "blue")],
                                                      "extra": [(1, 1, 0, "blue")]}


def test_an_empty_comparison_has_no_numbers():
    empty = pd.DataFrame({"unit": pd.Series(dtype=str), "value": pd.Series(dtype=float)})
    result = paired_bootstrap(empty, empty, "gos")
    assert result["n"] == 0 and math.isnan(result["difference"]) and math.isnan(result["low"])
    assert np.isnan(result["a"])
