"""Small, dependency-free statistics behind the analysis charts (numpy only; scipy is not a dependency).

Everything here is a pure function of arrays or frames, so each figure's numbers can be unit-tested on
samples whose answer is known: the mean with a Student-t confidence interval, paired differences,
rank correlations (Kendall's tau-b, Spearman's rho) and Kendall's coefficient of concordance.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

CONFIDENCE = 0.95


@dataclass(frozen=True)
class MeanCI:
    """A sample mean with its two-sided confidence interval (low/high are NaN when n < 2)."""

    n: int
    mean: float
    low: float
    high: float
    sd: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def describe(self, digits: int = 2, with_n: bool = True, sign: bool = False) -> str:
        """'4.23 (95% CI 4.21–4.25, n = 9,151)'; ``sign`` writes '+0.25' for changes."""
        if self.n == 0:
            return "no data"
        number = f"{self.mean:+.{digits}f}" if sign else f"{self.mean:.{digits}f}"
        count = f", n = {self.n:,}" if with_n else ""
        if math.isnan(self.low):
            return f"{number} (n = {self.n:,})" if with_n else number
        return f"{number} (95% CI {self.low:.{digits}f}–{self.high:.{digits}f}{count})"


# ---------------------------------------------------------------------------------------------------
# Student t quantiles from the regularised incomplete beta function


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz; Numerical Recipes §6.4)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def student_t_cdf(t: float, df: float) -> float:
    tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


@lru_cache(maxsize=4096)
def student_t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom (bisection on the exact CDF)."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError(f"need 0 < p < 1 and df > 0, got p={p}, df={df}")
    if p < 0.5:
        return -student_t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    # Upper tail 1 - p = 0.5 * I_x(df/2, 1/2) with x = df / (df + t^2); I_x grows with x, t shrinks with x.
    target = 2.0 * (1.0 - p)
    low, high = 0.0, 1.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if regularized_incomplete_beta(df / 2.0, 0.5, mid) < target:
            low = mid
        else:
            high = mid
        if high - low < 1e-15:
            break
    x = (low + high) / 2.0
    return math.sqrt(df * (1.0 - x) / x)


def t_critical(n: int, confidence: float = CONFIDENCE) -> float:
    """Two-sided critical value for the mean of n observations (NaN when n < 2)."""
    if n < 2:
        return math.nan
    return student_t_quantile(0.5 + confidence / 2.0, float(n - 1))


# ---------------------------------------------------------------------------------------------------
# Means and paired differences


def mean_ci(values: Iterable[float], confidence: float = CONFIDENCE) -> MeanCI:
    """Mean with a Student-t confidence interval; NaNs are ignored."""
    array = np.asarray(pd.Series(values, dtype="float64").dropna(), dtype=float)
    n = int(array.size)
    if n == 0:
        return MeanCI(0, math.nan, math.nan, math.nan, math.nan)
    mean = float(array.mean())
    if n < 2:
        return MeanCI(1, mean, math.nan, math.nan, math.nan)
    sd = float(array.std(ddof=1))
    half = t_critical(n, confidence) * sd / math.sqrt(n)
    return MeanCI(n, mean, mean - half, mean + half, sd)


def grouped_mean_ci(frame: pd.DataFrame, by: str | Sequence[str], value: str,
                    confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Per group: n, mean, sd, low, high of ``value`` (NaNs ignored), one row per group, sorted by group."""
    keys = [by] if isinstance(by, str) else list(by)
    values = pd.to_numeric(frame[value], errors="coerce").astype("float64")
    grouped = values.groupby([frame[k] for k in keys], observed=True, sort=True)
    table = grouped.agg(["count", "mean", "std"]).rename(columns={"count": "n", "std": "sd"})
    table = table[table["n"] > 0]
    critical = table["n"].map(lambda n: t_critical(int(n), confidence)).astype("float64")
    half = critical * table["sd"] / np.sqrt(table["n"].astype("float64"))
    table["low"] = table["mean"] - half
    table["high"] = table["mean"] + half
    table["n"] = table["n"].astype("int64")
    return table.reset_index()


@dataclass(frozen=True)
class PairedDifference:
    """Before/after means of paired observations and the mean change with its confidence interval."""

    n: int
    mean_before: float
    mean_after: float
    change: MeanCI


def paired_difference(before: Iterable[float], after: Iterable[float],
                      confidence: float = CONFIDENCE) -> PairedDifference:
    """Mean change after − before over the pairs where both values are known."""
    pairs = pd.DataFrame({"before": pd.Series(before, dtype="float64").to_numpy(),
                          "after": pd.Series(after, dtype="float64").to_numpy()}).dropna()
    change = mean_ci(pairs["after"] - pairs["before"], confidence)
    n = len(pairs)
    return PairedDifference(n, float(pairs["before"].mean()) if n else math.nan,
                            float(pairs["after"].mean()) if n else math.nan, change)


# ---------------------------------------------------------------------------------------------------
# Rank statistics


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n, ties sharing the average of the ranks they span (as in Spearman's rho)."""
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        return np.empty(0)
    order = np.argsort(array, kind="mergesort")
    ordered = array[order]
    starts_group = np.r_[True, ordered[1:] != ordered[:-1]]
    group = np.cumsum(starts_group) - 1
    starts = np.flatnonzero(starts_group)
    ends = np.r_[starts[1:], array.size]
    average = (starts + ends - 1) / 2.0 + 1.0
    ranks = np.empty(array.size)
    ranks[order] = average[group]
    return ranks


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b (tie-corrected); NaN when either side is constant or fewer than 2 pairs."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError("x and y must have the same length")
    if a.size < 2:
        return math.nan
    upper = np.triu_indices(a.size, k=1)
    sign_a = np.sign(a[:, None] - a[None, :])[upper]
    sign_b = np.sign(b[:, None] - b[None, :])[upper]
    untied_a, untied_b = np.count_nonzero(sign_a), np.count_nonzero(sign_b)
    if untied_a == 0 or untied_b == 0:
        return math.nan
    return float(np.sum(sign_a * sign_b) / math.sqrt(untied_a * untied_b))


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson correlation of the average ranks; NaN when either side is constant."""
    a, b = average_ranks(x), average_ranks(y)
    if a.shape != b.shape:
        raise ValueError("x and y must have the same length")
    if a.size < 2:
        return math.nan
    a, b = a - a.mean(), b - b.mean()
    denominator = math.sqrt(float(np.sum(a * a) * np.sum(b * b)))
    return float(np.sum(a * b) / denominator) if denominator else math.nan


def pairwise_rank_agreement(rankings: np.ndarray) -> tuple[float, float, int]:
    """Mean pairwise Kendall tau and Spearman rho between the rows of a (raters × items) rank matrix.

    Returns (mean tau, mean rho, number of pairs)."""
    matrix = np.asarray(rankings, dtype=float)
    taus, rhos = [], []
    for i in range(matrix.shape[0]):
        for j in range(i + 1, matrix.shape[0]):
            taus.append(kendall_tau(matrix[i], matrix[j]))
            rhos.append(spearman_rho(matrix[i], matrix[j]))
    if not taus:
        return math.nan, math.nan, 0
    return float(np.nanmean(taus)), float(np.nanmean(rhos)), len(taus)


def kendall_w(rankings: np.ndarray) -> float:
    """Kendall's coefficient of concordance W of a complete (raters × items) rank matrix without ties:
    0 = no agreement, 1 = identical rankings."""
    matrix = np.asarray(rankings, dtype=float)
    raters, items = matrix.shape
    if raters < 2 or items < 2:
        return math.nan
    sums = matrix.sum(axis=0)
    spread = float(np.sum((sums - sums.mean()) ** 2))
    return 12.0 * spread / (raters ** 2 * (items ** 3 - items))
