"""A measure on two groups, A against B (docs/slices.md, "The contrast builder"): the difference of the means (and
of the medians) with a 95% percentile bootstrap interval, a permutation p-value, an effect size and the counts.
Pure numpy; every draw from a seeded generator, so a figure is the same on every load.

**Independent groups** (``items`` None): each group is resampled with replacement on its own
(``BOOTSTRAP_RESAMPLES`` times) and the interval is the 2.5th and 97.5th percentiles of the difference of the
resampled means; the p-value is the share of ``PERMUTATIONS`` random relabellings of the pooled values (A's size
kept) whose difference of means is at least as far from 0 as the observed one, (1 + hits) / (1 + permutations),
two-sided; the effect size is Cohen's d (the difference over the pooled standard deviation).

**Paired** (``items``: the item each value belongs to, e.g. the board of an A Game Of Sorts round, the target
structure of a Minecraft game): each group's values are averaged per item, and only the items both groups have are
compared, by their differences d = mean_A(item) − mean_B(item): the difference is the mean of d, its interval the
percentile bootstrap of that mean over items, the p-value a sign-flip permutation test of d, the effect size d_z
(the mean of d over its standard deviation). ``mean_a`` and ``mean_b`` are then the means over those items.

Work is bounded: at most ``MAX_RESAMPLES`` resamples and permutations, drawn in chunks of at most ``CHUNK_VALUES``
values, and ``check`` (a slice's evaluation budget) is called between chunks and may raise to stop.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np
import pandas as pd

from ..analysis.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CONFIDENCE
from ..budgets import CONTRAST_MAX_RESAMPLES as MAX_RESAMPLES

PERMUTATIONS = 2000
CHUNK_VALUES = 4_000_000  # values drawn at once (16 MB of int32 indices)
JSON_KEYS = ("measure", "n_a", "n_b", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "p", "paired")


@dataclass(frozen=True)
class Contrast:
    """A measure on A against B (see the module's docstring); NaN where a figure cannot be had (a group without
    values; fewer than 2 values or pairs for an interval or a p-value)."""

    measure: str
    n_a: int  # values of A counted (paired: those of the items both groups have)
    n_b: int
    mean_a: float
    mean_b: float
    diff: float  # mean_a − mean_b (paired: the mean of the per-item differences)
    median_a: float
    median_b: float
    median_diff: float  # median_a − median_b (paired: the median of the per-item differences)
    ci_low: float
    ci_high: float
    p: float
    effect_size: float  # Cohen's d, or d_z when paired
    paired_by: Optional[str] = None  # the column the pairs are made by (None: independent groups)
    paired_label: str = ""  # what an item is called ("board")
    n_pairs: int = 0  # items both groups have (paired)
    resamples: int = BOOTSTRAP_RESAMPLES
    permutations: int = PERMUTATIONS
    note: str = ""  # why the groups were not paired, when they could have been

    @property
    def paired(self) -> bool:
        return self.paired_by is not None

    def as_json(self) -> dict:
        """Exactly the keys the ``contrast`` command prints (``JSON_KEYS``), NaN as null."""
        def plain(value):
            return None if isinstance(value, float) and not math.isfinite(value) else value
        return {key: plain(getattr(self, key)) for key in JSON_KEYS}

    def method(self) -> str:
        """How the figures were computed, in words (the page says it under them)."""
        if self.paired:
            return (f"Paired by {self.paired_label or self.paired_by}: each group's values averaged per "
                    f"{self.paired_label or self.paired_by}, and the {self.n_pairs:,} "
                    f"{self.paired_label or self.paired_by}s both groups have compared by their differences; "
                    f"{CONFIDENCE:.0%} percentile bootstrap of the mean difference over them ({self.resamples:,} "
                    f"resamples, fixed seed), sign-flip permutation p-value ({self.permutations:,} permutations), "
                    "effect size d_z (mean difference / its standard deviation).")
        return (f"Independent groups: {CONFIDENCE:.0%} percentile bootstrap of the difference of the means (each group "
                f"resampled on its own, {self.resamples:,} resamples, fixed seed), permutation p-value "
                f"({self.permutations:,} relabellings, two-sided), effect size Cohen's d (pooled standard deviation)."
                + (f" {self.note}" if self.note else ""))

    def describe(self, digits: int = 2) -> str:
        """'A − B = +0.31 (95% CI +0.12 to +0.50, p = 0.004, d = 0.21; A 4.52, n = 221; B 4.21, n = 9,772)'."""
        if not self.n_a or not self.n_b:
            return "no contrast: " + ("A" if not self.n_a else "B") + " has no value of the measure"
        interval = "" if math.isnan(self.ci_low) else f"95% CI {self.ci_low:+.{digits}f} to {self.ci_high:+.{digits}f}, "
        p = "" if math.isnan(self.p) else (f"p = {self.p:.3f}, " if self.p >= 0.001 else "p < 0.001, ")
        effect = "" if math.isnan(self.effect_size) else f"{'d_z' if self.paired else 'd'} = {self.effect_size:.2f}; "
        return (f"A − B = {self.diff:+.{digits}f} ({interval}{p}{effect}A {self.mean_a:.{digits}f}, n = {self.n_a:,}; "
                f"B {self.mean_b:.{digits}f}, n = {self.n_b:,})")


def contrast_frame(result: Contrast, a: str, b: str) -> pd.DataFrame:
    """The contrast as a table (the CSV and LaTeX exports): a row for A, for B and for A − B, with n, the mean (the
    difference's with its interval), the median, the p-value and the effect size."""
    nan = math.nan
    return pd.DataFrame({
        "group": ["A", "B", "A − B"],
        "slice": [a, b, "paired by " + (result.paired_label or str(result.paired_by)) if result.paired else "independent"],
        "n": pd.array([result.n_a, result.n_b, result.n_pairs if result.paired else pd.NA], dtype="Int64"),
        "mean": [result.mean_a, result.mean_b, result.diff],
        "low": [nan, nan, result.ci_low],
        "high": [nan, nan, result.ci_high],
        "median": [result.median_a, result.median_b, result.median_diff],
        "p": [nan, nan, result.p],
        "effect size": [nan, nan, result.effect_size],
    })


def _numbers(values) -> np.ndarray:
    return pd.to_numeric(pd.Series(np.asarray(values, dtype=object) if not isinstance(values, pd.Series) else values),
                         errors="coerce").astype("float64").to_numpy()


def _chunks(total: int, width: int) -> int:
    return max(1, min(total, CHUNK_VALUES // max(width, 1)))


def _bootstrap_mean(values: np.ndarray, resamples: int, rng: np.random.Generator,
                    check: Optional[Callable[[], None]]) -> np.ndarray:
    """Means of ``resamples`` resamples with replacement of ``values``."""
    n = len(values)
    # int32 indices are the very numbers int64 ones are (one 32-bit draw each below 2**31), in half the bytes.
    index_dtype = np.int32 if n < 2**31 else np.int64
    means = np.empty(resamples)
    step = _chunks(resamples, n)
    for start in range(0, resamples, step):
        if check is not None:
            check()
        count = min(step, resamples - start)
        means[start:start + count] = values[rng.integers(0, n, size=(count, n), dtype=index_dtype)].mean(axis=1)
    return means


def _permutation_p(a: np.ndarray, b: np.ndarray, permutations: int, rng: np.random.Generator,
                   check: Optional[Callable[[], None]]) -> float:
    """Two-sided permutation p-value of the difference of the means of ``a`` and ``b``."""
    pooled = np.concatenate([a, b])
    total, n_a, n_b = pooled.sum(), len(a), len(b)
    observed = abs(a.mean() - b.mean())
    smaller = min(n_a, n_b)
    hits = 0
    step = _chunks(permutations, len(pooled))
    for start in range(0, permutations, step):
        if check is not None:
            check()
        count = min(step, permutations - start)
        # The smaller group's values of each relabelling: the m smallest of fresh random keys (a random subset of
        # size m, drawn at the cost of a partial sort); the other group holds the rest.
        keys = rng.random((count, len(pooled)), dtype=np.float32)
        chosen = np.argpartition(keys, smaller - 1, axis=1)[:, :smaller]
        sum_small = pooled[chosen].sum(axis=1)
        sum_a = sum_small if n_a <= n_b else total - sum_small
        differences = sum_a / n_a - (total - sum_a) / n_b
        hits += int((np.abs(differences) >= observed - 1e-12 * max(1.0, observed)).sum())
    return (1 + hits) / (1 + permutations)


def _sign_flip_p(d: np.ndarray, permutations: int, rng: np.random.Generator,
                 check: Optional[Callable[[], None]]) -> float:
    """Two-sided sign-flip permutation p-value of the mean of the paired differences ``d``."""
    observed = abs(d.mean())
    hits = 0
    step = _chunks(permutations, len(d))
    for start in range(0, permutations, step):
        if check is not None:
            check()
        count = min(step, permutations - start)
        signs = rng.integers(0, 2, size=(count, len(d)), dtype=np.int8) * 2 - 1
        hits += int((np.abs((signs * d).mean(axis=1)) >= observed - 1e-12 * max(1.0, observed)).sum())
    return (1 + hits) / (1 + permutations)


def _interval(differences: np.ndarray, confidence: float) -> tuple[float, float]:
    alpha = (1 - confidence) / 2
    low, high = np.quantile(differences, [alpha, 1 - alpha])
    return float(low), float(high)


def _cohens_d(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < 2 or len(b) < 2:
        return math.nan
    pooled = ((len(a) - 1) * a.var(ddof=1) + (len(b) - 1) * b.var(ddof=1)) / (len(a) + len(b) - 2)
    return float((a.mean() - b.mean()) / math.sqrt(pooled)) if pooled > 0 else math.nan


def contrast(measure: str, a, b, *, items_a: Optional[Sequence] = None, items_b: Optional[Sequence] = None,
             paired_by: Optional[str] = None, paired_label: str = "", confidence: float = CONFIDENCE,
             resamples: int = BOOTSTRAP_RESAMPLES, permutations: int = PERMUTATIONS, seed: int = BOOTSTRAP_SEED,
             check: Optional[Callable[[], None]] = None, note: str = "") -> Contrast:
    """``measure``'s values ``a`` against ``b`` (NaNs left out); paired by item when ``items_a`` and ``items_b``
    (one item per value) are given (``paired_by`` names their column). At most ``MAX_RESAMPLES`` resamples and
    permutations (each array of them is held whole)."""
    for name, count in (("resamples", resamples), ("permutations", permutations)):
        if not 1 <= count <= MAX_RESAMPLES:
            raise ValueError(f"{name} must be between 1 and {MAX_RESAMPLES:,}; got {count:,}")
    a, b = _numbers(a), _numbers(b)
    rng = np.random.default_rng(seed)
    if items_a is not None and items_b is not None:
        return _paired(measure, a, b, items_a, items_b, paired_by or "item", paired_label, confidence, resamples,
                       permutations, rng, check)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    mean_a = float(a.mean()) if len(a) else math.nan
    mean_b = float(b.mean()) if len(b) else math.nan
    median_a = float(np.median(a)) if len(a) else math.nan
    median_b = float(np.median(b)) if len(b) else math.nan
    low = high = p = math.nan
    if len(a) >= 2 and len(b) >= 2:
        low, high = _interval(_bootstrap_mean(a, resamples, rng, check) - _bootstrap_mean(b, resamples, rng, check),
                              confidence)
        p = _permutation_p(a, b, permutations, rng, check)
    return Contrast(measure, len(a), len(b), mean_a, mean_b, mean_a - mean_b, median_a, median_b,
                    median_a - median_b, low, high, p, _cohens_d(a, b), resamples=resamples,
                    permutations=permutations, note=note)


def _paired(measure, a, b, items_a, items_b, paired_by, paired_label, confidence, resamples, permutations, rng,
            check) -> Contrast:
    frame_a = pd.DataFrame({"item": pd.Series(items_a, dtype=object).to_numpy(), "value": a}).dropna()
    frame_b = pd.DataFrame({"item": pd.Series(items_b, dtype=object).to_numpy(), "value": b}).dropna()
    per_a = frame_a.groupby("item", sort=True)["value"].mean()
    per_b = frame_b.groupby("item", sort=True)["value"].mean()
    shared = per_a.index.intersection(per_b.index)
    d = (per_a.reindex(shared) - per_b.reindex(shared)).to_numpy(dtype=float)
    n_a = int(frame_a["item"].isin(shared).sum())
    n_b = int(frame_b["item"].isin(shared).sum())
    mean_a = float(per_a.reindex(shared).mean()) if len(shared) else math.nan
    mean_b = float(per_b.reindex(shared).mean()) if len(shared) else math.nan
    low = high = p = effect = math.nan
    if len(d) >= 2:
        low, high = _interval(_bootstrap_mean(d, resamples, rng, check), confidence)
        p = _sign_flip_p(d, permutations, rng, check)
        sd = d.std(ddof=1)
        effect = float(d.mean() / sd) if sd > 0 else math.nan
    return Contrast(measure, n_a, n_b, mean_a, mean_b, float(d.mean()) if len(d) else math.nan,
                    float(per_a.reindex(shared).median()) if len(shared) else math.nan,
                    float(per_b.reindex(shared).median()) if len(shared) else math.nan,
                    float(np.median(d)) if len(d) else math.nan, low, high, p, effect, paired_by, paired_label,
                    len(shared), resamples, permutations)


__all__ = ["CHUNK_VALUES", "Contrast", "JSON_KEYS", "PERMUTATIONS", "contrast", "contrast_frame"]
