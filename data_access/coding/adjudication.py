"""Adjudication: writing the gold layer from the coders' annotations.

Gold annotations are ordinary annotations in the layer ``gold`` (coder = the adjudicator), so the gold layer
is compared, listed and exported like any coder. A decision replaces the gold annotations of its place: the
labels of one unit (a turn, or a dialog), or the spans of one utterance. The replaced ones are soft-deleted,
so their history stays in the store.

Gold holds exactly one decision per unit: each decision is one transaction of the store
(``CodingStore.decide_gold``), and a decision made while someone else decided the same unit is refused with a
``GoldConflict`` that names who decided and when. ``expected`` is what the adjudicator saw
(``coding.gold_decision(...)`` when the item was shown; ``NO_DECISION`` for an undecided unit); without it
only one's own earlier decision is replaced.

Spans are adjudicated per utterance: the candidates are the distinct spans (label, offsets, referents) the
coders put on it, and the adjudicator keeps some of them as gold. Spans every coder of the dialog put
identically can be copied into gold in one go, as agreed turn labels can.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import pandas as pd

from ..links import Place
from ..store import NO_DECISION, CodingStore, GoldConflict, GoldUnit
from .codebook import Codebook
from .compare import GOLD, agreed_units

# One utterance: (corpus, dialog_id, round, turn, utterance); round / turn may be None.
SpanUnit = tuple


@dataclass(frozen=True)
class SpanCandidate:
    """One distinct span the coders put on an utterance, and who put it."""

    label: str
    start: int
    end: int
    referents: tuple[str, ...]
    span_text: Optional[str]
    coders: tuple[str, ...]

    def describe(self) -> str:
        text = f" “{self.span_text}”" if self.span_text else ""
        referents = f" → {', '.join(self.referents)}" if self.referents else ""
        return f"{self.label} [{self.start}:{self.end}]{text}{referents} · by {', '.join(self.coders)}"


def _int(value) -> Optional[int]:
    return None if value is None or pd.isna(value) else int(value)


def span_unit(row) -> SpanUnit:
    """The utterance a span row (annotation or disagreement row, Series or namedtuple) belongs to."""
    get = row.get if isinstance(row, (dict, pd.Series)) else lambda name, default=None: getattr(row, name, default)
    return (str(get("corpus")), str(get("dialog_id")), _int(get("round")), _int(get("turn")), _int(get("utterance")))


def span_candidates(frame: pd.DataFrame, unit: SpanUnit, coders: Optional[Sequence[str]] = None) -> list[SpanCandidate]:
    """The distinct spans ``coders`` (default: all but gold) put on the utterance ``unit``, in text order."""
    found: dict[tuple, dict] = {}
    for row in frame.itertuples(index=False):
        if span_unit(row) != unit or (coders is None and row.coder == GOLD):
            continue
        if coders is not None and row.coder not in coders:
            continue
        key = (row.label, int(row.start), int(row.end), tuple(sorted(row.referents or [])))
        entry = found.setdefault(key, {"coders": [], "span_text": None})
        entry["coders"].append(row.coder)
        text = getattr(row, "span_text", None)
        if entry["span_text"] is None and isinstance(text, str) and text:
            entry["span_text"] = text
    return [SpanCandidate(label, start, end, referents, entry["span_text"], tuple(sorted(set(entry["coders"]))))
            for (label, start, end, referents), entry in sorted(found.items(), key=lambda item: (item[0][1], item[0][2], item[0][0]))]


def agreed_spans(frame: pd.DataFrame, coders: Sequence[str]) -> dict[SpanUnit, list[SpanCandidate]]:
    """Per utterance: the spans every one of ``coders`` who coded the dialog put identically (same label,
    offsets and referents), where at least two of them coded it."""
    coded = {c: set(zip(frame.loc[frame["coder"] == c, "corpus"], frame.loc[frame["coder"] == c, "dialog_id"]))
             for c in coders}
    units = {span_unit(row) for row in frame[frame["coder"].isin(coders)].itertuples(index=False)}
    agreed: dict[SpanUnit, list[SpanCandidate]] = {}
    for unit in sorted(units, key=repr):
        present = [c for c in coders if unit[:2] in coded[c]]
        if len(present) < 2:
            continue
        spans = [s for s in span_candidates(frame, unit, present) if set(s.coders) == set(present)]
        if spans:
            agreed[unit] = spans
    return agreed


def span_gold_unit(unit: SpanUnit) -> GoldUnit:
    """The gold decision unit of one utterance's spans."""
    corpus, dialog_id, round_, turn, utterance = unit
    return GoldUnit("span", Place(corpus, dialog_id, round_, turn), utterance)


def label_gold_unit(scope: str, corpus: str, dialog_id: str, round_: Optional[int], turn: Optional[int]) -> GoldUnit:
    """The gold decision unit of a turn's (or a dialog's) labels."""
    return GoldUnit(scope, Place(corpus, dialog_id, round_, turn if scope == "turn" else None))


def save_gold_spans(store: CodingStore, book: Codebook, unit: SpanUnit, spans: Iterable[SpanCandidate],
                    adjudicator: str, expected=None, actor=None) -> int:
    """Make ``spans`` the gold spans of the utterance ``unit``: earlier gold spans there are replaced (an empty
    ``spans`` clears them). Returns how many were written; ``GoldConflict`` when someone else decided it."""
    spans = list(spans)
    store.decide_gold(book, span_gold_unit(unit), gold_span_specs(spans), adjudicator, expected, actor=actor)
    return len(spans)


def gold_span_specs(spans: Iterable[SpanCandidate]) -> list[dict]:
    """The spans kept as ``decide_gold`` annotations."""
    return [{"label": span.label, "start": span.start, "end": span.end, "span_text": span.span_text,
             "referents": list(span.referents)} for span in spans]


def save_gold_labels(store: CodingStore, book: Codebook, scope: str, corpus: str, dialog_id: str,
                     round_: Optional[int], turn: Optional[int], labels: Iterable[str], adjudicator: str,
                     expected=None, actor=None) -> int:
    """Make ``labels`` the gold labels (turn or dialog ``scope``) of one unit, replacing an earlier decision;
    ``GoldConflict`` when someone else decided it meanwhile."""
    labels = list(labels)
    store.decide_gold(book, label_gold_unit(scope, corpus, dialog_id, round_, turn),
                      [{"label": name} for name in labels], adjudicator, expected, actor=actor)
    return len(labels)


def copy_agreed_labels(store: CodingStore, book: Codebook, frame: pd.DataFrame, coders: Sequence[str],
                       adjudicator: str, actor=None) -> int:
    """Every turn / dialog unit all ``coders`` labelled alike becomes gold, unless gold already decided it
    (also when someone decides it while this runs)."""
    gold = store.annotations(codebook=book.name, layer=GOLD)
    decided = {(r.corpus, r.dialog_id, _int(r.round), _int(r.turn)) for r in gold.itertuples(index=False)}
    written = 0
    for unit, labels in agreed_units(frame[frame["coder"].isin(coders)], coders):
        corpus, dialog, round_, turn = unit
        if (corpus, dialog, round_, turn) in decided:
            continue
        scope = book.label(labels[0]).scope if labels else "turn"
        try:
            written += save_gold_labels(store, book, scope, corpus, dialog, round_, turn if turn is not None else 1,
                                        labels, adjudicator, expected=NO_DECISION, actor=actor)
        except GoldConflict:
            continue
    return written


def copy_agreed_spans(store: CodingStore, book: Codebook, frame: pd.DataFrame, coders: Sequence[str],
                      adjudicator: str, actor=None) -> int:
    """The spans all ``coders`` of a dialog put identically become gold, in utterances gold has not decided."""
    gold = store.annotations(codebook=book.name, layer=GOLD)
    decided = {span_unit(r) for r in gold[gold["scope"] == "span"].itertuples(index=False)}
    written = 0
    for unit, spans in agreed_spans(frame, coders).items():
        if unit not in decided:
            try:
                written += save_gold_spans(store, book, unit, spans, adjudicator, expected=NO_DECISION, actor=actor)
            except GoldConflict:
                continue
    return written
