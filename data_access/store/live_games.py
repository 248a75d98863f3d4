"""Live games (issue 50): two people playing the two roles of a corpus's game against each other, kept in the store
event by event, so that two app servers on one database serve the two players and nothing acknowledged is lost.

A game is one row of ``live_games``: the corpus and item played (a CoDraw scene, a Game Of Sorts board set, a
Minecraft target), its two roles and who plays each, and what each role is shown of the item (``setup``: a
``shared`` part and one part per role). Its messages and moves are rows of ``live_game_events`` in the order the
store received them (``seq``). The store names no corpus: a corpus's rules come in as ``append``'s ``rule`` (its
``LiveRules.checked_event``, passed by ``data_access.live``), run inside the write; the store enforces who may do
what, where it lands:

- **Created and joined by link.** ``create`` (the coder role) returns the game and its invitation token, kept only
  as a SHA-256 digest; ``join(token)`` gives the other role to the first other coder who opens it and starts the
  game; a third one is refused (``LiveGameFull``); a player opening it again gets the game back (resume).
  ``reinvite`` replaces a lost token while the game waits.
- **Each role sees only its own.** ``setup_for`` gives the shared part and the viewer's role's part; ``events``
  leaves out events meant for the other role (``visible_to``). Before a game ends only its two players (and an
  admin) see it at all; a finished game is the collection's, and every signed-in reader sees it whole. To anyone
  else a game is as absent (``LiveGameNotFound``).
- **Acting as oneself only.** ``append`` takes the role from who the actor is, never from the page; a player of
  another game, a viewer, a visitor who did not sign in is refused; nothing is appended once the game ended.
- **Nothing doubled.** Each event carries the sender's ``client_id`` (unique per game): a resend of an
  acknowledged event returns the stored one (also after the game ended), and one id reused for a different event
  is refused. The game row is locked while an event is appended, so ``seq`` has no gap or repeat on two servers.
- **Bounded.** A message is at most ``MAX_MESSAGE_CHARS``, an event at most ``MAX_EVENT_BYTES`` as stored, a game at
  most ``MAX_EVENTS`` events of ``MAX_GAME_BYTES`` in all (what a rule reads at each event, what a resume reads);
  a poll reads at most ``MAX_POLL_EVENTS`` events; a player sends at most ``MAX_MESSAGES_PER_WINDOW`` messages and
  ``MAX_EVENTS_PER_WINDOW`` events in any ``RATE_WINDOW_S`` seconds (the clock is injected); one person has at
  most ``MAX_OPEN_GAMES`` games waiting or under way.

A poll is ``events(game, after=cursor)``: the events past the viewer's cursor that the viewer may see and the new
cursor (the last of them: it never moves past a hidden event), one indexed read however long the game.
"""
from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from ..access import AccessRefused, Action, Identity, attributed, check, checked_coder_name, log
from .acting import acting
from .database import Database
from .live_values import (
    EVENT_COLUMNS,
    GAME_COLUMNS,
    LiveEvent,
    LiveGame,
    LiveGameClosed,
    LiveGameConflict,
    LiveGameFull,
    LiveGameNotFound,
    Rule,
    event_of_row,
    field_name,
    game_of_row,
    json_text,
    token_digest,
)

MAX_MESSAGE_CHARS = 1_000  # a chat message (the corpora's longest messages are a few hundred characters)
MAX_EVENT_BYTES = 16 * 1024  # one event's payload as stored (a full CoDraw canvas is under 5 kB)
MAX_GAME_BYTES = 8 * 1024 * 1024  # a game's payloads in all (a CoDraw game of 1,000 full canvases is under 5 MB)
MAX_POLL_EVENTS = 500  # events one poll reads at most (a resume reads on from its cursor)
MAX_SETUP_BYTES = 512 * 1024  # what the two roles are shown of the item (a Minecraft target, nine image ids...)
MAX_EVENTS = 10_000  # events of one game (a Minecraft game logs a few hundred, A Game Of Sorts' about 220)
MAX_OPEN_GAMES = 50  # games one person has waiting or under way
MAX_FINISHED_LISTED = 10_000  # finished games of a corpus written at once (a study; a class plays tens)
RATE_WINDOW_S = 10.0
MAX_MESSAGES_PER_WINDOW = 10  # faster than anyone types
MAX_EVENTS_PER_WINDOW = 60  # moves: a Builder placing blocks, a Drawer dragging cliparts
MESSAGE = "message"  # the kind of a chat message: its payload's "text" is bounded
CLIENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
KIND = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
STATUSES = ("waiting", "playing", "finished")
_SELECT_GAME = f"SELECT {', '.join(GAME_COLUMNS)} FROM live_games"


class LiveGames:
    """The live games of one database (``Store.live_games``). ``clock``: Unix seconds now (the rate limits and the
    events' times; tests inject one)."""

    def __init__(self, db: Database, *, sign_in: bool = False, clock: Callable[[], float] = time.time):
        self.db = db
        self.sign_in = sign_in
        self.clock = clock

    def _now(self) -> str:
        return datetime.fromtimestamp(self.clock(), tz=timezone.utc).isoformat(timespec="microseconds")

    # -- writing ------------------------------------------------------------------------------------------------

    def create(self, corpus: str, item: str, roles: tuple[str, str], my_role: str, setup: Mapping[str, Any], *,
               player: Optional[str] = None, actor: Optional[Identity] = None) -> tuple[LiveGame, str]:
        """A new game waiting for its second player, and its invitation token (shown once: only its digest is
        kept). ``setup``: ``{"shared": ..., "roles": {role: ...}}``, what both roles and each role are shown."""
        what = "creating a live game"
        corpus, item = field_name(corpus, "corpus"), field_name(item, "item")
        if not (isinstance(roles, (tuple, list)) and len(roles) == 2):
            raise ValueError("A live game has two roles.")
        first, second = (field_name(r, "role") for r in roles)
        if first == second or my_role not in (first, second):
            raise ValueError(f"A live game has two different roles, and its creator plays one of them ({my_role!r}).")
        if not isinstance(setup, Mapping) or set(setup) - {"shared", "roles"} or \
                set(setup.get("roles") or {}) - {first, second}:
            raise ValueError("A live game's setup is {'shared': ..., 'roles': {role: ...}} over its two roles.")
        setup_text = json_text(dict(setup), MAX_SETUP_BYTES, "the game's setup")
        if my_role == second:
            first, second = second, first
        token = secrets.token_urlsafe(24)
        with self.db.write() as conn:
            identity = acting(actor, self.sign_in, what, player)
            check(identity, Action.WRITE_OWN, what=what)
            creator = checked_coder_name(attributed(identity, player, what), "the player")
            self._room_for(conn, creator)
            now = self._now()
            game_id = conn.insert(
                "INSERT INTO live_games (token_digest, corpus, item, first_role, second_role, first_player, setup, "
                "created_at, updated_at, changed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (token_digest(token), corpus, item, first, second, creator, setup_text, now, now, identity.signature))
            return self._row(conn, game_id), token

    def create_open(self, corpus: str, item: str, roles: tuple[str, str], setup: Mapping[str, Any], *,
                    actor: Optional[Identity] = None) -> tuple[LiveGame, dict[str, str]]:
        """A game of a study with both roles open (an admin's: a study's organiser plays in none of its games), and
        the invitation token of each role (role -> token, shown once); the game starts when both are taken."""
        what = "creating a study's live game"
        corpus, item = field_name(corpus, "corpus"), field_name(item, "item")
        if not (isinstance(roles, (tuple, list)) and len(roles) == 2):
            raise ValueError("A live game has two roles.")
        first, second = (field_name(r, "role") for r in roles)
        if first == second or not isinstance(setup, Mapping) or set(setup) - {"shared", "roles"} or \
                set(setup.get("roles") or {}) - {first, second}:
            raise ValueError("A live game has two different roles and a setup {'shared': ..., 'roles': {role: ...}}.")
        setup_text = json_text(dict(setup), MAX_SETUP_BYTES, "the game's setup")
        tokens = {first: secrets.token_urlsafe(24), second: secrets.token_urlsafe(24)}
        with self.db.write() as conn:
            identity = acting(actor, self.sign_in, what)
            check(identity, Action.MANAGE, what=what)
            now = self._now()
            game_id = conn.insert(
                "INSERT INTO live_games (token_digest, first_token_digest, corpus, item, first_role, second_role, "
                "setup, created_at, updated_at, changed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (token_digest(tokens[second]), token_digest(tokens[first]), corpus, item, first, second, setup_text,
                 now, now, identity.signature))
            return self._row(conn, game_id), tokens

    def join(self, token: str, *, player: Optional[str] = None, actor: Optional[Identity] = None) -> LiveGame:
        """Take the role the invitation ``token`` is for (the creator's other role; either role of a study's game)
        and start the game once both are taken; a player of the game gets it back as it stands.
        ``LiveGameNotFound`` for an unknown token, ``LiveGameFull`` when the role is taken."""
        what = "joining a live game"
        if not isinstance(token, str) or not 16 <= len(token) <= 100:
            raise LiveGameNotFound("There is no game with this invitation (the link may be cut short).")
        with self.db.write() as conn:
            identity = acting(actor, self.sign_in, what, player)
            check(identity, Action.WRITE_OWN, what=what)
            coder = checked_coder_name(attributed(identity, player, what), "the player")
            digest = token_digest(token)
            row = conn.execute(f"SELECT {', '.join(GAME_COLUMNS)}, first_token_digest FROM live_games WHERE "
                               "token_digest = ? OR first_token_digest = ?" + conn.lock_clause,
                               (digest, digest)).fetchone()
            if row is None:
                raise LiveGameNotFound("There is no game with this invitation (it may have been replaced).")
            game = game_of_row(row[:-1])
            if game.role_of(coder) is not None:
                return game  # a player back (another tab, a reload, another server)
            column = "first_player" if row[-1] == digest else "second_player"
            if getattr(game, column) is not None or game.status != "waiting":
                raise LiveGameFull(f"This game is full: {game.first_role} and {game.second_role} are both taken.")
            self._room_for(conn, coder)
            now = self._now()
            other = game.second_player if column == "first_player" else game.first_player
            if other is None:  # a study's game: the other role is still open
                conn.execute(f"UPDATE live_games SET {column} = ?, updated_at = ?, changed_by = ? WHERE id = ?",
                             (coder, now, identity.signature, game.id))
            else:
                conn.execute(f"UPDATE live_games SET {column} = ?, status = 'playing', started_at = ?, updated_at = ?, "
                             "changed_by = ? WHERE id = ?", (coder, now, now, identity.signature, game.id))
            return self._row(conn, game.id)

    def reinvite(self, game_id: int, role: Optional[str] = None, *, actor: Optional[Identity] = None) -> str:
        """A new invitation token for an open role (default: the second) of a game still waiting (its creator's, or
        an admin's; a study's game an admin's only); the old one stops working."""
        what = f"inviting to live game {game_id}"
        token = secrets.token_urlsafe(24)
        with self.db.write() as conn:
            game = self._locked(conn, game_id)
            identity = acting(actor, self.sign_in, what, game.first_player)
            if game.first_player is None:
                check(identity, Action.MANAGE, what=what)
            elif not identity.may(Action.MANAGE):
                check(identity, Action.WRITE_OWN, owner=game.first_player, what=what)
            role = game.second_role if role is None else role
            if role not in game.roles or game.player_of(role) is not None or game.status != "waiting":
                raise LiveGameClosed(f"Live game {game_id} is no longer waiting for a player as {role!r:.40}.")
            column = "first_token_digest" if role == game.first_role else "token_digest"
            conn.execute(f"UPDATE live_games SET {column} = ?, updated_at = ?, changed_by = ? WHERE id = ?",
                         (token_digest(token), self._now(), identity.signature, game.id))
        return token

    def append(self, game_id: int, client_id: str, kind: str, payload: Any, *, visible_to: Optional[str] = None,
               rule: Optional[Rule] = None, player: Optional[str] = None,
               actor: Optional[Identity] = None) -> LiveEvent:
        """Append a message or move of the actor, in the role they play; the stored event. The same ``client_id``
        again returns the event stored under it (a resend), never a second one. ``rule``: the game's rules (a
        corpus's ``LiveRules.checked_event``), called inside the write with the role, kind, payload, every earlier
        event and the whole setup; it returns the payload to store, the role that alone sees it (it replaces
        ``visible_to``) and what the event causes (``(role, kind, payload, visible_to)`` events appended right after
        it) or raises ValueError, and then nothing is written. Inside the write, two servers cannot both pass a rule
        that only one event may pass (one peek)."""
        what = f"playing in live game {game_id}"
        if not isinstance(client_id, str) or not CLIENT_ID.match(client_id):
            raise ValueError("Not saved: an event's client id is 1 to 64 letters, digits, '-' or '_'.")
        if not isinstance(kind, str) or not KIND.match(kind):
            raise ValueError(f"Not saved: {kind!r:.40} is not a kind of event (lower-case letters, digits, '_').")
        if kind == MESSAGE:
            text = payload.get("text") if isinstance(payload, Mapping) else None
            if not isinstance(text, str) or not text.strip():
                raise ValueError("Not sent: a message needs text.")
            if len(text) > MAX_MESSAGE_CHARS:
                raise ValueError(f"Not sent: a message is at most {MAX_MESSAGE_CHARS:,} characters; this one has "
                                 f"{len(text):,}.")
        payload_text = json_text(payload, MAX_EVENT_BYTES, "the event")
        with self.db.write() as conn:
            game = self._locked(conn, game_id)
            identity = acting(actor, self.sign_in, what, player)
            check(identity, Action.WRITE_OWN, what=what)
            coder = attributed(identity, player, what)
            role = game.role_of(coder)
            if role is None:
                raise _not_a_player(identity, coder, game, what)
            # What was sent, as sent: the rules may store it in another form, and a resend is the same request.
            request = hashlib.sha256(json.dumps([role, kind, payload_text, visible_to]).encode("utf-8")).hexdigest()
            stored = conn.execute(f"SELECT {', '.join(EVENT_COLUMNS)}, request FROM live_game_events "
                                  "WHERE game_id = ? AND client_id = ?", (game.id, client_id)).fetchone()
            if stored is not None:
                event = event_of_row(stored[:-1])
                if stored[-1] != request:
                    raise LiveGameConflict(f"Not saved: client id {client_id} already names event {event.seq} of "
                                           f"live game {game.id}, a different one.")
                return event
            if game.status != "playing":
                raise LiveGameClosed(f"Not saved: live game {game.id} " +
                                     ("has ended." if game.status == "finished" else "has not started yet."))
            consequences: Sequence[tuple[str, str, Any, Optional[str]]] = ()
            if rule is not None:
                setup, earlier = self._whole(conn, game)
                payload, visible_to, consequences = rule(role, kind, json.loads(payload_text), earlier, setup)
                payload_text = json_text(payload, MAX_EVENT_BYTES, "the event")
            if any(v is not None and v not in game.roles for v in [visible_to] + [c[3] for c in consequences]):
                raise ValueError(f"Not saved: {visible_to!r:.40} is not a role of live game {game.id}.")
            texts = [payload_text] + [json_text(c[2], MAX_EVENT_BYTES, "a consequence") for c in consequences]
            n_bytes = game.n_bytes + sum(len(text.encode("utf-8")) for text in texts)
            if game.n_events + len(texts) > MAX_EVENTS or n_bytes > MAX_GAME_BYTES:
                raise ValueError(f"Not saved: live game {game.id} holds {game.n_events:,} events of "
                                 f"{game.n_bytes:,} bytes; a game holds at most {MAX_EVENTS:,} events of "
                                 f"{MAX_GAME_BYTES:,} bytes.")
            self._within_rate(conn, game, coder, kind)
            seq, now = game.n_events + 1, self._now()
            conn.execute("INSERT INTO live_game_events (game_id, seq, role, player, kind, payload, visible_to, "
                         "client_id, request, at, changed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (game.id, seq, role, coder, kind, payload_text, visible_to, client_id, request, now,
                          identity.signature))
            # What the event caused (a rank, the locks a mismatch releases), each under the role it concerns and a
            # client id no client can send ("~" is not in CLIENT_ID), written with it or not at all.
            for number, (their_role, their_kind, _payload, their_view) in enumerate(consequences, start=1):
                conn.execute("INSERT INTO live_game_events (game_id, seq, role, player, kind, payload, visible_to, "
                             "client_id, request, at, changed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (game.id, seq + number, their_role, game.player_of(their_role) or "", their_kind,
                              texts[number], their_view, f"{client_id}~{number}", request, now, identity.signature))
            conn.execute("UPDATE live_games SET n_events = ?, n_bytes = ?, updated_at = ? WHERE id = ?",
                         (seq + len(consequences), n_bytes, now, game.id))
            return LiveEvent(seq, role, coder, kind, json.loads(payload_text), visible_to, client_id, now)

    def finish(self, game_id: int, *, player: Optional[str] = None, actor: Optional[Identity] = None) -> LiveGame:
        """End the game (a player, or an admin): nothing more is appended, and it becomes the collection's. Ending
        an ended game changes nothing."""
        what = f"ending live game {game_id}"
        with self.db.write() as conn:
            game = self._locked(conn, game_id)
            identity = acting(actor, self.sign_in, what, player)
            if not (identity.signed_in and identity.may(Action.MANAGE)):
                check(identity, Action.WRITE_OWN, what=what)
                coder = attributed(identity, player, what)
                if game.role_of(coder) is None:
                    raise _not_a_player(identity, coder, game, what)
            if game.status == "finished":
                return game
            now = self._now()
            conn.execute("UPDATE live_games SET status = 'finished', finished_at = ?, updated_at = ?, changed_by = ? "
                         "WHERE id = ?", (now, now, identity.signature, game.id))
            return self._row(conn, game.id)

    # -- reading ------------------------------------------------------------------------------------------------

    def game(self, game_id: int, *, viewer: Optional[Identity] = None) -> LiveGame:
        """The game, if the viewer may see it (``LiveGameNotFound`` otherwise, as if absent)."""
        with self.db.read() as conn:
            row = conn.execute(_SELECT_GAME + " WHERE id = ?", (_game_id(game_id),)).fetchone()
        game = game_of_row(row) if row is not None else None
        if game is None or self._sees(game, viewer) is False:
            raise LiveGameNotFound(f"there is no live game {game_id}")
        return game

    def setup_for(self, game_id: int, *, viewer: Optional[Identity] = None) -> dict:
        """What the viewer is shown of the item: ``{"shared": ..., "role": <their role's part>}``; the whole setup
        (``{"shared", "roles"}``) for an admin or once the game ended."""
        game = self.game(game_id, viewer=viewer)
        with self.db.read() as conn:
            setup = json.loads(conn.execute("SELECT setup FROM live_games WHERE id = ?", (game.id,)).fetchone()[0])
        role = self._sees(game, viewer)
        if role is True:
            return {"shared": setup.get("shared"), "roles": setup.get("roles") or {}}
        return {"shared": setup.get("shared"), "role": (setup.get("roles") or {}).get(role)}

    def events(self, game_id: int, *, viewer: Optional[Identity] = None, after: int = 0,
               limit: int = MAX_POLL_EVENTS) -> tuple[list[LiveEvent], int]:
        """The events past ``after`` the viewer may see (at most ``limit``, in order) and the cursor to poll from
        next."""
        game = self.game(game_id, viewer=viewer)
        role = self._sees(game, viewer)
        after, limit = max(0, int(after)), max(1, min(int(limit), MAX_POLL_EVENTS))
        # Only the events the viewer may see are read, and the cursor is the last of them: a cursor that moved past
        # the other role's hidden events would tell a player that the partner did something hidden.
        hidden = "" if role is True else " AND (visible_to IS NULL OR visible_to = ?)"
        with self.db.read() as conn:
            rows = conn.execute(f"SELECT {', '.join(EVENT_COLUMNS)} FROM live_game_events WHERE game_id = ? "
                                f"AND seq > ?{hidden} ORDER BY seq LIMIT ?",
                                (game.id, after, *([] if role is True else [role]), limit)).fetchall()
        events = [event_of_row(row) for row in rows]
        return events, events[-1].seq if events else after

    def mine(self, *, viewer: Optional[Identity] = None, player: Optional[str] = None) -> list[LiveGame]:
        """The viewer's games waiting or under way, newest first (at most ``MAX_OPEN_GAMES``)."""
        coder = viewer.coder if viewer is not None and viewer.signed_in else (player or "")
        if not coder:
            return []
        with self.db.read() as conn:
            rows = conn.execute(_SELECT_GAME + " WHERE (first_player = ? OR second_player = ?) AND status <> "
                                "'finished' ORDER BY id DESC LIMIT ?", (coder, coder, MAX_OPEN_GAMES)).fetchall()
        return [game_of_row(row) for row in rows]

    def versions(self, game_ids: Sequence[int]) -> dict[int, tuple[int, str]]:
        """How far each of ``game_ids`` has come: ``(events stored, status)``, one indexed read for them all (at
        most ``MAX_POLL_EVENTS`` ids). Only counts: what a server's waiting polls watch to know when to read a game
        again for their viewer (``ui.server.live_routes``), never shown to anyone."""
        ids = [int(i) for i in dict.fromkeys(game_ids)][:MAX_POLL_EVENTS]
        if not ids:
            return {}
        with self.db.read() as conn:
            rows = conn.execute(f"SELECT id, n_events, status FROM live_games WHERE id IN ({', '.join('?' * len(ids))})",
                                ids).fetchall()
        return {int(game_id): (int(n_events), str(status)) for game_id, n_events, status in rows}

    def finished_ids(self, corpus: str, *, viewer: Optional[Identity] = None) -> list[int]:
        """The ids of the finished games of ``corpus`` (a study's collection), oldest first, at most
        ``MAX_FINISHED_LISTED``; none for a viewer who may see no finished game."""
        if self.sign_in and (viewer is None or not viewer.signed_in):
            return []
        if viewer is not None and viewer.read_only_reason is not None and self.sign_in:
            return []
        with self.db.read() as conn:
            rows = conn.execute("SELECT id FROM live_games WHERE corpus = ? AND status = 'finished' ORDER BY id LIMIT ?",
                                (corpus, MAX_FINISHED_LISTED)).fetchall()
        return [int(row[0]) for row in rows]

    # -- helpers ------------------------------------------------------------------------------------------------

    def _sees(self, game: LiveGame, viewer: Optional[Identity]) -> Union[bool, str]:
        """True: the viewer sees the whole game; a role: the viewer plays it and sees what that role sees; False:
        the viewer may not see it. A player sees as their role while the game runs, even an admin."""
        if viewer is None:
            return not self.sign_in  # without sign-in: the local user, who sees everything
        if (self.sign_in and not viewer.signed_in) or viewer.read_only_reason is not None:
            return game.status == "finished" and not self.sign_in  # a visitor of a server open without sign-in
        if game.status == "finished":
            return True
        role = game.role_of(viewer.coder)
        if role is not None:
            return role
        return viewer.may(Action.MANAGE)  # an admin, or the local user under a name that plays no role

    def record(self, game_id: int, *, viewer: Optional[Identity] = None) -> tuple[LiveGame, dict, list[LiveEvent]]:
        """A finished game whole: the game, its setup and every event (``LiveGameNotFound`` for one that has not
        ended or that the viewer may not see), for writing it in the corpus's files."""
        game = self.game(game_id, viewer=viewer)
        if game.status != "finished":
            raise LiveGameNotFound(f"live game {game_id} has not ended; only finished games are recorded")
        with self.db.read() as conn:
            setup, events = self._whole(conn, game)
        return game, setup, events

    @staticmethod
    def _whole(conn, game: LiveGame) -> tuple[dict, list[LiveEvent]]:
        setup = json.loads(conn.execute("SELECT setup FROM live_games WHERE id = ?", (game.id,)).fetchone()[0])
        rows = conn.execute(f"SELECT {', '.join(EVENT_COLUMNS)} FROM live_game_events WHERE game_id = ? ORDER BY seq",
                            (game.id,)).fetchall()
        return setup, [event_of_row(row) for row in rows]

    def _row(self, conn, game_id: int) -> LiveGame:
        return game_of_row(conn.execute(_SELECT_GAME + " WHERE id = ?", (game_id,)).fetchone())

    def _locked(self, conn, game_id: int) -> LiveGame:
        row = conn.execute(_SELECT_GAME + " WHERE id = ?" + conn.lock_clause, (_game_id(game_id),)).fetchone()
        if row is None:
            raise LiveGameNotFound(f"there is no live game {game_id}")
        return game_of_row(row)

    def _room_for(self, conn, coder: str) -> None:
        conn.serialize(f"live_games of {coder}")
        held = conn.execute("SELECT count(*) FROM live_games WHERE (first_player = ? OR second_player = ?) AND "
                            "status <> 'finished'", (coder, coder)).fetchone()[0]
        if held >= MAX_OPEN_GAMES:
            raise ValueError(f"Not started: {coder} already has {held:,} games waiting or under way, the most one "
                             f"person may ({MAX_OPEN_GAMES:,}); finish some first.")

    def _within_rate(self, conn, game: LiveGame, coder: str, kind: str) -> None:
        """Refuse an event past the player's rate; only their last ``MAX_EVENTS_PER_WINDOW`` events are read."""
        since = datetime.fromtimestamp(self.clock() - RATE_WINDOW_S, tz=timezone.utc).isoformat(timespec="microseconds")
        recent = conn.execute("SELECT kind, at FROM live_game_events WHERE game_id = ? AND player = ? ORDER BY seq "
                              "DESC LIMIT ?", (game.id, coder, MAX_EVENTS_PER_WINDOW)).fetchall()
        recent = [k for k, at in recent if at >= since]
        if len(recent) >= MAX_EVENTS_PER_WINDOW or \
                (kind == MESSAGE and sum(k == MESSAGE for k in recent) >= MAX_MESSAGES_PER_WINDOW):
            raise ValueError(f"Not sent: too fast (at most {MAX_MESSAGES_PER_WINDOW} messages and "
                             f"{MAX_EVENTS_PER_WINDOW} moves in {RATE_WINDOW_S:g} seconds); wait a moment.")


def _not_a_player(identity: Identity, coder: str, game: LiveGame, what: str) -> AccessRefused:
    """The refusal (logged) of a write by someone who plays neither role of ``game``: an admin does not play
    for a player either."""
    log.warning("refused %s by %s (%s): %r plays neither role", what, identity.who, identity.role.label, coder)
    return AccessRefused(f"Not allowed: {what} ({identity.who} plays neither {game.first_role} nor "
                         f"{game.second_role} in it).")


def _game_id(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LiveGameNotFound(f"there is no live game {value!r:.40}")
    return value
