"""Playing the Builder of a recorded game (``contract.PlayRules``; docs/play.md).

A step is one Builder Action Prediction sample: the recorded Architect's instructions (and the Builder's recorded
replies) up to the sample arrive, the structure is the one the human Builder had at that point (the sample's
initial structure), and the person places and removes blocks; "Done" sends their actions. A play is a BAP run
(docs/formats.md, "Model runs": one line per sample with its ``actions``), scored by this corpus's ``RunScoring``:
net-action precision, recall and F1 against the human Builder's actions, micro-averaged over the samples so far.
At the last step the person's final structure is set against the target too (block F1 at the best alignment, as
the game's outcome is computed).

A move is ``{"actions": [{"action": "place", "x", "y", "z", "color"} | {"action": "remove", "x", "y", "z"}]}`` in
game coordinates, each feasible in order on the sample's initial structure (no block on an occupied cell, none
taken from an empty one, every cell in the 11 x 9 x 11 build region).
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import orjson
import pandas as pd

from corpora.minecraft.data.blocks import COLOR_HEX, COLOR_IDS, COLORS, X_MAX, X_MIN, Y_MAX, Y_MIN, Z_MAX, Z_MIN, encode
from dialogue_dashboard.plugin import LoadedCorpus

ROLE = "Builder"
STEP_UNIT = "instruction"
SCORE_LABEL = "net-action F1 (micro, over the instructions so far)"
MAX_ACTIONS = 1_000  # one step's actions (the region holds 1,089 cells; a human sample has a few)
MAX_LINES = 400  # transcript lines sent with a step (the latest ones)
_KINDS = {"placement": "place", "removal": "remove"}


def _samples(loaded: LoadedCorpus, game: str) -> pd.DataFrame:
    samples = loaded.frames["bap_samples"]
    return samples[samples["game"] == game].sort_values("sample_id").reset_index(drop=True)


def playable(loaded: LoadedCorpus) -> list[str]:
    """Games with at least one BAP sample, in the corpus's order."""
    with_samples = set(loaded.frames["bap_samples"]["game"].astype(str))
    return [game for game in loaded.dialogs["dialog_id"].astype(str) if game in with_samples]


def seats(loaded: LoadedCorpus, dialog_id: str) -> list[str]:
    return [ROLE] if len(_samples(loaded, dialog_id)) else []


def step_count(loaded: LoadedCorpus, dialog_id: str, seat: str) -> int:
    return len(_samples(loaded, dialog_id)) if seat == ROLE else 0


def setup(loaded: LoadedCorpus, dialog_id: str, seat: str) -> dict:
    """The build region and the six colours."""
    return {"colors": {name: COLOR_HEX[name] for name in COLORS},
            "region": {"x": [X_MIN, X_MAX], "y": [Y_MIN, Y_MAX], "z": [Z_MIN, Z_MAX]}}


def _sample(loaded: LoadedCorpus, dialog_id: str, step: int) -> pd.Series:
    samples = _samples(loaded, dialog_id)
    if not 1 <= step <= len(samples):
        raise ValueError(f"{dialog_id} has no step {step} to play (it has {len(samples)})")
    return samples.iloc[step - 1]


def initial_structure(loaded: LoadedCorpus, dialog_id: str, step: int) -> dict[tuple[int, int, int], str]:
    """The structure the human Builder had before the step's sample (the sample's initial structure, as scored)."""
    from corpora.minecraft.data.scoring import initial_configs

    sample_id = int(_sample(loaded, dialog_id, step)["sample_id"])
    return initial_configs(loaded, [(dialog_id, sample_id)])[(dialog_id, sample_id)]


def step_view(loaded: LoadedCorpus, dialog_id: str, seat: str, step: int, moves: Sequence[Any]) -> dict:
    """The dialog up to the step's sample (the lines since the step before marked new), the structure it starts
    from, and the human Builder's actions of the step before."""
    samples = _samples(loaded, dialog_id)
    done = step > len(samples)
    sample = samples.iloc[min(step, len(samples)) - 1]
    turn = int(sample["turn"]) if not done else 10 ** 9
    since = int(samples.iloc[step - 2]["turn"]) if 1 < step <= len(samples) + 1 else 0
    utterances = loaded.utterances
    mine = utterances[(utterances["dialog_id"] == dialog_id) & (utterances["turn"] <= turn)].sort_values("turn")
    lines = [{"turn": int(t), "role": str(role), "text": str(text), "new": bool(t > since)}
             for t, role, text in zip(mine["turn"], mine["role"], mine["text"])][-MAX_LINES:]
    if done:  # the play is over: the person's last structure (the last sample's, after their actions)
        from corpora.minecraft.data.scoring import apply_actions

        last = moves[-1]["actions"] if moves else []
        structure, _ = apply_actions(initial_structure(loaded, dialog_id, len(samples)),
                                     [("placement" if a["action"] == "place" else "removal", a["x"], a["y"], a["z"],
                                       a.get("color")) for a in last])
    else:
        structure = initial_structure(loaded, dialog_id, step)
    start = sorted([x, y, z, c] for (x, y, z), c in structure.items())
    view = {"step": step, "lines": lines, "start": start,
            "sample_id": None if done else int(sample["sample_id"])}
    if step > 1:
        view["human_before"] = human_move(loaded, dialog_id, seat, step - 1)
    return view


def _action(raw: Any, number: int) -> dict:
    where = f"action {number}"
    if not isinstance(raw, dict):
        raise ValueError(f"{where} is not an object")
    kind = raw.get("action")
    if kind not in ("place", "remove"):
        raise ValueError(f"{where}: action must be place or remove")
    cell = []
    for axis, low, high in (("x", X_MIN, X_MAX), ("y", Y_MIN, Y_MAX), ("z", Z_MIN, Z_MAX)):
        value = raw.get(axis)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"{where}: {axis} must be a whole number from {low} to {high}")
        cell.append(value)
    action = {"action": kind, "x": cell[0], "y": cell[1], "z": cell[2]}
    if kind == "place":
        if raw.get("color") not in COLORS:
            raise ValueError(f"{where}: color must be one of {', '.join(COLORS)}")
        action["color"] = raw["color"]
    return action


def checked_move(loaded: LoadedCorpus, dialog_id: str, seat: str, step: int, move: Any, earlier: Sequence[Any]) -> dict:
    """``{"actions": [...]}``, each action feasible in order on the step's initial structure."""
    if seat != ROLE:
        raise ValueError(f"{dialog_id} is played as the {ROLE}, not {seat!r}")
    actions = move.get("actions") if isinstance(move, dict) else None
    if not isinstance(actions, list):
        raise ValueError("the move must be {\"actions\": [...]}")
    if len(actions) > MAX_ACTIONS:
        raise ValueError(f"at most {MAX_ACTIONS} actions a step; {len(actions)} were sent")
    structure = initial_structure(loaded, dialog_id, step)
    checked = []
    for number, raw in enumerate(actions, start=1):
        action = _action(raw, number)
        cell = (action["x"], action["y"], action["z"])
        if action["action"] == "place":
            if cell in structure:
                raise ValueError(f"action {number}: a block is already at {cell}")
            structure[cell] = action["color"]
        else:
            if cell not in structure:
                raise ValueError(f"action {number}: there is no block at {cell} to remove")
            del structure[cell]
        checked.append(action)
    return {"actions": checked}


def run_lines(loaded: LoadedCorpus, dialog_id: str, seat: str, moves: Sequence[Any]) -> list[dict]:
    """One BAP run line per step played: the game, the sample and the person's actions."""
    samples = _samples(loaded, dialog_id)
    return [{"game": dialog_id, "sample_id": int(samples.iloc[index]["sample_id"]), "actions": list(move["actions"])}
            for index, move in enumerate(moves)]


def human_move(loaded: LoadedCorpus, dialog_id: str, seat: str, step: int) -> dict:
    """The human Builder's actions of the step's sample, each logged step's removals before its placements (as the
    logged world states have them), so that they can be made one after the other."""
    decoded = orjson.loads(_sample(loaded, dialog_id, step)["next_actions"])
    order = sorted(range(len(decoded)), key=lambda i: (int(decoded[i][5]), decoded[i][0] != "pickup", i))
    actions = []
    for i in order:
        kind, x, y, z, color = decoded[i][:5]
        action = {"action": "place" if kind == "putdown" else "remove", "x": int(x), "y": int(y), "z": int(z)}
        if kind == "putdown":
            action["color"] = str(color)
        actions.append(action)
    return {"actions": actions}


def _target_keys(loaded: LoadedCorpus, dialog_id: str) -> Optional[list[int]]:
    dialogs = loaded.dialogs
    config = dialogs.loc[dialogs["dialog_id"] == dialog_id, "config"]
    if config.empty:
        return None
    gold = loaded.frames["gold"]
    mine = gold[gold["config"] == str(config.iloc[0])]
    if mine.empty:
        return None
    return [encode(int(x), int(y), int(z), COLOR_IDS[c]) for x, y, z, c in zip(mine["x"], mine["y"], mine["z"], mine["color"])]


def final_f1(loaded: LoadedCorpus, dialog_id: str, structure: dict) -> float:
    """Block F1 of ``structure`` against the game's target at the best alignment (NaN without a target)."""
    from corpora.minecraft.data.blocks import best_alignment

    target = _target_keys(loaded, dialog_id)
    if target is None:
        return math.nan
    built = [encode(x, y, z, COLOR_IDS[c]) for (x, y, z), c in structure.items()]
    return best_alignment(built, target).f1


def step_figures(loaded: LoadedCorpus, run, dialog_id: str, seat: str, step: int) -> list[tuple[str, float, float]]:
    """Net-action F1 over the instructions so far (the run's statistic), and this instruction's F1, precision and
    recall (the human Builder's actions are the gold: 1); at the last step the final structure against the target."""
    from corpora.minecraft.data.blocks import config_from_json
    from dialogue_dashboard.plugin import prf

    samples = run.frames["samples"]
    mine = samples[samples["game"] == dialog_id]
    sample_id = int(_sample(loaded, dialog_id, step)["sample_id"])
    this = mine[mine["sample_id"] == sample_id]
    micro = prf(int(mine["tp"].sum()), int(mine["fp"].sum()), int(mine["fn"].sum()))[2]
    figures = [("net-action F1 so far", micro, 1.0)]
    if len(this):
        row = this.iloc[0]
        figures += [("net-action F1 of this instruction", float(row["f1"]), 1.0),
                    ("precision", float(row["precision"]), 1.0), ("recall", float(row["recall"]), 1.0)]
        if step == step_count(loaded, dialog_id, seat):  # the person's structure and the human's, after the last sample
            figures.append(("final structure against the target (block F1)",
                            final_f1(loaded, dialog_id, config_from_json(str(row["predicted_end"]))),
                            final_f1(loaded, dialog_id, config_from_json(str(row["gold_end"])))))
    return figures
