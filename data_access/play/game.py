"""What is played and how one step is taken: the corpus's play rules (``contract.PlayRules``) and the store.

``submit_step`` is the one way a step is saved: the browser's move is checked by the corpus's rules (it is the
browser's word: anything the game does not allow is refused with one line) against the moves already saved, and
saved in the store, whose transaction checks who writes and that the play is at that step
(``data_access.store.PlayStore.save_step``).
"""
from __future__ import annotations

from typing import Any, Optional

from ..access import Identity
from ..contract import PlayRules, play_rules_of
from ..store import Play, Store
from ..types import LoadedCorpus


class PlayUnavailable(ValueError):
    """The corpus, dialog or seat cannot be played; the message says why, in one line."""


def rules_of(loaded: LoadedCorpus) -> PlayRules:
    """The play rules of the loaded corpus; ``PlayUnavailable`` when the corpus cannot be played."""
    rules = play_rules_of(loaded)
    if rules is None:
        raise PlayUnavailable(f"{loaded.corpus} cannot be played (its corpus package offers no play_rules)")
    return rules


def steps_of(loaded: LoadedCorpus, dialog_id: str, seat: str) -> int:
    """How many steps a play of ``dialog_id`` from ``seat`` has; ``PlayUnavailable`` when it cannot be played."""
    rules = rules_of(loaded)
    if seat not in rules.seats(loaded, dialog_id):
        raise PlayUnavailable(f"{dialog_id} of {loaded.corpus} has no seat {seat!r} to play")
    n_steps = rules.step_count(loaded, dialog_id, seat)
    if n_steps <= 0:
        raise PlayUnavailable(f"{dialog_id} of {loaded.corpus} has no step to play")
    return n_steps


def start(store: Store, loaded: LoadedCorpus, dialog_id: str, seat: str, *, player: Optional[str] = None,
          actor: Optional[Identity] = None) -> Play:
    """The writer's live play of the dialog and seat (resumed, or started now)."""
    return store.plays.start(loaded.corpus, dialog_id, seat, steps_of(loaded, dialog_id, seat), player=player,
                             actor=actor)


def submit_step(store: Store, loaded: LoadedCorpus, play: Play, step: int, move: Any, *,
                actor: Optional[Identity] = None) -> Play:
    """Check ``move`` for ``step`` of ``play`` with the corpus's rules and save it; the play after it.
    ``ValueError`` for a move the game does not allow, ``PlayConflict`` when the play is not at that step,
    ``AccessRefused`` unless the writer is the play's player."""
    rules = rules_of(loaded)
    earlier = store.plays.moves(play.id)
    if step != len(earlier) + 1:
        from ..store import PlayConflict

        current = store.plays.play(play.id)
        raise PlayConflict(f"Not saved: this play is at step {current.next_step} (step {step} was sent: it moved on "
                           "in another tab or window).", current)
    checked = rules.checked_move(loaded, play.dialog_id, play.seat, step, move, earlier)
    return store.plays.save_step(play.id, step, checked, role=rules.ROLE, actor=actor)
