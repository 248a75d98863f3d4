"""Plays in the store (issue 49), on both backends: a play started and resumed (one live play per person, dialog and
seat, two starts at once included), its steps saved in order by a compare-and-set (a second tab saving the same step
is refused and writes nothing, also when both save at once), the last step finishing it; only its player with the
coder role writes (a viewer, nobody signed in, a forged name, a reserved name are refused where the write lands);
bounded moves, names and live plays; a v6 database brought to v7."""
from __future__ import annotations

import threading

import pytest

from data_access.access import AccessRefused, Identity, Role
from data_access.store import PlayConflict, PlayNotFound, Store, open_database, schema
from data_access.store.plays import MAX_LIVE_PLAYS, MAX_PAYLOAD_BYTES


def _as(role: Role, coder: str) -> Identity:
    return Identity(coder=coder, role=role, email=f"{coder}@lab.example", signed_in=True)


ALICE, BOB, VIEWER = _as(Role.CODER, "alice"), _as(Role.CODER, "bob"), _as(Role.VIEWER, "vera")


@pytest.fixture
def store(store_target):
    opened = Store(store_target, sign_in=True)
    yield opened
    opened.close()


def test_a_play_is_started_resumed_saved_in_order_and_finished(store):
    play = store.plays.start("codraw", "d1", "Drawer", 3, actor=ALICE)
    assert (play.player, play.status, play.steps_done, play.next_step) == ("alice", "playing", 0, 1)
    assert store.plays.start("codraw", "d1", "Drawer", 3, actor=ALICE).id == play.id  # resumed, not a second one
    assert store.plays.start("codraw", "d1", "Drawer", 3, actor=BOB).id != play.id  # bob's own
    after = store.plays.save_step(play.id, 1, {"scene": "a"}, role="Drawer", actor=ALICE)
    assert (after.steps_done, after.status) == (1, "playing")
    store.plays.save_step(play.id, 2, {"scene": "b"}, role="Drawer", actor=ALICE)
    last = store.plays.save_step(play.id, 3, {"scene": "c", "reply": "done ✓"}, role="Drawer", actor=ALICE)
    assert last.finished and last.finished_at is not None and last.next_step == 4
    assert store.plays.moves(play.id) == [{"scene": "a"}, {"scene": "b"}, {"scene": "c", "reply": "done ✓"}]
    events = store.plays.events(play.id)
    assert [(e.seq, e.step, e.role, e.kind) for e in events] == [(1, 1, "Drawer", "step"), (2, 2, "Drawer", "step"),
                                                                (3, 3, "Drawer", "step")]
    assert store.plays.latest("codraw", "d1", "Drawer", "alice").id == play.id
    assert [p.id for p in store.plays.finished("codraw")] == [play.id]
    assert store.plays.finished_stamp("codraw") == (1, play.id)
    again = store.plays.start("codraw", "d1", "Drawer", 3, actor=ALICE)  # a finished play is not live: a new one
    assert again.id != play.id and store.plays.latest("codraw", "d1", "Drawer", "alice").id == again.id
    with pytest.raises(PlayConflict, match="finished"):
        store.plays.save_step(play.id, 4, {}, role="Drawer", actor=ALICE)


def test_a_second_tab_cannot_fork_the_play(store):
    play = store.plays.start("gos", "i1", "ann", 9, actor=ALICE)
    store.plays.save_step(play.id, 1, {"image_id": "a"}, role="player", actor=ALICE)
    with pytest.raises(PlayConflict, match="at step 2") as refused:
        store.plays.save_step(play.id, 1, {"image_id": "b"}, role="player", actor=ALICE)  # the other tab's step 1
    assert refused.value.play.steps_done == 1
    with pytest.raises(PlayConflict):
        store.plays.save_step(play.id, 3, {"image_id": "c"}, role="player", actor=ALICE)  # skipping a step
    assert store.plays.moves(play.id) == [{"image_id": "a"}]


def test_two_tabs_saving_the_same_step_at_once_save_it_once(store):
    play = store.plays.start("minecraft", "g1", "Builder", 5, actor=ALICE)
    outcomes: list = []
    barrier = threading.Barrier(4)

    def save(number: int) -> None:
        barrier.wait()
        try:
            outcomes.append(store.plays.save_step(play.id, 1, {"actions": [number]}, role="Builder", actor=ALICE))
        except PlayConflict as exc:
            outcomes.append(exc)

    threads = [threading.Thread(target=save, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(not isinstance(o, PlayConflict) for o in outcomes) == 1
    assert len(store.plays.moves(play.id)) == 1 and store.plays.play(play.id).steps_done == 1


def test_two_starts_at_once_make_one_live_play(store):
    started: list = []
    barrier = threading.Barrier(3)

    def begin() -> None:
        barrier.wait()
        started.append(store.plays.start("codraw", "d9", "Drawer", 4, actor=ALICE).id)

    threads = [threading.Thread(target=begin) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(started)) == 1


def test_only_its_player_with_the_coder_role_writes(store):
    with pytest.raises(AccessRefused, match="coder role"):
        store.plays.start("codraw", "d1", "Drawer", 3, actor=VIEWER)
    with pytest.raises(AccessRefused, match="sign in first"):
        store.plays.start("codraw", "d1", "Drawer", 3)
    with pytest.raises(AccessRefused, match="written as coder"):
        store.plays.start("codraw", "d1", "Drawer", 3, player="bob", actor=ALICE)
    play = store.plays.start("codraw", "d1", "Drawer", 3, actor=ALICE)
    with pytest.raises(AccessRefused, match="belongs to coder 'alice'"):
        store.plays.save_step(play.id, 1, {"scene": ""}, role="Drawer", actor=BOB)
    with pytest.raises(AccessRefused):
        store.plays.save_step(play.id, 1, {"scene": ""}, role="Drawer", actor=VIEWER)
    with pytest.raises(AccessRefused):
        store.plays.abandon(play.id, actor=BOB)
    read_only = Identity.local_read_only("this server is reachable from other machines without sign-in")
    with pytest.raises(AccessRefused):  # a visitor of a server open without sign-in
        store.plays.save_step(play.id, 1, {"scene": ""}, role="Drawer", actor=read_only)
    assert store.plays.moves(play.id) == [] and store.plays.play(play.id).steps_done == 0
    assert store.plays.abandon(play.id, actor=ALICE).status == "abandoned"
    assert store.plays.latest("codraw", "d1", "Drawer", "alice") is None


def test_names_follow_the_coders_rules_and_the_local_user_plays_under_the_name_given(store_target):
    local = Store(store_target)  # no sign-in: the local user, under the name the page gives
    try:
        play = local.plays.start("codraw", "d1", "Drawer", 2, player="  ann  lee ")
        assert play.player == "ann lee"
        for reserved in ("gold", "GOLD", "model:gpt", "ｇｏｌｄ", ""):
            with pytest.raises(ValueError):
                local.plays.start("codraw", "d1", "Drawer", 2, player=reserved)
        read_only = Identity.local_read_only("served beyond this machine")
        with pytest.raises(AccessRefused):
            local.plays.start("codraw", "d2", "Drawer", 2, player="ann", actor=read_only)
    finally:
        local.close()


def test_bounded_moves_names_steps_and_live_plays(store, monkeypatch):
    play = store.plays.start("codraw", "d1", "Drawer", 2, actor=ALICE)
    with pytest.raises(ValueError, match="bytes"):
        store.plays.save_step(play.id, 1, {"scene": "x" * MAX_PAYLOAD_BYTES}, role="Drawer", actor=ALICE)
    with pytest.raises(ValueError):
        store.plays.save_step(play.id, 1, {"value": float("nan")}, role="Drawer", actor=ALICE)
    assert store.plays.play(play.id).steps_done == 0
    for corpus, dialog, seat, steps in (("", "d", "s", 1), ("c", "d" * 300, "s", 1), ("c", "d", "s", 0),
                                        ("c", "d", "s", 10 ** 9), ("c", "d", "s", True)):
        with pytest.raises(ValueError):
            store.plays.start(corpus, dialog, seat, steps, actor=ALICE)
    with pytest.raises(PlayNotFound):
        store.plays.play(10 ** 6)
    monkeypatch.setattr("data_access.store.plays.MAX_LIVE_PLAYS", 3)
    for number in range(2):
        store.plays.start("codraw", f"e{number}", "Drawer", 2, actor=ALICE)
    with pytest.raises(ValueError, match="3 plays under way"):
        store.plays.start("codraw", "e9", "Drawer", 2, actor=ALICE)
    assert MAX_LIVE_PLAYS >= 100


def test_a_v6_database_is_brought_to_v7(tmp_path):
    target = tmp_path / "old.sqlite3"
    db = open_database(target)
    db.migrate(schema.MIGRATIONS[:6])
    assert db.schema_version() == 6
    upgraded = Store(target)
    assert upgraded.db.schema_version() == len(schema.MIGRATIONS) >= 7  # v7 and every later migration
    assert upgraded.plays.start("codraw", "d1", "Drawer", 1, player="ann").steps_done == 0
