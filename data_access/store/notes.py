"""Researchers' notes on dialogs and turns, kept in the store (a SQLite file, or PostgreSQL for a team:
``database.py``).

A note is attached to a place in a corpus (a ``links.Place``: corpus, dialog_id, round, step — stored as
``turn``); ``turn=None`` means the whole dialog (or the whole round, when ``round`` is set) — and carries free
text, tags and an optional author.

Nothing a user wrote is lost by accident:
- deleting a note only marks it deleted (``restore_note`` brings it back, ``notes(include_deleted=True)``
  lists it), and every edit first copies the previous version into ``note_revisions`` (``note_history``);
- every write is one short transaction (SQLite: ``BEGIN IMMEDIATE`` in WAL mode with ``synchronous=FULL``;
  PostgreSQL: a transaction that locks the rows it reads first), so a committed note survives a crash of the
  app, and a writer killed mid-transaction leaves nothing half-written behind;
- several Streamlit sessions (threads) and several app processes (on several machines, with PostgreSQL) may
  write at once: SQLite waits up to ``BUSY_TIMEOUT_S`` for the write lock instead of failing.
- edits name the note by id and the version they started from (``expected_updated_at``): an edit of a
  note that changed meanwhile raises ``NoteConflict`` instead of overwriting it.

Notes are one kind of annotation: ``CodingStore`` (``coding.py``), given this store, lists them beside coded
labels.

Text is stored verbatim (no escaping, no trimming); escaping is the job of whoever displays it.
"""
from __future__ import annotations

import functools
import io
import json
import os
from pathlib import Path
from typing import BinaryIO, Iterable, Optional, TextIO, Union

import pandas as pd

from ..access import Action, Identity, attributed, check, checked_coder_name
from ..exports import to_csv_bytes, to_jsonl_bytes
from ..links import Place
from ..sources import notes_db_target
from . import schema
from .acting import acting
from .database import Cursor, Database, StoreError, open_database
from .values import now as _now
from .values import optional_step as _optional_step
from .values import required_text as _required_text
from .values import timestamp_text as _timestamp_text
from .values import typed_frame as _typed

SCHEMA_VERSION = schema.SCHEMA_VERSION

NOTE_COLUMNS = ["id", "corpus", "dialog_id", "round", "turn", "tags", "text", "author",
                "created_at", "updated_at", "deleted_at", "link"]
HISTORY_COLUMNS = ["note_id", "version", "action", "round", "turn", "tags", "text", "author",
                   "updated_at", "replaced_at", "changed_by"]
_SELECT_NOTE = ("SELECT id, corpus, dialog_id, round, turn, tags, text, author, created_at, updated_at, deleted_at, "
                "changed_by FROM notes")

_UNCHANGED = object()


NotesStoreError = StoreError  # the name the app has always used


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


def open_migrated(target: Union[str, Path, Database, None]) -> Database:
    """The database at ``target`` (default: ``DIALOGUE_NOTES_DB``), created and brought to the current schema;
    a ``Database`` passed in is used as it is (whoever opened it migrated it)."""
    if isinstance(target, Database):
        return target
    db = open_database(target if target is not None else notes_db_target())
    try:
        db.migrate(schema.MIGRATIONS)
    except BaseException:
        close = getattr(db, "close", None)
        if close is not None:
            close()
        raise
    return db


def open_read_only(target: Union[str, Path]) -> Database:
    """The database at ``target`` opened read-only and as it is: nothing is created or migrated, and a store whose
    schema is not this app's (an empty file, one an older app wrote, one a newer app wrote) is refused with a
    StoreError saying so (``python -m data_access sql --codes``)."""
    db = open_database(target, read_only=True)
    try:
        version = db.schema_version()
        known = len(schema.MIGRATIONS)
        if version == 0:
            raise StoreError(f"{db.describe()}: holds no store of the app's notes and codes (no schema); a store is "
                             "read here as it is, never created")
        if version < known:
            raise StoreError(f"{db.describe()}: its schema is version {version}, this app's is {known}; open it "
                             "with the app once to migrate it (a store is read here as it is, never migrated)")
        if version > known:
            raise StoreError(f"{db.describe()}: written by a newer version of the app (notes schema {version}, "
                             f"this app knows up to {known}); update the app to use it")
    except BaseException:
        close = getattr(db, "close", None)
        if close is not None:
            close()
        raise
    return db


class NotesStore:
    """The notes in the store at ``target``: a SQLite file path, a ``postgresql://`` URL (default:
    ``DIALOGUE_NOTES_DB``), or an open ``Database`` shared with the rest of the store (``data_access.store.Store``);
    created and migrated on first use (safe when many processes do it at once).

    Safe to share between threads and processes (SQLite: no open connection; PostgreSQL: a connection pool).

    Every write takes the acting identity (``actor``) and is checked against it in its transaction: a coder
    writes notes under their own name and edits only notes whose stored author is theirs. With ``sign_in`` a
    write without a signed-in actor is refused; without, a missing actor is the local user (``acting.py``)."""

    def __init__(self, target: Union[str, Path, Database, None] = None, *, sign_in: bool = False):
        self.db: Database = open_migrated(target)
        self.sign_in = sign_in
        self.path = getattr(self.db, "path", None)  # the SQLite file (None for PostgreSQL)
        self.location = self.db.describe()  # for messages: the path, or the URL without its password

    @property
    def schema_version(self) -> int:
        return self.db.schema_version()

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
        actor: Optional[Identity] = None,
    ) -> int:
        """Save a new note and return its id. ``turn=None``: a note on the whole dialog (or round). Signed in,
        the author is the actor's coder name (another name is refused as a forgery)."""
        what = "adding a note"
        with self.db.write() as conn:
            identity = acting(actor, self.sign_in, what, author)
            check(identity, Action.WRITE_OWN, what=what)
            written_as = attributed(identity, author, what)
            row = new_note_row(corpus, dialog_id, text, round, turn, tags,
                               checked_coder_name(written_as, "the author") if written_as else written_as)
            row["changed_by"] = identity.signature
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
        actor: Optional[Identity] = None,
    ) -> None:
        """Change the given fields of a live note; the previous version goes into its history.

        With ``expected_updated_at`` (the ``updated_at`` the caller read), raises ``NoteConflict`` instead of
        overwriting an edit another session saved in between."""
        what = f"editing note {note_id}"
        with self.db.write() as conn:
            current = self._live_row(conn, note_id)
            identity = self._owner_checked(actor, current, what)
            _check_unchanged(current, expected_updated_at)
            new = dict(current)
            if tags is not _UNCHANGED:
                new["tags"] = normalize_tags(tags)
            if text is not _UNCHANGED:
                new["text"] = text
            _note_text(new["text"], new["tags"])
            if author is not _UNCHANGED:
                new["author"] = (attributed(identity, author, what) if identity.signed_in else author) or None
                if new["author"] and new["author"] != current["author"]:
                    new["author"] = checked_coder_name(new["author"], "the author")
            if round is not _UNCHANGED:
                new["round"] = _optional_step(round, "round")
            if turn is not _UNCHANGED:
                new["turn"] = _optional_step(turn, "turn")
            if all(new[key] == current[key] for key in ("text", "tags", "author", "round", "turn")):
                return
            now = _now()
            _record_revision(conn, current, "update", now)
            conn.execute(
                "UPDATE notes SET text = ?, tags = ?, author = ?, round = ?, turn = ?, updated_at = ?, changed_by = ? "
                "WHERE id = ?",
                (new["text"], json.dumps(new["tags"], ensure_ascii=False), new["author"], new["round"], new["turn"],
                 now, identity.signature, current["id"]),
            )

    def delete_note(self, note_id: int, *, expected_updated_at: Optional[str] = None,
                    actor: Optional[Identity] = None) -> None:
        """Mark a note deleted (it disappears from listings; ``restore_note`` brings it back)."""
        with self.db.write() as conn:
            current = self._live_row(conn, note_id)
            identity = self._owner_checked(actor, current, f"deleting note {note_id}")
            _check_unchanged(current, expected_updated_at)
            now = _now()
            _record_revision(conn, current, "delete", now)
            conn.execute("UPDATE notes SET deleted_at = ?, updated_at = ?, changed_by = ? WHERE id = ?",
                         (now, now, identity.signature, current["id"]))

    def restore_note(self, note_id: int, *, expected_updated_at: Optional[str] = None,
                     actor: Optional[Identity] = None) -> None:
        """Bring back a deleted note."""
        with self.db.write() as conn:
            row = conn.execute(_SELECT_NOTE + " WHERE id = ?" + conn.lock_clause, (int(note_id),)).fetchone()
            if row is None or _row_dict(row)["deleted_at"] is None:
                raise NoteNotFound(f"there is no deleted note {note_id}")
            current = _row_dict(row)
            identity = self._owner_checked(actor, current, f"restoring note {note_id}")
            _check_unchanged(current, expected_updated_at)
            now = _now()
            _record_revision(conn, current, "restore", now)
            conn.execute("UPDATE notes SET deleted_at = NULL, updated_at = ?, changed_by = ? WHERE id = ?",
                         (now, identity.signature, current["id"]))

    def _owner_checked(self, actor: Optional[Identity], current: dict, what: str) -> Identity:
        """The actor, once allowed to change ``current`` (its stored author, not one the caller names)."""
        identity = acting(actor, self.sign_in, what, current["author"])
        check(identity, Action.WRITE_OWN, owner=current["author"] or "", what=what)
        return identity

    @staticmethod
    def _live_row(conn: Cursor, note_id: int) -> dict:
        row = conn.execute(_SELECT_NOTE + " WHERE id = ? AND deleted_at IS NULL" + conn.lock_clause,
                           (int(note_id),)).fetchone()
        if row is None:
            raise NoteNotFound(f"there is no note {note_id} (it may have been deleted)")
        return _row_dict(row)

    # -- reading ---------------------------------------------------------------------------------------------

    def get_note(self, note_id: int) -> dict:
        """One note (live or deleted) as a dict with the same keys as the ``notes()`` columns."""
        with self.db.read() as conn:
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
        where, params = ["1 = 1"], []
        if not include_deleted:
            where.append("deleted_at IS NULL")
        if corpus is not None:
            where.append("corpus = ?")
            params.append(corpus)
        if dialog_id is not None:
            where.append("dialog_id = ?")
            params.append(str(dialog_id))
        if author is not None:
            where.append("author = ?")
            params.append(author)
        # Tag and text filters run here rather than in SQL, so both backends match exactly alike
        # (whole normalised tags; Unicode case folding, which SQL's lower() does not do).
        wanted_tag = normalize_tags(tag)[0] if tag is not None and normalize_tags(tag) else None
        needle = text.casefold() if text else None
        return self._frame(" WHERE " + " AND ".join(where) + " ORDER BY id", params,
                           keep=lambda note: (wanted_tag is None or wanted_tag in note["tags"])
                           and (needle is None or needle in note["text"].casefold()))

    def is_empty(self) -> bool:
        """True when no note was ever written (deleted ones count: they can be brought back)."""
        with self.db.read() as conn:
            return conn.execute("SELECT 1 FROM notes LIMIT 1").fetchone() is None

    def notes_at(self, place: Place) -> pd.DataFrame:
        """Live notes attached exactly to this place (``step=None``: the notes on the whole dialog/round)."""
        return self._frame(
            f" WHERE deleted_at IS NULL AND corpus = ? AND dialog_id = ? AND round {self.db.is_()} ? "
            f"AND turn {self.db.is_()} ? ORDER BY id", [place.corpus, place.dialog_id, place.round, place.step])

    def notes_for_turn(self, corpus: str, dialog_id: str, round: Optional[int], turn: Optional[int]) -> pd.DataFrame:
        """``notes_at(Place(corpus, dialog_id, round, turn))``."""
        return self.notes_at(Place(corpus, str(dialog_id), round, turn))

    def tag_counts(self, corpus: Optional[str] = None) -> pd.DataFrame:
        """Columns tag, n_notes over live notes, most used first (ties alphabetical)."""
        counts: dict[str, int] = {}
        for tags in self._frame(" WHERE deleted_at IS NULL" + (" AND corpus = ?" if corpus is not None else ""),
                                [corpus] if corpus is not None else [])["tags"]:
            for one in tags:
                counts[one] = counts.get(one, 0) + 1
        ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        return pd.DataFrame({
            "tag": pd.Series([t for t, _ in ordered], dtype="str"),
            "n_notes": pd.Series([n for _, n in ordered], dtype="int64"),
        })

    def note_history(self, note_id: int) -> pd.DataFrame:
        """Every version of a note, oldest first, the current one last (``action`` = "current").

        ``updated_at`` is when that version was saved, ``replaced_at`` when it stopped being current, and
        ``changed_by`` who saved it (the identity's signature; empty for versions saved before it was kept)."""
        current = self.get_note(note_id)
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT action, round, turn, tags, text, author, version_updated_at, recorded_at, changed_by "
                "FROM note_revisions WHERE note_id = ? ORDER BY revision_id", (int(note_id),)).fetchall()
        records = [
            {"action": a, "round": r, "turn": t, "tags": json.loads(tags), "text": text, "author": author,
             "updated_at": updated, "replaced_at": recorded, "changed_by": by}
            for a, r, t, tags, text, author, updated, recorded, by in rows
        ]
        records.append({"action": "deleted" if current["deleted_at"] else "current", "round": current["round"],
                        "turn": current["turn"], "tags": current["tags"], "text": current["text"],
                        "author": current["author"], "updated_at": current["updated_at"], "replaced_at": None,
                        "changed_by": current["changed_by"]})
        frame = pd.DataFrame.from_records(records, columns=HISTORY_COLUMNS[2:])
        frame.insert(0, "version", range(1, len(frame) + 1))
        frame.insert(0, "note_id", int(note_id))
        return _typed(frame, ["updated_at", "replaced_at"])

    def _frame(self, where_sql: str, params: list, keep=None) -> pd.DataFrame:
        with self.db.read() as conn:
            rows = conn.execute(_SELECT_NOTE + where_sql, params).fetchall()
        records = [_row_dict(row) for row in rows]
        if keep is not None:
            records = [record for record in records if keep(record)]
        if not records:  # the usual case on a replay step; typing an empty frame costs more than the query
            return _empty_notes_frame().copy()
        for record in records:
            record["link"] = _link(record)
        frame = pd.DataFrame.from_records(records, columns=NOTE_COLUMNS)
        return _typed(frame, ["created_at", "updated_at", "deleted_at"])

    # -- export ----------------------------------------------------------------------------------------------

    def export_csv(self, target: Union[str, Path, BinaryIO, TextIO, None] = None, *, link_base: str = "",
                   **filters) -> Optional[bytes]:
        """The notes (``notes(**filters)``) as UTF-8 CSV, tags as JSON lists, each row with its deep link.

        ``link_base`` (the server's address, e.g. ``https://lab.example/dashboard``) goes before each root-relative
        link, so that a link opens from a file sent by e-mail. Writes to a path or file object, or returns the bytes
        when ``target`` is None (for download buttons)."""
        return _deliver(to_csv_bytes(_absolute(self.notes(**filters), link_base)), target)

    def export_jsonl(self, target: Union[str, Path, BinaryIO, TextIO, None] = None, *, link_base: str = "",
                     **filters) -> Optional[bytes]:
        """The notes as JSON Lines (one object per note, tags as a list, times ISO 8601, with ``link``, after
        ``link_base`` as in ``export_csv``)."""
        frame = _absolute(self.notes(**filters), link_base)
        return _deliver(to_jsonl_bytes(frame.to_dict(orient="records")), target)


def _check_unchanged(current: dict, expected_updated_at) -> None:
    if expected_updated_at is not None and _timestamp_text(expected_updated_at) != current["updated_at"]:
        raise NoteConflict(f"note {current['id']} was changed in another session at {current['updated_at']}")


# -- rows ----------------------------------------------------------------------------------------------------

def _note_text(text, tags: list[str]) -> str:
    if not isinstance(text, str):
        raise ValueError(f"note text must be a string; got {type(text).__name__}")
    if not text.strip() and not tags:
        raise ValueError("a note needs some text or at least one tag")
    return text


def new_note_row(corpus, dialog_id, text, round, turn, tags, author) -> dict:
    """A validated note row, ready for ``insert_note_row``; ValueError names what is wrong."""
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


def insert_note_row(conn: Cursor, row: dict) -> int:
    """INSERT one validated note row inside the caller's transaction; returns the new id."""
    return conn.insert(
        "INSERT INTO notes (corpus, dialog_id, round, turn, tags, text, author, created_at, updated_at, changed_by) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (row["corpus"], row["dialog_id"], row["round"], row["turn"], json.dumps(row["tags"], ensure_ascii=False),
         row["text"], row["author"], row["created_at"], row["updated_at"], row.get("changed_by")),
    )


def _record_revision(conn: Cursor, current: dict, action: str, now: str) -> None:
    conn.execute(
        "INSERT INTO note_revisions (note_id, action, round, turn, tags, text, author, version_updated_at, recorded_at,"
        " changed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (current["id"], action, current["round"], current["turn"], json.dumps(current["tags"], ensure_ascii=False),
         current["text"], current["author"], current["updated_at"], now, current.get("changed_by")),
    )


def _row_dict(row: tuple) -> dict:
    keys = ("id", "corpus", "dialog_id", "round", "turn", "tags", "text", "author",
            "created_at", "updated_at", "deleted_at", "changed_by")
    note = dict(zip(keys, row))
    note["tags"] = json.loads(note["tags"])
    return note


def _absolute(frame: pd.DataFrame, link_base: str) -> pd.DataFrame:
    base = link_base.rstrip("/")
    if not base or "link" not in frame:
        return frame
    return frame.assign(link=[base + link if isinstance(link, str) and link.startswith("/") else link
                              for link in frame["link"]])


def _link(note: dict) -> str:
    return Place(note["corpus"], note["dialog_id"], note["round"], note["turn"]).link()


@functools.lru_cache(maxsize=1)
def _empty_notes_frame() -> pd.DataFrame:
    return _typed(pd.DataFrame.from_records([], columns=NOTE_COLUMNS), ["created_at", "updated_at", "deleted_at"])


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
