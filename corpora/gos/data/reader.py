"""Finding and reading the six A Game Of Sorts JSON Lines files.

The reader is deliberately forgiving per line and strict per file: a malformed line is reported as a
``SkippedRecord`` ("<file> line N: reason") and the rest of the file still loads, while a missing folder,
a folder without the interaction log or a file that is not UTF-8 raises ``SourceError`` naming the file.
Record validation (field names and value types) also lives here so ``frames.py`` can trust what it gets.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

import orjson

from dialogue_dashboard.plugin import CORPUS_BUDGET as CORPUS
from dialogue_dashboard.plugin import LIMITS, SkippedRecord, SourceError, check_lines, iter_lines, read_capped, without_bom

LOG_FILE = "a-game-of-sorts_log_interaction_all.jsonl"
MAPPINGS_FILE = "a-game-of-sorts_log_interaction_board_mappings.jsonl"
GAME_CONFIG_FILE = "a-game-of-sorts_game_config.jsonl"
SURVEY_CONFIG_FILE = "a-game-of-sorts_survey_config.jsonl"
SURVEY_INTERACTION_FILE = "a-game-of-sorts_survey_interaction_all.jsonl"
SURVEY_USER_FILE = "a-game-of-sorts_survey_user_all.jsonl"
DATA_FILES = (LOG_FILE, MAPPINGS_FILE, GAME_CONFIG_FILE, SURVEY_CONFIG_FILE, SURVEY_INTERACTION_FILE, SURVEY_USER_FILE)
# Without these two nothing can be replayed; the others only enrich the corpus and may be absent.
REQUIRED_FILES = (LOG_FILE, GAME_CONFIG_FILE)
# The official repository keeps the files two levels down.
REPOSITORY_SUBFOLDER = Path("dataset") / "data"

LOCK_EVENT_TYPES = ("lock", "unlock manual", "unlock automatic")


@dataclass(frozen=True)
class Line:
    """One parsed JSON object and where it came from (1-based line number)."""

    file: str
    number: int
    record: dict

    @property
    def where(self) -> str:
        return f"{self.file} line {self.number}"


def data_folder(path: Path) -> Path:
    """The folder that holds the JSON Lines files: ``path`` itself or ``path/dataset/data``.

    A path to one of the six files is accepted too and means its folder."""
    path = Path(path)
    if not path.exists():
        raise SourceError(path, "does not exist")
    if path.is_file():
        if path.name in DATA_FILES:
            return path.parent
        raise SourceError(path, f"is a file; expected the folder holding {LOG_FILE}")
    if not path.is_dir():
        raise SourceError(path, f"is not a folder; expected the folder holding {LOG_FILE}")
    for candidate in (path, path / REPOSITORY_SUBFOLDER):
        if (candidate / LOG_FILE).exists():  # read_jsonl says so when it is not a regular file
            return candidate
    if not any(path.iterdir()):
        raise SourceError(path, f"is an empty folder; expected the A Game Of Sorts files such as {LOG_FILE}")
    raise SourceError(path / LOG_FILE, f"is missing (looked in {path} and {path / REPOSITORY_SUBFOLDER})")


def read_jsonl(path: Path, skipped: list[SkippedRecord]) -> list[Line]:
    """Every JSON object of a JSON Lines file; blank lines are ignored, broken lines are reported.

    Two of the real files lack a final newline, so lines are split, never assumed to end in one."""
    path = Path(path)
    raw = without_bom(read_capped(path, LIMITS["jsonl"], "JSON Lines file"))
    check_lines(raw, CORPUS.max_lines, path, "JSON Lines file of A Game Of Sorts")
    lines = []
    for number, data in iter_lines(raw):  # one line at a time, never a list of them all
        where = f"{path.name} line {number}"
        try:
            line = data.decode("utf-8")
        except UnicodeDecodeError as exc:  # costs this line only
            skipped.append(SkippedRecord(where, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {exc.start + 1})"))
            continue
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            skipped.append(SkippedRecord(where, f"not valid JSON ({exc})"))
            continue
        if not isinstance(record, dict):
            skipped.append(SkippedRecord(where, f"a JSON {type(record).__name__}, not an object"))
            continue
        lines.append(Line(path.name, number, record))
    return lines


def read_optional_jsonl(path: Path, skipped: list[SkippedRecord]) -> list[Line]:
    """``read_jsonl`` for a file the corpus can do without: a file that cannot be read is listed, not fatal."""
    try:
        return read_jsonl(path, skipped)
    except SourceError as exc:
        skipped.append(SkippedRecord(Path(path).name, f"{exc.problem}; left out"))
        return []


# --- record validation ----------------------------------------------------------------------------------
# A field spec is a type name checked by _type_ok; "int" never accepts a bool (JSON true is not a number).

MESSAGE_FIELDS = {
    "interaction_id": "str", "game_id": "str", "board_id": "str", "round_number": "int",
    "round_active": "bool", "message_number": "int", "username": "str", "body_text": "str",
    "image_ids": "list[str|null]", "timestamp": "int",
}
LOCK_EVENT_FIELDS = {
    "interaction_id": "str", "game_id": "str", "board_id": "str", "round_number": "int",
    "lock_event_number": "int", "username": "str", "lock_event_type": "str", "image_id": "str", "timestamp": "int",
}
MAPPING_FIELDS = {
    "interaction_id": "str", "game_id": "str", "board_id": "str", "round_number": "int", "username": "str",
    "mapping": "list[object]",
}
GAME_CONFIG_FIELDS = {
    "game_id": "str", "board_number": "int", "board_id": "str", "criterion": "str", "instruction": "str",
    "image_ids": "list[str]",
}
SURVEY_QUESTION_FIELDS = {"question_id": "str", "question_content": "str", "question_type": "str", "answer_options": "list[object]"}
SURVEY_INTERACTION_FIELDS = {"interaction_id": "str", "username": "str", "answers": "list[object]"}
SURVEY_USER_FIELDS = {"username": "str", "answers": "list[object]"}


def _type_ok(value: Any, spec: str) -> bool:
    if spec == "str":
        return isinstance(value, str)
    if spec == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if spec == "bool":
        return isinstance(value, bool)
    if spec == "list[str]":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if spec == "list[str|null]":
        return isinstance(value, list) and all(v is None or isinstance(v, str) for v in value)
    if spec == "list[object]":
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
    raise ValueError(spec)


def _describe(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def field_problem(record: dict, fields: dict[str, str]) -> Optional[str]:
    """Why ``record`` does not match ``fields`` (first problem only), or None when it does."""
    for name, spec in fields.items():
        if name not in record:
            return f"field '{name}' is missing"
        if not _type_ok(record[name], spec):
            return f"field '{name}' should be {spec}, got {_describe(record[name])} {str(record[name])[:40]!r}"
    return None


def valid_lines(lines: list[Line], fields: dict[str, str], skipped: list[SkippedRecord], what: str) -> Iterator[Line]:
    for line in lines:
        problem = field_problem(line.record, fields)
        if problem:
            skipped.append(SkippedRecord(line.where, f"{what}: {problem}"))
        else:
            yield line
