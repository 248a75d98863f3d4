"""Deep links into the replay page: one function builds them so that notes exports, search results and
the browse table all agree with what the replay page parses; and ``Place``, the one value for "a place in a
dialog" that notes, coding and links share."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlencode

REPLAY_PATH = "/replay"
HIGHLIGHT_PARAM = "hl"
QUEUE_PARAM, ITEM_PARAM = "queue", "item"  # a Replay opened as item k of a Coding queue (ui.coding.queue_flow)
MAX_HIGHLIGHT_CHARS = 200


def replay_link(corpus: str, dialog_id: str, turn: Optional[int] = None, round: Optional[int] = None,
                highlight: Optional[str] = None) -> str:
    """``highlight``: text to mark in the utterances at that turn (a search hit's match)."""
    params: dict[str, object] = {"corpus": corpus, "dialog": dialog_id}
    if round is not None:
        params["round"] = int(round)
    if turn is not None:
        params["turn"] = int(turn)
    if highlight:
        params[HIGHLIGHT_PARAM] = highlight[:MAX_HIGHLIGHT_CHARS]
    return f"{REPLAY_PATH}?{urlencode(params)}"


@dataclass(frozen=True)
class Place:
    """A place in a dialog: ``round`` (Game Of Sorts) and ``step`` (the replay step, as in deep links) are
    1-based or None; ``step=None`` is the whole dialog (or the whole round, when ``round`` is set).

    Stored in the ``turn`` column of the store's tables (the replay step is called a turn there)."""

    corpus: str
    dialog_id: str
    round: Optional[int] = None
    step: Optional[int] = None

    def __post_init__(self) -> None:
        if not isinstance(self.corpus, str) or not self.corpus.strip():
            raise ValueError(f"corpus must be a non-empty string; got {self.corpus!r}")
        if self.dialog_id is None or not str(self.dialog_id).strip():
            raise ValueError(f"dialog_id must be a non-empty string; got {self.dialog_id!r}")
        object.__setattr__(self, "dialog_id", str(self.dialog_id))
        for name in ("round", "step"):
            object.__setattr__(self, name, step_number(getattr(self, name), name))

    @classmethod
    def of(cls, value) -> "Place":
        """A Place from a Place or a (corpus, dialog_id, round, step) tuple (cells may be NaN / pd.NA)."""
        if isinstance(value, cls):
            return value
        corpus, dialog_id, round_, step = value
        return cls(corpus, dialog_id, round_, step)

    def as_tuple(self) -> tuple:
        return (self.corpus, self.dialog_id, self.round, self.step)

    def link(self, highlight: Optional[str] = None) -> str:
        """This place's replay deep link."""
        return replay_link(self.corpus, self.dialog_id, turn=self.step, round=self.round, highlight=highlight)


def step_number(value, name: str) -> Optional[int]:
    """A 1-based round or step number, or None (None, NaN and pandas' NA all mean "none"); ValueError otherwise."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or type(value).__name__ == "NAType":
        return None
    if isinstance(value, bool) or int(value) != value or int(value) < 1:
        raise ValueError(f"{name} must be a whole number from 1, or None; got {value!r}")
    return int(value)


MAX_QUOTED_CHARS = 80  # of a link's value quoted back in a message (a link may carry 100 kB)


def shortened(value, limit: int = MAX_QUOTED_CHARS) -> str:
    """A value from a link as text cut to ``limit`` characters (with "…"), for quoting it back to the user."""
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def parse_positive_int(value) -> Optional[int]:
    """A 1-based step/round number from a URL parameter, or None when absent or malformed."""
    if value is None:
        return None
    text = str(value).strip()
    # ASCII digits only: str.isdigit() also accepts "²" or "٣", which int() then refuses (or reads).
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        return None
    number = int(text)
    return number if number >= 1 else None


def highlight_segments(text: str, needle: Optional[str]) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, is_match) around every case-insensitive occurrence of ``needle`` (a literal).

    Linear in the text; an empty or missing needle gives the text as one plain piece."""
    text = "" if text is None else str(text)
    needle = (needle or "")[:MAX_HIGHLIGHT_CHARS]
    if not needle.strip() or not text:
        return [(text, False)] if text else []
    folded, key = text.casefold(), needle.casefold()
    if len(folded) != len(text) or len(key) != len(needle):  # case folding changed lengths (e.g. ß): exact case only
        folded, key = text, needle
    pieces: list[tuple[str, bool]] = []
    position = 0
    while True:
        found = folded.find(key, position)
        if found < 0:
            break
        if found > position:
            pieces.append((text[position:found], False))
        pieces.append((text[found:found + len(key)], True))
        position = found + len(key)
    if position < len(text):
        pieces.append((text[position:], False))
    return pieces
