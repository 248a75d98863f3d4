"""Saved slices (issue 37): a slice's text with a name and a description, kept in the store, private to its
owner or shared with the team.

Who may do what follows the notes (``data_access.access``): saving takes the coder role (``Action.WRITE_OWN``),
and a slice is saved under the writer's own coder name (signed in, another name is refused as a forgery);
editing, sharing and deleting take the same role on the slice's stored owner, and an admin may delete any
shared slice (``Action.MANAGE``: one that breaks or clutters every colleague's list). A private slice is listed
for its owner only; a shared one for everyone. Without sign-in the local user owns and sees every slice. One
owner keeps at most ``MAX_SAVED_PER_OWNER`` live slices (every list counts them all).

A slice is stored as its definition: the grammar's canonical text (``data_access.slices.canonical``), or a SQL
query (``sql:SELECT …``, issue 46) checked to be one read-only query; one that is neither is refused before anything
is written. It is evaluated again wherever it is used (a link carries its id, ``slice=@12``). Deleting only marks the row deleted. Names are unique per owner among live slices.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd

from ..access import Action, Identity, attributed, check, checked_coder_name
from ..slices import SliceError, canonical
from .acting import acting
from .database import Database, StoreError
from .values import now as _now

MAX_NAME_CHARS = 120
MAX_DESCRIPTION_CHARS = 4_000
MAX_SAVED_PER_OWNER = 200  # live slices of one owner: a researcher's working set, and a bound on every list
SLICE_COLUMNS = ["id", "name", "description", "slice", "corpus", "owner", "shared", "created_at", "updated_at",
                 "changed_by"]
_SELECT = ("SELECT id, name, description, slice, corpus, owner, shared, created_at, updated_at, changed_by "
           "FROM saved_slices")
_UNCHANGED = object()


class SavedSliceNotFound(StoreError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "saved slice not found"


class SavedSliceConflict(StoreError):
    """The name is taken by another live slice of the owner, or the slice changed since it was read."""


def _name(value: object) -> str:
    if not isinstance(value, str) or not " ".join(value.split()):
        raise ValueError("A saved slice needs a name.")
    name = " ".join(value.split())
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"A slice's name is at most {MAX_NAME_CHARS} characters; this one has {len(name):,}.")
    return name


def _description(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError("A slice's description is text.")
    if len(value) > MAX_DESCRIPTION_CHARS:
        raise ValueError(f"A slice's description is at most {MAX_DESCRIPTION_CHARS:,} characters; this one has "
                         f"{len(value):,}.")
    return value


def _slice_text(value: object) -> str:
    """A slice's definition as it is kept: the grammar's canonical text, or a SQL query (``sql:…``) checked to be one
    read-only query; a reference to another saved slice (``@12``) is no definition."""
    from ..slices.definitions import check_sql, is_sql, saved_id

    try:
        if isinstance(value, str) and is_sql(value):
            return check_sql(value)
        if isinstance(value, str) and saved_id(value.strip()) is not None:
            raise SliceError("it names another saved slice; save that slice's definition instead")
        return canonical(value)  # type: ignore[arg-type]
    except SliceError as exc:
        raise ValueError(f"Not saved: the slice is not one ({exc}).") from None


def _row(row) -> dict:
    record = dict(zip(SLICE_COLUMNS, row))
    record["shared"] = bool(record["shared"])
    return record


class SavedSlices:
    """The saved slices of one database (``Store.slices``)."""

    def __init__(self, db: Database, *, sign_in: bool = False):
        self.db = db
        self.sign_in = sign_in

    def save(self, name: str, slice_text: str, *, description: str = "", corpus: Optional[str] = None,
             shared: bool = False, owner: Optional[str] = None, actor: Optional[Identity] = None) -> int:
        """Save a new slice and return its id. ``owner``: the coder name it is saved under (signed in, always
        the actor's own); ``corpus``: the corpus it was made on (None: any)."""
        what = "saving a slice"
        name, description, text = _name(name), _description(description), _slice_text(slice_text)
        with self.db.write() as conn:
            identity = acting(actor, self.sign_in, what, owner)
            check(identity, Action.WRITE_OWN, what=what)
            written_as = attributed(identity, owner, what)
            written_as = checked_coder_name(written_as, "the owner") if written_as else ""
            self._room_for(conn, written_as)
            self._name_free(conn, written_as, name)
            now = _now()
            return conn.insert(
                "INSERT INTO saved_slices (name, description, slice, corpus, owner, shared, created_at, updated_at, "
                "changed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, description, text, corpus, written_as, 1 if shared else 0, now, now, identity.signature))

    def update(self, slice_id: int, *, name=_UNCHANGED, description=_UNCHANGED, slice_text=_UNCHANGED,
               shared=_UNCHANGED, expected_updated_at: Optional[str] = None,
               actor: Optional[Identity] = None) -> None:
        """Change a live slice (its owner's, or anyone's for the local user); ``expected_updated_at`` refuses an
        edit of a slice changed since it was read (``SavedSliceConflict``)."""
        what = f"editing saved slice {slice_id}"
        with self.db.write() as conn:
            current = self._live(conn, slice_id)
            identity = acting(actor, self.sign_in, what, current["owner"])
            check(identity, Action.WRITE_OWN, owner=current["owner"], what=what)
            if expected_updated_at is not None and current["updated_at"] != expected_updated_at:
                raise SavedSliceConflict(f"Saved slice “{current['name']}” changed since it was opened; "
                                         "nothing was saved. Open it again.")
            new = dict(current)
            if name is not _UNCHANGED:
                new["name"] = _name(name)
                if new["name"] != current["name"]:
                    self._name_free(conn, current["owner"], new["name"])
            if description is not _UNCHANGED:
                new["description"] = _description(description)
            if slice_text is not _UNCHANGED:
                new["slice"] = _slice_text(slice_text)
            if shared is not _UNCHANGED:
                new["shared"] = bool(shared)
            conn.execute("UPDATE saved_slices SET name = ?, description = ?, slice = ?, shared = ?, updated_at = ?, "
                         "changed_by = ? WHERE id = ?",
                         (new["name"], new["description"], new["slice"], 1 if new["shared"] else 0, _now(),
                          identity.signature, current["id"]))

    def delete(self, slice_id: int, *, actor: Optional[Identity] = None) -> None:
        what = f"deleting saved slice {slice_id}"
        with self.db.write() as conn:
            current = self._live(conn, slice_id)
            identity = acting(actor, self.sign_in, what, current["owner"])
            if not (current["shared"] and identity.may(Action.MANAGE)):  # an admin removes any shared slice
                check(identity, Action.WRITE_OWN, owner=current["owner"], what=what)
            now = _now()
            conn.execute("UPDATE saved_slices SET deleted_at = ?, updated_at = ?, changed_by = ? WHERE id = ?",
                         (now, now, identity.signature, current["id"]))

    def get(self, slice_id: int, *, viewer: Optional[Identity] = None) -> dict:
        """One live slice the viewer may see (``SavedSliceNotFound`` otherwise, whether absent or private)."""
        with self.db.read() as conn:
            row = conn.execute(_SELECT + " WHERE id = ? AND deleted_at IS NULL", (int(slice_id),)).fetchone()
        record = _row(row) if row is not None else None
        if record is None or not _visible(record, viewer):
            raise SavedSliceNotFound(f"there is no saved slice {slice_id}")
        return record

    def list(self, *, viewer: Optional[Identity] = None) -> pd.DataFrame:
        """The live slices the viewer sees (``viewer`` None: the local user, who sees all), by name."""
        with self.db.read() as conn:
            rows = conn.execute(_SELECT + " WHERE deleted_at IS NULL ORDER BY name, id").fetchall()
        records = [r for r in (_row(row) for row in rows) if _visible(r, viewer)]
        frame = pd.DataFrame(records, columns=SLICE_COLUMNS)
        frame["id"] = frame["id"].astype("int64")
        frame["shared"] = frame["shared"].astype(bool)
        return frame

    def _live(self, conn, slice_id: int) -> dict:
        row = conn.execute(_SELECT + " WHERE id = ? AND deleted_at IS NULL" + conn.lock_clause,
                           (int(slice_id),)).fetchone()
        if row is None:
            raise SavedSliceNotFound(f"there is no saved slice {slice_id} (it may have been deleted)")
        return _row(row)

    @staticmethod
    def _room_for(conn, owner: str) -> None:
        """Refuse a new slice of ``owner`` past ``MAX_SAVED_PER_OWNER``; two saves of one owner count one at a time."""
        conn.serialize(f"saved_slices of {owner}")
        held = conn.execute("SELECT count(*) FROM saved_slices WHERE owner = ? AND deleted_at IS NULL",
                            (owner,)).fetchone()[0]
        if held >= MAX_SAVED_PER_OWNER:
            raise ValueError(f"Not saved: {owner or 'you'} already {'has' if owner else 'have'} {held:,} saved slices, "
                             f"the most one person may keep ({MAX_SAVED_PER_OWNER:,}); delete some first.")

    @staticmethod
    def _name_free(conn, owner: str, name: str) -> None:
        taken = conn.execute("SELECT id FROM saved_slices WHERE owner = ? AND name = ? AND deleted_at IS NULL",
                             (owner, name)).fetchone()
        if taken is not None:
            raise SavedSliceConflict(f"Not saved: {owner or 'you'} already {'has' if owner else 'have'} a slice "
                                     f"named “{name}”; choose another name or edit that one.")


def _visible(record: dict, viewer: Optional[Identity]) -> bool:
    """Shared slices for everyone; private ones for their owner (the local user sees every slice)."""
    if record["shared"] or viewer is None or not viewer.signed_in:
        return True
    return record["owner"] == viewer.coder
