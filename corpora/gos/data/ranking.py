"""Reconstructing the agreed ranking of a round from its lock events (FORMATS A.4).

The log has no rank record: a rank exists when both players have locked the same image. This module
replays one round's lock events in order, keeping each player's pending lock, and says for every event
what state it leaves behind (pending locks, ranks so far) and what it caused (a rank, a mismatch). Logs
that break the game's rules (an unlock without a pending lock, a lock on an image already ranked) are
described in ``anomaly`` and never stop the replay.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

LOCK = "lock"
UNLOCK_MANUAL = "unlock manual"
UNLOCK_AUTOMATIC = "unlock automatic"


@dataclass(frozen=True)
class LockEvent:
    username: str
    event_type: str  # lock | unlock manual | unlock automatic
    image_id: str
    timestamp: int = 0


@dataclass(frozen=True)
class LockOutcome:
    """What one lock event did, and the state right after it."""

    pending: dict[str, Optional[str]]  # every player's pending lock after the event (None = no lock)
    ranks_so_far: int
    produced_rank: Optional[int] = None  # the rank this lock created (the second of two matching locks)
    mismatch: bool = False  # this lock met the partner's lock on a different image
    anomaly: str = ""  # a rule the log breaks here; empty when the event is regular


@dataclass
class RoundRanking:
    """The replay of one round: an outcome per event plus the final ranking."""

    outcomes: list[LockOutcome] = field(default_factory=list)
    ranking: list[tuple[str, int]] = field(default_factory=list)  # (image_id, timestamp) in rank order

    @property
    def mismatches(self) -> int:
        return sum(o.mismatch for o in self.outcomes)


def replay_locks(events: Iterable[LockEvent], players: Iterable[str] = ()) -> RoundRanking:
    """Replay lock events (already in log order) of one round.

    ``players`` seeds the pending-lock table so that both players appear in every snapshot, even before
    their first lock; players first seen in ``events`` are added on the fly."""
    pending: dict[str, Optional[str]] = {p: None for p in players}
    ranked: set[str] = set()
    result = RoundRanking()
    for event in events:
        pending.setdefault(event.username, None)
        produced, mismatch, anomaly = None, False, ""
        if event.event_type == LOCK:
            if event.image_id in ranked:
                # The game cannot produce this; counting it would rank an image twice.
                anomaly = f"locks {event.image_id}, which is already ranked; ignored for the ranking"
            else:
                held = pending[event.username]
                if held is not None:
                    anomaly = f"locks {event.image_id} while still holding a lock on {held}; the new lock replaces it"
                pending[event.username] = event.image_id
                partners = [p for p, image in pending.items() if p != event.username and image is not None]
                if any(pending[p] == event.image_id for p in partners):
                    ranked.add(event.image_id)
                    result.ranking.append((event.image_id, event.timestamp))
                    produced = len(result.ranking)
                    for player in pending:
                        pending[player] = None
                elif partners:
                    # Both locks stay pending until the two "unlock automatic" events release them.
                    mismatch = True
        elif event.event_type in (UNLOCK_MANUAL, UNLOCK_AUTOMATIC):
            held = pending[event.username]
            if held is None:
                anomaly = f"{event.event_type} of {event.image_id} without a pending lock"
            elif held != event.image_id:
                anomaly = f"{event.event_type} of {event.image_id} while the pending lock is on {held}"
            pending[event.username] = None
        else:
            anomaly = f"unknown lock event type {event.event_type!r}; ignored"
        result.outcomes.append(LockOutcome(dict(pending), len(result.ranking), produced, mismatch, anomaly))
    return result
