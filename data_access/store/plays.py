"""Plays (issue 49): a person playing one role of a recorded dialog against its recorded partner, kept step by step.

A play is one row of ``plays`` (the corpus, dialog and seat played, the player's coder name, how many steps it has
and how many are done) and its steps are rows of ``play_events``, one per completed step, in order (``seq``). A
step's ``payload`` is what the corpus's play rules made of the browser's move (``contract.PlayRules``): the play is
rebuilt from them after a reload, a closed tab or a server restart.

Who may play follows the notes (``data_access.access``): starting or saving takes the coder role
(``Action.WRITE_OWN``), a play is attributed to the writer's own coder name (signed in, another name is refused as a
forgery; names follow the coders' rules: no ``gold``, no ``model:``, no look-alikes) and only its player saves
its steps. The check is made inside the write's transaction, so a page that forgot it cannot write either.

Two tabs of one person on one play cannot fork it: saving step ``s`` is a compare-and-set on ``steps_done``
(``s - 1`` expected), so the second of two tabs saving the same step is refused with ``PlayConflict`` (which says
where the play is) and writes nothing; ``UNIQUE (play_id, seq)`` makes a second row for a step impossible as well.
A person has at most one live play of a dialog and seat (a partial unique index) and at most ``MAX_LIVE_PLAYS``.

The events are the two-person game's log too (issue 50): an event names its ``role`` and ``kind``; a solo play
writes one ``step`` event per step.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

from ..access import Action, Identity, attributed, check, checked_coder_name
from .acting import acting
from .database import Database, StoreError
from .values import now as _now

STATUSES = ("playing", "finished", "abandoned")
MAX_LIVE_PLAYS = 200  # live plays of one player: a bound on every list and on what one person can leave open
MAX_PAYLOAD_BYTES = 256 * 1024  # one step's move as stored (a CoDraw canvas is a few kB, a Minecraft step less)
MAX_STEPS = 10_000  # steps of one play (a CoDraw dialog has tens, a Minecraft game a few hundred at most)
MAX_FIELD_CHARS = 200  # a corpus, dialog or seat name
STEP = "step"  # the kind of event a solo play writes, one per completed step
_PLAY_COLUMNS = ("id", "corpus", "dialog_id", "seat", "player", "status", "n_steps", "steps_done", "created_at",
                 "updated_at", "finished_at")
_SELECT = f"SELECT {', '.join(_PLAY_COLUMNS)} FROM plays"


class PlayNotFound(StoreError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "play not found"


class PlayConflict(StoreError):
    """The play moved on elsewhere (another tab saved this step) or is over; nothing was written. ``play`` is the
    play as it now stands."""

    def __init__(self, message: str, play: "Play"):
        super().__init__(message)
        self.play = play


@dataclass(frozen=True)
class Play:
    id: int
    corpus: str
    dialog_id: str
    seat: str
    player: str
    status: str
    n_steps: int
    steps_done: int
    created_at: str
    updated_at: str
    finished_at: Optional[str]

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def next_step(self) -> int:
        """The step to play now (``n_steps + 1`` once every step is done)."""
        return self.steps_done + 1


@dataclass(frozen=True)
class PlayEvent:
    seq: int
    step: int
    role: str
    kind: str
    payload: Any
    at: str


def _play(row) -> Play:
    values = dict(zip(_PLAY_COLUMNS, row))
    return Play(**{**values, "id": int(values["id"]), "n_steps": int(values["n_steps"]),
                   "steps_done": int(values["steps_done"])})


def _name(value: object, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_FIELD_CHARS:
        raise ValueError(f"A play's {what} is a name of 1 to {MAX_FIELD_CHARS} characters; got {str(value)[:40]!r}.")
    return value


def _payload(payload: Any) -> str:
    text = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    if len(text.encode("utf-8")) > MAX_PAYLOAD_BYTES:
        raise ValueError(f"Not saved: one step's move is at most {MAX_PAYLOAD_BYTES:,} bytes; this one has "
                         f"{len(text.encode('utf-8')):,}.")
    return text


class PlayStore:
    """The plays of one database (``Store.plays``)."""

    def __init__(self, db: Database, *, sign_in: bool = False):
        self.db = db
        self.sign_in = sign_in

    def start(self, corpus: str, dialog_id: str, seat: str, n_steps: int, *, player: Optional[str] = None,
              actor: Optional[Identity] = None) -> Play:
        """The live play of ``dialog_id`` from ``seat`` by the writer: theirs if they have one (two tabs starting at
        once get the same play), else a new one of ``n_steps`` steps. ``player``: the coder name it is played
        under (signed in, always the actor's own)."""
        what = f"starting a play of {str(dialog_id)[:40]}"
        corpus, dialog_id, seat = _name(corpus, "corpus"), _name(dialog_id, "dialog"), _name(seat, "seat")
        if isinstance(n_steps, bool) or not isinstance(n_steps, int) or not 1 <= n_steps <= MAX_STEPS:
            raise ValueError(f"A play has 1 to {MAX_STEPS:,} steps; got {n_steps!r}.")
        with self.db.write() as conn:
            identity = acting(actor, self.sign_in, what, player)
            check(identity, Action.WRITE_OWN, what=what)
            name = checked_coder_name(attributed(identity, player, what), "the player's name")
            conn.serialize(f"plays:{name}")  # two tabs starting at once: one play, and the cap counted once
            live = conn.execute(f"{_SELECT} WHERE corpus = ? AND dialog_id = ? AND seat = ? AND player = ? "
                                "AND status = 'playing'", (corpus, dialog_id, seat, name)).fetchone()
            if live is not None:
                return _play(live)
            count = conn.execute("SELECT COUNT(*) FROM plays WHERE player = ? AND status = 'playing'", (name,)).fetchone()[0]
            if count >= MAX_LIVE_PLAYS:
                raise ValueError(f"Not started: {name} has {count} plays under way (at most {MAX_LIVE_PLAYS}); "
                                 "finish or abandon one first.")
            at = _now()
            play_id = conn.insert(
                "INSERT INTO plays (corpus, dialog_id, seat, player, status, n_steps, steps_done, created_at, "
                "updated_at, changed_by) VALUES (?, ?, ?, ?, 'playing', ?, 0, ?, ?, ?)",
                (corpus, dialog_id, seat, name, n_steps, at, at, identity.signature))
            return _play(conn.execute(f"{_SELECT} WHERE id = ?", (play_id,)).fetchone())

    def save_step(self, play_id: int, step: int, payload: Any, *, role: str, actor: Optional[Identity] = None) -> Play:
        """Record ``step`` of the play (its ``payload``: the checked move) and return the play after it; the last
        step finishes it. ``PlayConflict`` when the play is not at that step (saved meanwhile in another tab, or
        over), ``AccessRefused`` unless the writer is its player."""
        text = _payload(payload)
        what = f"saving step {step} of play {play_id}"
        with self.db.write() as conn:
            current = self._get(conn, play_id, lock=True)
            identity = acting(actor, self.sign_in, what, current.player)
            check(identity, Action.WRITE_OWN, owner=current.player, what=what)
            attributed(identity, current.player, what)  # signed in: the play is theirs, under their own name
            if current.status != "playing":
                raise PlayConflict(f"Not saved: this play is {current.status}.", current)
            if isinstance(step, bool) or not isinstance(step, int) or step != current.steps_done + 1:
                raise PlayConflict(f"Not saved: this play is at step {current.next_step} (step {step} was sent: it "
                                   "moved on in another tab or window).", current)
            at = _now()
            done = step >= current.n_steps
            changed = conn.execute(
                "UPDATE plays SET steps_done = ?, status = ?, updated_at = ?, finished_at = ?, changed_by = ? "
                "WHERE id = ? AND steps_done = ? AND status = 'playing'",
                (step, "finished" if done else "playing", at, at if done else None, identity.signature, play_id,
                 step - 1)).rowcount
            if changed != 1:  # cannot happen under the row lock; said rather than assumed
                raise PlayConflict("Not saved: the play changed while it was being saved.", self._get(conn, play_id))
            conn.execute("INSERT INTO play_events (play_id, seq, step, role, kind, payload, at, changed_by) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (play_id, step, step, role, STEP, text, at, identity.signature))
            return self._get(conn, play_id)

    def abandon(self, play_id: int, *, actor: Optional[Identity] = None) -> Play:
        """Leave a live play (its steps stay in the store, it is no one's run); its player or nobody else."""
        what = f"abandoning play {play_id}"
        with self.db.write() as conn:
            current = self._get(conn, play_id, lock=True)
            identity = acting(actor, self.sign_in, what, current.player)
            check(identity, Action.WRITE_OWN, owner=current.player, what=what)
            attributed(identity, current.player, what)
            if current.status == "playing":
                conn.execute("UPDATE plays SET status = 'abandoned', updated_at = ?, changed_by = ? WHERE id = ?",
                             (_now(), identity.signature, play_id))
            return self._get(conn, play_id)

    def play(self, play_id: int) -> Play:
        with self.db.read() as conn:
            return self._get(conn, play_id)

    def latest(self, corpus: str, dialog_id: str, seat: str, player: str) -> Optional[Play]:
        """The player's live play of the dialog and seat, else their latest finished one, else None."""
        with self.db.read() as conn:
            row = conn.execute(
                f"{_SELECT} WHERE corpus = ? AND dialog_id = ? AND seat = ? AND player = ? AND status <> 'abandoned' "
                "ORDER BY CASE status WHEN 'playing' THEN 0 ELSE 1 END, id DESC LIMIT 1",
                (corpus, dialog_id, seat, player)).fetchone()
        return _play(row) if row is not None else None

    def events(self, play_id: int) -> list[PlayEvent]:
        """The play's events in order."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT seq, step, role, kind, payload, at FROM play_events WHERE play_id = ? "
                                "ORDER BY seq", (play_id,)).fetchall()
        return [PlayEvent(int(seq), int(step), role, kind, json.loads(payload), at)
                for seq, step, role, kind, payload, at in rows]

    def moves(self, play_id: int) -> list[Any]:
        """The payloads of the play's steps, step 1 first."""
        return [event.payload for event in self.events(play_id) if event.kind == STEP]

    def finished(self, corpus: str) -> list[Play]:
        """Every finished play of ``corpus``, oldest first."""
        with self.db.read() as conn:
            rows = conn.execute(f"{_SELECT} WHERE corpus = ? AND status = 'finished' ORDER BY id", (corpus,)).fetchall()
        return [_play(row) for row in rows]

    def finished_stamp(self, corpus: str) -> tuple[int, int]:
        """(finished plays of ``corpus``, the highest id among them): changes whenever one more play finishes."""
        with self.db.read() as conn:
            count, highest = conn.execute("SELECT COUNT(*), MAX(id) FROM plays WHERE corpus = ? AND status = 'finished'",
                                          (corpus,)).fetchone()
        return int(count), int(highest or 0)

    def _get(self, conn, play_id: int, lock: bool = False) -> Play:
        row = conn.execute(f"{_SELECT} WHERE id = ?{conn.lock_clause if lock else ''}", (play_id,)).fetchone()
        if row is None:
            raise PlayNotFound(f"There is no play {play_id}.")
        return _play(row)
