"""Researchers' notes on dialogs and turns, kept in a local SQLite database.

A note is attached to a place in a corpus — (corpus, dialog_id, round, turn); ``turn=None`` means the whole
dialog (or the whole round, when ``round`` is set) — and carries free text, tags and an optional author.

Nothing a user wrote is lost by accident:
- deleting a note only marks it deleted (``restore_note`` brings it back, ``notes(include_deleted=True)``
  lists it), and every edit first copies the previous version into ``note_revisions`` (``note_history``);
- every write is one short ``BEGIN IMMEDIATE`` transaction in WAL mode with ``synchronous=FULL``, so a
  committed note survives a crash of the app or of the machine, and a writer killed mid-transaction leaves
  nothing half-written behind;
- several Streamlit sessions (threads) and several app processes may write at once: each operation opens
  its own connection and waits up to ``BUSY_TIMEOUT_S`` for the write lock instead of failing.

Text is stored verbatim (no escaping, no trimming); escaping is the job of whoever displays it.
"""
from __future__ import annotations

import io
import json
import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator, Optional, TextIO, Union

import pandas as pd

from .export import to_csv_bytes, to_jsonl_bytes
from .links import replay_link
from .sources import notes_db_path

BUSY_TIMEOUT_S = 30.0
SCHEMA_VERSION = 1

# MIGRATIONS[v] upgrades a database from user_version v to v + 1. Append, never edit: a database written
# by an older app is brought forward one step at a time inside one transaction.
MIGRATIONS: list[list[str]] = [
    [
        """
        CREATE TABLE IF NOT EXISTS notes (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            corpus     TEXT    NOT NULL,
            dialog_id  TEXT    NOT NULL,
            round      INTEGER,
            turn       INTEGER,
            tags       TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
            text       TEXT    NOT NULL,
            author     TEXT,
            created_at TEXT    NOT NULL,
            updated_at TEXT    NOT NULL,
            deleted_at TEXT
        )
        """,
        "CREATE INDEX IF NOT EXISTS notes_by_place ON notes (corpus, dialog_id, round, turn)",
        # One row per superseded version: what the note looked like just before an update, delete or restore.
        """
        CREATE TABLE IF NOT EXISTS note_revisions (
            revision_id INTEGER PRIMARY KEY AUTOINCREMENT,
            note_id     INTEGER NOT NULL REFERENCES notes (id),
            action      TEXT    NOT NULL CHECK (action IN ('update', 'delete', 'restore')),
            round       INTEGER,
            turn        INTEGER,
            tags        TEXT    NOT NULL,
            text        TEXT    NOT NULL,
            author      TEXT,
            version_updated_at TEXT NOT NULL,
            recorded_at TEXT    NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS note_revisions_by_note ON note_revisions (note_id)",
    ],
]
assert len(MIGRATIONS) == SCHEMA_VERSION

NOTE_COLUMNS = ["id", "corpus", "dialog_id", "round", "turn", "tags", "text", "author",
                "created_at", "updated_at", "deleted_at", "link"]
HISTORY_COLUMNS = ["note_id", "version", "action", "round", "turn", "tags", "text", "author",
                   "updated_at", "replaced_at"]
_SELECT_NOTE = ("SELECT id, corpus, dialog_id, round, turn, tags, text, author, created_at, updated_at, deleted_at "
                "FROM notes")

_UNCHANGED = object()


class NotesStoreError(Exception):
    """The notes database cannot be opened or used (not a database, made by a newer app, disk problem)."""


class NoteNotFound(NotesStoreError, KeyError):
    """No note with this id (or it is deleted, for operations that need a live note)."""

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else "note not found"


class NoteConflict(NotesStoreError):
    """The note changed since the caller read it (another session edited it); nothing was written."""


def normalize_tags(tags: Union[str, Iterable[str], None]) -> list[str]:
    """Tags stripped, lower-cased and de-duplicated, in first-seen order; empty ones dropped.

    A string is read as a comma-separated list ("Repair, spatial"), and commas inside list items split
    them too, so a tag never contains a comma and the text-box form and the list form agree."""
    if tags is None:
        return []
    items = [tags] if isinstance(tags, str) else list(tags)
    normalized: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"tags must be strings, got {type(item).__name__}")
        for part in item.split(","):
            tag = " ".join(part.split()).lower()
            if tag and tag not in normalized:
                normalized.append(tag)
    return normalized


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _optional_step(value, name: str) -> Optional[int]:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, bool) or int(value) != value or int(value) < 1:
        raise ValueError(f"{name} must be a whole number from 1, or None; got {value!r}")
    return int(value)


def _required_text(value, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string; got {value!r}")
    return value


def _casefold(value):
    return value.casefold() if isinstance(value, str) else value


class NotesStore:
    """The notes database at ``path`` (default: ``sources.notes_db_path()``), created on first use.

    Cheap to construct and safe to share between threads and processes: it holds no open connection."""

    def __init__(self, path: Union[str, Path, None] = None):
        self.path = Path(path) if path is not None else notes_db_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise NotesStoreError(f"{self.path}: cannot create its folder ({exc})") from exc
        self._initialise()

    # -- connections -------------------------------------------------------------------------------------

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A fresh connection in autocommit mode; transactions are opened explicitly by ``_write``."""
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise NotesStoreError(f"{self.path}: cannot open the notes database ({exc})") from exc
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            # FULL: the WAL is fsynced at every commit, so a saved note also survives a power cut.
            # Notes are written one at a time by people, so the extra fsync costs nothing noticeable.
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.create_function("casefold", 1, _casefold, deterministic=True)
            yield conn
        except sqlite3.DatabaseError as exc:
            raise NotesStoreError(f"{self.path}: {exc}") from exc
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction; the write lock is taken up front so it never has to be upgraded."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _initialise(self) -> None:
        with self._connect() as conn:
            # Persistent: set once per database file; a no-op when it already is WAL.
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("BEGIN IMMEDIATE")
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise NotesStoreError(
                        f"{self.path}: written by a newer version of the app (notes schema {version}, "
                        f"this app knows up to {SCHEMA_VERSION}); update the app to use it")
                for step in range(version, SCHEMA_VERSION):
                    for statement in MIGRATIONS[step]:
                        conn.execute(statement)
                if version != SCHEMA_VERSION:
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @property
    def schema_version(self) -> int:
        with self._connect() as conn:
            return conn.execute("PRAGMA user_version").fetchone()[0]

    # -- writing ---------------------------------------------------------------------------------------------

    def add_note(
        self,
        corpus: str,
        dialog_id: str,
        text: str,
        *,
        round: Optional[int] = None,
        turn: Optional[int] = None,
        tags: Union[str, Iterable[str], None] = None,
        author: Optional[str] = None,
    ) -> int:
        """Save a new note and return its id. ``turn=None``: a note on the whole dialog (or round)."""
        row = _new_note_row(corpus, dialog_id, text, round, turn, tags, author)
        with self._write() as conn:
            return insert_note_row(conn, row)

    def update_note(
        self,
        note_id: int,
        *,
        text=_UNCHANGED,
        tags=_UNCHANGED,
        author=_UNCHANGED,
        round=_UNCHANGED,
        turn=_UNCHANGED,
        expected_updated_at: Optional[str] = None,
    ) -> None:
        """Change the given fields of a live note; the previous version goes into its history.

        With ``expected_updated_at`` (the ``updated_at`` the caller read), raises ``NoteConflict`` instead of
        overwriting an edit another session saved in between."""
        with self._write() as conn:
            current = self._live_row(conn, note_id)
            if expected_updated_at is not None and _timestamp_text(expected_updated_at) != current["updated_at"]:
                raise NoteConflict(f"note {note_id} was changed elsewhere at {current['updated_at']}; reload it")
            new = dict(current)
            if tags is not _UNCHANGED:
                new["tags"] = normalize_tags(tags)
            if text is not _UNCHANGED:
                new["text"] = text
            _note_text(new["text"], new["tags"])
            if author is not _UNCHANGED:
                new["author"] = author or None
            if round is not _UNCHANGED:
                new["round"] = _optional_step(round, "round")
            if turn is not _UNCHANGED:
                new["turn"] = _optional_step(turn, "turn")
            if all(new[key] == current[key] for key in ("text", "tags", "author", "round", "turn")):
                return
            now = _now()
            _record_revision(conn, current, "update", now)
            conn.execute(
                "UPDATE notes SET text = ?, tags = ?, author = ?, round = ?, turn = ?, updated_at = ? WHERE id = ?",
                (new["text"], json.dumps(new["tags"], ensure_ascii=False), new["author"], new["round"], new["turn"],
                 now, current["id"]),
            )

    def delete_note(self, note_id: int) -> None:
        """Mark a note deleted (it disappears from listings; ``restore_note`` brings it back)."""
        with self._write() as conn:
            current = self._live_row(conn, note_id)
            now = _now()
            _record_revision(conn, current, "delete", now)
            conn.execute("UPDATE notes SET deleted_at = ?, updated_at = ? WHERE id = ?", (now, now, current["id"]))

    def restore_note(self, note_id: int) -> None:
        """Bring back a deleted note."""
        with self._write() as conn:
            row = conn.execute(_SELECT_NOTE + " WHERE id = ?", (int(note_id),)).fetchone()
            if row is None or row[-1] is None:
                raise NoteNotFound(f"there is no deleted note {note_id}")
            current = _row_dict(row)
            now = _now()
            _record_revision(conn, current, "restore", now)
            conn.execute("UPDATE notes SET deleted_at = NULL, updated_at = ? WHERE id = ?", (now, current["id"]))

    @staticmethod
    def _live_row(conn: sqlite3.Connection, note_id: int) -> dict:
        row = conn.execute(_SELECT_NOTE + " WHERE id = ? AND deleted_at IS NULL", (int(note_id),)).fetchone()
        if row is None:
            raise NoteNotFound(f"there is no note {note_id} (it may have been deleted)")
        return _row_dict(row)

    # -- reading ---------------------------------------------------------------------------------------------

    def get_note(self, note_id: int) -> dict:
        """One note (live or deleted) as a dict with the same keys as the ``notes()`` columns."""
        with self._connect() as conn:
            row = conn.execute(_SELECT_NOTE + " WHERE id = ?", (int(note_id),)).fetchone()
        if row is None:
            raise NoteNotFound(f"there is no note {note_id}")
        note = _row_dict(row)
        note["link"] = _link(note)
        return note

    def notes(
        self,
        corpus: Optional[str] = None,
        dialog_id: Optional[str] = None,
        tag: Optional[str] = None,
        text: Optional[str] = None,
        *,
        author: Optional[str] = None,
        include_deleted: bool = False,
    ) -> pd.DataFrame:
        """Notes matching every given filter, oldest first, with a ``link`` column (replay deep link).

        ``tag`` matches one tag exactly (after normalising); ``text`` is a case-insensitive substring of the
        note text. Columns: NOTE_COLUMNS; round/turn are Int64, tags a list of str, times UTC datetimes."""
        where, params = ["1"], []
        if not include_deleted:
            where.append("deleted_at IS NULL")
        if corpus is not None:
            where.append("corpus = ?")
            params.append(corpus)
        if dialog_id is not None:
            where.append("dialog_id = ?")
            params.append(str(dialog_id))
        if tag is not None and normalize_tags(tag):
            where.append("EXISTS (SELECT 1 FROM json_each(notes.tags) WHERE json_each.value = ?)")
            params.append(normalize_tags(tag)[0])
        if text:
            where.append("instr(casefold(text), ?) > 0")
            params.append(text.casefold())
        if author is not None:
            where.append("author = ?")
            params.append(author)
        return self._frame(" WHERE " + " AND ".join(where) + " ORDER BY id", params)

    def notes_for_turn(self, corpus: str, dialog_id: str, round: Optional[int], turn: Optional[int]) -> pd.DataFrame:
        """Live notes attached exactly to this place (``turn=None``: the notes on the whole dialog/round)."""
        return self._frame(
            " WHERE deleted_at IS NULL AND corpus = ? AND dialog_id = ? AND round IS ? AND turn IS ? ORDER BY id",
            [corpus, str(dialog_id), _optional_step(round, "round"), _optional_step(turn, "turn")],
        )

    def tag_counts(self, corpus: Optional[str] = None) -> pd.DataFrame:
        """Columns tag, n_notes over live notes, most used first (ties alphabetical)."""
        sql = ("SELECT json_each.value AS tag, COUNT(*) AS n_notes FROM notes, json_each(notes.tags) "
               "WHERE notes.deleted_at IS NULL" + (" AND notes.corpus = ?" if corpus is not None else "") +
               " GROUP BY tag ORDER BY n_notes DESC, tag")
        with self._connect() as conn:
            rows = conn.execute(sql, [corpus] if corpus is not None else []).fetchall()
        return pd.DataFrame({
            "tag": pd.Series([r[0] for r in rows], dtype="str"),
            "n_notes": pd.Series([r[1] for r in rows], dtype="int64"),
        })

    def note_history(self, note_id: int) -> pd.DataFrame:
        """Every version of a note, oldest first, the current one last (``action`` = "current").

        ``updated_at`` is when that version was saved, ``replaced_at`` when it stopped being current."""
        current = self.get_note(note_id)
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT action, round, turn, tags, text, author, version_updated_at, recorded_at "
                "FROM note_revisions WHERE note_id = ? ORDER BY revision_id", (int(note_id),)).fetchall()
        records = [
            {"action": a, "round": r, "turn": t, "tags": json.loads(tags), "text": text, "author": author,
             "updated_at": updated, "replaced_at": recorded}
            for a, r, t, tags, text, author, updated, recorded in rows
        ]
        records.append({"action": "deleted" if current["deleted_at"] else "current", "round": current["round"],
                        "turn": current["turn"], "tags": current["tags"], "text": current["text"],
                        "author": current["author"], "updated_at": current["updated_at"], "replaced_at": None})
        frame = pd.DataFrame.from_records(records, columns=HISTORY_COLUMNS[2:])
        frame.insert(0, "version", range(1, len(frame) + 1))
        frame.insert(0, "note_id", int(note_id))
        return _typed(frame, ["updated_at", "replaced_at"])

    def _frame(self, where_sql: str, params: list) -> pd.DataFrame:
        with self._connect() as conn:
            rows = conn.execute(_SELECT_NOTE + where_sql, params).fetchall()
        records = [_row_dict(row) for row in rows]
        for record in records:
            record["link"] = _link(record)
        frame = pd.DataFrame.from_records(records, columns=NOTE_COLUMNS)
        return _typed(frame, ["created_at", "updated_at", "deleted_at"])

    # -- export ----------------------------------------------------------------------------------------------

    def export_csv(self, target: Union[str, Path, BinaryIO, TextIO, None] = None, **filters) -> Optional[bytes]:
        """The notes (``notes(**filters)``) as UTF-8 CSV, tags as JSON lists, each row with its deep link.

        Writes to a path or file object, or returns the bytes when ``target`` is None (for download buttons)."""
        return _deliver(to_csv_bytes(self.notes(**filters)), target)

    def export_jsonl(self, target: Union[str, Path, BinaryIO, TextIO, None] = None, **filters) -> Optional[bytes]:
        """The notes as JSON Lines (one object per note, tags as a list, times ISO 8601, with ``link``)."""
        frame = self.notes(**filters)
        return _deliver(to_jsonl_bytes(frame.to_dict(orient="records")), target)


# -- rows ----------------------------------------------------------------------------------------------------

def _note_text(text, tags: list[str]) -> str:
    if not isinstance(text, str):
        raise ValueError(f"note text must be a string; got {type(text).__name__}")
    if not text.strip() and not tags:
        raise ValueError("a note needs some text or at least one tag")
    return text


def _new_note_row(corpus, dialog_id, text, round, turn, tags, author) -> dict:
    normalized = normalize_tags(tags)
    now = _now()
    return {
        "corpus": _required_text(corpus, "corpus"),
        "dialog_id": _required_text(str(dialog_id) if dialog_id is not None else None, "dialog_id"),
        "round": _optional_step(round, "round"),
        "turn": _optional_step(turn, "turn"),
        "tags": normalized,
        "text": _note_text(text, normalized),
        "author": author or None,
        "created_at": now,
        "updated_at": now,
    }


def insert_note_row(conn: sqlite3.Connection, row: dict) -> int:
    """INSERT one validated note row inside the caller's transaction; returns the new id."""
    cursor = conn.execute(
        "INSERT INTO notes (corpus, dialog_id, round, turn, tags, text, author, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (row["corpus"], row["dialog_id"], row["round"], row["turn"], json.dumps(row["tags"], ensure_ascii=False),
         row["text"], row["author"], row["created_at"], row["updated_at"]),
    )
    return int(cursor.lastrowid)


def _record_revision(conn: sqlite3.Connection, current: dict, action: str, now: str) -> None:
    conn.execute(
        "INSERT INTO note_revisions (note_id, action, round, turn, tags, text, author, version_updated_at, recorded_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (current["id"], action, current["round"], current["turn"], json.dumps(current["tags"], ensure_ascii=False),
         current["text"], current["author"], current["updated_at"], now),
    )


def _row_dict(row: tuple) -> dict:
    keys = ("id", "corpus", "dialog_id", "round", "turn", "tags", "text", "author",
            "created_at", "updated_at", "deleted_at")
    note = dict(zip(keys, row))
    note["tags"] = json.loads(note["tags"])
    return note


def _link(note: dict) -> str:
    return replay_link(note["corpus"], note["dialog_id"], turn=note["turn"], round=note["round"])


def _timestamp_text(value) -> str:
    """``updated_at`` as stored (ISO text), whether the caller passes the text or the frame's Timestamp."""
    if isinstance(value, str):
        return value
    return pd.Timestamp(value).tz_convert("UTC").isoformat(timespec="microseconds")


def _typed(frame: pd.DataFrame, time_columns: list[str]) -> pd.DataFrame:
    for column in ("round", "turn"):
        frame[column] = frame[column].astype("Int64")
    if "id" in frame:
        frame["id"] = frame["id"].astype("int64")
    for column in ("corpus", "dialog_id", "text", "author", "link", "action"):
        if column in frame:
            frame[column] = frame[column].astype("str")
    for column in time_columns:
        frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
    return frame


def _deliver(data: bytes, target) -> Optional[bytes]:
    if target is None:
        return data
    if isinstance(target, (str, os.PathLike)):
        path = Path(target)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)  # an export interrupted halfway never replaces a good file
        return None
    if isinstance(target, io.TextIOBase):
        target.write(data.decode("utf-8"))
    else:
        target.write(data)
    return None
