"""Krippendorff's alpha through the ``krippendorff`` package equals the hand-written definition (the oracle in
krippendorff_oracle.py) on nominal data with and without missing values, and so does its bootstrap interval."""
from __future__ import annotations

import math

import numpy as np
import pytest

from data_access.coding import agreement as ag
from tests.unit import krippendorff_oracle as oracle

# Krippendorff (2011), 4 observers x 12 units, nominal, with missing values (alpha = 0.743).
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def _random_matrix(seed: int, coders: int, units: int, categories: list, missing: float) -> list[list]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(categories), units)
    rows = []
    for _ in range(coders):
        agrees = rng.random(units) < 0.7
        own = np.where(agrees, truth, rng.integers(0, len(categories), units))
        rows.append([None if rng.random() < missing else categories[int(c)] for c in own])
    return rows


CASES = {
    "textbook, missing values": KRIPPENDORFF_2011,
    "binary, two coders": [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]],
    "strings": [["a", "b", "a", "c", "b"], ["a", "b", "b", "c", "b"], ["a", "a", "b", "c", None]],
    "tuples of labels, 'none'": [[("x",), ("none",), ("x", "y"), ("y",)], [("x",), ("x",), ("x", "y"), None]],
    "booleans with missing": [[True, False, None, True, False], [True, True, False, None, False]],
    "perfect agreement": [["x", "y"], ["x", "y"]],
    "one category only": [["x", "x", "x"], ["x", "x", None]],
    "nothing pairable": [["x", None], [None, "y"]],
    "a unit coded once beside pairable ones": [["a", "b", "c"], ["a", "a", None]],
    "random, 3 coders, 10% missing": _random_matrix(1, 3, 200, ["p", "q", "r", "s"], 0.1),
    "random, 5 coders, 40% missing": _random_matrix(2, 5, 120, [1, 2, 3], 0.4),
}


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_alpha_equals_the_hand_written_definition(name):
    assert _same(ag.krippendorff_alpha_nominal(CASES[name]), oracle.alpha_nominal(CASES[name]))


@pytest.mark.parametrize("name", ["textbook, missing values", "strings", "tuples of labels, 'none'",
                                  "one category only", "random, 3 coders, 10% missing"])
def test_bootstrap_interval_equals_the_hand_written_one(name):
    fast = ag.bootstrap(ag.krippendorff_alpha_nominal, CASES[name], n_resamples=200, seed=3)
    slow = oracle.bootstrap(oracle.alpha_nominal, CASES[name], n_resamples=200, seed=3)
    assert fast.n_units == slow.n_units
    for a, b in [(fast.value, slow.value), (fast.low, slow.low), (fast.high, slow.high)]:
        assert _same(a, b)


def test_empty_matrix():
    assert math.isnan(ag.krippendorff_alpha_nominal([]))
    assert ag.alpha_bootstrap([], n_resamples=10).n_units == 0


def test_a_large_matrix_gives_the_hand_written_estimate():
    # 3,000 units x 3 coders: the size at which the hand-written bootstrap was ten times slower than this one
    matrix = _random_matrix(4, 3, 3000, ["a", "b", "c", "d"], 0.05)
    fast = ag.alpha_bootstrap(matrix, n_resamples=20, seed=0)
    slow = oracle.bootstrap(oracle.alpha_nominal, matrix, n_resamples=20, seed=0)
    assert fast.n_units == slow.n_units == 3000
    assert (fast.value, fast.low, fast.high) == pytest.approx((slow.value, slow.low, slow.high), abs=1e-12)
