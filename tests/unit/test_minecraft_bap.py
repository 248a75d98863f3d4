"""BAP sample derivation against FORMATS B.8's worked example (game B42-A12-C63-1523304955372), rebuilt
here as a small fixture from the state table in FORMATS B.3, plus the exception and region rules and export."""
from __future__ import annotations

import json

import numpy as np
import pytest

from corpora.minecraft.data.bap import export_jsonl, iter_bap_samples, sample_dicts
from corpora.minecraft.data.blocks import COLOR_IDS, encode
from corpora.minecraft.data.reader import discover, read_game

GAME = "B42-A12-C63-1523304955372"
TOWER = [(0, y, 1) for y in range(1, 6)]
# (ms, event, new chat line or None, blocks after the state) following the FORMATS B.3 table
STATES = [
    (0, "chat", "<Builder> Mission has started.", []),
    (9382, "chat", "<Architect> start with a blue tower 5 high", []),
    (13780, "chat", "<Builder> what should i do?", []),
    *[(20531 + 3000 * n, "putdown", None, TOWER[:n + 1]) for n in range(5)],
    (33777, "chat", "<Architect> knock out levels 2 and 4", TOWER),
    (45376, "pickup", None, [b for b in TOWER if b != (0, 2, 1)]),
    (47375, "pickup", None, [(0, 1, 1), (0, 3, 1), (0, 5, 1)]),
    (52000, "chat", "<Builder> good", [(0, 1, 1), (0, 3, 1), (0, 5, 1)]),
    (58000, "chat", "<Architect> connect the top two via 3 blocks on any side", [(0, 1, 1), (0, 3, 1), (0, 5, 1)]),
    (63000, "chat", "<Builder> what color", [(0, 1, 1), (0, 3, 1), (0, 5, 1)]),
    (70000, "chat", "<Architect> also blue", [(0, 1, 1), (0, 3, 1), (0, 5, 1)]),
    (80000, "putdown", None, [(0, 1, 1), (0, 3, 1), (0, 5, 1), (-1, 5, 1)]),
    (84720, "putdown", None, [(0, 1, 1), (0, 3, 1), (0, 5, 1), (-1, 5, 1), (-1, 4, 1)]),
    (90000, "putdown", None, [(0, 1, 1), (0, 3, 1), (0, 5, 1), (-1, 5, 1), (-1, 4, 1), (-1, 3, 1)]),
    (94434, "chat", "<Builder> like that?", [(0, 1, 1), (0, 3, 1), (0, 5, 1), (-1, 5, 1), (-1, 4, 1), (-1, 3, 1)]),
]
GOLD_XML = "".join(f'<DrawBlock type="cwcmod:cwc_minecraft_blue_rn" x="{x + 100}" y="{y}" z="{z + 100}"/>\n'
                   for x, y, z in [(1, 1, 0), (0, 3, 0), (1, 3, 0), (0, 4, 0), (0, 5, 0), (1, 5, 0)])


def game_json(states=STATES, glitch_after=None):
    chat, out = [], []
    for index, (ms, event, line, blocks) in enumerate(states):
        if line is not None:
            chat.append(line)
        position = {"X": 0.0, "Y": 1.0, "Z": 0.0, "Yaw": 0.0, "Pitch": 0.0} if index < 3 else \
            {"X": 0.5 * index, "Y": 1.0, "Z": -1.0, "Yaw": 10.0 * index, "Pitch": 20.0}
        out.append({"BuilderPosition": position, "ChatHistory": list(chat), "Timestamp": "2018-04-09 20:16:15",
                    "ScreenshotPath": f"{ms}-Builder-{event}.png", "BuilderInventory": [],
                    "BlocksInGrid": [{"AbsoluteCoordinates": {"X": x, "Y": y, "Z": z}, "PerspectiveCoordinates": None,
                                      "Type": "cwc_minecraft_blue_rn"} for x, y, z in blocks]})
        if glitch_after == index:
            out.append({**out[-1], "BuilderPosition": None, "BlocksInGrid": [], "BuilderInventory": None})
    return {"WorldStates": out, "NumFixedViewers": 4, "TimeElapsed": 119.2}


def write_corpus(root, games, splits=None):
    (root / "logs").mkdir(parents=True)
    (root / "logs" / "splits.json").write_text(json.dumps(splits or {"train": ["C63"], "val": [], "test": []}))
    (root / "gold-configurations").mkdir()
    (root / "gold-configurations" / "C63.xml").write_text(GOLD_XML)
    for game_id, content in games.items():
        folder = root / "logs" / "data-4-9" / "logs" / game_id
        folder.mkdir(parents=True)
        (folder / "postprocessed-observations.json").write_text(content if isinstance(content, str) else json.dumps(content))
    return root


def samples_of(root, **kwargs):
    return list(iter_bap_samples(root, "train", **kwargs))


def blue(blocks):
    return [{"x": x, "y": y, "z": z, "type": "blue"} for x, y, z in blocks]


def actions(kind, blocks):
    return [{"action_type": kind, "block": b, "weight": None} for b in blue(blocks)]


@pytest.fixture
def worked_example(tmp_path):
    return samples_of(write_corpus(tmp_path / "corpus", {GAME: game_json()}))


def test_the_worked_example_gives_samples_a_b_and_c(worked_example):
    assert [s["sample_id"] for s in worked_example] == [3, 9, 15]
    assert {s["orig_experiment_id"] for s in worked_example} == {GAME}
    assert {s["json_id"] for s in worked_example} == {0}
    assert not any(s["from_aug_data"] for s in worked_example)


def test_sample_a(worked_example):
    a = worked_example[0]
    assert a["prev_utterances"] == [
        {"speaker": "Builder", "utterance": ["<dialogue>"]},
        {"speaker": "Builder", "utterance": ["mission", "has", "started", "."]},
        {"speaker": "Architect", "utterance": ["start", "with", "a", "blue", "tower", "5", "high"]},
        {"speaker": "Builder", "utterance": ["what", "should", "i", "do", "?"]},
    ]
    assert a["builder_action_history"] == []
    assert [n["action"] for n in a["next_builder_actions"]] == actions("placement", TOWER)
    assert a["prev_config"] == [] and a["built_config"] == blue([(0, 1, 1)])
    assert a["prev_builder_position"] == {"x": 0.0, "y": 1.0, "z": 0.0, "yaw": 0.0, "pitch": 0.0}
    assert a["perspective_coordinates"].shape == (3, 11, 9, 11)
    # each next action carries its own configs and the history before it
    third = a["next_builder_actions"][2]
    assert third["built_config"] == blue(TOWER[:3]) and third["prev_config"] == blue(TOWER[:2])
    assert [h["block"]["y"] for h in third["action_history"]] == [1, 2]
    assert a["gold_config"][0] == {"x": 1, "y": 1, "z": 0, "type": "blue"}


def test_sample_b_and_c(worked_example):
    b, c = worked_example[1], worked_example[2]
    assert [n["action"] for n in b["next_builder_actions"]] == actions("removal", [(0, 2, 1), (0, 4, 1)])
    assert b["builder_action_history"] == [{"action_type": "placement", "block": blk, "weight": 1} for blk in blue(TOWER)]
    assert b["prev_config"] == blue(TOWER) and b["built_config"] == blue([(0, 1, 1), (0, 3, 1), (0, 4, 1), (0, 5, 1)])
    assert [n["action"] for n in c["next_builder_actions"]] == actions("placement", [(-1, 5, 1), (-1, 4, 1), (-1, 3, 1)])
    assert [h["weight"] for h in c["builder_action_history"]] == [1] * 5 + [0, 0]
    assert c["prev_utterances"][-1] == {"speaker": "Architect", "utterance": ["also", "blue"]}
    assert c["prev_utterances"][5] == {"speaker": "Builder", "utterance": ["<builder_putdown_blue>"]}
    assert c["prev_builder_position"]["yaw"] == 140.0  # the kept state just before the first action (14)


def test_a_glitch_state_is_dropped_before_indexing(tmp_path):
    root = write_corpus(tmp_path / "corpus", {GAME: game_json(glitch_after=5)})
    samples = samples_of(root)
    assert [s["sample_id"] for s in samples] == [3, 9, 15]
    assert len(samples[0]["next_builder_actions"]) == 5  # the structure does not vanish and come back


def test_samples_touching_blocks_outside_the_region_are_skipped(tmp_path):
    outside = [(ms, ev, line, blocks + [(7, 1, 1)] if 9 <= i <= 10 else blocks) for i, (ms, ev, line, blocks) in enumerate(STATES)]
    assert [s["sample_id"] for s in samples_of(write_corpus(tmp_path / "c", {GAME: game_json(outside)}))] == [3, 15]


def test_an_exception_skips_the_rest_of_the_game_like_the_repo(tmp_path):
    broken = list(STATES)
    broken[11] = (52000, "chat", "", broken[11][3])  # an empty chat line: the repo's split()[0] fails on it
    assert [s["sample_id"] for s in samples_of(write_corpus(tmp_path / "c", {GAME: game_json(broken)}))] == [3, 9]


def test_the_compact_frame_rows_agree_with_the_full_samples(tmp_path):
    from corpora.minecraft.data.bap import sample_rows

    root = write_corpus(tmp_path / "c", {GAME: game_json()})
    game = read_game(discover(root).games[0], "train")
    rows = sample_rows(game, 0)
    assert rows["sample_id"] == [3, 9, 15] and rows["turn"] == [2, 3, 7] and rows["n_next"] == [5, 2, 3]
    assert json.loads(rows["next_actions"][1]) == [["pickup", 0, 2, 1, "blue", 9], ["pickup", 0, 4, 1, "blue", 10]]


def test_export_writes_json_lines_with_the_documented_fields(tmp_path):
    root = write_corpus(tmp_path / "c", {GAME: game_json()})
    out = tmp_path / "train.jsonl"
    assert export_jsonl(root, "train", out) == 3
    first = json.loads(out.read_text().splitlines()[0])
    assert set(first) == {"builder_action_history", "next_builder_actions", "prev_utterances", "gold_config", "built_config",
                          "prev_config", "prev_builder_position", "from_aug_data", "json_id", "sample_id", "orig_experiment_id"}
    assert export_jsonl(root, "train", out, with_perspective=True) == 3
    with_grid = json.loads(out.read_text().splitlines()[0])
    assert np.asarray(with_grid["perspective_coordinates"]).shape == (3, 11, 9, 11)


def test_the_repo_temporal_block_order_keeps_old_blocks_first(tmp_path):
    states = [(0, "chat", "<Builder> Mission has started.", []), (1000, "chat", "<Architect> go", []),
              (2000, "putdown", None, [(0, 1, 0)]), (3000, "putdown", None, [(-3, 1, 0), (0, 1, 0)])]
    root = write_corpus(tmp_path / "c", {GAME: game_json(states)})
    game = read_game(discover(root).games[0], "train", temporal_order=True)
    assert game.keys[-1] == [encode(0, 1, 0, COLOR_IDS["blue"]), encode(-3, 1, 0, COLOR_IDS["blue"])]
    assert sample_dicts(game, [], 0, perspective=False)[0]["next_builder_actions"][1]["built_config"][0]["x"] == 0
