"""How much the independent rankings of a board agree: the one definition used by the replay (this play
against the board's other plays) and by the Game Of Sorts outcomes page (per board, mean over all pairs).

Definitions (one place, ``data_access.analysis.stats`` does the arithmetic):

* Two rankings (image → rank) are compared on the images **both** ranked. A round that was not fully
  ranked (a *partial ranking*) is compared on the images it did rank; with fewer than two images in common
  the pair has no agreement (NaN) and is left out of means.
* **Kendall's tau-b** and **Spearman's rho** (Pearson correlation of average ranks) on those common images.
  The ranks of a Game Of Sorts board never tie, so tau-b equals tau-a here; tau-b is kept because it is the
  tie-corrected, widely used form (``scipy.stats.kendalltau``'s default) and stays right if a ranking ever
  ties. Spearman's rho re-ranks the common images among themselves, so a partial ranking is judged by the
  order it gives, not by the absolute rank numbers.
* **Kendall's W** needs every ranking over the same items, so it uses the complete rankings only.
* **Rank sums**: per board and image, the sum of its ranks over the plays that ranked it (3..27 with three
  complete plays of nine images), the number of such plays, the mean rank and the consensus position.
"""
from __future__ import annotations

import math
from itertools import combinations
from typing import Mapping

import numpy as np
import pandas as pd

from dialogue_dashboard.plugin import kendall_tau, kendall_w, spearman_rho

AGREEMENT_COLUMNS = ["board_id", "interaction_a", "interaction_b", "n_common", "kendall_tau", "spearman_rho"]


def ranking_agreement(a: Mapping[str, int], b: Mapping[str, int]) -> tuple[int, float, float]:
    """(images in common, Kendall tau-b, Spearman rho) of two rankings over the images both contain."""
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        return len(common), math.nan, math.nan
    x = [float(a[i]) for i in common]
    y = [float(b[i]) for i in common]
    return len(common), kendall_tau(x, y), spearman_rho(x, y)


def rankings(ranks: pd.DataFrame) -> dict[str, dict[str, dict[str, int]]]:
    """board_id → interaction_id → {image_id: rank}, from the ``ranks`` frame (or a slice of it)."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for (board_id, interaction_id), group in ranks.groupby(["board_id", "interaction_id"], sort=True):
        out.setdefault(board_id, {})[interaction_id] = dict(zip(group["image_id"], group["rank"].astype(int)))
    return out


def pairwise_agreement(ranks: pd.DataFrame) -> pd.DataFrame:
    """One row per board and pair of interactions that played it: n_common, kendall_tau, spearman_rho."""
    rows = []
    for board_id, plays in rankings(ranks).items():
        for first, second in combinations(sorted(plays), 2):
            n_common, tau, rho = ranking_agreement(plays[first], plays[second])
            rows.append({"board_id": board_id, "interaction_a": first, "interaction_b": second,
                         "n_common": n_common, "kendall_tau": tau, "spearman_rho": rho})
    return pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)


def rank_matrix(board_ranks: pd.DataFrame) -> pd.DataFrame:
    """One board's ranks as (interaction × image) matrix; only interactions that ranked every image."""
    matrix = board_ranks.pivot_table(index="interaction_id", columns="image_id", values="rank", aggfunc="first")
    return matrix.dropna(axis=0, how="any")


def board_agreement(ranks: pd.DataFrame) -> pd.DataFrame:
    """Per board: complete rankings, pairs with an agreement, the mean pairwise Kendall tau and Spearman rho
    (every pair of plays, partial rankings on their common images) and Kendall's W (complete rankings)."""
    pairs = pairwise_agreement(ranks)
    rows = []
    for board_id, group in ranks.groupby("board_id", sort=True):
        matrix = rank_matrix(group)
        mine = pairs[(pairs["board_id"] == board_id) & pairs["kendall_tau"].notna()]
        rows.append({
            "board_id": board_id, "rankings": len(matrix), "pairs": len(mine),
            "mean_kendall_tau": float(mine["kendall_tau"].mean()) if len(mine) else np.nan,
            "mean_spearman_rho": float(mine["spearman_rho"].mean()) if len(mine) else np.nan,
            "kendall_w": kendall_w(matrix.to_numpy()) if len(matrix) >= 2 else np.nan,
        })
    return pd.DataFrame(rows, columns=["board_id", "rankings", "pairs", "mean_kendall_tau", "mean_spearman_rho", "kendall_w"])


def rank_sums(ranks: pd.DataFrame) -> pd.DataFrame:
    """Per board and image: rank_sum over the plays that ranked it, plays, mean_rank and consensus_position
    (1 = lowest sum; ties share the better position)."""
    sums = ranks.groupby(["board_id", "image_id"], as_index=False).agg(
        rank_sum=("rank", "sum"), plays=("rank", "size"), mean_rank=("rank", "mean"))
    sums["consensus_position"] = sums.groupby("board_id")["rank_sum"].rank(method="min").astype("int64")
    return sums.sort_values(["board_id", "consensus_position", "image_id"], ignore_index=True)
