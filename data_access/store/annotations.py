"""The coding store's annotations: a label of one codebook version put by one coder on a dialog, a turn or a span
of an utterance; edits keep the previous version as a revision, deletes are soft; listed with the notes as
annotations of kind ``note`` (``store.coding.CodingStore``; docs/store.md)."""
from __future__ import annotations

import json
from typing import Iterable, Optional

import pandas as pd

from ..access import Action, Identity, attributed, check
from ..coding import codebook as cb
from ..links import Place
from .acting import acting
from .annotation_rows import (
    _SELECT,
    ANNOTATION_FRAME_COLUMNS,
    CODED_COLUMNS,
    GOLD_LAYER,
    AnnotationConflict,
    AnnotationNotFound,
    _annotation,
    _annotation_row,
    _columns,
    _insert_annotation,
    _label_frame,
    _live_annotation,
    _record_revision,
    _referent_lists,
    _referents,
)
from .codebooks import CodebookTables
from .notes import NotesStore
from .values import now as _now
from .values import optional_int as _na
from .values import timestamp_text as _timestamp_text
from .values import typed_frame as _typed


class AnnotationTables(CodebookTables):
    """Adding, editing, deleting, restoring and listing annotations (a part of ``CodingStore``); ``notes_store``
    lists the notes beside them."""

    notes_store: NotesStore

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

    def put_label(self, corpus: str, dialog_id: str, *, codebook: cb.Codebook, label: str, coder: str,
                  round: Optional[int] = None, turn: Optional[int] = None, uid: Optional[str] = None,
                  actor: Optional[Identity] = None) -> tuple[int, bool]:
        """Put a turn or dialog label at its place once: ``(id, True)`` when this write stored it (a retry of the
        same ``uid`` too), ``(id of the one there, False)`` when the coder has that label there already. The check
        and the insert are one transaction serialized on the place, so two writers at once (two tabs, a write
        sent again) never store it twice. A dialog label has no turn (``_annotation_row``)."""
        what = "adding an annotation"
        with self.db.write() as cur:
            identity = acting(actor, self.sign_in, what, coder)
            check(identity, Action.WRITE_OWN, what=what)
            coder = attributed(identity, coder, what) if identity.signed_in else coder
            row = _annotation_row(corpus, dialog_id, codebook=codebook, label=label, coder=coder, round=round,
                                  turn=turn, uid=uid)
            if row["scope"] == "span":
                raise ValueError(f"label {row['label']!r} is a span label: select characters of an utterance")
            place = [row["corpus"], row["dialog_id"], row["codebook"], row["coder"], row["scope"], row["label"]]
            cur.serialize("label " + json.dumps([*place, row["round"], row["turn"]]))
            retried = cur.execute("SELECT id FROM annotations WHERE uid = ?", [row["uid"]]).fetchone()
            if retried is not None:
                return int(retried[0]), True
            same = cur.execute(
                "SELECT id FROM annotations WHERE corpus = ? AND dialog_id = ? AND codebook = ? AND coder = ? "
                "AND scope = ? AND label = ? AND layer = 'coding' AND deleted_at IS NULL "
                f"AND round {cur.null_safe_equals} ? AND turn {cur.null_safe_equals} ? ORDER BY id",
                [*place, row["round"], row["turn"]]).fetchone()
            if same is not None:
                return int(same[0]), False
            return _insert_annotation(cur, row, _now(), identity.signature), True

    def delete_written(self, uid: str, *, actor: Optional[Identity] = None) -> Optional[int]:
        """Delete the live annotation written with ``uid`` (a label taken off or undone in the browser, which knows
        its writes by their uid); its id, or None when none is live (deleted already, or never stored): deleting
        twice is deleting once. The stored coder's alone, as ``delete_annotation``."""
        with self.db.write() as cur:
            found = cur.execute("SELECT id FROM annotations WHERE uid = ? AND deleted_at IS NULL" + cur.lock_clause,
                                [str(uid)]).fetchone()
            if found is None:
                return None
            current = _live_annotation(cur, int(found[0]))
            identity = self._owner_checked(actor, current, f"deleting annotation {current['id']}")
            now = _now()
            _record_revision(cur, current, "delete", now)
            cur.execute("UPDATE annotations SET deleted_at = ?, updated_at = ?, changed_by = ? WHERE id = ?",
                        [now, now, identity.signature, current["id"]])
            return int(current["id"])

    def coder_labels(self, corpus: str, dialog_id: str, codebook: str, coder: str, limit: int = 5_000) -> list[dict]:
        """A coder's live labels of one codebook in one dialog as the Replay's coding column keeps them in the
        browser, oldest first, at most ``limit``: id, uid (the browser takes a label off by it), scope, label,
        round, turn, a span's utterance, start, end and text, and the referents it is linked to."""
        with self.db.read() as cur:
            rows = cur.execute(
                "SELECT id, uid, scope, label, round, turn, utterance, start_char, end_char, span_text, referents "
                "FROM annotations "
                "WHERE corpus = ? AND dialog_id = ? AND codebook = ? AND coder = ? AND layer = 'coding' "
                "AND deleted_at IS NULL ORDER BY id LIMIT ?", [str(corpus), str(dialog_id), str(codebook), str(coder),
                                                                 int(limit)]).fetchall()
        keys = ("id", "uid", "scope", "label", "round", "turn", "utterance", "start", "end", "text")
        return [{**dict(zip(keys, row[:-1])), "referents": json.loads(row[-1] or "[]")} for row in rows]

    def update_annotation(self, annotation_id: int, *, label: Optional[str] = None,
                          referents: Optional[Iterable] = None, comment: Optional[str] = None,
                          start: Optional[int] = None, end: Optional[int] = None, span_text: Optional[str] = None,
                          expected_updated_at=None, actor: Optional[Identity] = None) -> None:
        """Change a live annotation (same codebook version); the previous version goes into its history."""
        with self.db.write() as cur:
            current = _live_annotation(cur, annotation_id)
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
            _record_revision(cur, current, "update", now)
            cur.execute("UPDATE annotations SET label = ?, referents = ?, comment = ?, start_char = ?, end_char = ?, "
                        "span_text = ?, updated_at = ?, changed_by = ? WHERE id = ?",
                        [new["label"], json.dumps(new["referents"], ensure_ascii=False), new["comment"], new["start"],
                         new["end"], new["span_text"], now, identity.signature, current["id"]])

    def delete_annotation(self, annotation_id: int, *, actor: Optional[Identity] = None) -> None:
        with self.db.write() as cur:
            current = _live_annotation(cur, annotation_id)
            identity = self._owner_checked(actor, current, f"deleting annotation {annotation_id}")
            now = _now()
            _record_revision(cur, current, "delete", now)
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
            _record_revision(cur, current, "restore", now)
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
