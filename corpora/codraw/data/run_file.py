"""Reading a CoDraw run file (Drawer models) into its predicted rounds, in either format (docs/formats.md, "Model runs"):
(a) JSON Lines, one line per predicted round ``{"dialog_id", "round", "scene"}`` with the Drawer's canvas after that
    round as a scene string, read as a stream;
(b) the corpus's own layout ``{"data": {"<dialog_id>": {"dialog": [{"abs_d": "<scene>"}, ...]}}}`` (optionally gzip),
    one JSON document read whole, whose ``abs_d`` are the model's canvases (round i = i-th entry, from 1).

A line or round that cannot be used is skipped with its reason (``Tally``); ``corpora.codraw.data.scoring`` scores
what is read.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import orjson
import pandas as pd

from corpora.codraw.data.reader import DIALOG_KEY, decode_json, json_integer
from dialogue_dashboard.plugin import Lines, SourceError, Tally, first_line, json_lines, no_usable_line, read_bytes, run_lines

CORPUS = "codraw"  # the package's NAME, for the message of a file with no usable line
EXPECTED = 'one JSON object per line {"dialog_id", "round", "scene"} or the corpus layout {"data": {...}}'


def read_rows(path: Path) -> tuple[pd.DataFrame, Tally]:
    """The predicted rounds of a run file: dialog_id, round, scene, line (<NA> for format b), record."""
    path = Path(path)
    tally = Tally(path.name)
    head, lines = first_line(run_lines(path))  # JSON Lines are read as a stream, a line at a time
    layout = None
    if head is not None and _may_be_corpus_layout(head[1]):
        lines.close()  # the corpus layout is one JSON document: it is read whole (docs/bad-input.md)
        data = read_bytes(path)
        layout = _corpus_layout(data, path)
        del data  # the layout keeps what it needs of it
        if layout is None:  # JSON Lines after all, whose first line is no object: read as a stream again
            lines = Lines(None, run_lines(path))
    rows: dict[str, list] = {"dialog_id": [], "round": [], "scene": [], "line": [], "record": []}

    def add(dialog_id, round_number, scene, line, record):
        rows["dialog_id"].append(dialog_id)
        rows["round"].append(round_number)
        rows["scene"].append(scene)
        rows["line"].append(line)
        rows["record"].append(record)

    if layout is not None:
        layout, lenient, repeated = layout
        for key in repeated:  # one rule with JSON Lines: the first prediction counts, a later one is listed
            tally.skip(None, f"a second copy of dialog {key} (the first one counts)", f"data.{key}")
        for key, dialog in layout.items():
            turns = dialog.get("dialog") if isinstance(dialog, dict) else None
            if not isinstance(turns, list):
                tally.skip(None, "no dialog list", f"data.{key}")
                continue
            for index, turn in enumerate(turns):
                record = f"data.{key}.dialog[{index}]"
                scene = turn.get("abs_d") if isinstance(turn, dict) else None
                if not isinstance(scene, str):
                    tally.skip(None, "abs_d is not a scene string", record)
                    continue
                if lenient and not _is_utf8(scene):
                    tally.skip(None, "abs_d holds bytes that are not UTF-8", record)
                    continue
                add(str(key), index + 1, scene, None, record)
        if not rows["dialog_id"]:
            raise SourceError(path, "is in the corpus layout but holds no round with an abs_d scene string")
    else:
        seen, total = [], 0  # type: list, int
        for line in json_lines(lines, tally):
            total += 1
            r = line.record
            if len(seen) < 50:
                seen.append(r)
            dialog_id, round_number, scene = r.get("dialog_id"), r.get("round"), r.get("scene")
            if not isinstance(dialog_id, str) or not dialog_id:
                tally.skip(line.number, "dialog_id is missing or not a string")
            elif isinstance(round_number, bool) or not isinstance(round_number, int) or not 1 <= round_number < 2 ** 63:
                tally.skip(line.number, "round is missing or not a positive integer")
            elif not isinstance(scene, str):
                tally.skip(line.number, "scene is missing or not a string")
            else:
                add(dialog_id, round_number, scene, line.number, f"line {line.number}")
        if not rows["dialog_id"]:
            raise no_usable_line(path, CORPUS, seen, total, EXPECTED)
    frame = pd.DataFrame({
        "dialog_id": pd.array(rows["dialog_id"], dtype="str"),
        "round": np.array(rows["round"], dtype=np.int64),
        "scene": pd.array(rows["scene"], dtype="str"),
        "line": pd.array(rows["line"], dtype="Int64"),
        "record": pd.array(rows["record"], dtype="str"),
    })
    return frame, tally


_LONGEST_RECORD = 1 << 20  # a JSON Lines record is one round's scene: a few kB


def _may_be_corpus_layout(first: bytes) -> bool:
    """Whether a file whose first line that is not blank is ``first`` can be in the corpus layout: that line
    opens an object and is not a whole JSON Lines record (it is the whole document on one line, holding a
    ``data`` object, or only its start)."""
    if first.lstrip()[:1] != b"{":
        return False
    if len(first) > _LONGEST_RECORD:  # a whole document on one line (the corpus is): not parsed twice to tell
        return True
    try:
        value = orjson.loads(first)
    except orjson.JSONDecodeError:
        return True
    return isinstance(value, dict) and isinstance(value.get("data"), dict)


def _corpus_layout(data: bytes, path: Path):
    """(the ``data`` mapping, whether it was read leniently, the dialog ids given more than once) when the file is
    one JSON object in the corpus layout, else None.

    Decoded as the corpus itself is (``codraw.reader.decode_json``), so that a NaN or an undecodable byte
    somewhere costs only the rounds that hold it, not the run. On JSON Lines every parser stops with an error
    right after the first line's object, so the test is cheap. JSON parsers keep the *last* copy of a key
    given twice; a run keeps the first prediction (as in JSON Lines), so when the text holds more ``"dialog"``
    keys than the dialogs decoded it is read again keeping every first copy (``_first_copies``)."""
    if data.lstrip()[:1] != b"{":
        return None
    try:
        value, lenient = decode_json(data, path)
    except SourceError:
        return None
    if isinstance(value, dict) and isinstance(value.get("data"), dict):
        layout = value["data"]
        with_key = sum(1 for dialog in layout.values() if type(dialog) is dict and "dialog" in dialog)
        if data.count(b'"dialog"') > with_key and len(DIALOG_KEY.findall(data)) > with_key:
            first, repeated = _first_copies(data)
            if isinstance(first, dict) and isinstance(first.get("data"), dict) and repeated:
                return first["data"], True, repeated
        return layout, lenient, []
    return None


def _first_copies(data: bytes):
    """The document with the first copy of every key given twice, and the dialog ids given more than once
    (keys of ``data`` whose copies are dialogs), in file order."""
    repeated: list[str] = []

    def first_of(items):
        kept: dict = {}
        for key, value in items:
            if key not in kept:
                kept[key] = value
            elif isinstance(value, dict) and "dialog" in value and key not in repeated:
                repeated.append(key)
        return kept

    try:
        document = json.loads(data.decode("utf-8", "surrogateescape"), object_pairs_hook=first_of, parse_int=json_integer)
    except (ValueError, RecursionError):
        return None, []
    return document, repeated


def _is_utf8(text: str) -> bool:
    """False for a string read leniently whose undecodable bytes became lone surrogates."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
