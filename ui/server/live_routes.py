"""The live game's HTTP routes (issue 50, docs/live-games.md): what a player's browser calls to send a message or a
move and to see the partner's, without a Streamlit run per poll. ``server.py`` serves them beside the app
(``st.App(..., routes=live_routes())``), under the app's base path:

- ``GET  <base>/_live/<game>/events?after=N&status=S`` — the events past the cursor ``N`` that the caller may see,
  the new cursor and the game as it stands. A long poll: with nothing new (and the game still ``S``) it waits, up
  to ``LONGEST_WAIT_S``, woken at once when this process stores an event of the game, and by the process's one
  watcher, which reads the count of events of every waited game in one query every ``RECHECK_S``, so that an event
  the OTHER app server stored (two servers behind nginx on one PostgreSQL) is seen within a second, at the cost of
  one read a process, however many wait.
- ``POST <base>/_live/<game>/events`` — ``{"client_id", "kind", "payload"}``: one message or move, checked by the
  corpus's rules inside the store's write (``data_access.live.send``); a resend of a ``client_id`` returns the
  stored event, never a second one.
- ``POST <base>/_live/<game>/finish`` — ends the game.

Who calls is worked out from the request exactly as the pages work it out (``ui.shell.auth.identity_of``): with
sign-in, the ``st.login`` cookie (checked as ``upload_guard.signed_in_claims`` checks it) and the roles file, a
sign-in ended by signing out counting for nobody; without sign-in, the local user under the name the page sends
(``player``), read only on a server reachable from other machines. Every read and write goes through
``Store.live_games`` with that identity, so the store decides; the page's word on a role or a name is never taken.
A POST must carry the header ``X-Live-Game: 1`` (a form of another site cannot send it without asking first).

Refusals are JSON ``{"error": "..."}``: 400 a request that is not one, 403 refused, 404 no such game (or one the
caller may not see), 409 full, ended or a reused client id, 413 too large, 422 against the game's rules, 503 the
store cannot be used or too many polls wait at once (``MAX_WAITING``)."""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from data_access import live
from data_access.access import AccessRefused, Identity
from data_access.store import (
    LiveEvent,
    LiveGame,
    LiveGameClosed,
    LiveGameConflict,
    LiveGameFull,
    LiveGameNotFound,
    Store,
    StoreError,
)

LONGEST_WAIT_S = 20.0  # a poll with nothing new answers after this (below nginx's 60 s proxy_read_timeout)
RECHECK_S = 0.5  # the process's watcher reads its waited games' counts this often (another server's events)
DISCONNECT_CHECK_S = 5.0  # a waiting poll asks this often whether its page is gone
MAX_WAITING = 400  # polls waiting at once in one process (two per player of 20 games is 80)
MAX_BODY_BYTES = 64 * 1024  # a POST's body (an event is stored within 16 kB)
HEADER = "x-live-game"


@dataclass
class LiveBackend:
    """What the routes need, injected so that tests give their own: the store, who a request comes from, a corpus's
    package by name, the clock and the waits. It also holds this process's waiting polls: each waits on its game's
    wake-up, set when this process stores an event of the game (``wake``) or when the one watcher of the process
    (``_watch``: a single read of every waited game's count of events, every ``recheck_s``) sees the game move on
    in the store (another server's event). A woken poll reads the game again for its viewer."""

    store: Callable[[], Store]
    identity: Callable[[Request], Identity]
    package: Callable[[str], Any]
    longest_wait_s: float = LONGEST_WAIT_S
    recheck_s: float = RECHECK_S
    max_waiting: int = MAX_WAITING
    clock: Callable[[], float] = time.monotonic
    _wakeups: dict[int, asyncio.Event] = field(default_factory=dict)
    _waiting: int = 0
    _watched: dict[int, int] = field(default_factory=dict)  # game -> polls waiting on it
    _known: dict[int, tuple[int, str]] = field(default_factory=dict)  # game -> (events, status) last seen
    _watcher: Optional[asyncio.Task] = None

    def wake(self, game_id: int) -> None:
        """Wake every poll of ``game_id`` waiting in this process (an event was stored)."""
        event = self._wakeups.pop(game_id, None)
        if event is not None:
            event.set()

    def wakeup(self, game_id: int) -> asyncio.Event:
        return self._wakeups.setdefault(game_id, asyncio.Event())

    def watch(self, game: LiveGame, waiting: bool) -> None:
        """Count a poll of ``game`` (as it read it) starting (``waiting``) or ending its wait; the watcher runs while
        any waits. The game as the poll read it is the watcher's starting point (the oldest of its polls'), so that
        an event stored elsewhere between the poll's read and the watcher's next one wakes it too."""
        self._watched[game.id] = self._watched.get(game.id, 0) + (1 if waiting else -1)
        if waiting:
            seen = (game.n_events, game.status)
            self._known[game.id] = min(self._known.get(game.id, seen), seen)
        if self._watched[game.id] <= 0:
            del self._watched[game.id]
            self._known.pop(game.id, None)
        if self._watched and (self._watcher is None or self._watcher.done()):
            self._watcher = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        while self._watched:
            await asyncio.sleep(self.recheck_s)
            try:
                now = await run_in_threadpool(self.store().live_games.versions, list(self._watched))
            except StoreError:
                continue  # the store is away: the polls answer when their wait ends, and try again
            for game_id, version in now.items():
                if game_id in self._known and self._known[game_id] != version:
                    self._known[game_id] = version
                    self.wake(game_id)


class _Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def event_json(event: LiveEvent) -> dict:
    return {"seq": event.seq, "role": event.role, "kind": event.kind, "payload": event.payload,
            "visible_to": event.visible_to, "client_id": event.client_id, "at": event.at}


def game_json(game: LiveGame, viewer: Identity) -> dict:
    return {"id": game.id, "corpus": game.corpus, "item": game.item, "status": game.status,
            "roles": list(game.roles), "role": game.role_of(viewer.coder),
            "players": {game.first_role: game.first_player is not None,
                        game.second_role: game.second_player is not None}}


def _refusal(exc: Exception) -> _Refused:
    if isinstance(exc, _Refused):
        return exc
    if isinstance(exc, LiveGameNotFound):
        return _Refused(404, str(exc))
    if isinstance(exc, AccessRefused):
        return _Refused(403, str(exc))
    if isinstance(exc, (LiveGameFull, LiveGameClosed, LiveGameConflict)):
        return _Refused(409, str(exc))
    if isinstance(exc, StoreError):
        return _Refused(503, f"The store cannot be used: {exc}")
    if isinstance(exc, ValueError):
        return _Refused(422, str(exc).splitlines()[0][:300] if str(exc) else "Not allowed by the game.")
    raise exc


def _answer(status: int, body: Mapping[str, Any]) -> JSONResponse:
    return JSONResponse(dict(body), status_code=status, headers={"cache-control": "no-store"})


def _game_id(request: Request) -> int:
    return int(request.path_params["game_id"])


def _whole(value: Optional[str], default: int) -> int:
    if value is None or value == "":
        return default
    if not value.isdigit() or len(value) > 12:
        raise _Refused(400, "after is a whole number (the cursor of the last poll)")
    return int(value)


def _read(backend: LiveBackend, game_id: int, viewer: Identity, after: int) -> tuple[LiveGame, list[LiveEvent], int]:
    store = backend.store()
    game = store.live_games.game(game_id, viewer=viewer)
    events, cursor = store.live_games.events(game_id, viewer=viewer, after=after)
    return game, events, cursor


async def poll(request: Request, backend: LiveBackend) -> JSONResponse:
    """``GET .../events``: the events past ``after`` (waiting for some while there are none)."""
    try:
        game_id = _game_id(request)
        after = _whole(request.query_params.get("after"), 0)
        known = request.query_params.get("status")
        viewer = await run_in_threadpool(backend.identity, request)
        game, events, cursor = await run_in_threadpool(_read, backend, game_id, viewer, after)
        if events or known != game.status or game.status == "finished":
            return _answer(200, {"game": game_json(game, viewer), "events": [event_json(e) for e in events],
                                 "cursor": cursor})
        if backend._waiting >= backend.max_waiting:
            raise _Refused(503, "Too many players wait at once on this server; try again in a moment.")
        backend._waiting += 1
        backend.watch(game, True)
        try:
            deadline = backend.clock() + backend.longest_wait_s
            while not events and known == game.status and backend.clock() < deadline:
                wakeup = backend.wakeup(game_id)
                try:
                    # woken by an event of this process, or by the watcher (another server's); else, now and then,
                    # whether the page is still there
                    await asyncio.wait_for(wakeup.wait(), timeout=min(DISCONNECT_CHECK_S,
                                                                      max(0.0, deadline - backend.clock())))
                except asyncio.TimeoutError:
                    if await request.is_disconnected():
                        break
                    continue
                game, events, cursor = await run_in_threadpool(_read, backend, game_id, viewer, after)
        finally:
            backend._waiting -= 1
            backend.watch(game, False)
        return _answer(200, {"game": game_json(game, viewer), "events": [event_json(e) for e in events],
                             "cursor": cursor})
    except Exception as exc:  # noqa: BLE001 - _refusal re-raises what is no refusal
        refused = _refusal(exc)
        return _answer(refused.status, {"error": str(refused)})


async def _body(request: Request) -> dict:
    if request.headers.get(HEADER) != "1":
        raise _Refused(403, f"Refused: a live game's request carries the header {HEADER}: 1.")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise _Refused(413, f"Not sent: a request is at most {MAX_BODY_BYTES:,} bytes.")
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY_BYTES:
            raise _Refused(413, f"Not sent: a request is at most {MAX_BODY_BYTES:,} bytes.")
    try:
        body = json.loads(data or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise _Refused(400, "Not sent: the request is not JSON.") from None
    if not isinstance(body, dict):
        raise _Refused(400, "Not sent: the request is a JSON object.")
    return body


def _send(backend: LiveBackend, game_id: int, viewer: Identity, body: dict) -> LiveEvent:
    client_id, kind = body.get("client_id"), body.get("kind")
    if not isinstance(client_id, str) or not isinstance(kind, str):
        raise _Refused(400, "Not sent: an event has a client_id and a kind.")
    store = backend.store()
    game = store.live_games.game(game_id, viewer=viewer)
    return live.send(store, backend.package(game.corpus), game_id, client_id, kind, body.get("payload"),
                     player=viewer.coder, actor=viewer)


async def send(request: Request, backend: LiveBackend) -> JSONResponse:
    """``POST .../events``: one message or move, stored (or the stored one, for a resend) before it is answered."""
    try:
        game_id = _game_id(request)
        body = await _body(request)
        viewer = await run_in_threadpool(backend.identity, request)
        event = await run_in_threadpool(_send, backend, game_id, viewer, body)
        backend.wake(game_id)
        return _answer(200, {"event": event_json(event)})
    except Exception as exc:  # noqa: BLE001
        refused = _refusal(exc)
        return _answer(refused.status, {"error": str(refused)})


def _finish(backend: LiveBackend, game_id: int, viewer: Identity) -> LiveGame:
    store = backend.store()
    store.live_games.game(game_id, viewer=viewer)  # a game the caller may not see is as absent (404), never "refused"
    return store.live_games.finish(game_id, player=viewer.coder, actor=viewer)


async def finish(request: Request, backend: LiveBackend) -> JSONResponse:
    """``POST .../finish``: the game ends (a player's or an admin's)."""
    try:
        game_id = _game_id(request)
        await _body(request)
        viewer = await run_in_threadpool(backend.identity, request)
        game = await run_in_threadpool(_finish, backend, game_id, viewer)
        backend.wake(game_id)
        return _answer(200, {"game": game_json(game, viewer)})
    except Exception as exc:  # noqa: BLE001
        refused = _refusal(exc)
        return _answer(refused.status, {"error": str(refused)})


def routes(backend: LiveBackend, base: str = "") -> list[Route]:
    """The three routes over ``backend``, under the base path ``base`` ('' or '/prefix')."""
    async def poll_route(request: Request) -> JSONResponse:
        return await poll(request, backend)

    async def send_route(request: Request) -> JSONResponse:
        return await send(request, backend)

    async def finish_route(request: Request) -> JSONResponse:
        return await finish(request, backend)

    return [Route(f"{base}/_live/{{game_id:int}}/events", poll_route, methods=["GET"]),
            Route(f"{base}/_live/{{game_id:int}}/events", send_route, methods=["POST"]),
            Route(f"{base}/_live/{{game_id:int}}/finish", finish_route, methods=["POST"])]
