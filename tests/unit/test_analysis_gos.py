"""A Game Of Sorts statistics on hand-made frames, and the paper's durations on the real data."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from corpora.gos.data import figures as gos
from data_access.common import LoadedCorpus


def ranks_of(rows: list[tuple]) -> pd.DataFrame:
    """(interaction, round, board, [images in rank order], start ms) → the ranks frame, one rank every 10 s."""
    records = []
    for interaction, round_number, board, images, start in rows:
        for rank, image in enumerate(images, start=1):
            records.append({"interaction_id": interaction, "round": round_number, "board_id": board,
                            "rank": rank, "image_id": image, "timestamp": start + rank * 10_000,
                            "round_time_s": rank * 10.0})
    return pd.DataFrame(records)


BOARD_RANKS = ranks_of([
    ("i1", 1, "b1", ["a", "b", "c"], 0),
    ("i2", 2, "b1", ["a", "b", "c"], 0),
    ("i3", 1, "b1", ["c", "b", "a"], 0),
    ("i1", 2, "b2", ["x", "y", "z"], 100_000),
])


def test_board_agreement_of_known_rankings():
    table = gos.board_agreement(BOARD_RANKS).set_index("board_id")
    # pairs (i1, i2) tau 1, (i1, i3) and (i2, i3) tau -1 → mean -1/3; the same for rho here.
    assert table.loc["b1", "rankings"] == 3 and table.loc["b1", "pairs"] == 3
    assert table.loc["b1", "mean_kendall_tau"] == pytest.approx(-1 / 3)
    assert table.loc["b1", "mean_spearman_rho"] == pytest.approx(-1 / 3)
    # rank sums a 5, b 6, c 7 → W = 12 * 2 / (9 * 24)
    assert table.loc["b1", "kendall_w"] == pytest.approx(24 / 216)
    assert np.isnan(table.loc["b2", "mean_kendall_tau"])  # one ranking: nothing to compare


def test_rank_sums_and_consensus_position():
    sums = gos.rank_sums(BOARD_RANKS)
    b1 = sums[sums["board_id"] == "b1"].set_index("image_id")
    assert b1["rank_sum"].to_dict() == {"a": 5, "b": 6, "c": 7}
    assert b1["consensus_position"].to_dict() == {"a": 1, "b": 2, "c": 3}
    assert (b1["plays"] == 3).all()


def test_messages_referring_to_the_next_ranked_image():
    ranks = ranks_of([("i1", 1, "b1", ["a", "b", "c"], 0)])  # ranks at 10 s, 20 s, 30 s
    messages = pd.DataFrame({
        "interaction_id": "i1", "round": 1, "in_round": [True, True, True, True, False, True],
        "timestamp": [1_000, 2_000, 12_000, 15_000, 40_000, 25_000],
        "image_ids": [["a"], ["b", "c"], ["b"], [], ["c"], ["a", "c"]],
    })
    result = gos.next_rank_references(messages, ranks, board_size=3)
    # Message 3 has no images, 4 is after the round; the others refer before ranks 1, 1, 2, 3.
    assert result["message_index"].tolist() == [0, 1, 2, 5]
    assert result["next_rank"].tolist() == [1, 1, 2, 3]
    assert result["hit"].tolist() == [True, False, True, True]
    # chance = referred images still unranked / images still unranked
    assert result["chance"].tolist() == pytest.approx([1 / 3, 2 / 3, 1 / 2, 1.0])
    stats = gos.next_rank_reference_stats(result).set_index("round")
    assert stats.loc["all", "hit_rate"] == 0.75 and stats.loc["all", "messages"] == 4


def test_round_duration_and_lock_outcome_stats():
    rounds = pd.DataFrame({"interaction_id": ["i1", "i1", "i2", "i2"], "round": [1, 2, 1, 2],
                           "duration_s": [100.0, 50.0, 300.0, np.nan], "mismatches": [1, 0, 3, 2],
                           "manual_unlocks": [0, 0, 2, 1]})
    durations = gos.round_duration_stats(rounds).set_index("round")
    assert durations.loc[1, "mean"] == 200.0 and durations.loc[2, "n"] == 1
    outcomes = gos.lock_outcome_stats(rounds).set_index(["measure", "round"])
    assert outcomes.loc[("mismatches", 1), "mean"] == 2.0
    assert outcomes.loc[("manual_unlocks", 2), "mean"] == 0.5


def test_rank_time_stats_average_per_rank():
    stats = gos.rank_time_stats(BOARD_RANKS).set_index(["round", "rank"])
    assert stats.loc[(1, 2), "mean"] == 20.0 and stats.loc[(1, 2), "n"] == 2


def test_likert_counts_fill_missing_options():
    survey = pd.DataFrame({"question_id": ["q1", "q1", "q2", "q10"], "option_number": pd.array([5, 4, 5, pd.NA], dtype="Int64"),
                           "question": ["Worked well", "Worked well", "Understood", "Comments"],
                           "interaction_id": "i1", "username": ["u1", "u2", "u1", "u1"]})
    table = gos.likert_counts(survey).set_index(["question_id", "option_number"])
    assert len(table) == 15
    assert table.loc[("q1", 5), "answers"] == 1 and table.loc[("q1", 4), "answers"] == 1
    assert table.loc[("q3", 1), "answers"] == 0
    assert table.loc[("q2", 5), "option"] == "Strongly agree"


@pytest.mark.shared
def test_durations_and_references_on_the_real_data(shared_data, real_cache):
    from data_access.corpora import load_path

    loaded: LoadedCorpus = load_path("gos", shared_data / "game-of-sorts", cache_root=real_cache)
    means = gos.round_duration_stats(loaded.frames["rounds"]).set_index("round")["mean"].round()
    assert means.to_dict() == {1: 1130, 2: 639, 3: 594, 4: 534}
    assert round(loaded.dialogs["duration_s"].mean() / 60, 1) == 52.2
    assert "mean 52.2 min" in gos.interaction_length_chart(loaded).caption
    references = gos.next_rank_references(loaded.frames["messages"], loaded.frames["ranks"])
    messages = loaded.frames["messages"]
    assert int(references["hit"].sum()) == int(messages.loc[messages["in_round"], "refers_to_next_ranked"].sum())
    agreement = gos.board_agreement(loaded.frames["ranks"])
    assert len(agreement) == 20 and (agreement["rankings"] == 3).all()
    sums = gos.rank_sums(loaded.frames["ranks"])
    assert sums["rank_sum"].between(3, 27).all() and (sums.groupby("board_id")["rank_sum"].sum() == 135).all()
    likert = gos.likert_counts(loaded.frames["survey"]).set_index(["question_id", "option"])["answers"]
    assert (likert[("q1", "Strongly agree")], likert[("q1", "Agree")]) == (19, 11)
