"""The replay view model of one Minecraft game at one step (utterance): small, picklable, computed from the
frames so that ``ui.cached.derived`` can cache it per (game, step).

Step k shows the build after the actions that follow utterance k (and precede utterance k+1), this step's
placements and removals, the Builder's position at the end of the step, the target aligned to the build
(best rotation/shift at this step, preferring the final build's alignment on ties so the target stays put),
block F1 to the target and, when the actions after utterance k form a BAP sample, its next actions.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np
import pandas as pd

from corpora.minecraft.data.blocks import COLOR_IDS, COLORS, Alignment, best_alignment, decode, decode_array, encode
from dialogue_dashboard.plugin import LoadedCorpus

if TYPE_CHECKING:
    from corpora.minecraft.data.render import IsometricFrame

Block = tuple[int, int, int, str]


@dataclass
class ReplayStep:
    dialog_id: str
    config: str
    split: str
    step: int  # = the message shown, from 1
    n_steps: int  # = the game's messages
    blocks: list[Block]  # the build after this step
    placed: list[Block]  # this step's placements (still standing at its end)
    removed: list[Block]  # this step's removals
    builder: Optional[tuple[float, float, float, float, float]]  # x, y, z, yaw, pitch
    gold_aligned: list[Block]  # the target in the build's coordinates
    gold_missing: list[Block]  # target blocks not (yet) built
    alignment: Optional[Alignment]
    f1: float
    utterances: pd.DataFrame  # all of this game's chat (turn, speaker, role, text, time_s)
    actions: pd.DataFrame  # this step's actions
    next_actions: Optional[pd.DataFrame] = None  # the BAP sample's target actions, when this step has one
    bap_sample_id: Optional[int] = None
    outcome_match: bool = False
    facts: dict = field(default_factory=dict)


def _key(block) -> int:
    return encode(int(block[0]), int(block[1]), int(block[2]), COLOR_IDS[block[3]])


def blocks_after_each_turn(actions: pd.DataFrame, n_steps: int) -> list[set[int]]:
    """Block keys after step k for k = 0..n_steps (index 0 = actions before the first utterance).

    One pass over the actions in turn order (stable, so a turn's actions keep their order); plain lists,
    not a pandas group per turn, which cost most of a replay step."""
    turns = actions["turn"].to_numpy()
    order = np.argsort(turns, kind="stable")
    columns = [actions[c].to_numpy()[order].tolist() for c in ("turn", "kind", "x", "y", "z", "color")]
    rows = list(zip(*columns))
    current: set[int] = set()
    result = []
    i = 0
    for turn in range(n_steps + 1):
        while i < len(rows) and rows[i][0] < turn:  # turns before 0 are not replayed
            i += 1
        while i < len(rows) and rows[i][0] == turn:
            _, kind, x, y, z, color = rows[i]
            key = encode(int(x), int(y), int(z), COLOR_IDS[color])
            (current.add if kind == "placement" else current.discard)(key)
            i += 1
        result.append(set(current))
    return result


def replay_step(loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None) -> Optional[ReplayStep]:
    """The view model of ``dialog_id`` at step ``step`` (clamped to 1..n_steps), or None for an unknown game.

    ``round`` is unused (Minecraft games have no rounds)."""
    turn = int(step)
    frames = loaded.frames
    dialogs = frames["dialogs"]
    row = dialogs[dialogs["dialog_id"] == dialog_id]
    if row.empty:
        return None
    game = row.iloc[0]
    n_steps = int(game["n_steps"])
    turn = min(max(int(turn), 1), max(n_steps, 1))
    actions = frames["actions"][frames["actions"]["game"] == dialog_id]
    # Actions after the last utterance belong to the last step.
    actions = actions.assign(turn=actions["turn"].clip(upper=max(n_steps, 1)))
    after = blocks_after_each_turn(actions, max(n_steps, 1))
    built = after[turn]
    step_actions = actions[actions["turn"] == turn].reset_index(drop=True)
    placed = [b for b in map(tuple, step_actions.loc[step_actions["kind"] == "placement", ["x", "y", "z", "color"]].itertuples(index=False)) if _key(b) in built]
    removed = [tuple(b) for b in step_actions.loc[step_actions["kind"] == "removal", ["x", "y", "z", "color"]].itertuples(index=False)]

    states = frames["states"][frames["states"]["game"] == dialog_id]
    at_or_before = states[states["n_utterances"] <= turn]
    last_state = (at_or_before if not at_or_before.empty else states).iloc[-1]
    x, y, z, yaw, pitch = (float(last_state[c]) for c in ("x", "y", "z", "yaw", "pitch"))
    builder = (x, y, z, yaw, pitch)

    gold_rows = frames["gold"][frames["gold"]["config"] == game["config"]]
    gold_keys = [encode(int(x), int(y), int(z), COLOR_IDS[c]) for x, y, z, c in gold_rows[["x", "y", "z", "color"]].itertuples(index=False)]
    alignment, f1, gold_aligned, gold_missing = None, math.nan, [], []
    if gold_keys:
        final = Alignment(int(game["align_rotation"]), int(game["align_dx"]), int(game["align_dz"]), 0, 0, 0)
        alignment = best_alignment(built, gold_keys, prefer=final) if built else Alignment(final.rotation, final.dx, final.dz, 0, 0, len(gold_keys))
        f1 = alignment.f1
        moved = alignment.gold_to_built(decode_array(gold_keys))
        gold_aligned = [(int(x), int(y), int(z), COLORS[int(c)]) for x, y, z, c in moved]
        gold_missing = [b for b in gold_aligned if _key(b) not in built]

    utterances = frames["utterances"]
    utterances = utterances.loc[utterances["dialog_id"] == dialog_id, ["turn", "speaker", "role", "text", "time_s"]].reset_index(drop=True)

    samples = frames["bap_samples"]
    sample = samples[(samples["game"] == dialog_id) & (samples["turn"] == turn)]
    next_actions, sample_id = None, None
    if not sample.empty:
        sample_id = int(sample.iloc[0]["sample_id"])
        next_actions = pd.DataFrame(json.loads(sample.iloc[0]["next_actions"]),
                                    columns=["action", "x", "y", "z", "color", "state_idx"])
        next_actions["action"] = next_actions["action"].map({"putdown": "placement", "pickup": "removal"})
    return ReplayStep(
        dialog_id=dialog_id, config=str(game["config"]), split=str(game["split"]), step=turn, n_steps=n_steps,
        blocks=sorted(decode(k) for k in built), placed=placed, removed=removed, builder=builder,
        gold_aligned=gold_aligned, gold_missing=gold_missing, alignment=alignment, f1=f1,
        utterances=utterances, actions=step_actions.drop(columns=["game"]), next_actions=next_actions,
        bap_sample_id=sample_id, outcome_match=bool(game["outcome_match"]),
        facts={"duration_s": float(game["duration_s"]), "builder": str(game["builder"]), "architect": str(game["architect"]),
               "final_f1": float(game["outcome_f1"]), "gold_blocks": int(game["gold_blocks"])},
    )


def f1_by_step(loaded: LoadedCorpus, dialog_id: str) -> pd.DataFrame:
    """Block F1 to the target after every step of one game (columns turn, blocks, f1), for charts."""
    frames = loaded.frames
    game = frames["dialogs"][frames["dialogs"]["dialog_id"] == dialog_id].iloc[0]
    n_steps = max(int(game["n_steps"]), 1)
    actions = frames["actions"][frames["actions"]["game"] == dialog_id]
    actions = actions.assign(turn=actions["turn"].clip(upper=n_steps))
    gold_rows = frames["gold"][frames["gold"]["config"] == game["config"]]
    gold_keys = [encode(int(x), int(y), int(z), COLOR_IDS[c]) for x, y, z, c in gold_rows[["x", "y", "z", "color"]].itertuples(index=False)]
    after = blocks_after_each_turn(actions, n_steps)
    rows = [(k, len(after[k]), best_alignment(after[k], gold_keys).f1 if gold_keys else math.nan) for k in range(1, n_steps + 1)]
    return pd.DataFrame(rows, columns=["turn", "blocks", "f1"])


def step_count(loaded: LoadedCorpus, dialog_id: str, round: Optional[int] = None) -> int:
    """Replay steps of a game: its utterances without the system line."""
    games = loaded.dialogs[loaded.dialogs["dialog_id"] == dialog_id]
    return int(games["n_steps"].iloc[0]) if len(games) else 0


@dataclass(frozen=True)
class StepPictures:
    """The replay's two pictures of one step, as PNG bytes: the build (this step's placements outlined black,
    its removals as magenta crossed wire cubes, the Builder) and the aligned target (missing blocks as
    outlines). Both are drawn in the same frame, so a block sits at the same place in either."""

    build_png: bytes
    target_png: Optional[bytes]  # None without a gold configuration
    frame: "IsometricFrame"  # where a cell lands on either picture


def step_pictures(loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None) -> Optional[StepPictures]:
    """The pictures of ``dialog_id`` at ``step`` (None for an unknown game): what the replay shows first, drawn
    on the server so that a step costs one image per side rather than a WebGL scene."""
    from corpora.minecraft.data.render import PICTURE_CELL, isometric_frame, picture_png, snapshot_image

    view = replay_step(loaded, dialog_id, step)
    if view is None:
        return None
    missing = {tuple(b) for b in view.gold_missing}
    # Both pictures cover the cells of either, so they share one frame (and one size).
    everything = [*view.blocks, *view.removed, *view.gold_aligned]
    frame_blocks = [(x, y, z, "blue") for x, y, z in {tuple(b[:3]) for b in everything}]
    build = snapshot_image(view.blocks, highlight=view.placed, removed=view.removed, builder=view.builder,
                           cell=PICTURE_CELL, frame_of=frame_blocks, mode="P")
    target = None
    if view.gold_aligned:
        present = [b for b in view.gold_aligned if tuple(b) not in missing]
        target = picture_png(snapshot_image(present, ghosts=view.gold_missing, cell=PICTURE_CELL, frame_of=frame_blocks, mode="P"))
    return StepPictures(picture_png(build), target, isometric_frame([b[:3] for b in frame_blocks], PICTURE_CELL))


def snapshot(loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None):
    """The build after ``step`` beside its aligned target (isometric drawings, for presentation and export)."""
    from corpora.minecraft.data.render import snapshot_image
    from dialogue_dashboard.plugin import image_grid

    view = replay_step(loaded, dialog_id, step)
    assert view is not None, f"{dialog_id} has no step {step}"
    missing = {tuple(b) for b in view.gold_missing}
    build = snapshot_image(view.blocks, highlight=view.placed, removed=view.removed, title=f"Build after message {view.step}")
    target = snapshot_image([b for b in view.gold_aligned if tuple(b) not in missing], ghosts=view.gold_missing,
                            title="Target (aligned)")
    return image_grid([build, target])


def dialog_labels(loaded: LoadedCorpus) -> dict[str, str]:
    """dialog_id → "B1-A3-C1-1522435497316 · train · 42 messages"."""
    return {row.dialog_id: f"{row.dialog_id} · {row.split} · {row.n_utterances} messages"
            for row in loaded.dialogs[["dialog_id", "split", "n_utterances"]].itertuples(index=False)}
