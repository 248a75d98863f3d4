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
import math
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from operator import itemgetter
from pathlib import Path
from typing import Any, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..common import DIALOG_COLUMNS, UTTERANCE_COLUMNS, ProgressCallback, SkippedRecord, SkippedRecords, SourceError, no_progress
from ..tables import BuiltFrames, frame_table
from .metrics import score_pairs
from .reader import read_file, read_folder
from .scenes import dense_scenes, parse_scene_strings

SPLITS = ("train", "val", "test")
_KEY = re.compile(r"^([A-Za-z]+)_(\d+)$")
_MISSING = object()

ROUND_COLUMNS = ["dialog_id", "split", "round", "seq_t", "seq_d", "msg_t", "msg_d", "peeked",
                 "score_status", "stored_score", "stored_terms", "stored_reproduced",
                 "score_original", "score_final", "target_scene", "before_scene", "after_scene", "n_drawn"]


# ----------------------------------------------------------------------------------------------------
# Session durations from ``stat``

def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if _finite(value) else None


def _session_seconds(entry: Any) -> Optional[float]:
    """A session's length: its ``duration`` (seconds), else ``end`` minus the first ``start``."""
    if not isinstance(entry, dict):
        return None
    duration = _number(entry.get("duration"))
    if duration is not None and duration >= 0:
        return duration
    starts = entry.get("start")
    start = _number(starts[0] if isinstance(starts, list) and starts else starts)
    end = _number(entry.get("end"))
    if start is None or end is None or end < start:
        return None
    seconds = end - start
    return seconds / 1000.0 if start > 1e11 else seconds  # JavaScript timestamps are milliseconds


def _duration(stat: dict, socket_id: Any) -> float:
    """The dialog's session length from ``stat`` (keyed by socketId); NaN when unknown.

    The dialog's socketId may join the Teller's and Drawer's socket ids ("/#a/#b"): each is looked up
    and the longer session counts."""
    if not stat or not isinstance(socket_id, str):
        return np.nan
    candidates = [socket_id] + ["/#" + part for part in socket_id.split("/#") if part]
    seconds = [s for s in (_session_seconds(stat.get(key)) for key in dict.fromkeys(candidates)) if s is not None]
    return max(seconds) if seconds else np.nan


# ----------------------------------------------------------------------------------------------------
# Dialogs and rounds into columns

_NUMBER_TYPES = (int, float)
_NO_SCORE: dict[str, tuple] = {"missing": ("missing", np.nan, []), "empty": ("empty", np.nan, [])}


def _stored_score(score: Any) -> Optional[tuple[str, float, list]]:
    """(status, stored score, its 7 terms) of a round's ``score`` field; None when it is malformed."""
    if score is _MISSING:
        return _NO_SCORE["missing"]
    if type(score) is list:
        if not score:
            return _NO_SCORE["empty"]
        if (len(score) == 4 and type(score[0]) in _NUMBER_TYPES and type(score[2]) is list and len(score[2]) == 7
                and type(score[3]) is list and len(score[3]) == 7 and _finite(score[0])):
            return "present", score[0], score[2]
    return None


_TEXT_FIELDS = ("msg_t", "msg_d", "abs_b", "abs_d")
_SEQ_FIELDS = ("seq_t", "seq_d")


def _text_columns(turns: list[dict]) -> tuple[dict[str, list], dict[str, list]]:
    """The rounds' text fields (a missing or empty one is "") and sequence numbers (None when missing),
    one list per field. Every round of the official corpus has all six keys: one C-level itemgetter call
    per round and a transposition then replace a Python-level ``get`` per field and round."""
    fields = _TEXT_FIELDS + _SEQ_FIELDS
    try:
        columns = [list(column) for column in zip(*map(itemgetter(*fields), turns))] or [[] for _ in fields]
    except KeyError:
        columns = [[t.get(f) for t in turns] for f in fields]
    text = dict(zip(_TEXT_FIELDS, columns))
    for field, values in text.items():
        if set(map(type, values)) - {str}:
            text[field] = [v or "" for v in values]
    # Rounds carry their own target only in some copies of the corpus; the dialog's is used otherwise.
    text["abs_t"] = [t.get("abs_t") or "" for t in turns] if any("abs_t" in t for t in turns) else [""] * len(turns)
    return text, dict(zip(_SEQ_FIELDS, columns[len(_TEXT_FIELDS):]))


class _Collector:
    """Accumulates dialog and round columns as Python lists while walking the JSON once.

    Dialogs are checked one by one (``add_dialog``); their rounds, the hot path of a cold load (77,502
    rounds), are gathered and turned into columns in bulk (``collect_rounds``); the stored terms are
    checked in bulk afterwards (``stored_terms_check``)."""

    def __init__(self, lenient: bool = False):
        self.lenient = lenient  # the JSON was read leniently: look for undecodable text (see decode_json)
        self.scene_ids: dict[str, int] = {"": -1}  # scene string -> scene id; the empty string is "no scene"
        self.dialog: dict[str, list] = {k: [] for k in ("dialog_id", "split", "image_id", "n_rounds", "duration_s",
                                                        "target_scene", "label")}
        self.round: dict[str, list] = {k: [] for k in ("dialog", "round", "seq_t", "seq_d", "msg_t", "msg_d", "peeked",
                                                       "score_status", "stored_score", "stored_terms",
                                                       "target_scene", "before_scene", "after_scene")}
        # Rounds of every dialog added so far, with their dialog index and number (see collect_rounds).
        self.pending_turns: list = []
        self.pending_dialog: list[int] = []
        self.pending_number: list[int] = []

    def scenes(self) -> list[str]:
        """The distinct scene strings in scene-id order."""
        return list(self.scene_ids)[1:]

    def round_label(self, index: int) -> str:
        return f"{self.dialog['label'][self.round['dialog'][index]]} round {self.round['round'][index]}"

    def add_dialog(self, label: str, key: str, dialog: Any, stat: dict, skipped: list[SkippedRecord]) -> None:
        where = f"{label}: {key}" if label != f"{key}.json" else label
        if not isinstance(dialog, dict) or not isinstance(dialog.get("dialog"), list):
            skipped.append(SkippedRecord(where, '"dialog" is not a list of rounds'))
            return
        target = dialog.get("abs_t")
        if not isinstance(target, str) or not target:
            skipped.append(SkippedRecord(where, "has no target scene (abs_t)"))
            return
        if self.lenient:
            problem = _undecodable("dialog id", key) or _undecodable("abs_t", target)
            if problem:
                skipped.append(SkippedRecord(where, problem))
                return
        match = _KEY.match(key)
        image_id = dialog.get("image_id", _MISSING)
        if image_id is _MISSING:
            image_id = int(match.group(2)) if match else None
        elif isinstance(image_id, bool) or not isinstance(image_id, int) or not 0 <= image_id < 2 ** 63:
            skipped.append(SkippedRecord(where, f"image_id {str(image_id)[:40]} is not an image number; the dialog "
                                                "loads with no image id"))
            image_id = None
        scene_ids = self.scene_ids
        d = self.dialog
        index = len(d["dialog_id"])
        target_id = scene_ids.setdefault(target, len(scene_ids) - 1)
        d["dialog_id"].append(key)
        d["split"].append(match.group(1) if match else "unknown")
        d["image_id"].append(image_id)
        d["n_rounds"].append(len(dialog["dialog"]))
        d["duration_s"].append(_duration(stat, dialog.get("socketId")))
        d["target_scene"].append(target_id)
        d["label"].append(where)
        turns = dialog["dialog"]
        self.pending_turns.extend(turns)
        self.pending_dialog.extend([index] * len(turns))
        self.pending_number.extend(range(1, len(turns) + 1))

    def collect_rounds(self, skipped: list[SkippedRecord]) -> None:
        """Turn the rounds gathered by ``add_dialog`` into columns, one list comprehension per field.

        Column-wise passes are several times faster than appending field by field inside one loop over
        77,502 rounds; the per-round checks then run only where a column holds an unexpected type."""
        turns, owner, number = self.pending_turns, self.pending_dialog, self.pending_number
        self.pending_turns, self.pending_dialog, self.pending_number = [], [], []
        bad: dict[int, str] = {i: "round is not an object" for i, t in enumerate(turns) if type(t) is not dict}
        if bad:
            turns = [t if type(t) is dict else {} for t in turns]
        text, seq = _text_columns(turns)
        for values in text.values():
            if set(map(type, values)) - {str}:
                bad.update((i, _type_problem(turns[i])) for i, v in enumerate(values) if type(v) is not str)
        for values in seq.values():
            if set(map(type, values)) - {str, int, type(None)}:
                bad.update((i, _type_problem(turns[i])) for i, v in enumerate(values) if type(v) not in (str, int, type(None)))
        if self.lenient:  # undecodable bytes (kept as lone surrogates) cost their round, with their position
            for field, values in (*text.items(), *seq.items()):
                for i, v in enumerate(values):
                    if i not in bad and type(v) is str:
                        problem = _undecodable(field, v)
                        if problem:
                            bad[i] = problem
        # The common well-formed score inline (a function call per round costs more than the checks).
        scores = [("present", s[0], s[2]) if type(s) is list and len(s) == 4 and type(s[0]) is float and s[0] - s[0] == 0
                  and type(s[2]) is list and len(s[2]) == 7 and type(s[3]) is list and len(s[3]) == 7
                  else _stored_score(s) for s in [t.get("score", _MISSING) for t in turns]]
        bad.update((i, "score is neither missing, [] nor [score (a finite number), weights, terms, weighted]")
                   for i, score in enumerate(scores) if score is None and i not in bad)
        # The key marks the round after the Teller's peek (its value is true in every real file); false or
        # null is no peek, and any other value is a round nobody can read.
        peeked = [t.get("peeked", False) for t in turns]
        if set(map(type, peeked)) - {bool, type(None)}:
            bad.update((i, f"peeked is {str(v)[:40]!r}, neither true nor false") for i, v in enumerate(peeked)
                       if type(v) not in (bool, type(None)) and i not in bad)
        for i in sorted(bad):
            skipped.append(SkippedRecord(f"{self.dialog['label'][owner[i]]} round {number[i]}", bad[i]))
        keep = [i for i in range(len(turns)) if i not in bad] if bad else range(len(turns))

        def kept(values):
            return values if not bad else [values[i] for i in keep]

        scene_ids, dialog_target = self.scene_ids, self.dialog["target_scene"]
        r = self.round
        r["dialog"], r["round"] = kept(owner), kept(number)
        r["msg_t"], r["msg_d"] = kept(text["msg_t"]), kept(text["msg_d"])
        r["seq_t"], r["seq_d"] = ([("" if v is None else v if type(v) is str else str(v)) for v in kept(seq[f])]
                                  for f in ("seq_t", "seq_d"))
        r["peeked"] = [peeked[i] is True for i in keep]
        r["score_status"], r["stored_score"], r["stored_terms"] = (list(column) for column in zip(*kept(scores))) \
            if len(keep) else ([], [], [])
        r["target_scene"] = [scene_ids.setdefault(t, len(scene_ids) - 1) if t else dialog_target[d]
                             for t, d in zip(kept(text["abs_t"]), r["dialog"])]
        after_text = kept(text["abs_d"])
        r["after_scene"] = after = [scene_ids.setdefault(a, len(scene_ids) - 1) for a in after_text]
        # A round's canvas before is nearly always the previous round's canvas after: comparing the two
        # strings (a memcmp) is much cheaper than hashing every 1 kB scene string once more.
        owner_kept, before = r["dialog"], []
        for i, b in enumerate(kept(text["abs_b"])):
            if i and owner_kept[i - 1] == owner_kept[i] and b == after_text[i - 1]:
                before.append(after[i - 1])
            else:
                before.append(scene_ids.setdefault(b, len(scene_ids) - 1))
        r["before_scene"] = before

    def stored_terms_check(self) -> tuple[pa.Array, np.ndarray]:
        """The stored 7-term lists as an Arrow list array, and a mask of rounds whose lists hold something
        else than numbers (empty in the array; checked in bulk by Arrow, element by element only when
        that fails)."""
        values = self.round["stored_terms"]
        terms_type = pa.list_(pa.float64())
        if not self.lenient:  # (lenient JSON may hold NaN, which Arrow takes for a number)
            try:
                return pa.array(values, type=terms_type), np.zeros(len(values), dtype=bool)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
                pass  # some list holds text or null: find which (rare)
        bad = np.array([not all(type(x) in _NUMBER_TYPES and _finite(x) and abs(x) < 2.0 ** 63 for x in v)
                        for v in values], dtype=bool)
        return pa.array([[] if b else v for v, b in zip(values, bad)], type=terms_type), bad


def _finite(x) -> bool:
    try:
        return math.isfinite(x)
    except OverflowError:  # an integer beyond any float
        return False


_SURROGATE = re.compile("[\ud800-\udfff]")


def _undecodable(field: str, text: str) -> Optional[str]:
    """Where ``text`` holds a byte that was not UTF-8 (or an escaped lone surrogate), or None."""
    found = _SURROGATE.search(text) if not text.isascii() else None
    if found is None:
        return None
    code = ord(found.group())
    what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"lone surrogate U+{code:04X}"
    return f"{field}: {what} at character {found.start() + 1} is not UTF-8 text"


def _type_problem(turn: dict) -> str:
    for field in ("msg_t", "msg_d", "abs_b", "abs_d", "abs_t"):
        value = turn.get(field)
        if value is not None and not isinstance(value, str):
            return f"{field} is {type(value).__name__}, not text"
    for field in ("seq_t", "seq_d"):
        value = turn.get(field)
        if value is not None and type(value) not in (str, int):
            return f"{field} is {type(value).__name__}, not a number or text"
    return "unexpected value types"


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
    collect = _Collector(lenient)
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


def _frames(collect: _Collector, parsed, skipped: list[SkippedRecord]) -> BuiltFrames:
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
