"""The coding store's gold layer: one adjudicated decision per unit and codebook (a row of ``gold_decisions``),
written in the same transaction as the unit's gold annotations; a decision made on a stale view of the unit is
refused (``GoldConflict``, naming who decided and when) (``store.coding.CodingStore``; docs/store.md)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional, Sequence

from ..access import Action, Identity, attributed, check
from ..coding import codebook as cb
from ..links import Place
from .acting import acting
from .annotation_rows import (
    _SELECT,
    GOLD_LAYER,
    AnnotationConflict,
    _annotation,
    _annotation_row,
    _coder,
    _insert_annotation,
    _record_revision,
)
from .database import Database
from .values import now as _now

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


class GoldDecisions:
    """Reading and making gold decisions (a part of ``CodingStore``)."""

    db: Database
    sign_in: bool

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
                _record_revision(cur, old, "delete", now)
                cur.execute("UPDATE annotations SET deleted_at = ?, updated_at = ?, changed_by = ? WHERE id = ?",
                            [now, now, identity.signature, old["id"]])
            for row in rows:
                _insert_annotation(cur, row, now, identity.signature)
        return GoldDecision(adjudicator, now)
