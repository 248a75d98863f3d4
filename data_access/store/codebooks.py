"""The coding store's codebooks: each save is the next version of its name, and an annotation names the version it
was coded with (``store.coding.CodingStore``; docs/store.md)."""
from __future__ import annotations

import json
from typing import Optional

import pandas as pd

from ..access import Action, Identity, attributed, check
from ..coding import codebook as cb
from .acting import acting
from .database import Database
from .values import now as _now


class CodebookTables:
    """Saving and reading codebooks (a part of ``CodingStore``, on its database)."""

    db: Database
    sign_in: bool

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
