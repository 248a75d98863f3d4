"""Codebooks, annotations and coding queues in the same store as the notes (SQLite or PostgreSQL).

An annotation is one label of one codebook version, put by one coder on
- a dialog (``scope="dialog"``: round/turn None, or round set for a Game Of Sorts round),
- a turn (``scope="turn"``: the replay step, as in deep links), or
- a span of one utterance (``scope="span"``: ``utterance`` is its 0-based position among the utterances of that
  turn — CoDraw: 0 Teller, 1 Drawer — and ``start``/``end`` character offsets into its text, end exclusive),
optionally with referents (ids of what the span names: ``clipart:<index>`` of the CoDraw target scene, Game Of
Sorts image ids, ``block:x,y,z`` of the Minecraft target). ``layer`` is ``coding`` for coders' work and
``gold`` for adjudicated annotations.

Every write is one transaction; each annotation carries a ``uid`` chosen by the writer, so a retried write
never makes a duplicate. Edits keep the previous version in ``annotation_revisions``; deletes are soft.
Notes are listed as annotations of kind ``note`` (``annotations(include_notes=True)``), read through the
``NotesStore`` this store is given (composed, sharing its database), not inherited from it.

A model's labels are imported as a coder of its own (``model:<name>``, ``replace_model_annotations``): one
transaction replaces that model's earlier labels of the codebook in the corpus; no person may code as
``model:…``.

The gold layer holds one decision per unit (``decide_gold``): a row of ``gold_decisions`` per unit and
codebook, written in the same transaction as the unit's gold annotations; a decision made on a stale view of
the unit is refused (``GoldConflict``, naming who decided and when).
"""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

import numpy as np
import orjson
import pandas as pd

from ..access import MODEL_CODER_PREFIX, Action, Identity, attributed, check, checked_coder_name
from ..coding import codebook as cb
from ..links import Place
from .acting import acting
from .database import Database
from .notes import NoteConflict, NoteNotFound, NotesStore, open_migrated
from .values import now as _now
from .values import optional_int as _na
from .values import optional_step as _optional_step
from .values import required_text as _required_text
from .values import timestamp_text as _timestamp_text
from .values import typed_frame as _typed

ANNOTATION_FRAME_COLUMNS = ["id", "kind", "corpus", "dialog_id", "round", "turn", "utterance", "scope", "start",
                            "end", "span_text", "codebook", "codebook_version", "label", "referents", "coder",
                            "layer", "comment", "created_at", "updated_at", "deleted_at", "link"]
LAYERS = ("coding", "gold")
# Coder names of this form are imported model labels (data_access.coding.model_labels): no person codes as one,
# and an import only ever replaces annotations it wrote itself (their uid starts with MODEL_UID_PREFIX).
MODEL_UID_PREFIX = "model-import-"
_SELECT = ("SELECT id, corpus, dialog_id, round, turn, utterance, scope, start_char, end_char, span_text, codebook, "
           "codebook_version, label, referents, coder, layer, comment, created_at, updated_at, deleted_at, "
           "changed_by FROM annotations")
_KEYS = ("id", "corpus", "dialog_id", "round", "turn", "utterance", "scope", "start", "end", "span_text",
         "codebook", "codebook_version", "label", "referents", "coder", "layer", "comment", "created_at",
         "updated_at", "deleted_at", "changed_by")
# compare.SOURCE_COLUMNS: what ``coded_labels`` returns
CODED_COLUMNS = ["corpus", "dialog_id", "round", "turn", "utterance", "start", "end", "label", "referents", "coder",
                 "scope", "span_text"]
QUEUE_COLUMNS = ["id", "queue", "corpus", "dialog_id", "round", "turn", "coder", "status", "position",
                 "created_at", "done_at", "link"]


class AnnotationNotFound(NoteNotFound):
    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "annotation not found"


class AnnotationConflict(NoteConflict):
    """The annotation changed since the caller read it; nothing was written."""


def _coder(value, imported: bool = False) -> str:
    """The coder name a row is written under; a person's may not read as the gold layer or a model's labels
    (``access.checked_coder_name``), which only adjudication and an import (``imported``) write as."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("every annotation needs a coder: choose your name (or set DIALOGUE_CODER)")
    return " ".join(value.split()) if imported else checked_coder_name(value)


def _referents(values: Optional[Iterable]) -> list[str]:
    out: list[str] = []
    for value in values or ():
        text = str(value).strip()
        if not text:
            continue
        if text not in out:
            out.append(text)
    return sorted(out)


class CodingStore:
    """Codebooks, annotations, gold decisions and queues in the store at ``target`` (a path, a URL, or an open
    ``Database``); ``notes`` is the notes store listed with ``include_notes`` (default: one on the same database).

    Every write takes the acting identity (``actor``) and checks it in its transaction (``data_access.access``):
    coders write their own annotations and queue items (by the *stored* coder for edits), the gold layer needs an
    adjudicator, codebooks and queues an admin. With ``sign_in`` a write without a signed-in actor is refused;
    without, a missing actor is the local user writing as the coder the call names."""

    def __init__(self, target: Union[str, Path, Database, None] = None, notes: Optional[NotesStore] = None, *,
                 sign_in: bool = False):
        self.sign_in = sign_in
        self.notes_store = notes if notes is not None else NotesStore(open_migrated(target), sign_in=sign_in)
        self.db: Database = self.notes_store.db
        self.path = self.notes_store.path
        self.location = self.notes_store.location

    # -- codebooks ---------------------------------------------------------------------------------------------

    def save_codebook(self, codebook: cb.Codebook, created_by: Optional[str] = None, *,
                      actor: Optional[Identity] = None) -> cb.Codebook:
        """Save as the next version of its name (1 for a new name); returns the saved, versioned codebook.

        Saving labels identical to the latest version returns that version unchanged. Needs an admin."""
        what = f"saving codebook {codebook.name!r}"
        identity = acting(actor, self.sign_in, what, created_by)
        check(identity, Action.MANAGE, what=what)
        created_by = attributed(identity, created_by, what) or None
        latest = self.codebook(codebook.name, missing_ok=True)
        if latest is not None and latest.labels == codebook.labels and latest.description == codebook.description:
            return latest
        labels = json.dumps([cb.asdict(label) for label in codebook.labels], ensure_ascii=False)
        now = _now()
        for _ in range(20):  # two editors saving at once: the UNIQUE (name, version) makes one retry
            with self.db.write() as cur:
                row = cur.execute("SELECT MAX(version) FROM codebooks WHERE name = ?", [codebook.name]).fetchone()
                version = (row[0] or 0) + 1
                inserted = cur.execute(
                    "INSERT INTO codebooks (name, version, description, labels, created_by, created_at, changed_by) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name, version) DO NOTHING RETURNING id",
                    [codebook.name, version, codebook.description, labels, created_by, now,
                     identity.signature]).fetchone()
            if inserted is not None:
                return cb.Codebook(codebook.name, codebook.labels, codebook.description, version,
                                   created_by or "", now)
        raise cb.CodebookError(f"codebook {codebook.name!r}: could not save a new version (too many concurrent saves)")

    def codebook(self, name: str, version: Optional[int] = None, *, missing_ok: bool = False) -> Optional[cb.Codebook]:
        """A saved codebook: the given version, or the latest."""
        sql = "SELECT name, version, description, labels, created_by, created_at FROM codebooks WHERE name = ?"
        params: list = [name]
        if version is not None:
            sql += " AND version = ?"
            params.append(int(version))
        with self.db.read() as cur:
            row = cur.execute(sql + " ORDER BY version DESC LIMIT 1", params).fetchone()
        if row is None:
            if missing_ok:
                return None
            raise KeyError(f"there is no codebook {name!r}" + (f" version {version}" if version else ""))
        labels = cb.labels_from_json(row[3])  # parsed once per saved version, not per rerun
        return cb.Codebook(row[0], labels, row[2], int(row[1]), row[4] or "", row[5])

    def codebooks(self) -> pd.DataFrame:
        """Latest version of every codebook: name, version, description, n_labels, created_by, created_at."""
        with self.db.read() as cur:
            rows = cur.execute(
                "SELECT c.name, c.version, c.description, c.labels, c.created_by, c.created_at FROM codebooks c "
                "WHERE c.version = (SELECT MAX(version) FROM codebooks d WHERE d.name = c.name) ORDER BY c.name"
            ).fetchall()
        return pd.DataFrame(
            [(r[0], int(r[1]), r[2], len(cb.labels_from_json(r[3])), r[4] or "", r[5]) for r in rows],
            columns=["name", "version", "description", "n_labels", "created_by", "created_at"])

    # -- annotations -----------------------------------------------------------------------------------------

    def add_annotation(
        self,
        corpus: str,
        dialog_id: str,
        *,
        codebook: cb.Codebook,
        label: str,
        coder: str,
        round: Optional[int] = None,
        turn: Optional[int] = None,
        utterance: Optional[int] = None,
        start: Optional[int] = None,
        end: Optional[int] = None,
        span_text: Optional[str] = None,
        referents: Optional[Iterable] = None,
        layer: str = "coding",
        comment: str = "",
        uid: Optional[str] = None,
        actor: Optional[Identity] = None,
    ) -> int:
        """Save one annotation and return its id. The label's scope (from the saved codebook version) decides
        which place fields are needed. Saving the same ``uid`` twice returns the first id (no duplicate).
        Signed in, ``coder`` must be the actor's own coder name; the gold layer needs an adjudicator."""
        what = "adding a gold annotation" if layer == GOLD_LAYER else "adding an annotation"
        with self.db.write() as cur:
            identity = acting(actor, self.sign_in, what, coder)
            check(identity, Action.WRITE_GOLD if layer == GOLD_LAYER else Action.WRITE_OWN, what=what)
            coder = attributed(identity, coder, what) if identity.signed_in else coder
            row = _annotation_row(corpus, dialog_id, codebook=codebook, label=label, coder=coder, round=round,
                                  turn=turn, utterance=utterance, start=start, end=end, span_text=span_text,
                                  referents=referents, layer=layer, comment=comment, uid=uid)
            return _insert_annotation(cur, row, _now(), identity.signature)

    def replace_model_annotations(self, codebook: cb.Codebook, corpus: str, coders: Sequence[str],
                                  annotations: Sequence[dict], *, actor: Optional[Identity] = None) -> int:
        """Make ``annotations`` the labels of the model coders ``coders`` (each ``model:<name>``) with this
        codebook in ``corpus``, in one transaction: their earlier live annotations there are soft-deleted (with
        their history) and the new ones inserted; returns how many were replaced. Each annotation is a dict of
        ``add_annotation`` keywords (``dialog_id``, ``label``, ``coder``, place and span fields) whose coder is
        one of ``coders``. Refused (ValueError, nothing written) when a coder's existing annotations there were
        not written by an import, or an annotation is invalid. Needs the coder role: whoever may code may import
        a model's labels.

        Linear in the annotations and bulk: the earlier labels are retired by two statements whatever their
        number, and the new ones are validated and inserted one at a time as they are written (never all held
        as rows), each with a uid of this import (``MODEL_UID_PREFIX``, the import's own id, its position)."""
        what = f"importing model labels with codebook {codebook.name!r}"
        identity = acting(actor, self.sign_in, what)
        check(identity, Action.WRITE_OWN, what=what)
        names = list(dict.fromkeys(_coder(c, imported=True) for c in coders))
        for name in names:
            if not name.startswith(MODEL_CODER_PREFIX) or not name[len(MODEL_CODER_PREFIX):].strip():
                raise ValueError(f"a model's coder name is {MODEL_CODER_PREFIX}<name>; got {name!r}")
        allowed, batch = set(names), f"{MODEL_UID_PREFIX}{uuid.uuid4().hex}-"
        now, signature = _now(), identity.signature

        def rows() -> Iterable[tuple]:
            for number, spec in enumerate(annotations):
                spec = dict(spec)
                row = _annotation_row(corpus, spec.pop("dialog_id"), codebook=codebook, imported=True,
                                      uid=f"{batch}{number}", **spec)
                if row["coder"] not in allowed:
                    raise ValueError(f"annotation of coder {row['coder']!r}, who is not among {', '.join(names)}")
                yield _insert_values(row, now, signature)

        if not names:
            return 0
        mine = (" FROM annotations WHERE layer = 'coding' AND deleted_at IS NULL AND codebook = ? AND corpus = ? "
                f"AND coder IN ({', '.join('?' * len(names))})")
        where = [codebook.name, corpus, *names]
        with self.db.write() as cur:
            replaced = int(cur.execute("SELECT count(*) FROM (SELECT id" + mine + cur.lock_clause + ") AS earlier",
                                       where).fetchone()[0])
            by_hand = cur.execute("SELECT coder" + mine + " AND substr(uid, 1, ?) <> ? LIMIT 1",
                                  [*where, len(MODEL_UID_PREFIX), MODEL_UID_PREFIX]).fetchone()
            if by_hand is not None:
                raise ValueError(f"coder {by_hand[0]!r} has labels with codebook {codebook.name!r} that were not "
                                 "imported (saved by hand): nothing was imported; give the model another name")
            importers = [row[0] for row in cur.execute("SELECT DISTINCT changed_by" + mine, where).fetchall()]
            _check_model_importers(identity, importers, what)
            if replaced:
                cur.execute("INSERT INTO annotation_revisions (annotation_id, action, label, referents, start_char, "
                            "end_char, comment, coder, version_updated_at, recorded_at, changed_by) SELECT id, "
                            "'delete', label, referents, start_char, end_char, comment, coder, updated_at, ?, "
                            "changed_by" + mine, [now, *where])
                cur.execute("UPDATE annotations SET deleted_at = ?, updated_at = ?, changed_by = ?" + mine[len(" FROM annotations"):],
                            [now, now, signature, *where])
            cur.insert_rows("annotations", INSERT_COLUMNS, rows())
        return replaced

    # -- gold decisions --------------------------------------------------------------------------------------

    def gold_decision(self, codebook: str, unit: "GoldUnit") -> Optional["GoldDecision"]:
        """Who decided the gold of ``unit`` and when, or None while it is undecided."""
        with self.db.read() as cur:
            return _current_decision(cur, codebook, unit, lock=False)

    def decide_gold(self, codebook: cb.Codebook, unit: "GoldUnit", annotations: Sequence[dict], adjudicator: str,
                    expected=None, *, actor: Optional[Identity] = None) -> "GoldDecision":
        """Make ``annotations`` the gold of ``unit``, in one transaction: its earlier gold annotations are
        replaced (soft-deleted; an empty list clears them) and the unit's one decision row names ``adjudicator``.

        Each annotation is a dict of ``add_annotation`` keywords (``label``, and ``start``/``end``/``span_text``/
        ``referents`` for spans); the place comes from ``unit``. ``expected`` is the decision the adjudicator saw:
        a ``GoldDecision``, ``NO_DECISION`` (the unit looked undecided), or None (replace only one's own
        decision). Anything else found raises ``GoldConflict`` naming who decided and when; nothing is written.
        Needs an adjudicator; signed in, ``adjudicator`` must be the actor's own coder name."""
        what = f"deciding the gold of {unit.describe()}"
        identity = acting(actor, self.sign_in, what, adjudicator)
        check(identity, Action.WRITE_GOLD, what=what)
        adjudicator = _coder(attributed(identity, adjudicator, what) if identity.signed_in else adjudicator)
        rows = [_annotation_row(unit.place.corpus, unit.place.dialog_id, codebook=codebook, coder=adjudicator,
                                round=unit.place.round, turn=unit.place.step if unit.scope != "dialog" else None,
                                utterance=unit.utterance, layer=GOLD_LAYER, **spec) for spec in annotations]
        for row in rows:
            if row["scope"] != unit.scope:
                raise ValueError(f"label {row['label']!r} is a {row['scope']} label, this unit is a {unit.scope}")
        now = _now()
        with self.db.write() as cur:
            inserted = cur.execute(
                "INSERT INTO gold_decisions (codebook, unit, scope, corpus, dialog_id, round, turn, utterance, "
                "decided_by, decided_at, changed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (codebook, unit) DO NOTHING RETURNING id",
                [codebook.name, unit.key(), unit.scope, unit.place.corpus, unit.place.dialog_id, unit.place.round,
                 unit.place.step, unit.utterance, adjudicator, now, identity.signature]).fetchone()
            # A new row: the unit had no decision row (gold written before decisions were recorded counts as
            # one). An existing row: read it locked, so a concurrent decision waits for this one, then sees it.
            current = _current_decision(cur, codebook.name, unit, lock=True, ignore_row=inserted is not None)
            _check_expected(unit, current, expected, adjudicator)
            if inserted is None:
                cur.execute("UPDATE gold_decisions SET decided_by = ?, decided_at = ?, changed_by = ? "
                            "WHERE codebook = ? AND unit = ?",
                            [adjudicator, now, identity.signature, codebook.name, unit.key()])
            for old in _live_gold(cur, codebook.name, unit, lock=False):
                self._revision(cur, old, "delete", now)
                cur.execute("UPDATE annotations SET deleted_at = ?, updated_at = ?, changed_by = ? WHERE id = ?",
                            [now, now, identity.signature, old["id"]])
            for row in rows:
                _insert_annotation(cur, row, now, identity.signature)
        return GoldDecision(adjudicator, now)

    def update_annotation(self, annotation_id: int, *, label: Optional[str] = None,
                          referents: Optional[Iterable] = None, comment: Optional[str] = None,
                          start: Optional[int] = None, end: Optional[int] = None, span_text: Optional[str] = None,
                          expected_updated_at=None, actor: Optional[Identity] = None) -> None:
        """Change a live annotation (same codebook version); the previous version goes into its history."""
        with self.db.write() as cur:
            current = self._live_annotation(cur, annotation_id)
            identity = self._owner_checked(actor, current, f"editing annotation {annotation_id}")
            if expected_updated_at is not None and _timestamp_text(expected_updated_at) != current["updated_at"]:
                raise AnnotationConflict(f"annotation {annotation_id} was changed in another session at "
                                         f"{current['updated_at']}")
            new = dict(current)
            if label is not None:
                book = self.codebook(current["codebook"], current["codebook_version"])
                assert book is not None  # codebook() raises KeyError for a missing one
                entry = book.label(label)
                if entry.scope != current["scope"]:
                    raise ValueError(f"label {label!r} is a {entry.scope} label, this annotation is a {current['scope']}")
                new["label"] = entry.name
            if referents is not None:
                new["referents"] = _referents(referents)
            if comment is not None:
                new["comment"] = comment
            if start is not None and end is not None:
                if current["scope"] != "span" or int(start) < 0 or int(end) <= int(start):
                    raise ValueError("only a span annotation has offsets, with 0 <= start < end")
                new.update(start=int(start), end=int(end), span_text=span_text)
            keys = ("label", "referents", "comment", "start", "end")
            if all(new[k] == current[k] for k in keys):
                return
            now = _now()
            self._revision(cur, current, "update", now)
            cur.execute("UPDATE annotations SET label = ?, referents = ?, comment = ?, start_char = ?, end_char = ?, "
                        "span_text = ?, updated_at = ?, changed_by = ? WHERE id = ?",
                        [new["label"], json.dumps(new["referents"], ensure_ascii=False), new["comment"], new["start"],
                         new["end"], new["span_text"], now, identity.signature, current["id"]])

    def delete_annotation(self, annotation_id: int, *, actor: Optional[Identity] = None) -> None:
        with self.db.write() as cur:
            current = self._live_annotation(cur, annotation_id)
            identity = self._owner_checked(actor, current, f"deleting annotation {annotation_id}")
            now = _now()
            self._revision(cur, current, "delete", now)
            cur.execute("UPDATE annotations SET deleted_at = ?, updated_at = ?, changed_by = ? WHERE id = ?",
                        [now, now, identity.signature, current["id"]])

    def restore_annotation(self, annotation_id: int, *, actor: Optional[Identity] = None) -> None:
        with self.db.write() as cur:
            row = cur.execute(_SELECT + " WHERE id = ?" + cur.lock_clause, [int(annotation_id)]).fetchone()
            if row is None or _annotation(row)["deleted_at"] is None:
                raise AnnotationNotFound(f"there is no deleted annotation {annotation_id}")
            current = _annotation(row)
            identity = self._owner_checked(actor, current, f"restoring annotation {annotation_id}")
            now = _now()
            self._revision(cur, current, "restore", now)
            cur.execute("UPDATE annotations SET deleted_at = NULL, updated_at = ?, changed_by = ? WHERE id = ?",
                        [now, identity.signature, current["id"]])

    def _owner_checked(self, actor: Optional[Identity], current: dict, what: str) -> Identity:
        """The actor, once allowed to change the stored annotation ``current``: a coding-layer annotation is its
        stored coder's alone; a gold one is any adjudicator's."""
        identity = acting(actor, self.sign_in, what, current["coder"])
        if current["layer"] == GOLD_LAYER:
            check(identity, Action.WRITE_GOLD, what=what)
        else:
            check(identity, Action.WRITE_OWN, owner=current["coder"], what=what)
        return identity

    @staticmethod
    def _live_annotation(cur, annotation_id: int) -> dict:
        row = cur.execute(_SELECT + " WHERE id = ? AND deleted_at IS NULL" + cur.lock_clause,
                          [int(annotation_id)]).fetchone()
        if row is None:
            raise AnnotationNotFound(f"there is no annotation {annotation_id} (it may have been deleted)")
        return _annotation(row)

    @staticmethod
    def _revision(cur, current: dict, action: str, now: str) -> None:
        cur.execute("INSERT INTO annotation_revisions (annotation_id, action, label, referents, start_char, end_char, "
                    "comment, coder, version_updated_at, recorded_at, changed_by) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [current["id"], action, current["label"], json.dumps(current["referents"], ensure_ascii=False),
                     current["start"], current["end"], current["comment"], current["coder"], current["updated_at"],
                     now, current["changed_by"]])

    def get_annotation(self, annotation_id: int) -> dict:
        with self.db.read() as cur:
            row = cur.execute(_SELECT + " WHERE id = ?", [int(annotation_id)]).fetchone()
        if row is None:
            raise AnnotationNotFound(f"there is no annotation {annotation_id}")
        return _annotation(row)

    def annotation_history(self, annotation_id: int) -> pd.DataFrame:
        """Every version, oldest first, the current one last (``action`` = "current" or "deleted"); ``changed_by``
        is who saved that version (empty for versions saved before it was kept)."""
        current = self.get_annotation(annotation_id)
        with self.db.read() as cur:
            rows = cur.execute("SELECT action, label, referents, start_char, end_char, comment, coder, "
                               "version_updated_at, recorded_at, changed_by FROM annotation_revisions "
                               "WHERE annotation_id = ? ORDER BY revision_id", [int(annotation_id)]).fetchall()
        records = [{"action": r[0], "label": r[1], "referents": json.loads(r[2]), "start": r[3], "end": r[4],
                    "comment": r[5], "coder": r[6], "updated_at": r[7], "replaced_at": r[8], "changed_by": r[9]}
                   for r in rows]
        records.append({"action": "deleted" if current["deleted_at"] else "current", "label": current["label"],
                        "referents": current["referents"], "start": current["start"], "end": current["end"],
                        "comment": current["comment"], "coder": current["coder"],
                        "updated_at": current["updated_at"], "replaced_at": None, "changed_by": current["changed_by"]})
        frame = pd.DataFrame.from_records(records)
        frame.insert(0, "version", range(1, len(frame) + 1))
        frame["updated_at"] = pd.to_datetime(frame["updated_at"], utc=True, format="ISO8601")
        frame["replaced_at"] = pd.to_datetime(frame["replaced_at"], utc=True, format="ISO8601")
        return frame

    def annotations(
        self,
        corpus: Optional[str] = None,
        dialog_id: Optional[str] = None,
        *,
        codebook: Optional[str] = None,
        coder: Optional[str] = None,
        layer: Optional[str] = None,
        include_notes: bool = False,
        include_deleted: bool = False,
    ) -> pd.DataFrame:
        """Annotations matching every filter, oldest first (ANNOTATION_FRAME_COLUMNS). With ``include_notes``
        the notes follow as annotations of kind "note" (label: their tags joined, coder: their author)."""
        where, params = ["1 = 1"], []
        for column, value in (("corpus", corpus), ("dialog_id", dialog_id), ("codebook", codebook),
                              ("coder", coder), ("layer", layer)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(str(value))
        if not include_deleted:
            where.append("deleted_at IS NULL")
        with self.db.read() as cur:
            rows = cur.execute(_SELECT + " WHERE " + " AND ".join(where) + " ORDER BY id", params).fetchall()
        labels = _label_frame(rows)
        del rows
        records: list[dict] = []
        if include_notes and codebook is None and layer in (None, "coding"):
            notes = self.notes_store.notes(corpus=corpus, dialog_id=dialog_id, author=coder,
                                           include_deleted=include_deleted)
            for note in notes.to_dict(orient="records"):
                records.append({
                    "id": note["id"], "kind": "note", "corpus": note["corpus"], "dialog_id": note["dialog_id"],
                    "round": _na(note["round"]), "turn": _na(note["turn"]), "utterance": None,
                    "scope": "turn" if _na(note["turn"]) is not None else "dialog", "start": None, "end": None,
                    "span_text": None, "codebook": "", "codebook_version": 0, "label": ", ".join(note["tags"]),
                    "referents": [], "coder": note["author"] if note["author"] not in (None, "None") else "",
                    "layer": "coding", "comment": note["text"],
                    "created_at": note["created_at"].isoformat(), "updated_at": note["updated_at"].isoformat(),
                    "deleted_at": None if pd.isna(note["deleted_at"]) else note["deleted_at"].isoformat()})
        if not records:
            return labels
        for record in records:
            record["link"] = Place(record["corpus"], record["dialog_id"], record["round"], record["turn"]).link()
        notes = pd.DataFrame.from_records(records, columns=ANNOTATION_FRAME_COLUMNS)
        for column in ("utterance", "start", "end", "codebook_version"):
            notes[column] = notes[column].astype("Int64")
        notes = _typed(notes, ["created_at", "updated_at", "deleted_at"])
        return notes if labels.empty else pd.concat([labels, notes], ignore_index=True)

    def coded_labels(self, codebook: str) -> pd.DataFrame:
        """The live annotations of ``codebook`` as the Agreement page compares them: ``compare.coded_sources`` of
        ``annotations(codebook=...)`` (its SOURCE_COLUMNS, the gold layer as the coder ``gold``), oldest first,
        without reading what the comparison leaves out (times, comments, links): the page reads this on every
        run, and a model import of 500,000 lines is about 300,000 rows."""
        with self.db.read() as cur:
            # ordered here, not by the database: SQLite sorted every row in a temporary B-tree first
            rows = cur.execute(
                "SELECT id, corpus, dialog_id, round, turn, utterance, start_char, end_char, label, "
                "CASE WHEN referents = '[]' THEN NULL ELSE referents END, "
                "CASE WHEN layer = ? THEN ? ELSE coder END, scope, span_text FROM annotations "
                "WHERE codebook = ? AND deleted_at IS NULL", [GOLD_LAYER, GOLD_LAYER, str(codebook)]).fetchall()
        columns = _columns(rows, ["id", *CODED_COLUMNS], order_by="id")
        del rows
        frame = pd.DataFrame({
            **{key: columns[key] for key in ("corpus", "dialog_id")},
            **{key: pd.array(columns[key], dtype="Int64") for key in ("round", "turn", "utterance", "start", "end")},
            "label": columns["label"],
            "referents": _referent_lists(columns["referents"]),
            **{key: columns[key] for key in ("coder", "scope", "span_text")},
        }, columns=CODED_COLUMNS)
        for column in ("corpus", "dialog_id"):
            frame[column] = frame[column].astype("str")
        return frame

    def coders(self, codebook: Optional[str] = None) -> list[str]:
        sql, params = "SELECT DISTINCT coder FROM annotations WHERE deleted_at IS NULL AND layer = 'coding'", []
        if codebook is not None:
            sql += " AND codebook = ?"
            params.append(codebook)
        with self.db.read() as cur:
            return sorted(r[0] for r in cur.execute(sql, params).fetchall())

    # -- coding queues ---------------------------------------------------------------------------------------

    def create_queue(self, queue: str, items: Sequence[Union[Place, tuple]], coders: Sequence[str], *,
                     actor: Optional[Identity] = None) -> int:
        """Assign every item — a ``Place``, or a (corpus, dialog_id, round, turn) tuple — to every coder, in the
        given order. Adding the same item for the same coder again keeps its status. Returns how many
        assignments are new. Needs an admin."""
        what = f"creating coding queue {queue!r}"
        identity = acting(actor, self.sign_in, what)
        check(identity, Action.MANAGE, what=what)
        queue = _required_text(queue, "queue")
        coders = [_coder(c) for c in coders]
        if not coders:
            raise ValueError("a queue needs at least one coder")
        now, added = _now(), 0
        with self.db.write() as cur:
            row = cur.execute("SELECT COALESCE(MAX(position), 0) FROM queue_items WHERE queue = ?", [queue]).fetchone()
            position = int(row[0])
            for item in items:
                position += 1
                corpus, dialog_id, round_, turn = Place.of(item).as_tuple()
                key = json.dumps([corpus, str(dialog_id), round_, turn])
                for coder in coders:
                    inserted = cur.execute(
                        "INSERT INTO queue_items (queue, item_key, corpus, dialog_id, round, turn, coder, position, "
                        "created_at, changed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (queue, item_key, coder) DO NOTHING RETURNING id",
                        [queue, key, corpus, str(dialog_id), round_, turn, coder, position, now,
                         identity.signature]).fetchone()
                    added += inserted is not None
        return added

    def queue_items(self, queue: str, coder: Optional[str] = None, status: Optional[str] = None) -> pd.DataFrame:
        sql = ("SELECT id, queue, corpus, dialog_id, round, turn, coder, status, position, created_at, done_at "
               "FROM queue_items WHERE queue = ?")
        params: list = [queue]
        if coder is not None:
            sql += " AND coder = ?"
            params.append(coder)
        if status is not None:
            sql += " AND status = ?"
            params.append(status)
        with self.db.read() as cur:
            rows = cur.execute(sql + " ORDER BY position, coder", params).fetchall()
        frame = pd.DataFrame(rows, columns=QUEUE_COLUMNS[:-1])
        frame["link"] = [Place(c, d, r, t).link()
                         for c, d, r, t in zip(frame["corpus"], frame["dialog_id"], frame["round"], frame["turn"])]
        for column in ("round", "turn"):
            frame[column] = frame[column].astype("Int64")
        return frame

    def set_done(self, item_id: int, done: bool = True, *, actor: Optional[Identity] = None) -> None:
        """Mark a queue item done (or to do again): only the coder it is assigned to may."""
        what = f"marking queue item {item_id} {'done' if done else 'to do'}"
        with self.db.write() as cur:
            found = cur.execute("SELECT coder FROM queue_items WHERE id = ?" + cur.lock_clause,
                                [int(item_id)]).fetchone()
            if found is None:
                raise KeyError(f"there is no queue item {item_id}")
            identity = acting(actor, self.sign_in, what, found[0])
            check(identity, Action.WRITE_OWN, owner=found[0], what=what)
            cur.execute("UPDATE queue_items SET status = ?, done_at = ?, changed_by = ? WHERE id = ?",
                        ["done" if done else "todo", _now() if done else None, identity.signature, int(item_id)])

    def queues(self) -> pd.DataFrame:
        """Progress per queue and coder: queue, coder, items, done, next (the first item still to do)."""
        with self.db.read() as cur:
            rows = cur.execute(
                "SELECT queue, coder, COUNT(*), SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END) FROM queue_items "
                "GROUP BY queue, coder ORDER BY queue, coder").fetchall()
        return pd.DataFrame([(q, c, int(n), int(d or 0)) for q, c, n, d in rows],
                            columns=["queue", "coder", "items", "done"])


def _check_model_importers(identity: Identity, importers: Iterable[object], what: str) -> None:
    """An import replaces a model's earlier labels only when they are the importer's own (or an admin
    imports): otherwise any coder could wipe a colleague's import by importing the same model name again."""
    for importer in sorted({_importer(changed_by) for changed_by in importers} - {""}):
        check(identity, Action.REPLACE_MODEL_LABELS, owner=importer, what=f"{what} over {importer!r}'s import")


def _importer(changed_by: object) -> str:
    """The coder name in a change row's "<who> as <coder>" (the whole text when it names no coder)."""
    text = str(changed_by or "")
    return text.rsplit(" as ", 1)[1] if " as " in text else text


def _label_frame(rows: list[tuple]) -> pd.DataFrame:
    """Stored annotation rows (``_SELECT``) as ANNOTATION_FRAME_COLUMNS of kind "label", built a column at a time:
    a dict and a ``Place`` per row took 29 s for the 1.1 million spans one model labels file may hold."""
    columns = _columns(rows, _KEYS)
    size = len(rows)
    frame = pd.DataFrame({
        "id": columns["id"].astype("int64"),
        "kind": np.full(size, "label", dtype=object),
        **{key: columns[key] for key in ("corpus", "dialog_id", "scope", "span_text", "codebook", "label", "coder",
                                         "layer", "comment")},
        **{key: pd.array(columns[key], dtype="Int64") for key in ("round", "turn", "utterance", "start", "end",
                                                                  "codebook_version")},
        "referents": _referent_lists(columns["referents"]),
        **{key: _times(columns[key]) for key in ("created_at", "updated_at", "deleted_at")},
        "link": _objects(_links(columns["corpus"], columns["dialog_id"], columns["round"], columns["turn"])),
    }, columns=ANNOTATION_FRAME_COLUMNS)
    return _typed(frame, ["created_at", "updated_at", "deleted_at"])


def _columns(rows: list[tuple], keys: Sequence[str], order_by: Optional[str] = None) -> dict[str, np.ndarray]:
    """Fetched rows as one object array per column (one C pass, where ``zip(*rows)`` took three times as long),
    in the order of the column ``order_by`` when given."""
    table = np.empty((len(rows), len(keys)), dtype=object)
    if rows:
        table[:] = rows
    if order_by is not None and len(rows):
        table = table[np.argsort(table[:, list(keys).index(order_by)].astype("int64"), kind="stable")]
    return {key: table[:, number] for number, key in enumerate(keys)}


def _objects(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _referent_lists(texts) -> np.ndarray:
    """Stored referents (JSON lists; None for none) as lists, a fresh one per row (a caller may change its own)."""
    return _objects([[] if text is None or text == "[]" else orjson.loads(text) for text in texts])


def _times(values) -> pd.Series:
    """ISO texts (or None) as UTC datetimes, each distinct text parsed once (an import stamps all its rows alike)."""
    codes, uniques = pd.factorize(_objects(values))
    parsed = pd.to_datetime(pd.Index(uniques, dtype=object), utc=True, format="ISO8601")
    return pd.Series(parsed.take(codes, allow_fill=True)).astype("datetime64[us, UTC]")


def _links(corpora, dialogs, rounds, turns) -> list[str]:
    """``Place(...).link()`` of each row: the (corpus, dialog) part once per dialog, the round and step per row."""
    prefixes: dict = {}
    links: dict = {}
    out = []
    for place in zip(corpora, dialogs, rounds, turns):
        link = links.get(place)
        if link is None:
            corpus, dialog, round_, turn = place
            link = prefixes.get((corpus, dialog))
            if link is None:
                link = prefixes[(corpus, dialog)] = Place(corpus, dialog).link()
            if round_ is not None:
                link = f"{link}&round={round_}"
            link = links[place] = link if turn is None else f"{link}&turn={turn}"
        out.append(link)
    return out


def _annotation(row: tuple) -> dict:
    record = dict(zip(_KEYS, row))
    record["referents"] = json.loads(record["referents"])
    return record


def _annotation_row(corpus, dialog_id, *, codebook: cb.Codebook, label: str, coder: str, round=None, turn=None,
                    utterance=None, start=None, end=None, span_text=None, referents=None, layer: str = "coding",
                    comment: str = "", uid: Optional[str] = None, imported: bool = False) -> dict:
    """A validated annotation row: the label's scope (from the saved codebook version) decides which place
    fields are needed; ValueError says what is missing. Only an import of model labels (``imported``) writes
    as a ``model:…`` coder."""
    if codebook.version < 1:
        raise ValueError(f"codebook {codebook.name!r} must be saved before coding with it")
    entry = codebook.label(label)
    row = {
        "uid": uid or uuid.uuid4().hex,
        "corpus": _required_text(corpus, "corpus"),
        "dialog_id": _required_text(str(dialog_id) if dialog_id is not None else None, "dialog_id"),
        "round": _optional_step(round, "round"),
        "turn": _optional_step(turn, "turn"),
        "utterance": None, "start": None, "end": None, "span_text": None,
        "scope": entry.scope, "codebook": codebook.name, "codebook_version": int(codebook.version),
        "label": entry.name, "referents": _referents(referents) if entry.links_referents else [],
        "coder": _coder(coder, imported=imported), "layer": layer, "comment": comment or "",
    }
    if layer not in LAYERS:
        raise ValueError(f"layer must be one of {', '.join(LAYERS)}; got {layer!r}")
    coder_name = str(row["coder"])
    if coder_name.startswith(MODEL_CODER_PREFIX) and not (imported and layer == "coding"):
        raise ValueError(f"coder names starting with {MODEL_CODER_PREFIX!r} are kept for imported model labels; "
                         f"choose another name than {coder_name!r}")
    if entry.scope == "dialog":
        row["turn"] = None
    elif row["turn"] is None:
        raise ValueError(f"label {entry.name!r} is a {entry.scope} label: it needs a turn")
    if entry.scope == "span":
        if utterance is None or start is None or end is None:
            raise ValueError(f"label {entry.name!r} is a span label: select characters of an utterance")
        if int(utterance) < 0 or int(start) < 0 or int(end) <= int(start):
            raise ValueError(f"a span needs 0 <= start < end; got {start}..{end}")
        row.update(utterance=int(utterance), start=int(start), end=int(end), span_text=span_text)
    return row


INSERT_COLUMNS = ("uid", "corpus", "dialog_id", "round", "turn", "utterance", "scope", "start_char", "end_char",
                  "span_text", "codebook", "codebook_version", "label", "referents", "coder", "layer", "comment",
                  "created_at", "updated_at", "changed_by")


def _insert_values(row: dict, now: str, changed_by: Optional[str]) -> tuple:
    """A validated row's values in ``INSERT_COLUMNS`` order."""
    return (row["uid"], row["corpus"], row["dialog_id"], row["round"], row["turn"], row["utterance"],
            row["scope"], row["start"], row["end"], row["span_text"], row["codebook"], row["codebook_version"],
            row["label"], json.dumps(row["referents"], ensure_ascii=False), row["coder"], row["layer"],
            row["comment"], now, now, changed_by)


def _insert_annotation(cur, row: dict, now: str, changed_by: Optional[str]) -> int:
    """INSERT one validated row inside the caller's transaction; the same ``uid`` again returns the first id."""
    inserted = cur.execute(
        f"INSERT INTO annotations ({', '.join(INSERT_COLUMNS)}) VALUES ({', '.join('?' * len(INSERT_COLUMNS))}) "
        "ON CONFLICT (uid) DO NOTHING RETURNING id", _insert_values(row, now, changed_by)).fetchone()
    if inserted is None:
        inserted = cur.execute("SELECT id FROM annotations WHERE uid = ?", [row["uid"]]).fetchone()
    return int(inserted[0])


# -- gold decisions ------------------------------------------------------------------------------------------

GOLD_LAYER = "gold"
NO_DECISION = "no decision"  # ``decide_gold(expected=NO_DECISION)``: the adjudicator saw the unit undecided


@dataclass(frozen=True)
class GoldUnit:
    """What one gold decision covers: the turn- or dialog-scope labels of a place, or the spans of one
    utterance (``scope="span"``, ``utterance`` its 0-based position in the step)."""

    scope: str
    place: Place
    utterance: Optional[int] = None

    def __post_init__(self) -> None:
        if self.scope not in cb.SCOPES:
            raise ValueError(f"scope must be one of {', '.join(cb.SCOPES)}; got {self.scope!r}")
        if self.scope == "dialog" and self.place.step is not None:
            object.__setattr__(self, "place", Place(self.place.corpus, self.place.dialog_id, self.place.round))
        if (self.scope == "span") != (self.utterance is not None):
            raise ValueError("a span unit names its utterance, and only a span unit does")

    def key(self) -> str:
        place = self.place
        return json.dumps([self.scope, place.corpus, place.dialog_id, place.round, place.step, self.utterance],
                          ensure_ascii=False)

    def describe(self) -> str:
        parts = [self.place.dialog_id]
        if self.place.round is not None:
            parts.append(f"round {self.place.round}")
        if self.place.step is not None:
            parts.append(f"turn {self.place.step}")
        if self.utterance is not None:
            parts.append(f"utterance {self.utterance}")
        return " · ".join(parts)


@dataclass(frozen=True)
class GoldDecision:
    """Who decided a unit's gold and when (UTC, as stored): the token a later decision names as ``expected``."""

    decided_by: str
    decided_at: str

    def describe(self) -> str:
        return f"{self.decided_by} at {self.decided_at[:19].replace('T', ' ')} UTC"


class GoldConflict(AnnotationConflict):
    """The unit's gold was decided by someone else (or again) since the adjudicator looked; nothing was written."""

    def __init__(self, unit: GoldUnit, current: GoldDecision):
        super().__init__(f"{unit.describe()} was decided by {current.describe()} while you were deciding; your "
                         "decision was not saved (their decision is shown now: decide again to replace it)")
        self.unit, self.current = unit, current


def _live_gold(cur, codebook: str, unit: GoldUnit, lock: bool) -> list[dict]:
    is_ = cur.null_safe_equals
    rows = cur.execute(
        _SELECT + f" WHERE layer = 'gold' AND deleted_at IS NULL AND codebook = ? AND scope = ? AND corpus = ? "
        f"AND dialog_id = ? AND round {is_} ? AND turn {is_} ? AND utterance {is_} ? ORDER BY id"
        + (cur.lock_clause if lock else ""),
        [codebook, unit.scope, unit.place.corpus, unit.place.dialog_id, unit.place.round, unit.place.step,
         unit.utterance]).fetchall()
    return [_annotation(row) for row in rows]


def _current_decision(cur, codebook: str, unit: GoldUnit, lock: bool, ignore_row: bool = False) -> Optional[GoldDecision]:
    """The unit's decision row, else (gold written before decisions had rows) its live gold annotations as one."""
    if not ignore_row:
        row = cur.execute("SELECT decided_by, decided_at FROM gold_decisions WHERE codebook = ? AND unit = ?"
                          + (cur.lock_clause if lock else ""), [codebook, unit.key()]).fetchone()
        if row is not None:
            return GoldDecision(row[0], row[1])
    gold = _live_gold(cur, codebook, unit, lock)
    if not gold:
        return None
    latest = max(gold, key=lambda g: g["updated_at"])
    return GoldDecision(latest["coder"], latest["updated_at"])


def _check_expected(unit: GoldUnit, current: Optional[GoldDecision], expected, adjudicator: str) -> None:
    if current is None:
        return
    if expected is None:
        if current.decided_by != adjudicator:
            raise GoldConflict(unit, current)
    elif expected == NO_DECISION or expected != current:
        raise GoldConflict(unit, current)


def to_common_form(frame: pd.DataFrame, utterance_roles: Optional[dict] = None) -> pd.DataFrame:
    """Label annotations in the published layers' common form (``data_access.layers.ANNOTATION_COLUMNS``):
    ``source`` is the coder (``gold`` for the gold layer), ``record`` the annotation id."""
    from ..layers import ANNOTATION_COLUMNS

    labels = frame[frame["kind"] == "label"] if "kind" in frame else frame
    out = pd.DataFrame({
        "corpus": labels["corpus"].astype("str"),
        "dialog_id": labels["dialog_id"].astype("str"),
        "round": labels["round"].astype("Int64"),
        "turn": labels["turn"].astype("Int64"),
        "message": labels["utterance"].astype("Int64"),
        "role": pd.Series([""] * len(labels), index=labels.index, dtype="str"),
        "start": labels["start"].astype("Int64"),
        "end": labels["end"].astype("Int64"),
        "text": labels["span_text"].fillna("").astype("str"),
        "label": labels["label"].astype("str"),
        "referents": labels["referents"],
        "source": [("gold" if layer == "gold" else coder) for layer, coder in zip(labels["layer"], labels["coder"])],
        "record": [f"annotation {i}" for i in labels["id"]],
    }, columns=ANNOTATION_COLUMNS)
    return out.reset_index(drop=True)


