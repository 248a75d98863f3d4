"""The hand-written Krippendorff's alpha (nominal) and its bootstrap that data_access.coding.agreement used
before it called the ``krippendorff`` package: kept as the oracle the package's results are checked against.
Straight from the coincidence-matrix definition (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"),
in plain Python, so it is easy to read and slow (about 14 s for 3,000 units x 3 coders x 500 resamples)."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from data_access.coding.agreement import Estimate, _missing


def alpha_nominal(matrix) -> float:
    rows = [list(r) for r in matrix]
    if not rows:
        return float("nan")
    coincidence: Counter = Counter()
    for col in zip(*rows):
        values = [v for v in col if not _missing(v)]
        m = len(values)
        if m < 2:
            continue
        counts = Counter(values)
        for c, n_c in counts.items():
            for k, n_k in counts.items():
                pairs = n_c * (n_k - 1) if c == k else n_c * n_k
                if pairs:
                    coincidence[(c, k)] += pairs / (m - 1)
    n = sum(coincidence.values())
    if n <= 1:
        return float("nan")
    marginals: Counter = Counter()
    for (c, _), value in coincidence.items():
        marginals[c] += value
    observed = sum(v for (c, k), v in coincidence.items() if c != k)  # sum of o_ck over c != k
    chance_pairs = n * n - sum(v * v for v in marginals.values())  # sum of n_c * n_k over c != k
    if chance_pairs <= 0:
        return float("nan")
    return float(1 - (n - 1) * observed / chance_pairs)


def bootstrap(statistic, matrix, *, n_resamples: int = 1000, seed: int = 0, level: float = 0.95) -> Estimate:
    rows = [list(r) for r in matrix]
    n_units = len(rows[0]) if rows else 0
    if n_units == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    value = statistic(rows)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_resamples):
        picked = rng.integers(0, n_units, n_units)
        result = statistic([[row[i] for i in picked] for row in rows])
        if not math.isnan(result):
            draws.append(result)
    if not draws:
        return Estimate(value, float("nan"), float("nan"), n_units)
    tail = (1 - level) / 2
    low, high = np.quantile(draws, [tail, 1 - tail])
    return Estimate(float(value), float(low), float(high), n_units)
