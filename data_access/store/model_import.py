"""The coding store's import of a model's labels: a coder of its own (``model:<name>``) whose earlier labels of a
codebook in a corpus one transaction replaces; no person codes as ``model:…``, and an import only replaces what an
import wrote, the importer's own unless an admin imports (``store.coding.CodingStore``; docs/store.md)."""
from __future__ import annotations

import uuid
from typing import Iterable, Optional, Sequence

from ..access import MODEL_CODER_PREFIX, Action, Identity, check
from ..coding import codebook as cb
from .acting import acting
from .annotation_rows import INSERT_COLUMNS, MODEL_UID_PREFIX, _annotation_row, _coder, _insert_values
from .database import Database
from .values import now as _now


class ModelLabelImport:
    """Replacing a model coder's labels in one transaction (a part of ``CodingStore``)."""

    db: Database
    sign_in: bool

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


def _check_model_importers(identity: Identity, importers: Iterable[object], what: str) -> None:
    """An import replaces a model's earlier labels only when they are the importer's own (or an admin
    imports): otherwise any coder could wipe a colleague's import by importing the same model name again."""
    for importer in sorted({_importer(changed_by) for changed_by in importers} - {""}):
        check(identity, Action.REPLACE_MODEL_LABELS, owner=importer, what=f"{what} over {importer!r}'s import")


def _importer(changed_by: object) -> str:
    """The coder name in a change row's "<who> as <coder>" (the whole text when it names no coder)."""
    text = str(changed_by or "")
    return text.rsplit(" as ", 1)[1] if " as " in text else text
