"""The coding store's queues: places assigned to coders in order, each marked done by its coder
(``store.coding.CodingStore``; docs/store.md)."""
from __future__ import annotations

import json
from typing import Optional, Sequence, Union

import pandas as pd

from ..access import Action, Identity, check
from ..links import Place
from .acting import acting
from .annotation_rows import _coder
from .database import Database
from .values import now as _now
from .values import required_text as _required_text

QUEUE_COLUMNS = ["id", "queue", "corpus", "dialog_id", "round", "turn", "coder", "status", "position",
                 "created_at", "done_at", "link"]


class CodingQueues:
    """Creating queues, listing their items and progress, marking an item done (a part of ``CodingStore``)."""

    db: Database
    sign_in: bool

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
