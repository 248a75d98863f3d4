"""Agreement statistics on textbook examples with published answers, and on hand-computed span/referent cases."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from data_access.coding import agreement as ag

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the 4 observers x 12 units example with
# missing values: nominal alpha = 0.743.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]

# Fleiss (1971) as reproduced on Wikipedia ("Fleiss' kappa", worked example): 10 subjects, 14 raters,
# 5 categories; kappa = 0.210.
FLEISS_TABLE = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]


def test_cohen_kappa_textbook_example():
    # Wikipedia "Cohen's kappa" example: 50 proposals, yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> 0.4
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert ag.cohen_kappa(a, b) == pytest.approx(0.4)
    assert ag.cohen_kappa(a + [None], b + ["yes"]) == pytest.approx(0.4)  # a missing value drops the pair
    assert ag.cohen_kappa(["x", "y"], ["x", "y"]) == 1.0
    assert math.isnan(ag.cohen_kappa([], []))
    with pytest.raises(ValueError):
        ag.cohen_kappa([1], [1, 2])


def test_fleiss_kappa_textbook_example():
    assert ag.fleiss_kappa_from_counts(FLEISS_TABLE) == pytest.approx(0.2099, abs=5e-4)
    # the same data as a 14 x 10 reliability matrix gives the same value
    matrix = [[None] * 10 for _ in range(14)]
    for unit, counts in enumerate(FLEISS_TABLE):
        values = [c for c, n in enumerate(counts) for _ in range(n)]
        for rater, value in enumerate(values):
            matrix[rater][unit] = value
    assert ag.fleiss_kappa(matrix) == pytest.approx(ag.fleiss_kappa_from_counts(FLEISS_TABLE))
    with pytest.raises(ValueError):
        ag.fleiss_kappa_from_counts([[1, 1], [3, 0]])


def test_krippendorff_alpha_nominal_with_missing_data():
    assert ag.krippendorff_alpha_nominal(KRIPPENDORFF_2011) == pytest.approx(0.743, abs=5e-4)
    # Krippendorff (2011), binary data, two observers, ten units: alpha = 0.095
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert ag.krippendorff_alpha_nominal([a, b]) == pytest.approx(0.095, abs=5e-4)
    assert ag.krippendorff_alpha_nominal([["x", "y"], ["x", "y"]]) == 1.0
    assert math.isnan(ag.krippendorff_alpha_nominal([["x", None], [None, "y"]]))  # nothing pairable


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    first = ag.bootstrap(ag.krippendorff_alpha_nominal, KRIPPENDORFF_2011, n_resamples=300, seed=7)
    again = ag.bootstrap(ag.krippendorff_alpha_nominal, KRIPPENDORFF_2011, n_resamples=300, seed=7)
    other = ag.bootstrap(ag.krippendorff_alpha_nominal, KRIPPENDORFF_2011, n_resamples=300, seed=8)
    assert first == again and first != other
    assert first.low < first.value < first.high <= 1.0 and first.n_units == 12
    perfect = ag.bootstrap(ag.krippendorff_alpha_nominal, [["a", "b", "a"], ["a", "b", "a"]], n_resamples=50)
    assert (perfect.value, perfect.high) == (1.0, 1.0)


def test_span_agreement_exact_and_overlap():
    u = ("gos", "g", 1, 2, 0)
    first = {(u, 0, 9, "ref"), (u, 20, 30, "ref"), (u, 40, 45, "ref")}
    second = {(u, 0, 9, "ref"), (u, 22, 30, "ref"), (u, 40, 45, "other")}
    exact = ag.span_agreement(first, second)
    assert (exact.matched, exact.only_first, exact.only_second) == (1, 2, 2)
    assert exact.f1 == pytest.approx(2 / 6)
    overlap = ag.span_agreement(first, second, mode="overlap")
    assert (overlap.matched, overlap.only_first, overlap.only_second) == (2, 1, 1)
    assert overlap.f1 == pytest.approx(4 / 6)
    strict = ag.span_agreement(first, second, mode="overlap", min_overlap=0.9)  # 8/10 shared: not enough
    assert strict.matched == 1
    # one-to-one: one long span does not match two short ones
    assert ag.span_agreement({(u, 0, 10, "r")}, {(u, 0, 4, "r"), (u, 5, 10, "r")}, mode="overlap").matched == 1


def test_referent_agreement_same_set_and_jaccard():
    result = ag.referent_agreement({"a": {"i1", "i2"}, "b": {"i3"}, "c": {"i4"}}, {"a": {"i2", "i1"}, "b": {"i4"}})
    assert result == {"items": 2, "same_set": 0.5, "mean_jaccard": 0.5}


def _frame(rows):
    return pd.DataFrame(rows, columns=["corpus", "dialog_id", "round", "turn", "coder", "label"])


def test_agreement_table_per_label_and_overall():
    rows = []
    labels_a = ["CR", "CR", "ack", "ack", "CR", "ack"]
    labels_b = ["CR", "ack", "ack", "ack", "CR", "ack"]
    for turn, (a, b) in enumerate(zip(labels_a, labels_b), 1):
        rows += [("codraw", "d", None, turn, "ann", a), ("codraw", "d", None, turn, "bo", b)]
    table = ag.agreement_table(_frame(rows), ["ann", "bo"], n_resamples=100).set_index("label")
    assert table.loc["(overall)", "units"] == 6
    expected = ag.cohen_kappa(labels_a, labels_b)
    assert table.loc["(overall)", "cohen_kappa"] == pytest.approx(expected)
    assert table.loc["CR", "cohen_kappa"] == pytest.approx(ag.cohen_kappa([x == "CR" for x in labels_a],
                                                                          [x == "CR" for x in labels_b]))
    assert table.loc["(overall)", "percent_agreement"] == pytest.approx(5 / 6)
    assert table.loc["(overall)", "alpha_low"] <= table.loc["(overall)", "alpha"] <= table.loc["(overall)", "alpha_high"]


def test_reliability_matrix_marks_uncoded_dialogs_missing():
    rows = [("codraw", "d1", None, 1, "ann", "CR"), ("codraw", "d1", None, 2, "bo", "CR"),
            ("codraw", "d2", None, 1, "ann", "CR")]
    matrix, units = ag.reliability_matrix(_frame(rows), ["ann", "bo"])
    assert units == [("codraw", "d1", None, 1), ("codraw", "d1", None, 2), ("codraw", "d2", None, 1)]
    # bo coded d1 (so d1 turn 1 without a label from bo is "none"), but never opened d2 (missing)
    assert matrix == [[("CR",), ("none",), ("CR",)], [("none",), ("CR",), None]]


def test_referent_agreement_over_overlap_matched_spans():
    from data_access.coding.compare import span_pairs

    rows = [("gos", "g", 1, 2, 0, 3, 51, "mention", ["img1"], "ann"),
            ("gos", "g", 1, 2, 0, 7, 51, "mention", ["img1"], "bo"),
            ("gos", "g", 1, 5, 0, 0, 9, "mention", ["img2", "img3"], "ann"),
            ("gos", "g", 1, 5, 0, 0, 9, "mention", ["img2"], "bo")]
    frame = pd.DataFrame(rows, columns=["corpus", "dialog_id", "round", "turn", "utterance", "start", "end", "label",
                                        "referents", "coder"])
    row = span_pairs(frame, ["ann", "bo"]).iloc[0]
    assert (row["exact_matched"], row["overlap_matched"]) == (1, 2)
    assert row["referent_items"] == 2 and row["same_referents"] == 0.5
    assert row["referent_jaccard"] == pytest.approx((1 + 0.5) / 2)


def test_overlap_matching_pairs_nested_spans_with_their_closest_counterpart():
    u = ("gos", "g", 1, 3, 0)
    result = ag.span_agreement({(u, 0, 7, "m")}, {(u, 0, 20, "m"), (u, 0, 7, "m"), (u, 11, 20, "m")}, mode="overlap")
    assert result.pairs == (((u, 0, 7, "m"), (u, 0, 7, "m")),)
