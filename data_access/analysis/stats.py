"""Small, dependency-free statistics behind the analysis charts (numpy and the standard library's
``statistics.NormalDist``; scipy is not a dependency).

Everything here is a pure function of arrays or frames, so each figure's numbers can be unit-tested on
samples whose answer is known: means with confidence intervals, paired differences, rank correlations
(Kendall's tau-b, Spearman's rho) and Kendall's coefficient of concordance.

Confidence intervals respect the range of what they describe (``INTERVALS``): a share (0/1 values) gets
the Wilson score interval, inside [0, 1]; a skewed or bounded mean (durations, counts, F1) the percentile
bootstrap of the mean (seeded, so a figure is the same on every load), inside the data's own range (so
never below 0 for counts); roughly normal means of large samples that may be negative (score changes) the
Student-t interval. A chart's caption names the interval it draws (``interval_note``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261130
INTERVALS = {
    "t": "Student-t interval of the mean",
    "bootstrap": f"percentile bootstrap of the mean ({BOOTSTRAP_RESAMPLES:,} resamples, fixed seed)",
    "wilson": "Wilson score interval of the share",
}
_SHORT = {"t": "CI", "bootstrap": "bootstrap CI", "wilson": "Wilson CI"}


@dataclass(frozen=True)
class MeanCI:
    """A sample mean with its two-sided confidence interval (low/high are NaN when n < 2)."""

    n: int
    mean: float
    low: float
    high: float
    sd: float
    method: str = "t"  # a key of INTERVALS

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
        return f"{number} (95% {_SHORT.get(self.method, 'CI')} {self.low:.{digits}f}–{self.high:.{digits}f}{count})"


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


def interval_note(method: str, confidence: float = CONFIDENCE) -> str:
    """The sentence a chart caption ends with to say which interval it draws."""
    return f"Intervals: {confidence:.0%} {INTERVALS[method]}."


def wilson_interval(successes: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a proportion ``successes / n``; always inside [0, 1] (NaN when n = 0)."""
    if n <= 0:
        return math.nan, math.nan
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_means(array: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """Means of ``resamples`` resamples (with replacement) of ``array``, from a seeded generator."""
    rng = np.random.default_rng(seed)
    n = int(array.size)
    values, counts = np.unique(array, return_counts=True)
    if values.size <= 512:  # few distinct values (counts, shares, scores on a grid): resample their frequencies
        return rng.multinomial(n, counts / n, size=resamples) @ values / n
    means = np.empty(resamples, dtype=float)
    step = max(1, min(resamples, 4_000_000 // max(n, 1)))  # bounded memory for big samples
    for start in range(0, resamples, step):
        count = min(step, resamples - start)
        means[start:start + count] = array[rng.integers(0, n, size=(count, n))].mean(axis=1)
    return means


def mean_ci(values: Iterable[float], confidence: float = CONFIDENCE, method: str = "t") -> MeanCI:
    """Mean with a confidence interval (``method`` a key of INTERVALS); NaNs are ignored.

    "wilson" expects 0/1 values (a share); "bootstrap" is the percentile bootstrap of the mean, which
    stays inside the range of the data; "t" the Student-t interval."""
    if method not in INTERVALS:
        raise ValueError(f"method must be one of {sorted(INTERVALS)}, not {method!r}")
    array = np.asarray(pd.Series(values, dtype="float64").dropna(), dtype=float)
    n = int(array.size)
    if n == 0:
        return MeanCI(0, math.nan, math.nan, math.nan, math.nan, method)
    mean = float(array.mean())
    if n < 2:
        return MeanCI(1, mean, math.nan, math.nan, math.nan, method)
    sd = float(array.std(ddof=1))
    if method == "wilson":
        low, high = wilson_interval(float(array.sum()), n, confidence)
    elif method == "bootstrap":
        if sd == 0:
            low = high = mean
        else:
            alpha = (1 - confidence) / 2
            low, high = (float(q) for q in np.quantile(bootstrap_means(array), [alpha, 1 - alpha]))
            low, high = min(low, mean), max(high, mean)
    else:
        half = t_critical(n, confidence) * sd / math.sqrt(n)
        low, high = mean - half, mean + half
    return MeanCI(n, mean, low, high, sd, method)


def grouped_mean_ci(frame: pd.DataFrame, by: str | Sequence[str], value: str,
                    confidence: float = CONFIDENCE, method: str = "t") -> pd.DataFrame:
    """Per group: n, mean, sd, low, high of ``value`` (NaNs ignored), one row per group, sorted by group;
    ``method`` as in ``mean_ci``."""
    keys = [by] if isinstance(by, str) else list(by)
    values = pd.to_numeric(frame[value], errors="coerce").astype("float64")
    grouped = values.groupby([frame[k] for k in keys], observed=True, sort=True)
    table = grouped.agg(["count", "mean", "std"]).rename(columns={"count": "n", "std": "sd"})
    table = table[table["n"] > 0]
    if method == "t":
        critical = table["n"].map(lambda n: t_critical(int(n), confidence)).astype("float64")
        half = critical * table["sd"] / np.sqrt(table["n"].astype("float64"))
        table["low"] = table["mean"] - half
        table["high"] = table["mean"] + half
    else:
        intervals = {}
        for group, part in grouped:
            if len(keys) == 1 and isinstance(group, tuple):
                group = group[0]
            intervals[group] = mean_ci(part, confidence, method)
        table["low"] = [intervals[group].low for group in table.index]
        table["high"] = [intervals[group].high for group in table.index]
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
