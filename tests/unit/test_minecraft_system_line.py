"""The system line "Mission has started." is never an utterance, wherever it occurs in a game's chat (in
game B34-A31-C108 of the released corpus it is not the first line); placements are counted from the empty
world, so blocks already in the first recorded state are placements before the first utterance."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from corpora.minecraft.data import build_frames, demo_source, summarize, write_demo
from corpora.minecraft.data.view import replay_step
from data_access.common import LoadedCorpus

ROOT = Path(__file__).resolve().parents[2]
GAME = "B1-A2-C1-1523304955000"
SYSTEM = "<Builder> Mission has started."


def _rewrite(folder: Path, edit) -> None:
    file = next(folder.glob(f"logs/*/logs/{GAME}/postprocessed-observations.json"))
    data = json.loads(file.read_text())
    edit(data["WorldStates"])
    file.write_text(json.dumps(data))


def _system_line_third(states) -> None:
    """Move the system line behind the first two utterances in every state's cumulative chat."""
    full = states[-1]["ChatHistory"]
    assert full[0] == SYSTEM
    reordered = full[1:3] + [SYSTEM] + full[3:]
    for state in states:
        state["ChatHistory"] = reordered[:len(state["ChatHistory"])]


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    plain = tmp_path_factory.mktemp("mc-plain")
    write_demo(plain)
    moved = tmp_path_factory.mktemp("mc-moved")
    write_demo(moved)
    _rewrite(moved, _system_line_third)
    return demo_source(plain), demo_source(moved)


def _game(frames, frame="dialogs"):
    table = frames[frame]
    column = "dialog_id" if frame in ("dialogs", "utterances") else "game"
    return table[table[column] == GAME]


def test_a_system_line_that_is_not_first_is_not_an_utterance(corpora):
    plain, _ = build_frames(corpora[0], lambda *a: None)
    moved, _ = build_frames(corpora[1], lambda *a: None)
    texts = _game(moved, "utterances")["text"].tolist()
    assert "Mission has started." not in texts
    assert texts == _game(plain, "utterances")["text"].tolist()
    assert _game(moved, "utterances")["turn"].tolist() == list(range(1, len(texts) + 1))
    for column in ("n_utterances", "n_steps", "architect_utterances", "placements"):
        assert _game(moved)[column].iloc[0] == _game(plain)[column].iloc[0], column
    # every action follows the same utterance as before; the states never count the system line
    assert _game(moved, "actions")["turn"].tolist() == _game(plain, "actions")["turn"].tolist()
    assert _game(moved, "states")["n_utterances"].max() == len(texts)


def test_the_summary_cli_counts_no_system_line(corpora, tmp_path):
    env = {"DIALOGUE_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    outputs = []
    for folder in corpora:
        result = subprocess.run([sys.executable, "-m", "data_access", "summary", "minecraft", str(folder)], cwd=ROOT,
                                env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        outputs.append(json.loads(result.stdout)["splits"])
    assert outputs[0] == outputs[1]


def test_blocks_in_the_first_recorded_state_are_placements(tmp_path):
    write_demo(tmp_path)

    def add_block(states):
        extra = {"PerspectiveCoordinates": {"X": 0, "Y": 0, "Z": 0}, "AbsoluteCoordinates": {"X": 5, "Y": 1, "Z": 5},
                 "Type": "cwc_minecraft_purple_rn"}
        for state in states:
            state["BlocksInGrid"] = [extra, *state["BlocksInGrid"]]

    before = _game(build_frames(demo_source(tmp_path), lambda *a: None)[0])
    _rewrite(tmp_path, add_block)
    frames, _ = build_frames(demo_source(tmp_path), lambda *a: None)
    after = _game(frames)
    assert after["placements"].iloc[0] == before["placements"].iloc[0] + 1
    first = _game(frames, "actions").iloc[0]
    assert (first["state_idx"], first["turn"], first["kind"], first["color"]) == (0, 0, "placement", "purple")
    loaded = LoadedCorpus("minecraft", str(tmp_path), True, frames, [])
    assert summarize(loaded)["splits"][after["split"].iloc[0]]["placements"] == after["placements"].iloc[0] + sum(
        int(g["placements"]) for _, g in frames["dialogs"][frames["dialogs"]["dialog_id"] != GAME].iterrows()
        if g["split"] == after["split"].iloc[0])
    assert (5, 1, 5, "purple") in replay_step(loaded, GAME, 1).blocks
