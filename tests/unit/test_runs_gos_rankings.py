"""A Game Of Sorts runs of rankings (issue 49: a person's play, or a model's ranking): a line per round with the images
in the order ranked, scored against the pair's final ranks of the round with the outcomes page's agreement (Spearman
rho, Kendall tau, exact positions), as units of their own split ``ranking``; a run of messages is scored exactly as
before (its frames and summary keys unchanged)."""
from __future__ import annotations

import json
import math

import pytest

from corpora.gos.data import scoring
from data_access.corpora import demo_path, load_path
from data_access.runs import load_run
from data_access.runs.leaderboard import leaderboard, unit_splits


@pytest.fixture(scope="module")
def gos():
    return load_path("gos", demo_path("gos"))


def _pair(loaded, interaction: str, round_number: int) -> list[str]:
    ranks = loaded.frames["ranks"]
    mine = ranks[(ranks["interaction_id"] == interaction) & (ranks["round"] == round_number)].sort_values("rank")
    return list(mine["image_id"])


def _run(loaded, tmp_path, lines: list[dict], name: str = "ranks"):
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return load_run(loaded, path, cache_root=tmp_path / "cache")


def test_rankings_are_scored_against_the_pairs_ranks(gos, tmp_path):
    interaction = str(gos.dialogs["dialog_id"].iloc[0])
    pair = _pair(gos, interaction, 1)
    second = _pair(gos, interaction, 2)
    run = _run(gos, tmp_path, [
        {"interaction_id": interaction, "round_number": 1, "ranking": pair},
        {"interaction_id": interaction, "round_number": 2, "ranking": list(reversed(second))},
        {"interaction_id": interaction, "round_number": 3, "ranking": _pair(gos, interaction, 3)[:1]},
        {"interaction_id": interaction, "round_number": 4, "ranking": ["not-on-the-board"]},
        {"interaction_id": interaction, "round_number": 9, "ranking": pair},
        {"interaction_id": interaction, "round_number": 1, "ranking": list(reversed(pair))},
        {"interaction_id": interaction, "round_number": 2, "ranking": ["a", "a"]},
    ])
    ranked = run.frames["rankings"].set_index("round_number")
    assert ranked.loc[1, "spearman_rho"] == pytest.approx(1.0) and ranked.loc[1, "exact_positions"] == len(pair)
    assert ranked.loc[2, "spearman_rho"] == pytest.approx(-1.0) and ranked.loc[2, "kendall_tau"] == pytest.approx(-1.0)
    assert math.isnan(ranked.loc[3, "spearman_rho"]) and ranked.loc[3, "exact_positions"] == 1
    assert set(ranked["split"]) == {"ranking"}
    reasons = sorted(s.reason for s in run.skipped)
    assert [reason.split(" ")[0:2] for reason in reasons] == [["a", "second"], ["ranking", "must"], ["ranks", "not-on-the-board,"]]
    assert run.unmatched["reason"].tolist() == ["the interaction has no round 9"]
    units = scoring.units(run)
    assert units["unit"].tolist() == [f"{interaction}|1|ranking", f"{interaction}|2|ranking"]  # round 3: one image, no unit
    assert units["value"].tolist() == pytest.approx([1.0, -1.0])
    assert scoring.units(run, humans=True)["value"].tolist() == [1.0, 1.0]
    assert scoring.dialog_scores(run)["score"].tolist() == pytest.approx([0.0])
    assert unit_splits(run, units).tolist() == ["ranking", "ranking"]
    summary = scoring.summary(run.frames, run.skipped, run.name)
    assert (summary["ranked_rounds"], summary["mean_spearman_rho"]) == (3, pytest.approx(0.0))
    assert len(scoring.slice_features(gos, run, units)) == len(units)
    worst = scoring.worst_steps(gos, run).set_index("unit")
    steps = gos.frames["steps"]
    made = steps[(steps["interaction_id"] == interaction) & (steps["round"] == 2) & (steps["produced_rank"] == 1)]
    assert worst.loc[f"{interaction}|2|ranking", "turn"] == int(made["step"].iloc[0])  # differs from the first rank on
    view = scoring.replay_view(gos, run, interaction, 1, round=1)
    assert view.ranking is not None and view.ranking["spearman_rho"] == pytest.approx(1.0) and view.boards


def test_a_run_of_messages_keeps_its_frames_and_summary(gos, tmp_path):
    messages = gos.frames["messages"]
    row = messages.iloc[0]
    run = _run(gos, tmp_path, [{"interaction_id": row["interaction_id"], "round_number": int(row["round"]),
                                "message_number": int(row["message_number"]), "image_ids": [None]}], "messages")
    assert set(run.frames) == {"messages", "unmatched"}
    assert set(scoring.summary(run.frames, run.skipped, run.name)) == {
        "run", "scored_messages", "unmatched", "exact_match", "precision", "recall", "f1", "skipped", "skipped_total"}


def test_the_leaderboard_ranks_rankings_in_their_own_split(gos, tmp_path):
    interaction = str(gos.dialogs["dialog_id"].iloc[0])
    good = _run(gos, tmp_path, [{"interaction_id": interaction, "round_number": r, "ranking": _pair(gos, interaction, r)}
                                for r in (1, 2)], "person:good")
    entries = leaderboard([good])
    assert [list(entry.splits) for entry in entries] == [["ranking"]]
    assert entries[0].splits["ranking"]["score"] == pytest.approx(1.0)
