"""The writes of the Replay's coding column as the browser sends them, without Streamlit: labels put on, taken
off and undone, spans and notes, each shown in the browser at once and stored behind it.

The browser names each write (``uid``) and sends every write not yet answered in each batch, so a batch that
was lost, or a run that was cut short by the next one, loses nothing; a write sent twice is stored once (the
store's ``put_label`` and ``add_annotation`` return the first write of a ``uid``; taking a label off twice is
taking it off once). Each write goes through the store's checked path (``data_access.access``: a viewer's
write is refused in the store, whatever the page sent), and each is answered: ``stored``, ``already`` (the
label is there already: a second press removes nothing), ``refused`` with the reason (the browser takes its
label back and says why), or ``retry`` (the store could not be reached: the browser keeps the write and sends
it again). A batch is bounded in writes and every field in size; a malformed write is refused with its reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Optional

import pandas as pd

from ..access import AccessRefused, Identity
from . import rules
from .codebook import Codebook

if TYPE_CHECKING:
    from ..store import CodingStore, NotesStore

MAX_WRITES = 200  # writes in one batch (the browser sends at most this many; more are refused, not dropped)
MAX_FIELD = 500  # characters of a label, dialog, codebook or uid
MAX_NOTE = 20_000  # characters of a note typed in the coding column
UID = re.compile(r"[A-Za-z0-9_-]{8,64}")
KINDS = ("put", "remove", "span", "note")


@dataclass(frozen=True)
class Write:
    """One write of the coding column: ``kind`` is put (a turn or dialog label), remove (the write ``target``
    taken off), span (characters ``start``..``end`` of the step's ``utterance``) or note (``text``)."""

    uid: str
    kind: str
    dialog: str
    turn: Optional[int]
    round: Optional[int] = None
    codebook: str = ""
    label: str = ""
    target: str = ""
    utterance: Optional[int] = None
    start: Optional[int] = None
    end: Optional[int] = None
    text: str = ""


@dataclass(frozen=True)
class Answer:
    """What became of one write: status stored, already, refused or retry, and what the coder is told."""

    uid: str
    status: str
    message: str
    annotation: Optional[int] = None


def _text(value, name: str, limit: int = MAX_FIELD, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()) or len(value) > limit:
        raise ValueError(f"{name} must be a text of 1 to {limit:,} characters")
    return value


def _number(value, name: str, required: bool = False, zero: bool = False) -> Optional[int]:
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not (0 if zero else 1) <= value <= 10**9:
        raise ValueError(f"{name} must be a whole number{' from 0' if zero else ' from 1'}")
    return value


def parse_write(raw) -> Write:
    """One write as the browser sent it; ValueError says what is wrong with it."""
    if not isinstance(raw, dict):
        raise ValueError("a write must be an object")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise ValueError(f"a write's kind must be one of {', '.join(KINDS)}")
    uid, dialog = str(raw.get("uid")), _text(raw.get("dialog"), "dialog")
    turn = _number(raw.get("turn"), "turn", required=kind != "remove")
    round_ = _number(raw.get("round"), "round")
    if kind == "remove":
        target = _text(raw.get("target"), "target")
        if not UID.fullmatch(target):
            raise ValueError("a removal names the write it takes off")
        return Write(uid, kind, dialog, turn, round_, target=target)
    if kind == "note":
        return Write(uid, kind, dialog, turn, round_, text=_text(raw.get("text"), "a note", MAX_NOTE))
    codebook, label = _text(raw.get("codebook"), "codebook"), _text(raw.get("label"), "label")
    if kind == "span":
        return Write(uid, kind, dialog, turn, round_, codebook, label,
                     utterance=_number(raw.get("utterance"), "utterance", True, zero=True),
                     start=_number(raw.get("start"), "start", True, zero=True),
                     end=_number(raw.get("end"), "end", True, zero=True))
    return Write(uid, kind, dialog, turn, round_, codebook, label)


def parse_batch(value) -> tuple[int, list[Write], list[Answer]]:
    """(the batch's sequence number, its writes, the answers to writes refused as malformed) from what the
    browser sent: ``{"seq": n, "writes": [...]}``. Past ``MAX_WRITES`` a write is refused (the browser shows it)."""
    if not isinstance(value, dict):
        return 0, [], []
    seq = value.get("seq")
    seq = seq if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 else 0
    raws = value.get("writes")
    writes: list[Write] = []
    refused: list[Answer] = []
    for index, raw in enumerate(raws if isinstance(raws, list) else []):
        uid = raw.get("uid") if isinstance(raw, dict) else None
        if not isinstance(uid, str) or not UID.fullmatch(uid):
            continue  # nothing to answer it by: the browser sent no name for it
        if index >= MAX_WRITES:
            refused.append(Answer(uid, "retry", f"more than {MAX_WRITES} writes at once: sent again"))
            continue
        try:
            writes.append(parse_write(raw))
        except ValueError as exc:
            refused.append(Answer(uid, "refused", f"Not saved: {exc}"))
    return seq, writes, refused


@dataclass(frozen=True)
class Workplace:
    """Where the writes land: the store's coding and notes parts, the corpus, the coder and the identity that
    the store checks each write against; ``codebook(name)`` the saved codebook (KeyError when there is none),
    ``utterances(dialog, round, turn)`` the step's utterances (a span is checked against them)."""

    coding: "CodingStore"
    notes: "NotesStore"
    corpus: str
    coder: str
    actor: Optional[Identity]
    codebook: Callable[[str], Optional[Codebook]]
    utterances: Callable[[str, Optional[int], int], Optional[pd.DataFrame]]


def not_answered(writes: list[Write], answered: Mapping[str, Mapping]) -> list[Write]:
    """The writes of a batch still to apply: one this session answered already (``answered``: uid -> its answer,
    ``{"status": ...}``) keeps its answer and is not applied again (the browser sends every write not yet answered
    in each batch, and an answer that went with another fragment's run comes back with the next batch), except one
    answered ``retry`` (the store could not take it then)."""
    return [write for write in writes
            if not isinstance(answered.get(write.uid), Mapping) or answered[write.uid].get("status") == "retry"]


def apply_writes(place: Workplace, writes: list[Write], noted: dict[str, int]) -> list[Answer]:
    """Every write in order, each answered. ``noted``: uid -> id of the notes stored already (a note has no uid
    in the store: one sent again is recognised by it, and stored once)."""
    from ..store import StoreError

    answers = []
    for write in writes:
        try:
            answers.append(_apply(place, write, noted))
        except AccessRefused as exc:
            answers.append(Answer(write.uid, "refused", str(exc)))
        except rules.AlreadyLabelled as exc:
            answers.append(Answer(write.uid, "already", str(exc)))
        except (KeyError, ValueError) as exc:  # an unknown label or codebook, a span outside its utterance
            reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            answers.append(Answer(write.uid, "refused", f"Not saved: {reason}"))
        except StoreError as exc:  # unreachable or busy: the browser keeps the write and sends it again
            answers.append(Answer(write.uid, "retry", f"Not saved yet, the store cannot be reached ({exc}); sent again"))
    return answers


def _apply(place: Workplace, write: Write, noted: dict[str, int]) -> Answer:
    if write.kind == "remove":
        removed = place.coding.delete_written(write.target, actor=place.actor)
        return Answer(write.uid, "stored", "Removed." if removed is not None else "It was not stored: nothing to take off.")
    if write.kind == "note":
        if write.uid not in noted:
            noted[write.uid] = place.notes.add_note(place.corpus, write.dialog, write.text, round=write.round,
                                                    turn=write.turn, author=place.coder or None, actor=place.actor)
        return Answer(write.uid, "stored", "Note saved.")
    assert write.turn is not None  # parse_write requires it of every write but a removal
    book = place.codebook(write.codebook)
    if book is None:
        raise KeyError(f"there is no codebook {write.codebook!r}")
    context = rules.CodingContext.at(place.corpus, write.dialog, write.round, write.turn, place.coder, book,
                                     actor=place.actor)
    if write.kind == "span":
        utterances = place.utterances(write.dialog, write.round, write.turn)
        if utterances is None:
            raise ValueError(f"there is no step {write.turn} in dialog {write.dialog}")
        assert write.utterance is not None and write.start is not None and write.end is not None
        saved = rules.save_span(place.coding, context, utterances, write.label, write.utterance, write.start,
                                write.end, uid=write.uid)
    else:
        saved = rules.put_label(place.coding, context, write.label, uid=write.uid)
    return Answer(write.uid, "stored", saved.message, saved.link_next)
