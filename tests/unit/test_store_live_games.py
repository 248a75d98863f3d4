"""Live games of two people in the store (issue 50), on both backends: created and joined by an invitation token, full
to a third person, each role shown only its own part of the item and of the events until the game ends, every write
by a player of the game in their own role (checked in the store), a resend never doubled, ``seq`` without gap or
repeat when two tabs or two servers write at once, a game resumed from a second server, bounds on messages, events,
rate and open games, and a v6 database brought forward."""
from __future__ import annotations

import threading

import pytest

from data_access.access import AccessRefused, Identity, Role
from data_access.store import (
    LiveGameClosed,
    LiveGameConflict,
    LiveGameFull,
    LiveGameNotFound,
    Store,
    open_database,
    schema,
)
from data_access.store import live_games as live
from tests.postgres import BACKENDS


def _as(role: Role, coder: str) -> Identity:
    return Identity(coder=coder, role=role, email=f"{coder}@lab.example", signed_in=True)


ALICE, BOB, CAROL = _as(Role.CODER, "alice"), _as(Role.CODER, "bob"), _as(Role.CODER, "carol")
VIEWER, ADMIN = _as(Role.VIEWER, "vera"), _as(Role.ADMIN, "root")
VISITOR = Identity(coder="", role=Role.VIEWER, signed_in=False)  # never signed in
SETUP = {"shared": {"image_id": 1234}, "roles": {"Teller": {"target": "3,s_3s.png,0,3,0,420,40,2,0,"},
                                                   "Drawer": {"palette": ["s_3s.png"]}}}


class Clock:
    """Unix seconds the test moves by hand (the rate limits count in it)."""

    def __init__(self, now: float = 1_700_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module", params=BACKENDS)
def store_target(request, tmp_path_factory):
    """One database per backend for the whole module (a PostgreSQL database costs a second to make): each test
    plays games of its own, and the one test that counts a person's games counts a person of its own."""
    if request.param == "sqlite":
        return tmp_path_factory.mktemp("live") / "notes.sqlite3"
    return request.getfixturevalue("postgres_cluster").new_database()


@pytest.fixture
def store(store_target):
    opened = Store(store_target, sign_in=True)
    opened.live_games.clock = Clock()
    yield opened
    opened.close()


def _playing(store, corpus="codraw"):
    game, token = store.live_games.create(corpus, "val_00042", ("Teller", "Drawer"), "Teller", SETUP, actor=ALICE)
    return store.live_games.join(token, actor=BOB), token


def _say(store, game, actor, client_id, text, **options):
    return store.live_games.append(game.id, client_id, "message", {"text": text}, actor=actor, **options)


def test_a_game_is_created_and_joined_by_link_and_full_to_a_third(store):
    games = store.live_games
    game, token = games.create("codraw", "val_00042", ("Drawer", "Teller"), "Teller", SETUP, actor=ALICE)
    assert (game.status, game.first_player, game.role_of("alice"), game.second_player) == \
        ("waiting", "alice", "Teller", None)
    assert games.join(token, actor=ALICE) == game  # the creator opening the link again: still waiting
    with pytest.raises(LiveGameClosed, match="not started"):
        _say(store, game, ALICE, "early", "anyone there?")
    with pytest.raises(AccessRefused, match="coder role"):
        games.join(token, actor=VIEWER)
    with pytest.raises(AccessRefused, match="sign in first"):
        games.join(token)
    joined = games.join(token, actor=BOB)
    assert (joined.status, joined.role_of("bob"), joined.player_of("Teller")) == ("playing", "Drawer", "alice")
    with pytest.raises(LiveGameFull, match="full"):
        games.join(token, actor=CAROL)
    assert games.join(token, actor=BOB) == joined  # a reload, another tab, another server: the same game
    with pytest.raises(LiveGameNotFound):
        games.join(token[:-1] + ("A" if token[-1] != "A" else "B"), actor=CAROL)
    with pytest.raises(LiveGameNotFound):
        games.join("short", actor=CAROL)
    assert game.id in [g.id for g in games.mine(viewer=BOB)]
    assert game.id not in [g.id for g in games.mine(viewer=CAROL)]
    with store.db.read() as conn:  # only the token's digest is kept
        kept = conn.execute("SELECT token_digest FROM live_games WHERE id = ?", (game.id,)).fetchone()[0]
    assert kept == live.token_digest(token) != token


def test_a_lost_invitation_is_replaced_by_its_creator_only(store):
    game, token = store.live_games.create("gos", "game_7", ("Player A", "Player B"), "Player A", {}, actor=ALICE)
    with pytest.raises(AccessRefused):
        store.live_games.reinvite(game.id, actor=BOB)
    new = store.live_games.reinvite(game.id, actor=ALICE)
    with pytest.raises(LiveGameNotFound):
        store.live_games.join(token, actor=BOB)
    assert store.live_games.join(new, actor=BOB).status == "playing"
    with pytest.raises(LiveGameClosed):
        store.live_games.reinvite(game.id, actor=ALICE)


def test_each_role_sees_only_its_own_until_the_game_ends(store):
    games = store.live_games
    game, _token = _playing(store)
    assert games.setup_for(game.id, viewer=ALICE) == {"shared": {"image_id": 1234}, "role": SETUP["roles"]["Teller"]}
    assert games.setup_for(game.id, viewer=BOB) == {"shared": {"image_id": 1234}, "role": SETUP["roles"]["Drawer"]}
    assert games.setup_for(game.id, viewer=ADMIN)["roles"] == SETUP["roles"]
    _say(store, game, ALICE, "t1", "a sun top right")
    games.append(game.id, "d1", "canvas", {"scene": "1,s_3s.png,0,3,0,400,0,2,0,"}, visible_to="Drawer", actor=BOB)
    _say(store, game, BOB, "d2", "ok <b>done</b>")
    games.append(game.id, "t2", "peek", {}, visible_to="Teller", actor=ALICE)
    seen, cursor = games.events(game.id, viewer=ALICE)
    assert [(e.seq, e.kind, e.role) for e in seen] == [(1, "message", "Teller"), (3, "message", "Drawer"),
                                                       (4, "peek", "Teller")]
    assert cursor == 4 and seen[1].payload == {"text": "ok <b>done</b>"}  # the text as written
    assert [e.seq for e in games.events(game.id, viewer=BOB)[0]] == [1, 2, 3]
    # Bob's cursor stops at the last event he sees: past the Teller's peek (4) it would tell him that she peeked
    assert games.events(game.id, viewer=BOB, after=2) == (games.events(game.id, viewer=BOB)[0][2:], 3)
    assert games.events(game.id, viewer=BOB, after=3) == ([], 3)
    assert len(games.events(game.id, viewer=ADMIN)[0]) == 4
    for outsider in (CAROL, VIEWER, VISITOR, None):  # as if there were no such game
        for read in (games.game, games.setup_for, games.events):
            with pytest.raises(LiveGameNotFound):
                read(game.id, viewer=outsider)
    games.finish(game.id, actor=BOB)
    assert len(games.events(game.id, viewer=VIEWER)[0]) == 4  # a finished game is the collection's
    assert games.setup_for(game.id, viewer=CAROL)["roles"] == SETUP["roles"]
    with pytest.raises(LiveGameNotFound):
        games.events(game.id, viewer=VISITOR)


def test_no_one_acts_in_another_role_another_game_or_after_the_end(store):
    games = store.live_games
    game, _token = _playing(store)
    other, _other_token = store.live_games.create("codraw", "val_1", ("Teller", "Drawer"), "Teller", SETUP,
                                                  actor=CAROL)
    for actor, problem in ((CAROL, "plays neither"), (ADMIN, "plays neither"), (VIEWER, "coder role"),
                           (VISITOR, "sign in first"), (None, "sign in first")):
        with pytest.raises(AccessRefused, match=problem):
            _say(store, game, actor, "x1", "let me in")
    with pytest.raises(AccessRefused, match="written as coder"):
        _say(store, game, ALICE, "x2", "I am bob", player="bob")
    with pytest.raises(AccessRefused, match="plays neither"):
        _say(store, other, ALICE, "x3", "wrong game")
    with pytest.raises(ValueError, match="not a role"):
        games.append(game.id, "x4", "canvas", {}, visible_to="Builder", actor=BOB)
    with pytest.raises(AccessRefused):
        games.finish(game.id, actor=CAROL)
    assert games.game(game.id, viewer=ADMIN).n_events == 0 and games.game(other.id, viewer=ADMIN).n_events == 0
    _say(store, game, BOB, "b1", "ready")
    assert games.finish(game.id, actor=ADMIN).status == "finished"
    with pytest.raises(LiveGameClosed, match="ended"):
        _say(store, game, ALICE, "a1", "one more")
    assert _say(store, game, BOB, "b1", "ready").seq == 1  # a late resend of an acknowledged message is fine
    assert games.finish(game.id, actor=ALICE).n_events == 1


def test_a_resend_is_found_never_doubled_and_one_client_id_names_one_event(store):
    game, _token = _playing(store)
    first = _say(store, game, ALICE, "c-1", "hello")
    assert _say(store, game, ALICE, "c-1", "hello") == first
    with pytest.raises(LiveGameConflict, match="different"):
        _say(store, game, ALICE, "c-1", "hello again")
    with pytest.raises(LiveGameConflict):  # one id, a different sender
        _say(store, game, BOB, "c-1", "hello")
    assert store.live_games.game(game.id, viewer=ALICE).n_events == 1


def test_two_tabs_and_two_servers_at_once_keep_seq_without_gap_or_repeat(store, store_target):
    """Two tabs resend one message at once and several moves race: one event per client id, seq 1..n. A second
    ``Store`` on the same database is a second app server: the game resumes there after the first one is gone."""
    game, _token = _playing(store)
    other_server = Store(store_target, sign_in=True)
    barrier, outcomes = threading.Barrier(6), []

    def send(server, actor, client_id) -> None:
        barrier.wait()
        outcomes.append(server.live_games.append(game.id, client_id, "message", {"text": "hi"}, actor=actor).seq)

    jobs = [(store, ALICE, "same"), (other_server, ALICE, "same"), (store, BOB, "b1"), (other_server, BOB, "b2"),
            (store, ALICE, "a1"), (other_server, ALICE, "a2")]
    threads = [threading.Thread(target=send, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(set(outcomes)) == [1, 2, 3, 4, 5] and len(outcomes) == 6
    store.close()  # the server the players were on is gone
    events, cursor = other_server.live_games.events(game.id, viewer=ALICE)
    assert [e.seq for e in events] == [1, 2, 3, 4, 5] and cursor == 5
    assert sorted(e.client_id for e in events) == ["a1", "a2", "b1", "b2", "same"]
    other_server.close()


def test_messages_events_rate_and_open_games_are_bounded(store, monkeypatch):
    games = store.live_games
    game, _token = _playing(store)
    for payload, problem in (({"text": "x" * (live.MAX_MESSAGE_CHARS + 1)}, "at most"), ({"text": "  "}, "needs text"),
                             ({}, "needs text"), ("text", "needs text")):
        with pytest.raises(ValueError, match=problem):
            games.append(game.id, "m", "message", payload, actor=ALICE)
    for client_id, kind, payload in (("c", "canvas", {"scene": "x" * live.MAX_EVENT_BYTES}),
                                     ("c", "canvas", {"x": float("nan")}), ("c" * 65, "canvas", {}),
                                     ("a b", "canvas", {}), ("c", "Canvas!", {}), ("c", "k" * 40, {})):
        with pytest.raises(ValueError):
            games.append(game.id, client_id, kind, payload, actor=ALICE)
    with pytest.raises(ValueError, match="bytes"):
        games.create("codraw", "x", ("Teller", "Drawer"), "Teller", {"shared": "x" * live.MAX_SETUP_BYTES},
                     actor=ALICE)
    for roles, mine, setup in ((("Teller", "Teller"), "Teller", {}), (("Teller", "Drawer"), "Builder", {}),
                               (("Teller",), "Teller", {}), (("Teller", "Drawer"), "Teller", {"roles": {"Builder": 1}}),
                               (("Teller", "d" * 300), "Teller", {})):
        with pytest.raises(ValueError):
            games.create("codraw", "x", roles, mine, setup, actor=ALICE)
    assert games.game(game.id, viewer=ALICE).n_events == 0
    clock = games.clock
    for number in range(live.MAX_MESSAGES_PER_WINDOW):
        _say(store, game, ALICE, f"m{number}", "quick")
        clock.now += 0.1
    with pytest.raises(ValueError, match="too fast"):
        _say(store, game, ALICE, "m-over", "one too many")
    games.append(game.id, "move", "canvas", {}, actor=ALICE)  # a move still goes through
    _say(store, game, BOB, "bob", "my own rate")
    clock.now += live.RATE_WINDOW_S
    assert _say(store, game, ALICE, "m-over", "one too many").seq == live.MAX_MESSAGES_PER_WINDOW + 3
    monkeypatch.setattr(live, "MAX_GAME_BYTES", store.live_games.game(game.id, viewer=BOB).n_bytes + 40)
    with pytest.raises(ValueError, match="bytes"):
        games.append(game.id, "big", "canvas", {"scene": "x" * 40}, actor=BOB)
    games.append(game.id, "small", "canvas", {}, actor=BOB)  # two bytes still fit
    assert live.MAX_OPEN_GAMES >= 20  # a class plays at once
    monkeypatch.setattr(live, "MAX_OPEN_GAMES", 2)
    dora = _as(Role.CODER, "dora")  # plays in no other test
    games.create("gos", "g", ("A", "B"), "A", {}, actor=dora)
    games.create("gos", "g", ("A", "B"), "A", {}, actor=dora)
    with pytest.raises(ValueError, match="2 games waiting or under way"):
        games.create("gos", "g", ("A", "B"), "A", {}, actor=dora)


def test_the_local_user_plays_under_two_names_and_sees_as_each(tmp_path):
    store = Store(tmp_path / "local.sqlite3")  # no sign-in: one laptop, two tabs, a name each
    games = store.live_games
    game, token = games.create("minecraft", "C9", ("Architect", "Builder"), "Architect",
                               {"roles": {"Architect": {"target": [[0, 1, 0, "blue"]]}}}, player="ann")
    with pytest.raises(ValueError):
        games.join(token, player="")
    games.join(token, player="ben")
    games.append(game.id, "p1", "place", {"x": 0, "y": 1, "z": 0, "color": "blue"}, player="ben")
    games.append(game.id, "s1", "private", {}, visible_to="Architect", player="ann")
    assert [e.kind for e in games.events(game.id, viewer=Identity.local("ben"))[0]] == ["place"]
    assert games.setup_for(game.id, viewer=Identity.local("ben"))["role"] is None
    assert len(games.events(game.id)[0]) == 2  # the local user under no player's name sees everything
    with pytest.raises(AccessRefused, match="plays neither"):
        games.append(game.id, "c1", "place", {}, player="cat")
    read_only = Identity.local_read_only("served beyond this machine without sign-in")
    with pytest.raises(LiveGameNotFound):
        games.events(game.id, viewer=read_only)
    with pytest.raises(AccessRefused):
        games.append(game.id, "r1", "place", {}, actor=read_only)


def test_a_v6_database_gains_live_games(tmp_path):
    target = tmp_path / "old.sqlite3"
    db = open_database(target)
    db.migrate(schema.MIGRATIONS[:-1])
    upgraded = Store(target)
    assert upgraded.db.schema_version() == len(schema.MIGRATIONS)
    game, token = upgraded.live_games.create("gos", "g1", ("A", "B"), "A", {}, player="ann")
    assert upgraded.live_games.join(token, player="ben").status == "playing"


def test_a_rule_decides_inside_the_write_what_is_stored_who_sees_it_and_what_follows(store):
    game, _token = _playing(store)
    seen: list = []

    def rule(role, kind, payload, earlier, setup):
        seen.append((role, [e.seq for e in earlier], sorted(setup)))
        if payload.get("bad"):
            raise ValueError("not in this game")
        return {"n": payload["n"]}, None, (("Drawer", "echo", {"of": payload["n"]}, "Drawer"),)

    with pytest.raises(ValueError, match="not in this game"):
        store.live_games.append(game.id, "r0", "move", {"n": 0, "bad": True}, rule=rule, actor=ALICE)
    first = store.live_games.append(game.id, "r1", "move", {"n": 1, "extra": "dropped"}, visible_to="Teller",
                                    rule=rule, actor=ALICE)
    assert first.payload == {"n": 1} and first.visible_to is None  # the rule's word, not the page's
    resent = store.live_games.append(game.id, "r1", "move", {"n": 1, "extra": "dropped"}, visible_to="Teller",
                                     rule=rule, actor=ALICE)
    assert resent == first  # the same request again: found, though stored in the rule's form
    with pytest.raises(LiveGameConflict):
        store.live_games.append(game.id, "r1", "move", {"n": 1}, rule=rule, actor=ALICE)
    store.live_games.append(game.id, "r2", "move", {"n": 2}, rule=rule, actor=BOB)
    assert seen == [("Teller", [], ["roles", "shared"]), ("Teller", [], ["roles", "shared"]),
                    ("Drawer", [1, 2], ["roles", "shared"])]
    drawer = store.live_games.events(game.id, viewer=BOB)[0]
    assert [(e.seq, e.kind, e.role, e.player, e.client_id) for e in drawer] == [
        (1, "move", "Teller", "alice", "r1"), (2, "echo", "Drawer", "bob", "r1~1"),
        (3, "move", "Drawer", "bob", "r2"), (4, "echo", "Drawer", "bob", "r2~1")]
    assert [e.seq for e in store.live_games.events(game.id, viewer=ALICE)[0]] == [1, 3]


def test_two_servers_peeking_at_once_pass_the_one_peek_rule_once(store, store_target):
    """CoDraw's Teller peeks once: two tabs on two servers peeking at the same moment, one peek is stored and the
    other is refused by the rule, which runs inside the write with the game's row locked."""
    from corpora.codraw.data import live as codraw_live

    game, _token = _playing(store)
    other_server = Store(store_target, sign_in=True)
    barrier, outcomes = threading.Barrier(2), []

    def peek(server, client_id) -> None:
        barrier.wait()
        try:
            outcomes.append(server.live_games.append(game.id, client_id, "peek", {}, rule=codraw_live.checked_event,
                                                     actor=ALICE).seq)
        except ValueError as exc:
            outcomes.append(str(exc))

    threads = [threading.Thread(target=peek, args=job) for job in ((store, "p1"), (other_server, "p2"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    other_server.close()
    assert sorted(outcomes, key=str) == [1, "the Teller has peeked already"]
    nested: list = []
    for _ in range(100_000):
        nested = [nested]
    with pytest.raises(ValueError, match="not plain JSON"):  # nested past any game's need: refused, not a crash
        store.live_games.append(game.id, "deep", "canvas", {"cliparts": nested}, actor=BOB)


def test_a_studys_game_has_both_roles_open_and_starts_when_both_are_taken(store):
    games = store.live_games
    with pytest.raises(AccessRefused, match="admin role"):
        games.create_open("gos", "game_7", ("Player A", "Player B"), {}, actor=ALICE)
    game, tokens = games.create_open("gos", "game_7", ("Player A", "Player B"), {}, actor=ADMIN)
    assert (game.status, game.first_player, game.second_player) == ("waiting", None, None)
    with pytest.raises(LiveGameNotFound):
        games.setup_for(game.id, viewer=ALICE)  # not a player yet
    assert games.join(tokens["Player B"], actor=BOB).status == "waiting" and \
        games.game(game.id, viewer=BOB).role_of("bob") == "Player B"
    with pytest.raises(LiveGameFull):
        games.join(tokens["Player B"], actor=CAROL)
    with pytest.raises(LiveGameClosed, match="not started"):
        _say(store, game, BOB, "early", "hello?")
    with pytest.raises(AccessRefused):
        games.reinvite(game.id, "Player A", actor=BOB)  # a study's invitations are its organiser's
    new = games.reinvite(game.id, "Player A", actor=ADMIN)
    with pytest.raises(LiveGameNotFound):
        games.join(tokens["Player A"], actor=ALICE)
    started = games.join(new, actor=ALICE)
    assert (started.status, started.first_player) == ("playing", "alice") and started.started_at
    assert _say(store, started, ALICE, "a1", "hello").role == "Player A"
    with pytest.raises(LiveGameFull):
        games.join(new, actor=CAROL)
