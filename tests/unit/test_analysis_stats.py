"""The statistics behind the analysis charts, on samples whose answers are known by hand or from tables."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from data_access.analysis.stats import (
    average_ranks,
    grouped_mean_ci,
    kendall_tau,
    kendall_w,
    mean_ci,
    paired_difference,
    pairwise_rank_agreement,
    spearman_rho,
    student_t_cdf,
    student_t_quantile,
    t_critical,
)


@pytest.mark.parametrize("df, expected", [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452), (1000, 1.9623)])
def test_student_t_quantiles_match_the_tables(df, expected):
    assert student_t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)


def test_t_quantile_is_symmetric_and_inverts_the_cdf():
    assert student_t_quantile(0.025, 7) == pytest.approx(-student_t_quantile(0.975, 7))
    assert student_t_cdf(student_t_quantile(0.9, 3.5), 3.5) == pytest.approx(0.9, abs=1e-10)
    assert student_t_quantile(0.5, 10) == 0.0
    with pytest.raises(ValueError):
        student_t_quantile(1.0, 3)


def test_t_critical_needs_two_observations():
    assert math.isnan(t_critical(1))
    assert t_critical(5) == pytest.approx(2.7764, abs=1e-4)


def test_mean_ci_of_one_to_five():
    ci = mean_ci([1, 2, 3, 4, 5])
    half = 2.776445 * math.sqrt(2.5) / math.sqrt(5)
    assert (ci.n, ci.mean, ci.sd) == (5, 3.0, pytest.approx(math.sqrt(2.5)))
    assert (ci.low, ci.high) == (pytest.approx(3 - half), pytest.approx(3 + half))
    assert ci.describe() == "3.00 (95% CI 1.04–4.96, n = 5)"


def test_mean_ci_ignores_nan_and_handles_tiny_samples():
    assert mean_ci([2.0, np.nan, 4.0]).n == 2
    single = mean_ci([7.0])
    assert single.mean == 7.0 and math.isnan(single.low)
    assert mean_ci([]).n == 0 and mean_ci([]).describe() == "no data"


def test_grouped_mean_ci_agrees_with_mean_ci_per_group():
    frame = pd.DataFrame({"g": [1, 1, 1, 2, 2, 3], "v": [1.0, 2.0, 3.0, 4.0, 6.0, 5.0]})
    table = grouped_mean_ci(frame, "g", "v").set_index("g")
    assert list(table["n"]) == [3, 2, 1]
    expected = mean_ci([4.0, 6.0])
    assert table.loc[2, "mean"] == 5.0
    assert table.loc[2, "low"] == pytest.approx(expected.low) and table.loc[2, "high"] == pytest.approx(expected.high)
    assert math.isnan(table.loc[3, "low"])


def test_grouped_mean_ci_by_two_keys():
    frame = pd.DataFrame({"a": ["x", "x", "y"], "b": [1, 1, 2], "v": [1.0, 3.0, 5.0]})
    table = grouped_mean_ci(frame, ["a", "b"], "v")
    assert table[["a", "b", "n", "mean"]].values.tolist() == [["x", 1, 2, 2.0], ["y", 2, 1, 5.0]]


def test_paired_difference_uses_complete_pairs_only():
    result = paired_difference([1.0, 2.0, 3.0, np.nan], [2.0, 4.0, 3.0, 9.0])
    assert result.n == 3
    assert (result.mean_before, result.mean_after) == (2.0, 3.0)
    assert result.change.mean == pytest.approx(1.0)
    assert result.change.sd == pytest.approx(1.0)


def test_average_ranks_share_ties():
    assert average_ranks([10, 20, 20, 30]).tolist() == [1.0, 2.5, 2.5, 4.0]
    assert average_ranks([3, 1, 2]).tolist() == [3.0, 1.0, 2.0]
    assert average_ranks([]).size == 0


def test_kendall_tau_of_known_rankings():
    assert kendall_tau([1, 2, 3, 4], [1, 2, 3, 4]) == 1.0
    assert kendall_tau([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert kendall_tau([1, 2, 3, 4], [1, 2, 4, 3]) == pytest.approx(4 / 6)  # 5 concordant, 1 discordant pair
    # tau-b with one tie in x: 5 concordant pairs over sqrt(5 * 6)
    assert kendall_tau([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(5 / math.sqrt(30))
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))


def test_spearman_rho_of_known_rankings():
    assert spearman_rho([1, 2, 3, 4], [1, 2, 4, 3]) == pytest.approx(0.8)  # 1 - 6 * 2 / (4 * 15)
    assert spearman_rho([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman_rho([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / math.sqrt(4.5 * 5))


def test_pairwise_agreement_and_kendall_w():
    identical = np.array([[1, 2, 3, 4]] * 3)
    assert pairwise_rank_agreement(identical) == (1.0, 1.0, 3)
    assert kendall_w(identical) == pytest.approx(1.0)
    opposed = np.array([[1, 2, 3, 4], [4, 3, 2, 1]])
    assert kendall_w(opposed) == pytest.approx(0.0)
    # W and the mean pairwise Spearman rho of m rankings are tied: mean rho = (m W - 1) / (m - 1).
    rankings = np.array([[1, 2, 3, 4, 5], [2, 1, 3, 5, 4], [1, 3, 2, 4, 5]])
    _tau, rho, pairs = pairwise_rank_agreement(rankings)
    assert pairs == 3
    assert rho == pytest.approx((3 * kendall_w(rankings) - 1) / 2)
