"""The statistics every corpus's run scoring shares (corpus-free): a metric-table row from a mean and its
interval, micro P / R / F1 intervals by bootstrap, and the bins of the slice finder's numeric features. The Runs
page's statistics over these rows are in ``runs.analysis``."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..analysis.stats import MeanCI

HUMANS = "humans"
BOOTSTRAP_SAMPLES = 2000


def bootstrap_micro(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0):
    """Percentile 95 % intervals of micro P, R, F1 over units resampled with replacement."""
    n = len(tp)
    if n < 2:
        return [(math.nan, math.nan)] * 3
    rng = np.random.default_rng(seed)
    stats = []
    for start in range(0, samples, 250):
        idx = rng.integers(0, n, size=(min(250, samples - start), n))
        t, p, f = tp[idx].sum(1), fp[idx].sum(1), fn[idx].sum(1)
        precision = np.divide(t, t + p, out=np.zeros(len(t)), where=(t + p) > 0)
        recall = np.divide(t, t + f, out=np.zeros(len(t)), where=(t + f) > 0)
        f1 = np.divide(2 * precision * recall, precision + recall, out=np.zeros(len(t)), where=(precision + recall) > 0)
        stats.append(np.stack([precision, recall, f1], axis=1))
    values = np.concatenate(stats)
    return [tuple(np.percentile(values[:, k], [2.5, 97.5])) for k in range(3)]


def metric_row(run: str, split: str, metric: str, ci: MeanCI) -> tuple:
    """One row of the metric table (``METRIC_COLUMNS``) from a mean and its interval."""
    return (run, split, metric, ci.n, ci.mean, ci.low, ci.high)


def bins(values: pd.Series, edges: list[int], unit: str = "") -> pd.Series:
    labels = []
    for low, high in zip(edges[:-1], edges[1:]):
        labels.append(f"{low}{unit}" if high - low == 1 else (f"{low}+{unit}" if high >= 10 ** 6 else f"{low}–{high - 1}{unit}"))
    return pd.cut(values.astype(float), bins=[e - 0.5 for e in edges], labels=labels).astype(str)
