"""Reading a CoDraw source from disk: the official single file ``CoDraw_1_0.json`` (or ``.json.gz``) or a
folder of per-dialog ``<key>.json`` files as the official ``script/preprocess.py`` writes them.

``read_file`` / ``read_folder`` return the raw dialog objects; ``frames.build_frames`` turns them into frames.
Whole-source faults raise ``SourceError``; an unreadable per-dialog file is skipped as a ``SkippedRecord``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional

import msgspec
import orjson

from dialogue_dashboard.plugin import LIMITS, SkippedRecord, SourceError, gunzip_capped, read_capped, readahead, without_bom

SINGLE_FILE_NAMES = ("CoDraw_1_0.json", "CoDraw_1_0.json.gz")
_GZIP_MAGIC = b"\x1f\x8b"
DIALOG_KEY = re.compile(rb'"dialog"\s*:')  # JSON allows white space before the colon


def json_integer(literal: str) -> int | float:
    """An integer literal as Python reads it; one too long for Python to read at all (over 4,300 digits) as an
    infinity of its sign, which the collector skips as it skips any number beyond a double, rather than the
    whole file failing on it."""
    try:
        return int(literal)
    except ValueError:
        return float("-inf") if literal.startswith("-") else float("inf")


def decode_json(raw: bytes, path: Path) -> tuple[Any, bool]:
    """(document, lenient). msgspec first: it decodes the 155 MB corpus into the same dicts and lists in
    about 0.3 s where orjson needs 0.44 s. It refuses what orjson refuses (invalid UTF-8, lone surrogates,
    NaN, numbers beyond a double), and integers beyond 64 bits it keeps exact where orjson makes them
    floats; the collector checks the range of every number it uses. When it refuses the text, orjson
    tries again, so that the reason given is orjson's (its messages name line and column); when orjson
    refuses it too, the standard library reads it with undecodable bytes kept as lone surrogates and
    NaN / huge numbers kept as they are (``lenient``): the collector then skips just the dialogs and
    rounds that hold such values, naming field and position."""
    try:
        return msgspec.json.decode(raw), False
    except (msgspec.DecodeError, RecursionError):  # deep nesting is a RecursionError in msgspec
        pass
    try:
        return orjson.loads(raw), False
    except orjson.JSONDecodeError as exc:
        first_error = exc
    try:
        return json.loads(raw.decode("utf-8", "surrogateescape"), parse_int=json_integer), True
    except (ValueError, RecursionError):
        pass
    if "utf-8" in str(first_error).lower():
        raise SourceError(path, "is not UTF-8 text") from first_error
    first_line = raw.split(b"\n", 1)[0]
    if raw.count(b"\n") > 1 and first_line.strip():
        try:
            orjson.loads(first_line)
            raise SourceError(path, "is JSON Lines (one object per line), not a CoDraw file") from first_error
        except orjson.JSONDecodeError:
            pass
    raise SourceError(path, f"is not valid JSON (truncated or damaged?): {first_error}") from first_error


def _duplicate_keys(raw: bytes) -> set[str]:
    """Keys that an object of the JSON text holds more than once (JSON parsers silently keep the last)."""
    duplicates: set[str] = set()

    def pairs(items):
        if len(items) > 1:
            seen = set()
            for key, _value in items:
                if key in seen:
                    duplicates.add(key)
                seen.add(key)
        return dict(items)

    json.loads(raw.decode("utf-8", "surrogateescape"), object_pairs_hook=pairs, parse_int=json_integer)
    return duplicates


def _read_bytes(path: Path, limit: Optional[int] = None, what: str = "CoDraw file") -> bytes:
    limit = LIMITS["codraw file"] if limit is None else limit  # read at the call: a budget is one setting
    raw = readahead.take(path)  # the CLI may have read and decompressed it while importing
    if raw:
        if path.suffix == ".gz" and _magic(path) != _GZIP_MAGIC:  # the read-ahead takes any file as it is
            raise SourceError(path, "ends in .gz but is not a gzip file")
    else:
        raw = read_capped(path, limit, what)
        if not raw:
            raise SourceError(path, "is empty")
        if raw[:2] == _GZIP_MAGIC:
            raw = gunzip_capped(raw, limit, path, what)
            if not raw:
                raise SourceError(path, "is empty (after decompression)")
        elif path.suffix == ".gz":
            raise SourceError(path, "ends in .gz but is not a gzip file")
    return without_bom(raw)


def _magic(path: Path) -> bytes:
    with open(path, "rb") as file:
        return file.read(2)


def _is_dialog(value: Any) -> bool:
    return isinstance(value, dict) and "dialog" in value and "abs_t" in value


def read_file(path: Path, skipped: list[SkippedRecord]) -> tuple[list[tuple[str, str, Any]], dict, bool]:
    """[(record label prefix, dialog key, dialog object)], the ``stat`` section of one file, and whether it
    was read leniently (see ``decode_json``)."""
    raw = _read_bytes(path)
    document, lenient = decode_json(raw, path)
    if isinstance(document, dict) and isinstance(document.get("data"), dict):
        stat = document.get("stat")
        data = document["data"]
        # A dialog id given twice would silently be the last copy. Each copy written as a dialog holds the key
        # "dialog" once, so more of those keys in the text than among the dialogs kept means a copy was
        # dropped; only then is the file parsed again to find which ids (inner quotes are escaped, so the
        # cheap count of '"dialog"' is an upper bound, and the exact count of the key follows only past it).
        # A dropped copy with no "dialog" key of its own goes unnoticed (the copy kept then loads as the only one).
        with_key = sum(1 for dialog in data.values() if type(dialog) is dict and "dialog" in dialog)
        if raw.count(b'"dialog"') > with_key and len(DIALOG_KEY.findall(raw)) > with_key:
            for key in sorted(_duplicate_keys(raw) & set(data)):
                skipped.append(SkippedRecord(f"{path.name}: {key}", "this dialog id occurs more than once in the file; "
                                                                   "none of its copies is loaded"))
                del data[key]
        return [(path.name, key, dialog) for key, dialog in data.items()], stat if isinstance(stat, dict) else {}, lenient
    if _is_dialog(document):  # one per-dialog file given directly
        return [(path.name, path.name.split(".")[0], document)], {}, lenient
    found = type(document).__name__.replace("dict", "an object").replace("list", "a list")
    raise SourceError(path, f'is not a CoDraw file: expected an object with "data" (the single-file layout) '
                            f"or a dialog object, found {found}")


def read_folder(folder: Path, skipped: list[SkippedRecord]) -> tuple[list[tuple[str, str, Any]], dict, bool]:
    for name in SINGLE_FILE_NAMES:
        if (folder / name).exists():
            return read_file(folder / name, skipped)
    files = sorted(p for p in folder.iterdir() if p.name.endswith((".json", ".json.gz")))
    if not files:
        raise SourceError(folder, "contains no CoDraw files (expected CoDraw_1_0.json or per-dialog <key>.json files)")
    entries, lenient = [], False
    first_file: dict[str, str] = {}  # dialog key -> the file that holds it
    for file in files:
        key = file.name.split(".")[0]
        if key in first_file:  # x.json and x.json.gz: two copies of one dialog, never merged
            skipped.append(SkippedRecord(file.name, f"a second file for dialog {key} (also in {first_file[key]}); "
                                                    "only the first is loaded"))
            continue
        first_file[key] = file.name
        try:
            document, file_lenient = decode_json(_read_bytes(file, LIMITS["codraw dialog"], "per-dialog CoDraw file"), file)
        except (SourceError, OSError) as exc:
            skipped.append(SkippedRecord(file.name, getattr(exc, "problem", str(exc))))
            continue
        if not _is_dialog(document):
            skipped.append(SkippedRecord(file.name, "is not a CoDraw dialog object"))
            continue
        entries.append((file.name, key, document))
        lenient |= file_lenient
    if not entries:
        raise SourceError(folder, f"none of its {len(files)} .json files is a CoDraw dialog")
    return entries, {}, lenient
