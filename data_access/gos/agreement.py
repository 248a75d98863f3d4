"""How much the three independent rankings of each board agree (the paper compares plays per scenario).

Rankings are permutations of the board's images, so Kendall's tau and Spearman's rho are computed on
the images both rankings contain, without tie corrections; numpy only."""
from __future__ import annotations

from itertools import combinations
from typing import Mapping

import numpy as np
import pandas as pd


def _common_ranks(a: Mapping[str, int], b: Mapping[str, int]) -> tuple[np.ndarray, np.ndarray]:
    common = sorted(set(a) & set(b))
    return np.array([a[i] for i in common], dtype=float), np.array([b[i] for i in common], dtype=float)


def kendall_tau(a: Mapping[str, int], b: Mapping[str, int]) -> float:
    """Kendall's tau-a between two rankings (image → rank) over their common images; NaN below 2."""
    x, y = _common_ranks(a, b)
    n = len(x)
    if n < 2:
        return float("nan")
    i, j = np.triu_indices(n, k=1)
    return float(np.sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])) / (n * (n - 1) / 2))


def spearman_rho(a: Mapping[str, int], b: Mapping[str, int]) -> float:
    """Spearman's rho between two rankings over their common images (re-ranked among themselves)."""
    x, y = _common_ranks(a, b)
    n = len(x)
    if n < 2:
        return float("nan")
    x, y = x.argsort().argsort().astype(float), y.argsort().argsort().astype(float)
    return float(1 - 6 * np.sum((x - y) ** 2) / (n * (n * n - 1)))


def pairwise_agreement(ranks: pd.DataFrame) -> pd.DataFrame:
    """One row per board and pair of interactions that played it: kendall_tau, spearman_rho, n_common.

    ``ranks`` is the ``ranks`` frame (or a slice of it)."""
    rows = []
    for board_id, board_ranks in ranks.groupby("board_id", sort=True):
        rankings = {iid: dict(zip(g["image_id"], g["rank"])) for iid, g in board_ranks.groupby("interaction_id", sort=True)}
        for first, second in combinations(sorted(rankings), 2):
            a, b = rankings[first], rankings[second]
            rows.append({"board_id": board_id, "interaction_a": first, "interaction_b": second,
                         "n_common": len(set(a) & set(b)), "kendall_tau": kendall_tau(a, b),
                         "spearman_rho": spearman_rho(a, b)})
    return pd.DataFrame(rows, columns=["board_id", "interaction_a", "interaction_b", "n_common", "kendall_tau", "spearman_rho"])


def rank_sums(ranks: pd.DataFrame) -> pd.DataFrame:
    """Per board and image: how often it was ranked, its rank sum (the paper's 3..27 scale) and mean rank."""
    grouped = ranks.groupby(["board_id", "image_id"], sort=True)["rank"]
    return grouped.agg(n_plays="count", rank_sum="sum", mean_rank="mean").reset_index()
