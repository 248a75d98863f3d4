"""The Codebooks page's sections: the list, the label editor (saving a new version), import and export.
Saving and importing need the admin role once signed in (``ui.shell.auth``); a refusal is said, the edits kept."""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from data_access.access import AccessRefused
from data_access.coding import codebook as cb
from data_access.store import CodingStore
from data_access.store import StoreError as NotesStoreError
from ui.shell import auth

EDITOR_COLUMNS = ["name", "description", "colour", "scope", "links_referents", "key"]
# The version saved or imported last: the page's Version picker shows it on the next run. The picker is keyed
# by the codebook's name, and a keyed selectbox keeps its value when its options change, so after a save it
# stayed on the version opened, with the editor's edits pending over it instead of the version saved.
_SHOW_VERSION = "codebooks_show_version"


def pick_version(book: cb.Codebook) -> int:
    """The version of ``book`` to show (its newest, or the one just saved), picked when it has several."""
    key = f"codebook_version_{book.name}"
    shown = st.session_state.pop(_SHOW_VERSION, None)
    if shown is not None and shown[0] == book.name:
        st.session_state[key] = shown[1]
    if book.version <= 1:
        return book.version
    return st.selectbox("Version", list(range(book.version, 0, -1)), key=key)


def _show(saved: cb.Codebook) -> None:
    st.session_state["codebooks_selected"] = saved.name
    st.session_state[_SHOW_VERSION] = (saved.name, saved.version)


def labels_frame(book: Optional[cb.Codebook]) -> pd.DataFrame:
    rows = [cb.asdict(label) for label in book.labels] if book is not None else []
    frame = pd.DataFrame(rows, columns=EDITOR_COLUMNS)
    frame["links_referents"] = frame["links_referents"].astype(bool)
    return frame


def labels_from_frame(frame: pd.DataFrame) -> list[cb.Label]:
    """Labels from the edited table; blank rows are dropped; CodebookError names the bad row."""
    labels = []
    for position, row in enumerate(frame.to_dict(orient="records"), 1):
        name = row.get("name")
        if name is None or (isinstance(name, float) and name != name) or not str(name).strip():
            continue

        def text(value, default=""):
            return default if value is None or (isinstance(value, float) and value != value) else str(value).strip()

        try:
            labels.append(cb.Label(
                name=str(name).strip(), description=text(row.get("description")),
                colour=text(row.get("colour"), cb.DEFAULT_COLOURS[(position - 1) % len(cb.DEFAULT_COLOURS)]) or
                cb.DEFAULT_COLOURS[(position - 1) % len(cb.DEFAULT_COLOURS)],
                scope=text(row.get("scope"), "turn") or "turn",
                links_referents=bool(row.get("links_referents")) if row.get("links_referents") is not None
                and row.get("links_referents") == row.get("links_referents") else False,
                key=text(row.get("key"))))
        except cb.CodebookError as exc:
            raise cb.CodebookError(f"row {position}: {exc}") from None
    return labels


def label_editor(book: Optional[cb.Codebook], key: str, disabled: bool = False) -> pd.DataFrame:
    return st.data_editor(
        labels_frame(book), key=key, num_rows="dynamic", hide_index=True, width="stretch", disabled=disabled,
        column_config={
            "name": st.column_config.TextColumn("Label", required=True),
            "description": st.column_config.TextColumn("Description", width="large"),
            "colour": st.column_config.TextColumn("Colour (#rrggbb)", validate=r"^#[0-9a-fA-F]{6}$"),
            "scope": st.column_config.SelectboxColumn("Scope", options=list(cb.SCOPES), required=True,
                                                      default="turn"),
            "links_referents": st.column_config.CheckboxColumn("Links referents", default=False),
            "key": st.column_config.TextColumn("Key", max_chars=1, help="keyboard shortcut on the Replay"),
        })


def save(coding: CodingStore, name: str, description: str, labels: list[cb.Label], coder: str) -> None:
    try:
        book = cb.check_budget(cb.Codebook(name=name.strip(), labels=tuple(labels), description=description))
        saved = coding.save_codebook(book, created_by=coder or None, actor=auth.writer())
    except AccessRefused as exc:
        st.session_state["codebooks_message"] = ("error", str(exc))
        return
    except (cb.CodebookError, ValueError, NotesStoreError) as exc:
        st.session_state["codebooks_message"] = ("error", f"Not saved: {exc}")
        return
    st.session_state["codebooks_message"] = ("success", f"Saved {saved.name} version {saved.version}.")
    _show(saved)


def import_file(coding: CodingStore, upload, coder: str) -> bool:
    """Import an uploaded codebook file as a new version. The outcome (success, or "Not imported: FILE: why")
    is left in ``codebooks_message``, which the page shows after its rerun; returns whether it was saved."""
    name = str(getattr(upload, "name", "") or "codebook")
    try:
        book = cb.loads(upload.getvalue(), name)
        saved = coding.save_codebook(book, created_by=coder or None, actor=auth.writer())
    except AccessRefused as exc:
        st.session_state["codebooks_message"] = ("error", f"Not imported: {exc}")
        return False
    except (cb.CodebookError, ValueError, NotesStoreError, RecursionError) as exc:
        reason = "nested too deeply to be a codebook" if isinstance(exc, RecursionError) else str(exc)
        if not reason.startswith(f"{name}: "):
            reason = f"{name}: {reason}"
        st.session_state["codebooks_message"] = ("error", f"Not imported: {reason}")
        return False
    st.session_state["codebooks_message"] = ("success", f"Imported {name} as {saved.name} version {saved.version}.")
    _show(saved)
    return True
