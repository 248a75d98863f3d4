"""What coding at one replay step means, without Streamlit: the context an action happens in (a step of a
dialog, a coder, a codebook), where a label of each scope is stored, which of a coder's annotations are at a
place, and the actions of the Replay's coding panel — a span saved once its offsets are checked, a turn or
dialog label put on (once: a second press says it is there already) or taken off. ``ui/coding/panel.py`` and
the coding column (``ui/coding/workbench.py``, through ``label_ops``) show them; the store
(``data_access.store``) saves them.

Where a label is stored: a span or a turn label at the step's round and turn; a dialog label at no turn, and
at the round only where the corpus replays in rounds (the contract's ``REPLAY_IN_ROUNDS``: A Game Of Sorts'
rounds are games of their own, so a "dialog" label there describes the round).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import pandas as pd

from ..access import Identity
from ..registry import CorpusAttribute
from .codebook import Codebook

if TYPE_CHECKING:  # only the store's methods are used: any store with them will do
    from ..store import CodingStore

UNKNOWN_LABEL_COLOUR = "#7f7f7f"  # an annotation whose label the codebook no longer has


# corpus name -> whether its replay steps within rounds (the coding names its corpus by name)
_REPLAY_IN_ROUNDS = CorpusAttribute("REPLAY_IN_ROUNDS")


def stored_round(scope: str, round: Optional[int], replay_in_rounds: bool) -> Optional[int]:
    """The round a label of ``scope`` coded at ``round`` is stored at: the round for a span or turn label; for a
    dialog label only where the corpus replays in rounds (there a dialog label describes the round)."""
    return round if scope != "dialog" or replay_in_rounds else None


@dataclass(frozen=True)
class CodingContext:
    """One replay step as a coder codes it: the corpus and dialog, the replay's round (None where the corpus has
    no rounds in its replay) and step (``turn``), the coder, the codebook, and the corpus's ``REPLAY_IN_ROUNDS``."""

    corpus: str
    dialog: str
    round: Optional[int]
    turn: int
    coder: str
    codebook: Codebook
    replay_in_rounds: bool
    actor: Optional[Identity] = None  # who the store checks each save against (data_access.access)

    @classmethod
    def at(cls, corpus: str, dialog: str, round: Optional[int], turn: int, coder: str,
           codebook: Codebook, actor: Optional[Identity] = None) -> "CodingContext":
        """The context of a step of ``corpus``, with the corpus's ``REPLAY_IN_ROUNDS`` from its package."""
        return cls(corpus, dialog, round, turn, coder, codebook, bool(_REPLAY_IN_ROUNDS[corpus]),
                   actor)

    def place(self, scope: str) -> tuple[Optional[int], Optional[int]]:
        """(round, turn) where a label of ``scope`` coded here is stored: a dialog label has no turn."""
        return stored_round(scope, self.round, self.replay_in_rounds), None if scope == "dialog" else self.turn


def same_place(frame: pd.DataFrame, round: Optional[int], turn: Optional[int]) -> pd.Series:
    """Which annotations of ``frame`` (the store's annotation frame) are at (``round``, ``turn``); None matches
    only an annotation without one."""
    rounds = frame["round"].astype("Int64")
    turns = frame["turn"].astype("Int64")
    same_round = rounds.isna() if round is None else (rounds == round).fillna(False)
    same_turn = turns.isna() if turn is None else (turns == turn).fillna(False)
    return (same_round & same_turn).astype(bool)


def my_annotations(store: CodingStore, context: CodingContext) -> pd.DataFrame:
    """The coder's live annotations of the dialog with the context's codebook, wherever they are in it."""
    return store.annotations(context.corpus, context.dialog, codebook=context.codebook.name, coder=context.coder)


def label_colour(book: Codebook, name: str) -> str:
    """The label's colour; grey for a label the codebook does not have (any more)."""
    try:
        return book.label(name).colour
    except KeyError:
        return UNKNOWN_LABEL_COLOUR


def links_referents(book: Codebook, name: str) -> bool:
    """Whether annotations with this label are linked to referents (False for a label the codebook lacks)."""
    try:
        return book.label(name).links_referents
    except KeyError:
        return False


class Refused(ValueError):
    """A coding action that was not saved; the message says why (shown as an error, prefixed "Not saved: ")."""


@dataclass(frozen=True)
class Saved:
    """What a coding action did: its message for the coder and, when the coder should link referents to it next,
    the annotation's id."""

    message: str
    link_next: Optional[int] = None


def save_span(store: CodingStore, context: CodingContext, utterances: pd.DataFrame, label: str, utterance: int,
              start: int, end: int, uid: Optional[str] = None) -> Saved:
    """Save characters ``start``..``end`` (end exclusive) of the step's ``utterance`` (its position in
    ``utterances``) as a span with ``label``. Raises ``Refused`` for an utterance or offsets outside the step."""
    entry = context.codebook.label(label)
    if not 0 <= utterance < len(utterances):
        raise Refused(f"there is no utterance {utterance} at this step")
    text = str(utterances.loc[utterance, "text"])
    if not (0 <= start < end <= len(text)):
        raise Refused(f"the selection {start}..{end} is outside the utterance, which has {len(text)} "
                      f"character(s) (offsets 0..{len(text)}, end exclusive, after the start).")
    new = store.add_annotation(context.corpus, context.dialog, codebook=context.codebook, label=entry.name,
                               coder=context.coder, round=context.round, turn=context.turn, utterance=utterance,
                               start=start, end=end, span_text=text[start:end], uid=uid, actor=context.actor)
    if entry.links_referents:
        return Saved(f"Saved “{text[start:end]}” as {entry.name} — now click its referents.", new)
    return Saved(f"Saved “{text[start:end]}” as {entry.name}.")


class AlreadyLabelled(Refused):
    """The coder has this label at this place already: a second press stores nothing and removes nothing."""


def put_label(store: CodingStore, context: CodingContext, name: str, uid: Optional[str] = None) -> Saved:
    """Put a turn or dialog label on at its place (``CodingContext.place``), once. ``AlreadyLabelled`` when this
    coder has it there: pressing a label again never takes it off (that is ``remove_label``, its own action).
    ``uid`` names the write, so a write sent again stores nothing more (``CodingStore.put_label``)."""
    label = context.codebook.label(name)
    if label.scope == "span":
        raise Refused(f"{label.name} is a span label: select characters of an utterance first")
    round_, _ = context.place(label.scope)
    new, stored = store.put_label(context.corpus, context.dialog, codebook=context.codebook, label=label.name,
                                  coder=context.coder, round=round_, turn=context.turn, uid=uid, actor=context.actor)
    if not stored:
        raise AlreadyLabelled(f"{label.name} is already labelled here")
    return Saved(f"Saved {label.name}.", new if label.links_referents else None)


def remove_label(store: CodingStore, context: CodingContext, name: str) -> Saved:
    """Take this coder's turn or dialog label ``name`` off at its place (it stays in the history)."""
    label = context.codebook.label(name)
    mine = my_annotations(store, context)
    existing = mine[same_place(mine, *context.place(label.scope)) & (mine["label"] == label.name)
                    & (mine["scope"] == label.scope)]
    if existing.empty:
        raise Refused(f"{label.name} is not labelled here")
    for annotation_id in existing["id"]:
        store.delete_annotation(int(annotation_id), actor=context.actor)
    return Saved(f"Removed {label.name}.")
