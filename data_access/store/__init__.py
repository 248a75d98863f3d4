"""The store: notes, codebooks, annotations, gold decisions and coding queues in one database (a SQLite file
for one person, PostgreSQL for a team), behind a public API.

``Store(target)`` opens the database once (default: ``DIALOGUE_NOTES_DB``), brings its schema up to date, and
composes the parts that share it: ``store.notes`` (a ``NotesStore``), ``store.coding`` (a ``CodingStore``,
which lists the notes through ``store.notes``), ``store.slices`` (``SavedSlices``), ``store.plays`` (``PlayStore``)
``store.live_games`` (``LiveGames``: two people playing each other, issue 50) and ``store.live_consent``
(``LiveConsent``: the consent text shown before a live game, and who agreed to it). One ``Store`` per database is
meant to be shared by every page and thread (``ui/store.py`` caches it); on PostgreSQL it holds one connection pool.

Modules: ``database`` (SQLite / PostgreSQL access, the pool, errors), ``schema`` (the migrations), ``notes``,
``coding``, ``redaction`` (passwords out of every message), ``values`` (timestamps and place fields),
``acting`` (the identity each write is checked against: every write method takes ``actor=``). A place
in a dialog is a ``data_access.links.Place``. See docs/store.md.
"""
from __future__ import annotations

from pathlib import Path
from typing import Union

from .coding import (
    ANNOTATION_FRAME_COLUMNS,
    LAYERS,
    MODEL_CODER_PREFIX,
    MODEL_UID_PREFIX,
    NO_DECISION,
    QUEUE_COLUMNS,
    AnnotationConflict,
    AnnotationNotFound,
    CodingStore,
    GoldConflict,
    GoldDecision,
    GoldUnit,
    to_common_form,
)
from .database import (
    BUSY_TIMEOUT_S,
    Cursor,
    Database,
    StoreBusy,
    StoreError,
    StoreUnavailable,
    is_postgres_url,
    open_database,
    pool_size,
    pool_timeout_s,
)
from .live_consent import ConsentChanged, ConsentText, LiveConsent
from .live_games import LiveGames
from .live_values import LiveEvent, LiveGame, LiveGameClosed, LiveGameConflict, LiveGameFull, LiveGameNotFound
from .note_edits import EditOutcome, apply_edits
from .notes import (
    HISTORY_COLUMNS,
    NOTE_COLUMNS,
    SCHEMA_VERSION,
    NoteConflict,
    NoteNotFound,
    NotesStore,
    insert_note_row,
    new_note_row,
    normalize_tags,
    open_migrated,
    open_read_only,
)
from .plays import Play, PlayConflict, PlayEvent, PlayNotFound, PlayStore
from .redaction import redact, url_secrets
from .sign_outs import SignOuts
from .slices import SavedSliceConflict, SavedSliceNotFound, SavedSlices

__all__ = [
    "ANNOTATION_FRAME_COLUMNS", "BUSY_TIMEOUT_S", "HISTORY_COLUMNS", "LAYERS", "MODEL_CODER_PREFIX", "MODEL_UID_PREFIX",
    "NOTE_COLUMNS", "NO_DECISION",
    "QUEUE_COLUMNS", "SCHEMA_VERSION", "AnnotationConflict", "AnnotationNotFound", "CodingStore", "ConsentChanged", "ConsentText", "Cursor",
    "Database", "EditOutcome", "GoldConflict", "LiveEvent", "LiveGame", "LiveGameClosed", "LiveGameConflict",
    "LiveConsent", "LiveGameFull", "LiveGameNotFound", "LiveGames", "GoldDecision", "GoldUnit", "NoteConflict", "NoteNotFound",
    "NotesStore", "Play", "PlayConflict", "PlayEvent", "PlayNotFound", "PlayStore", "SavedSliceConflict", "SavedSliceNotFound", "SavedSlices", "SignOuts", "Store", "StoreBusy", "StoreError", "StoreUnavailable", "apply_edits", "insert_note_row", "is_postgres_url",
    "new_note_row", "normalize_tags", "open_database", "open_migrated", "open_read_only", "pool_size", "pool_timeout_s", "redact",
    "to_common_form", "url_secrets",
]


class Store:
    """One database and the parts of the store on it: ``notes`` and ``coding`` (composed, sharing ``db``).

    ``sign_in``: the deployment has sign-in, so every write needs a signed-in ``actor`` (``data_access.access``);
    without it a write with no actor is the local user's, who may do everything."""

    def __init__(self, target: Union[str, Path, Database, None] = None, *, sign_in: bool = False):
        self.db: Database = open_migrated(target)
        self.sign_in = sign_in
        self.notes = NotesStore(self.db, sign_in=sign_in)
        self.coding = CodingStore(self.db, notes=self.notes, sign_in=sign_in)
        self.sign_outs = SignOuts(self.db)
        self.slices = SavedSlices(self.db, sign_in=sign_in)
        self.plays = PlayStore(self.db, sign_in=sign_in)
        self.live_games = LiveGames(self.db, sign_in=sign_in)
        self.live_consent = LiveConsent(self.db, sign_in=sign_in)
        self.location = self.db.describe()  # the path, or the URL without its password

    def close(self) -> None:
        """Close the connection pool (PostgreSQL); SQLite holds nothing open."""
        close = getattr(self.db, "close", None)
        if close is not None:
            close()
