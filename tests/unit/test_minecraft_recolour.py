"""A Builder who recolours a block within one logged step (between two kept world states the old colour is
removed and the new one placed at the same cell; in the action order the placement comes first): the scoring's
start structure of every later sample and the gold end of the sample keep the block in its new colour, as the
logged world states have it (the BAP repository's ``prev_config`` and ``end_built_config_raw``)."""
from __future__ import annotations

import json

import pytest

from corpora.minecraft.data.scoring import gold_end, initial_configs, replay_logged, sample_table
from data_access.corpora import load_path
from data_access.runs import load_run
from tests.unit.test_minecraft_bap import GAME, game_json, samples_of, write_corpus

RED, BLUE = {(0, 1, 0): "red", (1, 1, 0): "red"}, {(0, 1, 0): "blue", (1, 1, 0): "red"}
# (ms, event, new chat line or None, blocks after the state: cell -> colour)
STATES = [
    (0, "chat", "<Builder> Mission has started.", {}),
    (9000, "chat", "<Architect> two red blocks side by side", {}),
    (12000, "putdown", None, {(0, 1, 0): "red"}),
    (15000, "putdown", None, RED),
    (18000, "chat", "<Architect> make the first one blue", RED),
    (21000, "putdown", None, BLUE),  # the recolour: one kept state, both of its actions
    (24000, "chat", "<Architect> now a green one on top of it", BLUE),
    (27000, "putdown", None, {**BLUE, (0, 2, 0): "green"}),
    (30000, "chat", "<Builder> done", {**BLUE, (0, 2, 0): "green"}),
]


def recolour_game() -> dict:
    game = game_json([(ms, event, line, list(blocks)) for ms, event, line, blocks in STATES])
    for state, (_ms, _event, _line, blocks) in zip(game["WorldStates"], STATES):
        for block in state["BlocksInGrid"]:
            cell = tuple(block["AbsoluteCoordinates"][axis] for axis in "XYZ")
            block["Type"] = f"cwc_minecraft_{blocks[cell]}_rn"
    return game


@pytest.fixture
def root(tmp_path):
    return write_corpus(tmp_path / "corpus", {GAME: recolour_game()})


@pytest.fixture
def corpus(root, tmp_path):
    return load_path("minecraft", root, cache_root=tmp_path / "cache")


def as_config(blocks: list[dict]) -> dict:
    return {(b["x"], b["y"], b["z"]): b["type"] for b in blocks}


def test_a_step_is_replayed_removals_first():
    config = {(0, 1, 0): "red"}
    replay_logged(config, [(5, "placement", 0, 1, 0, "blue"), (5, "removal", 0, 1, 0, "red"),
                           (6, "placement", 0, 2, 0, "green")])
    assert config == {(0, 1, 0): "blue", (0, 2, 0): "green"}
    # across steps the order holds: a block placed in one step and removed in the next is gone
    assert replay_logged({}, [(1, "placement", 3, 1, 3, "red"), (2, "removal", 3, 1, 3, "red")]) == {}


def test_the_corpus_logs_the_recolour_as_a_placement_then_a_removal(corpus):
    actions = corpus.frames["actions"]
    step = actions[actions["state_idx"] == 5].sort_values("seq")
    assert list(zip(step["kind"], step["color"])) == [("placement", "blue"), ("removal", "red")]


def test_start_and_gold_end_are_the_logged_world_states(root, corpus):
    logged = {s["sample_id"]: s for s in samples_of(root)}
    assert sorted(logged) == [2, 5, 7]
    samples = sample_table(corpus)
    starts = initial_configs(corpus, [(GAME, sample_id) for sample_id in logged])
    for sample_id, sample in logged.items():
        assert starts[(GAME, sample_id)] == as_config(sample["prev_config"]), sample_id
    assert starts[(GAME, 7)] == BLUE  # the block kept its new colour (the block was lost before)
    row = samples[samples["sample_id"] == 5].iloc[0]
    end = as_config(logged[5]["next_builder_actions"][-1]["built_config"])
    assert gold_end(starts[(GAME, 5)], row["gold"], row["gold_steps"]) == end == BLUE


def place(x, y, z, color):
    return {"action": "place", "x": x, "y": y, "z": z, "color": color}


def remove(x, y, z):
    return {"action": "remove", "x": x, "y": y, "z": z}


@pytest.mark.parametrize("actions, f1", [
    # the gold actions in the logged order: applied in order, the placement meets the red block -> net change
    # {remove red} against the gold {place blue, remove red}: P 1, R 1/2 (it scored 1.0 against the lost block)
    ([place(0, 1, 0, "blue"), remove(0, 1, 0)], 2 / 3),
    # the recolour predicted right (remove, then place): F1 1.0 (it scored 2/3)
    ([remove(0, 1, 0), place(0, 1, 0, "blue")], 1.0)])
def test_a_run_is_scored_against_the_logged_recolour(corpus, tmp_path, actions, f1):
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps({"game": GAME, "sample_id": 5, "actions": actions}) + "\n")
    samples = load_run(corpus, run, cache_root=tmp_path / "runs").frames["samples"]
    assert samples["f1"].tolist() == [pytest.approx(f1)]
    assert json.loads(samples["gold_end"].iloc[0]) == [[0, 1, 0, "blue"], [1, 1, 0, "red"]]


def test_a_run_after_the_recolour_starts_from_the_blue_block(corpus, tmp_path):
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps({"game": GAME, "sample_id": 7, "end_config": [
        {"x": 0, "y": 1, "z": 0, "color": "blue"}, {"x": 1, "y": 1, "z": 0, "color": "red"},
        {"x": 0, "y": 2, "z": 0, "color": "green"}]}) + "\n")
    samples = load_run(corpus, run, cache_root=tmp_path / "runs").frames["samples"]
    assert json.loads(samples["initial"].iloc[0]) == [[0, 1, 0, "blue"], [1, 1, 0, "red"]]
    assert samples[["tp", "fp", "fn"]].iloc[0].tolist() == [1, 0, 0]  # the green block, nothing else
