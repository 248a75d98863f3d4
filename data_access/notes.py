"""Where the notes store was imported from before it moved into ``data_access.store`` (kept for importers
elsewhere; new code imports ``data_access.store``)."""
from .store.database import StoreError as NotesStoreError
from .store.notes import (
    HISTORY_COLUMNS,
    NOTE_COLUMNS,
    SCHEMA_VERSION,
    EditOutcome,
    NoteConflict,
    NoteNotFound,
    NotesStore,
    apply_edits,
    insert_note_row,
    new_note_row,
    normalize_tags,
)

__all__ = ["HISTORY_COLUMNS", "NOTE_COLUMNS", "SCHEMA_VERSION", "EditOutcome", "NoteConflict", "NoteNotFound",
           "NotesStore", "NotesStoreError", "apply_edits", "insert_note_row", "new_note_row", "normalize_tags"]
