"""One definition of ranking agreement for A Game Of Sorts (corpora/gos/data/agreement.py): the replay's table
(this play against the board's other plays) and the outcomes page's per-board means agree, also when a
round was not fully ranked (a partial ranking is compared on the images it ranked)."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from corpora.gos.data import agreement
from corpora.gos.data import figures as outcomes
from corpora.gos.data.view import _comparison
from data_access.common import LoadedCorpus

# Board b: i1 and i3 ranked all four images, i2 only two before the round ended (a partial ranking).
RANKS = pd.DataFrame([
    ("b", "i1", "w", 1), ("b", "i1", "x", 2), ("b", "i1", "y", 3), ("b", "i1", "z", 4),
    ("b", "i2", "x", 1), ("b", "i2", "w", 2),
    ("b", "i3", "z", 1), ("b", "i3", "y", 2), ("b", "i3", "w", 3), ("b", "i3", "x", 4),
], columns=["board_id", "interaction_id", "image_id", "rank"])


def test_known_values_on_common_images():
    pairs = agreement.pairwise_agreement(RANKS).set_index(["interaction_a", "interaction_b"])
    # i1 vs i3: w,x,y,z ranked 1,2,3,4 against 3,4,2,1 → only (w, x) concordant, 5 of 6 pairs discordant.
    assert pairs.loc[("i1", "i3"), "kendall_tau"] == pytest.approx((1 - 5) / 6)
    # i1 vs i2 on {w, x}: w before x for i1, x before w for i2 → tau = rho = -1 on two common images.
    assert pairs.loc[("i1", "i2"), ["n_common", "kendall_tau", "spearman_rho"]].tolist() == [2, -1.0, -1.0]
    assert pairs.loc[("i2", "i3"), "kendall_tau"] == -1.0  # i2 ranks x before w, i3 w (3) before x (4)
    n, tau, rho = agreement.ranking_agreement({"a": 1}, {"a": 1, "b": 2})
    assert n == 1 and math.isnan(tau) and math.isnan(rho)  # fewer than two common images: no agreement


def test_the_outcomes_page_uses_the_same_definition():
    assert outcomes.board_agreement is agreement.board_agreement
    assert outcomes.rank_sums is agreement.rank_sums
    board = outcomes.board_agreement(RANKS).set_index("board_id").loc["b"]
    pairs = agreement.pairwise_agreement(RANKS)
    assert board["pairs"] == 3 and board["rankings"] == 2  # W needs complete rankings: i1 and i3
    assert board["mean_kendall_tau"] == pytest.approx(pairs["kendall_tau"].mean())
    assert board["mean_spearman_rho"] == pytest.approx(pairs["spearman_rho"].mean())


@pytest.mark.parametrize("play", ["i1", "i2", "i3"])
def test_the_replay_table_shows_the_pairwise_values(play):
    dialogs = pd.DataFrame({"dialog_id": ["i1", "i2", "i3"], "started_at": pd.to_datetime([1, 2, 3], unit="D", utc=True)})
    loaded = LoadedCorpus("gos", "test", True, {"ranks": RANKS, "dialogs": dialogs})
    _table, shown = _comparison(loaded, "b", play, str)
    pairs = agreement.pairwise_agreement(RANKS)
    for row in shown.itertuples(index=False):
        other = row[0][:2]
        pair = pairs[((pairs["interaction_a"] == play) & (pairs["interaction_b"] == other))
                     | ((pairs["interaction_a"] == other) & (pairs["interaction_b"] == play))].iloc[0]
        assert row[1] == pair["n_common"]
        assert row[2] == pytest.approx(round(pair["kendall_tau"], 3))
        assert row[3] == pytest.approx(round(pair["spearman_rho"], 3))
    assert len(shown) == 2


def test_rank_sums_count_the_plays_that_ranked_each_image():
    sums = agreement.rank_sums(RANKS).set_index("image_id")
    assert sums.loc["w", ["rank_sum", "plays"]].tolist() == [1 + 2 + 3, 3]
    assert sums.loc["y", ["rank_sum", "plays"]].tolist() == [3 + 2, 2]
    assert sums.loc["w", "mean_rank"] == 2.0


def test_the_chart_caption_gives_kendalls_w_by_its_value():
    # W of i1 and i3 by hand: rank sums w 4, x 6, y 5, z 5 (mean 5), S = 2, W = 12 S / (m² (n³ - n)) = 24 / 240
    assert agreement.board_agreement(RANKS).loc[0, "kendall_w"] == pytest.approx(0.1)
    chart = outcomes.board_agreement_chart(LoadedCorpus("gos", "test", True, {"ranks": RANKS.assign(round=1)}))
    assert "mean Kendall's W 0.10)" in chart.caption
