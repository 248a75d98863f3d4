"""Collecting CoDraw's dialogs as ``reader`` reads them into columns, one dialog at a time: the session durations,
the stored scores, the messages and scene strings of every round, and the checks that skip a broken dialog or
round (``Collector``). ``frames`` turns what is collected into the Arrow tables."""
from __future__ import annotations

import math
import re
from operator import itemgetter
from typing import Any, Optional

import numpy as np
import pyarrow as pa

from dialogue_dashboard.plugin import SkippedRecord

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


class Collector:
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
