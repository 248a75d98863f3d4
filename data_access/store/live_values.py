"""The values of live games (``live_games``): a game and an event as stored, the errors a live game's calls raise,
what a corpus's rule is, and the small checks every call shares (a name, a JSON payload within its bytes)."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from .database import StoreError

MAX_FIELD_CHARS = 200  # a corpus, item or role name
GAME_COLUMNS = ("id", "corpus", "item", "first_role", "second_role", "first_player", "second_player", "status",
                "n_events", "n_bytes", "created_at", "started_at", "finished_at", "updated_at")
EVENT_COLUMNS = ("seq", "role", "player", "kind", "payload", "visible_to", "client_id", "at")

Consequence = tuple[str, str, Any, Optional[str]]  # role, kind, payload, the role that alone sees it
Rule = Callable[[str, str, Any, list["LiveEvent"], dict], tuple[Any, Optional[str], Sequence[Consequence]]]


class LiveGameNotFound(StoreError, KeyError):
    """No such game, or one the viewer may not see (the two are not told apart)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "live game not found"


class LiveGameFull(StoreError):
    """The invitation was used: both roles are taken."""


class LiveGameClosed(StoreError):
    """The game ended (or has not started): nothing more is written to it."""


class LiveGameConflict(StoreError):
    """A client id already names a different event of the game; nothing was written."""


@dataclass(frozen=True)
class LiveGame:
    """A game as stored: its roles and players (``second_player`` None until someone joins), ``status`` (waiting,
    playing, finished), how many events and payload bytes it holds, and when it was created, started and ended."""

    id: int
    corpus: str
    item: str
    first_role: str
    second_role: str
    first_player: Optional[str]
    second_player: Optional[str]
    status: str
    n_events: int
    n_bytes: int
    created_at: str
    started_at: Optional[str]
    finished_at: Optional[str]
    updated_at: str

    @property
    def roles(self) -> tuple[str, str]:
        return (self.first_role, self.second_role)

    def role_of(self, coder: str) -> Optional[str]:
        """The role ``coder`` plays in this game, or None."""
        if coder and coder == self.first_player:
            return self.first_role
        if coder and coder == self.second_player:
            return self.second_role
        return None

    def player_of(self, role: str) -> Optional[str]:
        return self.first_player if role == self.first_role else self.second_player if role == self.second_role else None


@dataclass(frozen=True)
class LiveEvent:
    """An event as stored: its place in the game (``seq``), who sent it in which role, what it is, the one role that
    sees it (None: both), the sender's client id and when the store received it (ISO 8601, UTC)."""

    seq: int
    role: str
    player: str
    kind: str
    payload: Any
    visible_to: Optional[str]
    client_id: str
    at: str


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def field_name(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_FIELD_CHARS:
        raise ValueError(f"A live game's {what} is a name of 1 to {MAX_FIELD_CHARS} characters; got {value!r:.80}.")
    return value.strip()


def json_text(value: object, limit: int, what: str) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:  # RecursionError: nested past any game's need
        raise ValueError(f"Not saved: {what} is not plain JSON ({type(exc).__name__}: {str(exc)[:120]}).") from None
    if len(text.encode("utf-8")) > limit:
        raise ValueError(f"Not saved: {what} is {len(text.encode('utf-8')):,} bytes; at most {limit:,}.")
    return text


def game_of_row(row) -> LiveGame:
    return LiveGame(*row)


def event_of_row(row) -> LiveEvent:
    record = dict(zip(EVENT_COLUMNS, row))
    record["payload"] = json.loads(record["payload"])
    return LiveEvent(**record)
