"""Notes in the UI: the panel on the replay page (notes at this turn, add one) and note counts for tables.

The store is the one shared by every page (``ui.store``); nothing here caches note contents, so every tab sees
what the others saved. A failed save (a refused one too: ``ui.shell.auth``) keeps the typed text in the form and says
why. Signed in, a note's author is the signed-in coder; a viewer sees the notes and a disabled form."""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from data_access import corpora
from data_access.access import AccessRefused, Action
from data_access.corpus import Corpus
from data_access.links import Place
from data_access.store import NotesStore
from data_access.store import StoreError as NotesStoreError
from data_access.store import apply_edits as apply_edits  # the Notes page saves its table's edits
from ui.shell import auth
from ui.store import opened, unavailable
from ui.widgets import md_escape

SHOWN_NOTE_CHARS = 2_000  # of one note, in the replay's panel


def store() -> Optional[NotesStore]:
    """The notes of the shared store, or None after showing why it cannot be opened."""
    shared = opened("Notes")
    return shared.notes if shared is not None else None


def note_counts(corpus: Corpus) -> pd.Series:
    """Live notes per dialog of ``corpus`` (dialog_id → count)."""
    notes = store()
    if notes is None:
        return pd.Series(dtype="int64")
    try:
        return notes.notes(corpus=corpus.name)["dialog_id"].value_counts()
    except NotesStoreError as exc:
        unavailable("Notes", exc)
        return pd.Series(dtype="int64")


def _save(form_key: str, corpus: Corpus) -> None:
    """The form's note, on the step the page shows as it is sent (the URL's: the reader may have stepped on since the
    form was drawn), or on its whole dialog."""
    from ui.replay.step_parts import step_place

    state = st.session_state
    text, tags = state.get(f"{form_key}_text", ""), state.get(f"{form_key}_tags", "")
    on_turn = state.get(f"{form_key}_scope", "this turn") == "this turn"
    if not text.strip() and not tags.strip():
        state[f"{form_key}_message"] = ("warning", "Write a note or a tag first.")
        return
    place = step_place(corpus)
    if place is None:
        state[f"{form_key}_message"] = ("error", "Not saved — no dialog is shown; your text is still in the form.")
        return
    dialog_id, turn, round = place
    notes = store()
    if notes is None:  # store() has shown why
        state[f"{form_key}_message"] = ("error", "Not saved — the notes store is unavailable; your text is still in the form.")
        return
    try:
        notes.add_note(corpus.name, dialog_id, text, round=round, turn=turn if on_turn else None,
                       tags=[t for t in tags.split(",") if t.strip()], actor=auth.writer())
    except (NotesStoreError, ValueError, AttributeError, AccessRefused) as exc:
        state[f"{form_key}_message"] = ("error", f"Not saved — your text is still in the form: {exc}")
        return
    state[f"{form_key}_text"], state[f"{form_key}_tags"] = "", ""
    state[f"{form_key}_message"] = ("success", "Note saved.")


def notes_panel(corpus: Corpus, dialog_id: str, turn: Optional[int], round: Optional[int] = None,
                turn_label: str = "turn") -> None:
    """The notes on this turn and on the whole dialog (the form to add one is ``note_form``)."""
    notes = store()
    if notes is None:
        return
    try:
        here = notes.notes_at(Place(corpus.name, dialog_id, round, turn)) if turn is not None else pd.DataFrame()
        whole = notes.notes_at(Place(corpus.name, dialog_id))
    except NotesStoreError as exc:
        unavailable("Notes", exc)  # the form is drawn on its own: a note being typed survives the outage
        here = whole = pd.DataFrame()
    count = len(here) + len(whole)
    with st.expander(f"Notes ({count})", expanded=count > 0):
        if not count:
            st.caption(f"No notes on this {turn_label} or on the whole dialog yet.")
        for title, frame in ((f"On this {turn_label}", here), ("On the whole dialog", whole)):
            if len(frame):
                st.caption(title)
                for note in frame.itertuples(index=False):
                    tags = " ".join(f"**#{md_escape(t)}**" for t in note.tags)
                    st.markdown(f"{tags} · {note.created_at:%Y-%m-%d %H:%M}")
                    if len(note.text) <= SHOWN_NOTE_CHARS:
                        st.text(note.text)
                    else:  # a pasted megabyte would make the replay page thousands of lines tall
                        st.text(note.text[:SHOWN_NOTE_CHARS] + "…")
                        st.caption(f"The first {SHOWN_NOTE_CHARS:,} of {len(note.text):,} characters; the whole note is "
                                   "on the Notes page and in its downloads.")


def note_form(corpus: Corpus) -> None:
    """A form to add a note on the step shown or on its whole dialog (saved where the page is as it is sent: the form
    does not follow each step, ``_save``)."""
    if store() is None:
        return
    form_key = f"note_form_{corpus.name}"
    may_write = auth.allowed(Action.WRITE_OWN, "adding notes")
    if may_write and auth.sign_in_configured():
        st.caption(f"Notes are saved as **{md_escape(auth.writer().coder)}**.")
    with st.form(form_key, border=False):
        # Only the button follows the role: a box drawn disabled would be a new widget and lose its text.
        st.text_area("New note", key=f"{form_key}_text", placeholder="What do you notice here?")
        left, right = st.columns([3, 2])
        left.text_input("Tags (comma-separated)", key=f"{form_key}_tags", placeholder="e.g. repair, spatial")
        right.radio("Attach to", ["this turn", "the whole dialog"], key=f"{form_key}_scope", horizontal=True)
        st.form_submit_button("Save note", on_click=_save, args=(form_key, corpus), disabled=not may_write)
    message = st.session_state.pop(f"{form_key}_message", None)
    if message:
        getattr(st, message[0])(message[1])


# -- the Notes page's editable table -------------------------------------------------------------------------

_SNAPSHOT = "notes_editor_snapshot"


def note_editor_frame(notes: NotesStore, selection: dict, show_deleted: bool) -> Optional[tuple[pd.DataFrame, int]]:
    """The notes the editor shows, and how many changed elsewhere since (0 when no edit is pending).

    While the user has unsaved edits the table keeps showing the rows those edits were made on (the editor
    keys its edits by row position), so a note another session adds or deletes meanwhile cannot shift an
    edit onto another note or drop it; every edit is then saved by note id (``apply_edits``). While the store
    is unreachable the rows shown last stay (None, after saying so, when there are none)."""
    key = (tuple(sorted(selection.items())), show_deleted)
    snapshot = st.session_state.get(_SNAPSHOT)
    try:
        fresh = notes.notes(**selection, include_deleted=show_deleted)
    except NotesStoreError as exc:
        unavailable("Notes", exc)
        return (snapshot[1], 0) if snapshot is not None and snapshot[0] == key else None
    pending = st.session_state.get("notes_editor") or {}
    editing = any(pending.get(part) for part in ("edited_rows", "added_rows", "deleted_rows"))
    if editing and snapshot is not None and snapshot[0] == key:
        shown = snapshot[1]
        seen = dict(zip(shown["id"], shown["updated_at"]))
        newer = sum(seen.get(i) != u for i, u in zip(fresh["id"], fresh["updated_at"])) + len(set(seen) - set(fresh["id"]))
        return shown, newer
    st.session_state[_SNAPSHOT] = (key, fresh)
    return fresh, 0


def shown_places(frame: pd.DataFrame) -> pd.DataFrame:
    """The table's round and step as a reader reads them (``data_access.corpora.shown_places``)."""
    return corpora.shown_places(frame)


def table_edits(before: pd.DataFrame, after: pd.DataFrame) -> list[dict]:
    """The edits between the table as shown and as edited, by note id (see ``data_access.store.apply_edits``)."""
    edits = []
    for old, new in zip(before.itertuples(index=False), after.itertuples(index=False)):
        edit: dict = {}
        if bool(new.deleted) != bool(old.deleted):
            edit["deleted"] = bool(new.deleted)
        if (new.text or "") != (old.text or ""):
            edit["text"] = new.text or ""
        if (new.tags or "") != (old.tags or ""):
            edit["tags"] = (new.tags or "").split(",")
        if edit:
            edits.append({"id": int(old.id), "updated_at": old.updated_at, **edit})
    return edits


def forget_edits() -> None:
    """Show the stored notes again, not the edits (after a save or a discard)."""
    st.session_state.pop("notes_editor", None)
    st.session_state.pop(_SNAPSHOT, None)
