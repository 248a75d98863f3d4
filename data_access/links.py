"""Deep links into the replay page: one function builds them so that notes exports, search results and
the browse table all agree with what the replay page parses."""
from __future__ import annotations

from typing import Optional
from urllib.parse import urlencode

REPLAY_PATH = "/replay"


def replay_link(corpus: str, dialog_id: str, turn: Optional[int] = None, round: Optional[int] = None) -> str:
    params = {"corpus": corpus, "dialog": dialog_id}
    if round is not None:
        params["round"] = int(round)
    if turn is not None:
        params["turn"] = int(turn)
    return f"{REPLAY_PATH}?{urlencode(params)}"


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
