"""The Notes page's table edits saved by note id (``apply_edits``): each edit checked against the note as it is
now, saved or refused with one reason, and what was done said in one message (``EditOutcome``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

from ..access import AccessRefused, Identity
from .notes import NoteConflict, NoteNotFound, NotesStore


@dataclass
class EditOutcome:
    """What ``apply_edits`` did: ids saved, and one message per edit that was not saved (and why)."""

    saved: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def message(self) -> str:
        parts = []
        if self.saved:
            parts.append(f"Saved {len(self.saved)} change(s) (note {', '.join(map(str, self.saved))}).")
        if self.problems:
            parts.append(f"Not saved ({len(self.problems)}): " + " ".join(self.problems))
        return " ".join(parts) or "Nothing to save: no note was changed."


def apply_edits(store: "NotesStore", edits: Iterable[dict], actor: Optional[Identity] = None) -> EditOutcome:
    """Apply edits made in a table, each by note id against the version the editor showed.

    An edit is ``{"id", "updated_at"`` (as shown), and any of ``"text", "tags", "deleted"}``. Each is its own
    transaction: one conflict (the note was changed or deleted in another session since it was shown) does not
    stop the others, and is reported with the note id and the text that was not saved (so is an edit
    ``actor`` may not make: ``AccessRefused``)."""
    outcome = EditOutcome()
    for edit in edits:
        note_id, seen = int(edit["id"]), edit.get("updated_at")
        try:
            if edit.get("deleted") is True:
                store.delete_note(note_id, expected_updated_at=seen, actor=actor)  # a deleted note's edits are moot
            elif edit.get("deleted") is False:
                store.restore_note(note_id, expected_updated_at=seen, actor=actor)
            if edit.get("deleted") is not True and ("text" in edit or "tags" in edit):
                changes = {k: edit[k] for k in ("text", "tags") if k in edit}
                latest = store.get_note(note_id)["updated_at"] if "deleted" in edit else seen
                store.update_note(note_id, expected_updated_at=latest, actor=actor, **changes)
        except AccessRefused as exc:
            outcome.problems.append(f"{exc} Your edit was kept in the table: {_preview(edit)}")
            continue
        except NoteConflict as exc:
            outcome.problems.append(f"{exc}; your version was kept in the table: {_preview(edit)}")
            continue
        except NoteNotFound:
            outcome.problems.append(f"note {note_id} was deleted in another session; your edit was not saved: "
                                    f"{_preview(edit)}")
            continue
        except ValueError as exc:
            outcome.problems.append(f"note {note_id}: {exc}")
            continue
        outcome.saved.append(note_id)
    return outcome


def _preview(edit: dict) -> str:
    text = edit.get("text")
    if text is None:
        return "(deleted)" if edit.get("deleted") else "(restored)" if "deleted" in edit else "(tags)"
    return repr(text if len(text) <= 80 else text[:77] + "...")
