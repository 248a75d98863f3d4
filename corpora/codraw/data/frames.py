"""``build_frames``: CoDraw as the frames the app uses, from the dialogs ``reader`` reads off disk.

Whole-source faults raise ``SourceError``; a broken dialog, round or file is skipped and reported as a
``SkippedRecord``.

The frames are built as Arrow tables, not pandas frames (a command-line summary never needs one), that
pandas reads with the dtypes noted in each table (``data_access.tables``):
* ``dialogs``: one row per dialog (common columns first, then CoDraw's: peek, final scores...).
* ``rounds``: one row per round with the messages, the stored score and both recomputed metrics.
* ``cliparts``: one row per on-canvas clipart of every distinct scene (``scene_id`` links rounds to it).
* ``utterances``: the common per-message schema (turn = round number).
"""
from __future__ import annotations

import gc
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from corpora.codraw.data.collect import ROUND_COLUMNS, SPLITS, Collector  # noqa: F401 - part of this module's names
from corpora.codraw.data.metrics import score_pairs
from corpora.codraw.data.reader import read_file, read_folder
from corpora.codraw.data.scenes import dense_scenes, parse_scene_strings
from dialogue_dashboard.plugin import (
    DIALOG_COLUMNS,
    UTTERANCE_COLUMNS,
    BuiltFrames,
    ProgressCallback,
    SkippedRecord,
    SkippedRecords,
    SourceError,
    frame_table,
    no_progress,
)


def build_frames(path: Path, progress: ProgressCallback = no_progress) -> tuple[BuiltFrames, list[SkippedRecord]]:
    """Parse a CoDraw source into the ``dialogs``, ``rounds``, ``cliparts`` and ``utterances`` frames (built
    as Arrow tables; each is a pandas frame once asked for, see ``data_access.tables``)."""
    # The JSON tree is millions of fresh, acyclic containers: cyclic garbage collection passes over
    # them would cost about as much as parsing the JSON itself, and find nothing.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _build_frames(Path(path), progress)
    finally:
        if gc_was_enabled:
            gc.enable()


def _build_frames(path: Path, progress: ProgressCallback) -> tuple[BuiltFrames, list[SkippedRecord]]:
    skipped: list[SkippedRecord] = SkippedRecords()
    progress(f"Reading {path.name}", 0.0)
    if not path.exists():
        raise SourceError(path, "does not exist")
    # pyarrow imports pandas at its first conversion of anything (its pandas shim), frames or no frames.
    # Importing it before the read overlaps that with the read-ahead thread's decompression (see
    # data_access.readahead) instead of adding it after the JSON decoding.
    import pandas  # noqa: F401
    entries, stat, lenient = read_folder(path, skipped) if path.is_dir() else read_file(path, skipped)
    if not entries:
        raise SourceError(path, "contains no dialogs")
    progress(f"Collecting {len(entries):,} dialogs", 0.4)
    collect = Collector(lenient)
    for label, key, dialog in entries:
        collect.add_dialog(label, key, dialog, stat, skipped)
    collect.collect_rounds(skipped)
    garbage: list = [entries]
    del entries
    _free_in_background(garbage)
    if not collect.dialog["dialog_id"]:
        first = f" (first problem: {skipped[0].record}: {skipped[0].reason})" if skipped else ""
        raise SourceError(path, f"contains no readable dialogs{first}")

    progress(f"Parsing {len(collect.scene_ids) - 1:,} distinct scenes", 0.6)
    parsed = parse_scene_strings(collect.scenes())
    progress("Scoring every round with both metrics", 0.8)
    frames = _frames(collect, parsed, skipped)
    garbage = [collect, parsed]  # the collected Python lists (the cliparts table lives on in ``frames``)
    del collect, parsed
    _free_in_background(garbage)
    return frames, skipped


def _free_in_background(garbage: list) -> None:
    """Drop the last references in ``garbage`` on another thread. Freeing the JSON tree and the lists
    collected from it (millions of objects) holds the GIL for about 0.3 s; the numpy, Arrow and Parquet
    work that follows mostly releases it, so on two cores the two overlap. Not a daemon thread: the
    interpreter waits for it before exiting."""
    threading.Thread(target=garbage.clear, name="free-json-tree").start()


def _last_per_group(group: np.ndarray, n_groups: int, rows: np.ndarray) -> np.ndarray:
    """For each group, the last of ``rows`` (ascending positions) that belongs to it; -1 when none."""
    last = np.full(n_groups, -1, dtype=np.int64)
    last[group[rows]] = rows  # with repeated indices numpy keeps the last assignment
    return last


def _numbers(values: np.ndarray) -> pa.Array:
    """Floats with NaN as missing (null), as pandas writes a float column."""
    return pa.array(values, type=pa.float64(), from_pandas=True)


def _optional(values: np.ndarray, missing: np.ndarray) -> pa.Array:
    """Integers with the ``missing`` ones null (a pandas "Int64"/"Int32" column)."""
    return pa.array(np.where(missing, 0, values), mask=missing)


def _same_text(text: str, n: int) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array([text])).cast(pa.string())


def _frames(collect: Collector, parsed, skipped: list[SkippedRecord]) -> BuiltFrames:
    d, r = collect.dialog, collect.round
    bad_scene = np.zeros(len(collect.scene_ids), dtype=bool)  # the last entry stands for -1 (no scene): never bad
    bad_scene[list(parsed.problems)] = True

    # A dialog whose target is broken is skipped whole; a round with a broken scene on its own.
    dialog_target = np.array(d["target_scene"], dtype=np.int64)
    dialog_ok = ~bad_scene[dialog_target]
    for i in np.flatnonzero(~dialog_ok):
        skipped.append(SkippedRecord(d["label"][i], f"target scene: {parsed.problems[int(dialog_target[i])]}"))
    round_dialog = np.array(r["dialog"], dtype=np.int64)
    scenes = {k: np.array(r[k], dtype=np.int64) for k in ("target_scene", "before_scene", "after_scene")}
    round_ok = dialog_ok[round_dialog]
    for column, field in (("target_scene", "abs_t"), ("before_scene", "abs_b"), ("after_scene", "abs_d")):
        broken = round_ok & bad_scene[scenes[column]]
        for i in np.flatnonzero(broken):
            skipped.append(SkippedRecord(collect.round_label(int(i)), f"{field}: {parsed.problems[int(scenes[column][i])]}"))
        round_ok &= ~broken
    terms, bad_terms = collect.stored_terms_check()
    for i in np.flatnonzero(round_ok & bad_terms):
        skipped.append(SkippedRecord(collect.round_label(int(i)), "stored score terms are not all numbers"))
    round_ok &= ~bad_terms

    # Renumber the kept dialogs 0..n-1 and keep their rounds.
    kept_dialogs = np.flatnonzero(dialog_ok)
    new_index = np.cumsum(dialog_ok) - 1
    keep = np.flatnonzero(round_ok)
    take = pa.array(keep)
    group = new_index[round_dialog[keep]]
    target, before, after = (scenes[k][keep] for k in ("target_scene", "before_scene", "after_scene"))

    def score() -> tuple:
        dense = dense_scenes(parsed.table, len(collect.scene_ids) - 1)
        return dense, score_pairs(dense, after, target)

    def text(field: str) -> pa.Array:
        return pa.array(r[field], type=pa.string()).take(take)

    # The metrics are numpy work that mostly releases the GIL: they run on another thread while this one
    # turns the text columns (Python strings) into Arrow arrays.
    with ThreadPoolExecutor(max_workers=1) as pool:
        scoring = pool.submit(score)
        status = text("score_status")
        dialog_ids = pa.array(d["dialog_id"], type=pa.string()).take(pa.array(kept_dialogs))
        splits = pa.array(d["split"], type=pa.string()).take(pa.array(kept_dialogs))
        peeked = np.array(r["peeked"], dtype=bool)[keep]
        round_number = np.array(r["round"], dtype=np.int32)[keep]
        round_dialog_ids = dialog_ids.take(pa.array(group))
        msg_t, msg_d, seq_t, seq_d = text("msg_t"), text("msg_d"), text("seq_t"), text("seq_d")
        utterances, messages = _utterance_table(round_dialog_ids, round_number, msg_t, msg_d)
        dense, (original, final) = scoring.result()
    stored = np.array(r["stored_score"], dtype=np.float64)[keep]
    present = np.asarray(pc.equal(status, "present"))
    reproduced = np.abs(stored - original) <= 1e-9 * np.maximum(1.0, np.abs(stored))
    n_drawn = np.where(after >= 0, dense.present[np.maximum(after, 0)].sum(axis=1), 0)
    rounds = frame_table({
        "dialog_id": round_dialog_ids,
        "split": splits.take(pa.array(group)),
        "round": pa.array(round_number),
        "seq_t": seq_t,
        "seq_d": seq_d,
        "msg_t": msg_t,
        "msg_d": msg_d,
        "peeked": pa.array(peeked),
        "score_status": status,
        "stored_score": _numbers(stored),
        "stored_terms": terms.take(take),
        "stored_reproduced": pa.array(reproduced & present, mask=~present),
        "score_original": _numbers(original),
        "score_final": _numbers(final),
        "target_scene": _optional(target, target < 0),  # null: no such scene (empty string)
        "before_scene": _optional(before, before < 0),
        "after_scene": _optional(after, after < 0),
        "n_drawn": pa.array(n_drawn.astype(np.int16)),
    }, nullable={"stored_reproduced": "boolean", "target_scene": "Int64", "before_scene": "Int64", "after_scene": "Int64"})
    assert rounds.column_names == ROUND_COLUMNS
    n_dialogs = len(kept_dialogs)

    # Per-dialog aggregates with integer group codes (rounds are in dialog order).
    def per_dialog(values):
        return np.bincount(group, weights=values, minlength=n_dialogs)

    peek_round = np.full(n_dialogs, -1, dtype=np.int64)
    peek_rows = np.flatnonzero(peeked)[::-1]  # reversed, so the first peeked round of a dialog wins
    peek_round[group[peek_rows]] = round_number[peek_rows]
    drawn_rows = np.flatnonzero(after >= 0)
    last_drawn = _last_per_group(group, n_dialogs, drawn_rows)
    before_peek_rows = drawn_rows[(peek_round[group[drawn_rows]] > 0) & (round_number[drawn_rows] < peek_round[group[drawn_rows]])]
    last_before_peek = _last_per_group(group, n_dialogs, before_peek_rows)
    last_stored = _last_per_group(group, n_dialogs, np.flatnonzero(present))

    def at(rows, values):
        return _numbers(np.where(rows >= 0, values[np.maximum(rows, 0)], np.nan))

    def count(values):
        return pa.array(np.asarray(values).astype(np.int64))

    n_rounds = np.array(d["n_rounds"], dtype=np.int64)[kept_dialogs]
    target_of_dialog = dialog_target[kept_dialogs]
    no_peek = peek_round < 0
    dialogs = frame_table({
        "corpus": _same_text("codraw", n_dialogs),
        "dialog_id": dialog_ids,
        "split": splits,
        "n_rounds": count(n_rounds),
        "n_steps": count(n_rounds),  # a replay step is a round
        "n_utterances": count(per_dialog(messages)),
        "duration_s": _numbers(np.array(d["duration_s"], dtype=np.float64)[kept_dialogs]),
        "image_id": pa.array([d["image_id"][i] for i in kept_dialogs], type=pa.int64()),
        "n_rounds_loaded": count(np.bincount(group, minlength=n_dialogs)),
        "target_scene": count(target_of_dialog),
        "n_target_cliparts": count(dense.present[target_of_dialog].sum(axis=1)),
        "peek_round": _optional(peek_round, no_peek),
        "rounds_after_peek": _optional(np.where(peek_round > 0, n_rounds - peek_round + 1, 0), no_peek),
        "final_round": _optional(round_number[np.maximum(last_drawn, 0)] if len(round_number) else
                                 np.zeros(n_dialogs, dtype=np.int32), last_drawn < 0),
        "final_score": at(last_drawn, final),
        "final_score_original": at(last_drawn, original),
        "score_before_peek": at(last_before_peek, final),
        "final_stored_score": at(last_stored, stored),
        # Per dialog so that the summary (and the CLI's warm start) never has to read the rounds frame.
        "stored_scores_checked": count(per_dialog(present.astype(np.float64))),
        "stored_scores_reproduced": count(per_dialog((reproduced & present).astype(np.float64))),
    }, nullable={"image_id": "Int64", "peek_round": "Int64", "rounds_after_peek": "Int64", "final_round": "Int32"})
    assert dialogs.column_names[:len(DIALOG_COLUMNS)] == DIALOG_COLUMNS
    return BuiltFrames({"dialogs": dialogs, "rounds": rounds, "cliparts": parsed.table, "utterances": utterances})


def _utterance_table(dialog_ids: pa.Array, round_number: np.ndarray, teller: pa.Array,
                     drawer: pa.Array) -> tuple[pa.Table, np.ndarray]:
    """The Teller's then the Drawer's message of every round (empty ones left out), and per round the
    number of messages."""
    n = len(teller)
    has_text = np.empty(2 * n, dtype=bool)
    has_text[0::2] = np.asarray(pc.not_equal(pc.utf8_trim_whitespace(teller), ""))
    has_text[1::2] = np.asarray(pc.not_equal(pc.utf8_trim_whitespace(drawer), ""))
    slot = np.flatnonzero(has_text)  # 2 * round row + (0 Teller | 1 Drawer), in dialog order
    row, is_drawer = slot // 2, slot % 2
    messages = pa.chunked_array([teller, drawer], type=pa.string()).combine_chunks()
    role = pa.array(["Teller", "Drawer"]).take(pa.array(is_drawer))
    utterances = frame_table({
        "corpus": _same_text("codraw", len(slot)),
        "dialog_id": dialog_ids.take(pa.array(row)),
        "round": pa.nulls(len(slot), pa.int64()),
        "turn": pa.array(round_number[row].astype(np.int64)),
        "speaker": role,
        "role": role,
        "text": messages.take(pa.array(is_drawer * n + row)),
        "time_s": pa.nulls(len(slot), pa.float64()),
    }, nullable={"round": "Int64"})
    assert utterances.column_names == UTTERANCE_COLUMNS
    return utterances, has_text[0::2].astype(np.float64) + has_text[1::2]
