"""The live game's routes (ui/server/live_routes.py) through Starlette's TestClient on a SQLite store: the caller is
who the injected identity says (never the page's word), a third person, a viewer, a visitor and a player of another
game are refused, a resend is not doubled, a long poll is woken by an event of its game and sees another server's
event by reading the store again, and requests are bounded. The identity of a request as the app works it out is
tested at the end (``live_identity.request_identity``)."""
from __future__ import annotations

import json
import threading

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from data_access import live
from data_access.access import Identity, Role
from data_access.registry import corpus_module
from data_access.store import Store
from ui.server import live_routes
from ui.server.live_routes import LiveBackend

TARGET = [[0, 1, 0, "blue"], [1, 1, 0, "red"]]


def _as(role: Role, coder: str) -> Identity:
    return Identity(coder=coder, role=role, email=f"{coder}@lab.example", signed_in=True)


PEOPLE = {"alice": _as(Role.CODER, "alice"), "bob": _as(Role.CODER, "bob"), "carol": _as(Role.CODER, "carol"),
          "vera": _as(Role.VIEWER, "vera"), "": Identity(coder="", role=Role.VIEWER, signed_in=True)}


@pytest.fixture
def store(tmp_path):
    opened = Store(tmp_path / "live.sqlite3", sign_in=True)
    yield opened
    opened.close()


def _backend(store, **waits) -> LiveBackend:
    # who calls: the test's header stands for the cookie (request_identity is tested on its own below)
    return LiveBackend(store=lambda: store, identity=lambda request: PEOPLE[request.headers.get("x-test-who", "")],
                       package=corpus_module, **waits)


def _client(backend: LiveBackend, base: str = "") -> TestClient:
    return TestClient(Starlette(routes=live_routes.routes(backend, base)))


def _game(store) -> int:
    game, token = live.create(store, corpus_module("minecraft"), "C7", "Architect",
                              {"roles": {"Architect": {"target": TARGET}}}, actor=PEOPLE["alice"])
    store.live_games.join(token, actor=PEOPLE["bob"])
    return game.id


def _post(client, game_id, who, body, path="events", header=True):
    headers = {"x-test-who": who, **({"x-live-game": "1"} if header else {})}
    return client.post(f"/_live/{game_id}/{path}", content=json.dumps(body), headers=headers)


def test_two_players_send_and_see_each_others_events_and_a_resend_is_not_doubled(store):
    game_id = _game(store)
    client = _client(_backend(store, longest_wait_s=0.0))
    said = _post(client, game_id, "alice", {"client_id": "a-1", "kind": "message", "payload": {"text": "<b>hi</b>"}})
    assert said.status_code == 200 and said.json()["event"]["role"] == "Architect"
    again = _post(client, game_id, "alice", {"client_id": "a-1", "kind": "message", "payload": {"text": "<b>hi</b>"}})
    assert again.json()["event"]["seq"] == said.json()["event"]["seq"]
    placed = _post(client, game_id, "bob", {"client_id": "b-1", "kind": "place",
                                            "payload": {"x": 0, "y": 1, "z": 0, "color": "blue"}})
    assert placed.status_code == 200 and placed.json()["event"]["role"] == "Builder"
    seen = client.get(f"/_live/{game_id}/events?after=0&status=playing", headers={"x-test-who": "bob"}).json()
    assert [(e["kind"], e["role"]) for e in seen["events"]] == [("message", "Architect"), ("place", "Builder")]
    assert seen["events"][0]["payload"]["text"] == "<b>hi</b>"  # as typed: the page shows it as text
    assert seen["cursor"] == 2 and seen["game"]["role"] == "Builder" and seen["game"]["status"] == "playing"
    assert client.get(f"/_live/{game_id}/events?after=2&status=playing",
                      headers={"x-test-who": "alice"}).json()["events"] == []  # nothing new: waited 0 s
    # the role is the store's: the Architect cannot place, whatever the page says
    refused = _post(client, game_id, "alice", {"client_id": "a-2", "kind": "place", "role": "Builder",
                                               "payload": {"x": 1, "y": 1, "z": 0, "color": "red"}})
    assert refused.status_code == 422 and "only the Builder" in refused.json()["error"]
    reused = _post(client, game_id, "alice", {"client_id": "a-1", "kind": "message", "payload": {"text": "other"}})
    assert reused.status_code == 409
    # what a server's watcher reads of the games its polls wait on: counts only, one read for them all
    assert store.live_games.versions([game_id, game_id, 99999]) == {game_id: (2, "playing")}


@pytest.mark.parametrize("who, status", [("carol", 404), ("vera", 404), ("", 404)])
def test_a_third_person_a_viewer_and_a_visitor_can_neither_read_nor_write(store, who, status):
    game_id = _game(store)
    client = _client(_backend(store, longest_wait_s=0.0))
    read = client.get(f"/_live/{game_id}/events?after=0", headers={"x-test-who": who})
    assert read.status_code == status and "events" not in read.json()
    wrote = _post(client, game_id, who, {"client_id": "x-1", "kind": "message", "payload": {"text": "hello"}})
    assert wrote.status_code == 404 and "error" in wrote.json()  # as if there were no such game
    assert _post(client, game_id, who, {}, path="finish").status_code == 404
    assert store.live_games.events(game_id, viewer=PEOPLE["alice"])[0] == []  # nothing was written


def test_a_player_of_another_game_cannot_reach_this_one_and_finish_ends_it_for_writes(store):
    game_id = _game(store)
    other, token = live.create(store, corpus_module("minecraft"), "C7", "Architect",
                               {"roles": {"Architect": {"target": TARGET}}}, actor=PEOPLE["carol"])
    client = _client(_backend(store, longest_wait_s=0.0))
    assert client.get(f"/_live/{other.id}/events", headers={"x-test-who": "alice"}).status_code == 404
    assert _post(client, game_id, "alice", {}, path="finish").json()["game"]["status"] == "finished"
    late = _post(client, game_id, "bob", {"client_id": "b-9", "kind": "message", "payload": {"text": "wait"}})
    assert late.status_code == 409 and "ended" in late.json()["error"]


def test_a_post_needs_the_header_and_json_within_the_bound(store):
    game_id = _game(store)
    client = _client(_backend(store, longest_wait_s=0.0))
    body = {"client_id": "a-1", "kind": "message", "payload": {"text": "hi"}}
    assert _post(client, game_id, "alice", body, header=False).status_code == 403  # a form of another site
    headers = {"x-test-who": "alice", "x-live-game": "1"}
    assert client.post(f"/_live/{game_id}/events", content=b"{not json", headers=headers).status_code == 400
    huge = json.dumps({**body, "payload": {"text": "x" * 100 * live_routes.MAX_BODY_BYTES}})
    assert client.post(f"/_live/{game_id}/events", content=huge, headers=headers).status_code == 413
    long = _post(client, game_id, "alice", {**body, "payload": {"text": "x" * 5000}})
    assert long.status_code == 422 and "at most 1,000 characters" in long.json()["error"]
    assert client.get(f"/_live/{game_id}/events?after=-3", headers={"x-test-who": "alice"}).status_code == 400
    assert client.get("/_live/99999/events", headers={"x-test-who": "alice"}).status_code == 404
    assert store.live_games.events(game_id, viewer=PEOPLE["alice"])[0] == []


def _waiting_poll(client, backend: LiveBackend, game_id: int) -> tuple[threading.Thread, list]:
    """Bob's poll of the game, on a thread of its own, returned once it waits: (the thread, the list its answer is
    appended to)."""
    answers: list = []
    poller = threading.Thread(target=lambda: answers.append(
        client.get(f"/_live/{game_id}/events?after=0&status=playing", headers={"x-test-who": "bob"}).json()))
    poller.start()
    while backend._waiting == 0 and poller.is_alive():
        poller.join(0.01)  # until the poll waits
    return poller, answers


def test_a_long_poll_is_woken_by_an_event_of_its_game(store):
    game_id = _game(store)
    # waits for ever unless woken; reading the store again only every 60 s
    backend = _backend(store, longest_wait_s=60.0, recheck_s=60.0)
    with _client(backend) as client:  # one event loop for every request, as in the server
        poller, answers = _waiting_poll(client, backend, game_id)
        _post(client, game_id, "alice", {"client_id": "a-1", "kind": "message", "payload": {"text": "now"}})
        poller.join(30)
        assert not poller.is_alive() and answers[0]["events"][0]["payload"]["text"] == "now"


def test_a_long_poll_sees_an_event_another_server_stored_by_reading_again(store):
    game_id = _game(store)
    backend = _backend(store, longest_wait_s=60.0, recheck_s=0.01)
    with _client(backend) as client:  # one event loop for every request, as in the server
        poller, answers = _waiting_poll(client, backend, game_id)
        # stored by "the other server": straight into the store, with no wake in this process
        live.send(store, corpus_module("minecraft"), game_id, "a-1", "message", {"text": "elsewhere"},
                  actor=PEOPLE["alice"])
        poller.join(30)
        assert not poller.is_alive() and answers[0]["events"][0]["payload"]["text"] == "elsewhere"


def test_a_poll_that_knows_an_older_status_answers_at_once_and_too_many_waiting_are_refused(store):
    game_id = _game(store)
    backend = _backend(store, longest_wait_s=60.0, max_waiting=0)
    client = _client(backend)
    # the page last saw the game waiting: it is playing now, so the poll answers without waiting
    assert client.get(f"/_live/{game_id}/events?status=waiting",
                      headers={"x-test-who": "bob"}).json()["game"]["status"] == "playing"
    busy = client.get(f"/_live/{game_id}/events?status=playing", headers={"x-test-who": "bob"})
    assert busy.status_code == 503


def test_routes_stand_under_the_base_path(store):
    game_id = _game(store)
    client = _client(_backend(store, longest_wait_s=0.0), base="/lab")
    assert client.get(f"/lab/_live/{game_id}/events", headers={"x-test-who": "bob"}).status_code == 200
    assert client.get(f"/_live/{game_id}/events", headers={"x-test-who": "bob"}).status_code == 404


# ------------------------------------------------------------------------------------ who a request comes from

def test_without_sign_in_the_local_user_plays_under_the_name_the_page_sends(monkeypatch):
    from starlette.requests import Request

    from ui.server import live_identity
    from ui.shell import auth

    monkeypatch.setattr(auth, "sign_in_configured", lambda: False)
    monkeypatch.setattr(auth, "served_beyond_localhost", lambda: False)
    request = Request({"type": "http", "headers": [(b"x-live-player", b"Ann%C3%A9e  Smith")]})
    person = live_identity.request_identity(request)
    assert person.coder == "Année Smith" and not person.signed_in
    monkeypatch.setattr(auth, "served_beyond_localhost", lambda: True)  # reachable from other machines: read only
    assert live_identity.request_identity(request).read_only_reason


def test_with_sign_in_a_request_without_a_valid_cookie_is_a_viewer_and_a_valid_one_is_its_person(monkeypatch):
    from starlette.requests import Request

    from ui.server import live_identity
    from ui.shell import auth

    monkeypatch.setattr(auth, "sign_in_configured", lambda: True)
    claims = {"is_logged_in": True, "email": "alice@lab.example", "email_verified": True, "sub": "a"}
    cookies = {"_streamlit_user": "signed"}
    monkeypatch.setattr(live_identity, "signed_in_claims", lambda found: claims if found == cookies else None)

    class Ended:
        def ended(self, seen):
            return seen["sub"] == "ended"

    class Shared:
        sign_outs = Ended()

    import ui.store
    monkeypatch.setattr(ui.store, "shared_store", lambda: Shared())
    forged = Request({"type": "http", "headers": [(b"x-live-player", b"alice"), (b"cookie", b"other=1")]})
    nobody = live_identity.request_identity(forged)
    assert nobody.role == Role.VIEWER and nobody.coder == ""  # the header's name counts for nothing
    signed = Request({"type": "http", "headers": [(b"cookie", b"_streamlit_user=signed")]})
    person = live_identity.request_identity(signed)
    assert person.signed_in and person.email == "alice@lab.example"
    claims["sub"] = "ended"  # signed out since: the copied cookie signs nobody in
    assert live_identity.request_identity(signed).coder == ""
