"""``build_frames``: the Minecraft corpus as pandas frames (dialogs, utterances, actions, states, gold,
bap_samples), every one Parquet-round-trippable.

Speed matters (547 games, ~44k states, ~635k block instances): files are parsed with orjson, each state's
blocks become a list of ints and the per-step placements/removals are set differences of those ints; the
frames are assembled column-wise at the end.
"""
from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pandas as pd

from corpora.minecraft.data.bap import BAP_COLUMNS, sample_rows, transitions
from corpora.minecraft.data.blocks import best_alignment, decode, read_gold_xml
from corpora.minecraft.data.reader import SPLITS, GameLog, discover, participants, read_game, speaker_of, strip_speaker
from dialogue_dashboard.plugin import (
    DIALOG_COLUMNS,
    UTTERANCE_COLUMNS,
    ProgressCallback,
    SkippedRecord,
    SkippedRecords,
    SourceError,
    no_progress,
)

CORPUS = "minecraft"
# n_states counts the world states kept: the null-BuilderPosition glitch states are dropped, as the BAP
# repository's remove_empty_states does (2,622 of 2,626 raw states on the shared subset).
DIALOG_EXTRA = [
    "date_dir", "builder", "architect", "config", "n_states", "architect_utterances", "builder_utterances",
    "placements", "removals", "final_blocks", "gold_blocks", "outcome_match", "outcome_f1",
    "align_rotation", "align_dx", "align_dz", "bap_samples", "from_aug_data",
]
ACTION_COLUMNS = ["game", "state_idx", "turn", "seq", "kind", "x", "y", "z", "color", "time_s"]
STATE_COLUMNS = ["game", "idx", "time_s", "event", "x", "y", "z", "yaw", "pitch", "n_blocks", "n_utterances"]
GOLD_COLUMNS = ["config", "x", "y", "z", "color"]


class _Columns(dict):
    def __init__(self, names):
        super().__init__((name, []) for name in names)

    def add(self, *values):
        for column, value in zip(self.values(), values):
            column.append(value)

    def extend(self, other: dict):
        for name, column in self.items():
            column.extend(other[name])


def _frame(columns: dict, dtypes: dict) -> pd.DataFrame:
    frame = pd.DataFrame({name: pd.Series(values, dtype=dtypes.get(name)) for name, values in columns.items()})
    return frame


def build_frames(path: Path, progress: ProgressCallback = no_progress) -> tuple[dict[str, pd.DataFrame], list[SkippedRecord]]:
    # Parsing allocates millions of small containers and no cycles: the cyclic GC would only rescan them.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _build_frames(Path(path), progress)
    finally:
        if was_enabled:
            gc.enable()


def _build_frames(path: Path, progress: ProgressCallback) -> tuple[dict[str, pd.DataFrame], list[SkippedRecord]]:
    layout = discover(Path(path))
    skipped = SkippedRecords(layout.skipped)
    gold: dict[str, list[int] | None] = {}

    def gold_keys(config: str):
        if config not in gold:
            file = layout.gold_path(config)
            try:
                gold[config] = read_gold_xml(file)
            except (FileNotFoundError, SourceError) as exc:
                gold[config] = None
                problem = "file is missing" if isinstance(exc, FileNotFoundError) or not file.exists() else exc.problem
                skipped.append(SkippedRecord(f"gold-configurations/{config}.xml", f"{problem}; games of this config have no outcome or BAP samples"))
            except (OSError, ValueError, UnicodeError) as exc:
                gold[config] = None
                skipped.append(SkippedRecord(f"gold-configurations/{config}.xml", f"{exc}; games of this config have no outcome or BAP samples"))
        return gold[config]

    dialogs = _Columns([c for c in DIALOG_COLUMNS if c != "n_rounds"] + DIALOG_EXTRA)  # no rounds: added as <NA>
    utterances = _Columns(UTTERANCE_COLUMNS)
    actions = _Columns(ACTION_COLUMNS)
    states = _Columns(STATE_COLUMNS)
    bap = _Columns(BAP_COLUMNS)
    json_ids = dict.fromkeys(SPLITS, 0)
    total = len(layout.games)
    every = max(1, total // 40)
    progress(f"Reading {total} Minecraft games", 0.0)
    for number, game_file in enumerate(layout.games, start=1):
        split = layout.split_of(game_file.config)
        try:
            game = read_game(game_file, split)
        except SourceError as exc:  # not a regular file, or larger than a game file can be
            skipped.append(SkippedRecord(game_file.record, f"unreadable game: {exc.problem}"))
            continue
        except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            skipped.append(SkippedRecord(game_file.record, f"unreadable game: {type(exc).__name__}: {exc}"))
            continue
        skipped.extend(SkippedRecord(f"{game_file.record} {where}", reason) for where, reason in game.skipped_states)
        target = gold_keys(game.config)
        n_samples = 0
        if split in SPLITS and target is not None:
            rows = sample_rows(game, json_ids[split])
            n_samples = len(rows["game"])
            bap.extend(rows)
        if split in SPLITS:
            json_ids[split] += 1
        _add_game(game, target, n_samples, dialogs, utterances, actions, states)
        if number % every == 0 or number == total:
            progress(f"Read {number} of {total} games", number / total)
    if not dialogs["dialog_id"]:
        raise SourceError(layout.root, f"none of its {total} games could be read (first problem: {skipped[0].record}: {skipped[0].reason})")

    gold_rows = _Columns(GOLD_COLUMNS)
    for config, keys in sorted(gold.items()):
        for key in keys or ():
            gold_rows.add(config, *decode(key))
    dialog_frame = _frame(dialogs, {"corpus": "str", "dialog_id": "str", "split": "str", "n_steps": "int64",
                                    "n_utterances": "int64", "duration_s": "float64", "outcome_f1": "float64",
                                    "outcome_match": "bool", "from_aug_data": "bool"})
    dialog_frame.insert(DIALOG_COLUMNS.index("n_rounds"), "n_rounds", pd.Series(pd.NA, index=dialog_frame.index, dtype="Int64"))
    frames = {
        "dialogs": dialog_frame,
        "utterances": _frame(utterances, {"corpus": "str", "dialog_id": "str", "round": "Int64", "turn": "int64",
                                          "speaker": "str", "role": "str", "text": "str", "time_s": "float64"}),
        "actions": _frame(actions, {"game": "str", "state_idx": "int64", "turn": "int64", "seq": "int64", "kind": "str",
                                    "x": "int64", "y": "int64", "z": "int64", "color": "str", "time_s": "float64"}),
        "states": _frame(states, {"game": "str", "idx": "int64", "time_s": "float64", "event": "str",
                                  "n_blocks": "int64", "n_utterances": "int64"}),
        "gold": _frame(gold_rows, {"config": "str", "x": "int64", "y": "int64", "z": "int64", "color": "str"}),
        "bap_samples": _frame(bap, {"game": "str", "split": "str", "json_id": "int64", "sample_id": "int64",
                                    "turn": "int64", "next_actions": "str", "from_aug_data": "bool",
                                    "orig_experiment_id": "str"}),
    }
    return frames, skipped


def _add_game(game: GameLog, target, n_samples: int, dialogs, utterances, actions, states) -> None:
    gid = game.experiment_id
    # Utterances: one row per chat line except the system line "Mission has started." (wherever it occurs);
    # time = the state where the line first appears.
    first_state_of_line = np.searchsorted(np.asarray(game.n_chat), np.arange(len(game.lines)), side="right")
    n_architect = 0
    for index, line in enumerate(game.lines):
        if game.is_system_line(index):
            continue
        role = speaker_of(line)
        n_architect += role == "Architect"
        state = min(int(first_state_of_line[index]), len(game.time_s) - 1)
        utterances.add(CORPUS, gid, None, game.utterances_in(index + 1), role, role, strip_speaker(line),
                       game.time_s[state])
    n_utterances = game.utterances_in(len(game.lines))
    # States (column-wise: this runs ~44k times on the full corpus) and the diffs between kept states.
    n = len(game.keys)
    xs, ys, zs, yaws, pitches = zip(*game.position)
    for name, values in (("game", [gid] * n), ("idx", range(n)), ("time_s", game.time_s), ("event", game.event),
                         ("x", xs), ("y", ys), ("z", zs), ("yaw", yaws), ("pitch", pitches),
                         ("n_blocks", map(len, game.keys)), ("n_utterances", map(game.utterances_in, game.n_chat))):
        states[name].extend(values)
    n_place = n_remove = seq = 0
    for i, (placements, removals) in enumerate(transitions(game)):
        if not placements and not removals:
            continue
        turn = game.utterances_in(game.n_chat[i - 1]) if i > 0 else 0
        for kind, group in (("placement", placements), ("removal", removals)):
            for key in group:
                actions.add(gid, i, turn, seq, kind, *decode(key), game.time_s[i])
                seq += 1
        n_place += len(placements)
        n_remove += len(removals)
    final = game.keys[-1]
    if target is not None:
        alignment = best_alignment(final, target)
        outcome = (alignment.exact, alignment.f1, alignment.rotation, alignment.dx, alignment.dz)
    else:
        outcome = (False, float("nan"), 0, 0, 0)
    builder, architect = participants(gid)
    dialogs.add(
        CORPUS, gid, game.split, n_utterances, n_utterances, game.time_elapsed,
        game.date_dir, builder, architect, game.config, len(game.keys), n_architect, n_utterances - n_architect,
        n_place, n_remove, len(set(final)), len(target) if target is not None else 0, *outcome, n_samples,
        game.from_aug_data,
    )

