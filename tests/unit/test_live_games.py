"""Live games of two people over each corpus (issue 50): played through ``data_access.live`` on a store (the corpus's
rules checked inside the store's write), finished, written in the corpus's own files and read back by the corpus's
own frames: the same messages and moves in order, each role's events seen by that role only. The store itself is
tested on both backends in test_store_live_games.py; these run on SQLite."""
from __future__ import annotations

from datetime import datetime

import pytest

from data_access import live
from data_access.access import Identity, Role
from data_access.registry import corpus_module
from data_access.store import LiveGameNotFound, Store


def _as(role: Role, coder: str) -> Identity:
    return Identity(coder=coder, role=role, email=f"{coder}@lab.example", signed_in=True)


ALICE, BOB, VIEWER = _as(Role.CODER, "alice"), _as(Role.CODER, "bob"), _as(Role.VIEWER, "vera")


class Clock:
    """Unix seconds, 1.5 s further at every reading (each event a moment after the one before)."""

    def __init__(self, now: float = 1_700_000_000.0):
        self.now = now

    def __call__(self) -> float:
        self.now += 1.5
        return self.now


@pytest.fixture
def store(tmp_path):
    opened = Store(tmp_path / "live.sqlite3", sign_in=True)
    opened.live_games.clock = Clock()
    yield opened
    opened.close()


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def _started(store, package, item, roles, setup):
    game, token = live.create(store, package, item, roles[0], setup, actor=ALICE)
    store.live_games.join(token, actor=BOB)
    return game


# ---------------------------------------------------------------------------------------------------- Minecraft

TARGET = [[0, 1, 0, "blue"], [0, 2, 0, "blue"], [1, 1, 0, "red"]]


def test_a_minecraft_game_is_played_written_as_game_logs_and_read_back(store, tmp_path):
    from corpora.minecraft.data import frames

    package = corpus_module("minecraft")
    game = _started(store, package, "C7", ("Architect", "Builder"), {"roles": {"Architect": {"target": TARGET}}})
    assert store.live_games.setup_for(game.id, viewer=BOB)["role"] is None  # the Builder is not shown the target

    def send(actor, client_id, kind, **payload):
        return live.send(store, package, game.id, client_id, kind, payload, actor=actor)

    first = send(ALICE, "a1", "message", text="two blue  blocks\nin a tower, <b>then</b> a red one")
    assert send(ALICE, "a1", "message", text="two blue  blocks\nin a tower, <b>then</b> a red one") == first  # resent
    send(BOB, "b1", "place", x=0, y=1, z=0, color="blue")
    send(BOB, "b2", "place", x=0, y=2, z=0, color="red")
    for actor, kind, payload, problem in ((ALICE, "place", dict(x=1, y=1, z=0, color="red"), "only the Builder"),
                                          (BOB, "place", dict(x=0, y=2, z=0, color="blue"), "already holds"),
                                          (BOB, "place", dict(x=9, y=1, z=0, color="red"), "outside the build"),
                                          (BOB, "place", dict(x=1, y=1, z=0, color="pink"), "not a block colour"),
                                          (BOB, "remove", dict(x=3, y=1, z=0), "no block to pick up"),
                                          (BOB, "jump", {}, "not an event")):
        with pytest.raises(ValueError, match=problem):
            send(actor, "bad", kind, **payload)
    send(ALICE, "a2", "message", text="the top one is blue")
    send(BOB, "b3", "remove", x=0, y=2, z=0)
    send(BOB, "b4", "place", x=0, y=2, z=0, color="blue")
    send(BOB, "b4", "place", x=0, y=2, z=0, color="blue")  # a resend: the block is placed once
    send(BOB, "b5", "place", x=1, y=1, z=0, color="red")
    send(BOB, "b6", "message", text="done")
    with pytest.raises(LiveGameNotFound, match="not ended"):
        live.export(store, package, [game.id], tmp_path / "study", viewer=ALICE)
    store.live_games.finish(game.id, actor=ALICE)

    folder = live.export(store, package, [game.id], tmp_path / "study", viewer=VIEWER)
    built, skipped = frames.build_frames(folder)
    assert skipped == []
    dialog = built["dialogs"].iloc[0]
    assert (dialog["config"], dialog["split"], dialog["builder"], dialog["architect"]) == \
        ("C7", "test", f"B{game.id}", f"A{game.id}")
    assert dialog["outcome_f1"] == 1.0 and bool(dialog["outcome_match"])  # the target, built
    utterances = built["utterances"]
    assert list(zip(utterances["role"], utterances["text"])) == [
        ("Architect", "two blue blocks in a tower, <b>then</b> a red one"), ("Architect", "the top one is blue"),
        ("Builder", "done")]
    actions = built["actions"]
    assert list(zip(actions["kind"], actions["x"], actions["y"], actions["color"])) == [
        ("placement", 0, 1, "blue"), ("placement", 0, 2, "red"), ("removal", 0, 2, "red"),
        ("placement", 0, 2, "blue"), ("placement", 1, 1, "red")]
    joined, _setup, events = store.live_games.record(game.id, viewer=VIEWER)
    assert dialog["duration_s"] == pytest.approx(_seconds(events[-1].at) - _seconds(joined.started_at))


# ---------------------------------------------------------------------------------------------------- CoDraw

SUN = {"type": 0, "object": 3, "x": 420, "y": 40, "z": 2, "flip": 0}
TREE = {"type": 1, "object": 8, "x": 120, "y": 180, "z": 1, "flip": 1}
BOY = {"type": 2, "object": 12, "x": 250, "y": 270, "z": 0, "flip": 0}
CODRAW_SETUP = {"shared": {"image_id": 4321}, "roles": {"Teller": {"target": [SUN, TREE, BOY]},
                                                         "Drawer": {"palette": [SUN, TREE, BOY]}}}


def test_a_codraw_game_is_played_in_turns_with_one_peek_and_read_back_with_its_scores(store, tmp_path):
    from corpora.codraw.data import frames

    package = corpus_module("codraw")
    game = _started(store, package, "val_00077", ("Teller", "Drawer"), CODRAW_SETUP)
    assert store.live_games.setup_for(game.id, viewer=BOB)["role"] == {"palette": [SUN, TREE, BOY]}

    def send(actor, client_id, kind, **payload):
        return live.send(store, package, game.id, client_id, kind, payload, actor=actor)

    with pytest.raises(ValueError, match="wait for the Teller"):
        send(BOB, "d0", "message", text="hello?")
    said = send(ALICE, "t1", "message", text="a sun top right")
    send(BOB, "d1", "canvas", cliparts=[dict(SUN, x=400)])
    # the Teller's poll neither shows the Drawer's canvas nor moves past it: its cursor would tell that one came
    assert store.live_games.events(game.id, viewer=ALICE, after=said.seq) == ([], said.seq)
    reply = send(BOB, "d2", "message", text="ok")
    assert store.live_games.events(game.id, viewer=ALICE, after=said.seq, limit=1) == ([reply], reply.seq)
    send(ALICE, "t2", "message", text="a tree on the left, <i>facing left</i>")
    drawn = send(BOB, "d3", "canvas", cliparts=[dict(SUN, x=400), dict(TREE, x=140, flip=0)])
    assert send(BOB, "d3", "canvas", cliparts=[dict(SUN, x=400), dict(TREE, x=140, flip=0)]) == drawn  # resent
    with pytest.raises(ValueError, match="peeks once, between rounds"):
        send(ALICE, "p0", "peek")
    send(BOB, "d4", "message", text="done")
    peek = send(ALICE, "p1", "peek")
    assert peek.payload == {"canvas": [dict(SUN, x=400.0), dict(TREE, x=140.0, flip=0)]} and peek.visible_to == "Teller"
    with pytest.raises(ValueError, match="while the Teller peeks"):
        send(ALICE, "t3", "message", text="the tree faces right")
    send(ALICE, "u1", "unpeek")
    send(ALICE, "t3", "message", text="the tree faces right")
    with pytest.raises(ValueError, match="peeked already"):
        send(ALICE, "p2", "peek")
    for bad, problem in (([dict(SUN, x=99999)], "outside the canvas"), ([SUN, dict(SUN, x=3)], "twice"),
                         ([dict(SUN, type=9)], "not a clipart"), ([dict(SUN, z=5)], "depth")):
        with pytest.raises(ValueError, match=problem):
            send(BOB, "bad", "canvas", cliparts=bad)
    with pytest.raises(ValueError, match="not an event the Teller"):
        send(ALICE, "bad", "canvas", cliparts=[])
    send(BOB, "d5", "canvas", cliparts=[dict(SUN, x=400), dict(TREE, x=140), dict(BOY, x=260)])
    send(BOB, "d6", "message", text="and a boy")
    teller_sees, _cursor = store.live_games.events(game.id, viewer=ALICE)
    assert "canvas" not in {e.kind for e in teller_sees} and {"peek", "unpeek"} <= {e.kind for e in teller_sees}
    assert {e.kind for e in store.live_games.events(game.id, viewer=BOB)[0]} == {"message", "canvas"}
    store.live_games.finish(game.id, actor=BOB)

    path = live.export(store, package, [game.id], tmp_path / "study", split="pilot", viewer=VIEWER)
    built, skipped = frames.build_frames(path)
    assert skipped == []
    dialog = built["dialogs"].iloc[0]
    assert (dialog["dialog_id"], dialog["split"], dialog["image_id"], dialog["peek_round"]) == \
        (f"pilot_{game.id}", "pilot", 4321, 3)
    read = built["rounds"]
    assert read["msg_t"].tolist() == ["a sun top right", "a tree on the left, <i>facing left</i>", "the tree faces right"]
    assert read["msg_d"].tolist() == ["ok", "done", "and a boy"]
    assert read["peeked"].tolist() == [False, False, True]
    assert read["score_status"].tolist() == ["present"] * 3 and read["stored_reproduced"].tolist() == [True] * 3
    assert read["stored_score"].is_monotonic_increasing  # each round closer to the target


# ---------------------------------------------------------------------------------------------- A Game Of Sorts

IMAGES = [f"img{n}" for n in range(1, 10)]
GOS_SETUP = {"shared": {"game_id": "game_7_toys_1", "boards": [
    {"board_id": f"game_7_toys_1_board_{n}", "board_number": n, "criterion": f"Which toy for case {n}?",
     "instruction": "Please rank these toys.", "image_ids": IMAGES} for n in (2, 1)]},
    "roles": {"Player A": {"layouts": [IMAGES[::-1], IMAGES]}, "Player B": {"layouts": [IMAGES[3:] + IMAGES[:3]] * 2}}}


def test_a_gos_game_hides_each_lock_from_the_partner_ranks_on_agreement_and_is_read_back(store, tmp_path):
    from corpora.gos.data import frames

    package = corpus_module("gos")
    game = _started(store, package, "game_7_toys_1", ("Player A", "Player B"), GOS_SETUP)
    assert store.live_games.setup_for(game.id, viewer=BOB)["role"] == {"layouts": GOS_SETUP["roles"]["Player B"]["layouts"]}
    sent = iter(range(1000))

    def send(actor, kind, **payload):
        return live.send(store, package, game.id, f"c{next(sent)}", kind, payload, actor=actor)

    with pytest.raises(ValueError, match="mark the images"):
        send(ALICE, "message", text="hi")
    send(ALICE, "message", text="hi <b>there</b>", image_ids=[])
    send(BOB, "message", text="img1 first?", image_ids=["img1"])
    send(ALICE, "lock", image_id="img2")
    send(ALICE, "unlock", image_id="img2")  # taken back
    send(ALICE, "lock", image_id="img1")
    with pytest.raises(ValueError, match="take back your lock"):
        send(ALICE, "lock", image_id="img3")
    send(BOB, "lock", image_id="img3")  # a mismatch: both released
    assert [e.kind for e in store.live_games.events(game.id, viewer=ALICE)[0]][-1] == "unlock_automatic"
    bob_sees = [(e.kind, e.payload.get("image_id")) for e in store.live_games.events(game.id, viewer=BOB)[0]]
    assert ("lock", "img1") not in bob_sees and bob_sees[-1] == ("unlock_automatic", "img3")  # never alice's lock
    order = IMAGES[:]
    for image in order:
        send(BOB, "lock", image_id=image)
        send(ALICE, "lock", image_id=image)
    with pytest.raises(ValueError, match="still to rank"):
        send(ALICE, "lock", image_id="img1")
    send(ALICE, "message", text="nice!", image_ids=[])  # after the ninth rank: round_active false
    send(BOB, "next_round")
    with pytest.raises(ValueError, match="nine images are ranked"):
        send(BOB, "next_round")
    for image in order[::-1]:
        send(ALICE, "lock", image_id=image)
        send(BOB, "lock", image_id=image)
    ranks = [e.payload for e in store.live_games.events(game.id, viewer=ALICE)[0] if e.kind == "rank"]
    assert [r["rank"] for r in ranks] == list(range(1, 10)) * 2
    with pytest.raises(ValueError, match="last round"):
        send(ALICE, "next_round")
    store.live_games.finish(game.id, actor=ALICE)

    live.export(store, package, [game.id], tmp_path / "study", viewer=VIEWER)
    built, skipped = frames.build_frames(tmp_path / "study")
    assert skipped == []
    a, b = f"player-a-{game.id}", f"player-b-{game.id}"
    messages, read_ranks = built["messages"], built["ranks"]
    assert list(zip(messages["round"], messages["username"], messages["text"], messages["in_round"])) == [
        (1, a, "hi <b>there</b>", True), (1, b, "img1 first?", True), (1, a, "nice!", False)]
    assert [list(ids) for ids in messages["image_ids"]] == [[], ["img1"], []]
    for number, expected in ((1, order), (2, order[::-1])):
        assert read_ranks[read_ranks["round"] == number].sort_values("rank")["image_id"].tolist() == expected
    assert built["rounds"]["mismatches"].tolist() == [1, 0]
    locks = built["lock_events"]
    assert locks[locks["round"] == 1]["lock_event_type"].tolist()[:6] == [
        "lock", "unlock manual", "lock", "lock", "unlock automatic", "unlock automatic"]
    layouts = built["layouts"]
    assert layouts[(layouts["round"] == 1) & (layouts["username"] == a)].sort_values("position")["image_id"].tolist() \
        == IMAGES[::-1]


@pytest.mark.parametrize("name", ["codraw", "gos", "minecraft"])
def test_each_corpus_offers_live_rules_that_honour_the_contract(name):
    import inspect

    from data_access.contract import LiveRules, live_members

    rules = live.rules_of(corpus_module(name))
    assert isinstance(rules, LiveRules) and len(set(rules.ROLES)) == 2
    for member in live_members():
        declared = getattr(LiveRules, member, None)
        if callable(declared):
            assert list(inspect.signature(getattr(rules, member)).parameters) == \
                list(inspect.signature(declared).parameters)[1:], f"{name}: {member}"


def test_the_command_line_writes_a_studys_finished_games_and_says_why_it_cannot_in_one_line(tmp_path, capsys):
    import json

    from data_access.__main__ import main

    target = tmp_path / "store.sqlite3"
    store = Store(target)  # the local user, as on one laptop
    package = corpus_module("minecraft")
    game, token = live.create(store, package, "C7", "Architect", {"roles": {"Architect": {"target": TARGET}}},
                              player="ann")
    store.live_games.join(token, player="ben")
    live.send(store, package, game.id, "a1", "message", {"text": "build it"}, player="ann")
    live.send(store, package, game.id, "b1", "place", {"x": 0, "y": 1, "z": 0, "color": "blue"}, player="ben")
    store.live_games.finish(game.id, player="ann")
    live.create(store, package, "C8", "Architect", {"roles": {"Architect": {"target": TARGET}}}, player="ann")
    store.live_consent.agree(0, str(game.id), player="ben")
    store.live_consent.agree(0, "another study", player="cy")  # played no game written here
    store.close()

    assert main(["live-export", "minecraft", str(target), str(tmp_path / "study"), "--split", "val"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [(c["player"], c["text_version"]) for c in printed.pop("consents")] == [("ben", 0)]
    assert printed == {"corpus": "minecraft", "games": 1, "path": str(tmp_path / "study")}
    assert json.loads((tmp_path / "study" / "logs" / "splits.json").read_text())["val"] == ["C7"]  # not the open C8

    for argv, named in ((["minecraft", str(target), str(tmp_path / "study")], "not an empty folder"),
                        (["minecraft", str(target), str(tmp_path / "two"), "--game", "2"], "has not ended"),
                        (["gos", str(target), str(tmp_path / "three"), "--game", "1"], "not of gos"),
                        (["minecraft", str(tmp_path / "absent.sqlite3"), str(tmp_path / "four")], "is not a store")):
        assert main(["live-export", *argv]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and len(captured.err.strip().splitlines()) == 1 and named in captured.err
    assert not (tmp_path / "absent.sqlite3").exists() and not (tmp_path / "two").exists()


@pytest.mark.parametrize("name", ["codraw", "gos", "minecraft"])
def test_a_game_set_up_from_the_demo_corpus_shows_each_role_its_part_and_is_written_back(name, store, tmp_path):
    """Each corpus's items and setup over its demo corpus: the Teller's target is the dialog's target scene, each Game
    Of Sorts player's layouts are the boards' images shuffled by the seed, the Architect's target the gold; a game
    played over it with one message each is written and read back."""
    from types import SimpleNamespace

    from data_access.corpora import demo_path

    package = corpus_module(name)
    built, _skipped = package.build_frames(demo_path(name, tmp_path / "demo"))
    loaded = SimpleNamespace(frames=built)
    rules = live.rules_of(package)
    item = rules.items(loaded)[0]
    setup = rules.setup(loaded, item, seed=7)
    assert setup == rules.setup(loaded, item, seed=7) and set(setup["roles"]) <= set(rules.ROLES)
    with pytest.raises(ValueError, match="has no"):
        rules.setup(loaded, "no-such-item", seed=7)
    if name == "codraw":
        dialog = built["dialogs"].set_index("dialog_id").loc[item]
        target = built["cliparts"][built["cliparts"]["scene_id"] == dialog["target_scene"]]
        assert [(c["type"], c["object"], c["x"]) for c in setup["roles"]["Teller"]["target"]] == \
            list(zip(target["type"], target["object"], target["x"]))
        assert {(c["type"], c["object"]) for c in setup["roles"]["Teller"]["target"]} <= \
            {(c["type"], c["object"]) for c in setup["roles"]["Drawer"]["palette"]}
    elif name == "gos":
        boards = setup["shared"]["boards"]
        assert [b["board_id"] for b in boards] == \
            built["boards"][built["boards"]["game_id"] == item].sort_values("board_number")["board_id"].tolist()
        layouts = [setup["roles"][role]["layouts"] for role in rules.ROLES]
        assert all(sorted(layout[n]) == sorted(b["image_ids"]) for layout in layouts for n, b in enumerate(boards))
        assert layouts[0] != layouts[1] and rules.setup(loaded, item, seed=8) != setup  # each player shuffled
    else:
        gold = built["gold"][built["gold"]["config"] == item]
        assert sorted(map(tuple, setup["roles"]["Architect"]["target"])) == \
            sorted(zip(gold["x"], gold["y"], gold["z"], gold["color"]))
    game = _started(store, package, item, rules.ROLES, setup)
    assert store.live_games.setup_for(game.id, viewer=BOB)["role"] == setup["roles"].get(rules.ROLES[1])
    extra = {"image_ids": []} if name == "gos" else {}
    live.send(store, package, game.id, "a", "message", {"text": "hello", **extra}, actor=ALICE)
    live.send(store, package, game.id, "b", "message", {"text": "hi", **extra}, actor=BOB)
    store.live_games.finish(game.id, actor=ALICE)
    path = live.export(store, package, None, tmp_path / "study", viewer=ALICE)  # None: every finished game
    read, skipped = package.build_frames(path)
    assert skipped == [] and read["utterances"]["text"].tolist() == ["hello", "hi"]


def test_a_study_creates_a_game_per_item_with_an_invitation_per_role(store, tmp_path):
    from types import SimpleNamespace

    from data_access.corpora import demo_path

    package = corpus_module("gos")
    built, _skipped = package.build_frames(demo_path("gos", tmp_path / "demo"))
    loaded = SimpleNamespace(frames=built)
    admin = _as(Role.ADMIN, "root")
    items = live.rules_of(package).items(loaded)[:2]
    with pytest.raises(ValueError, match="has no game"):
        live.create_study(store, package, loaded, items + ["no-such-game"], seed=1, actor=admin)
    with store.db.read() as conn:
        assert conn.execute("SELECT count(*) FROM live_games").fetchone()[0] == 0  # nothing created
    rows = live.create_study(store, package, loaded, items, seed=1, actor=admin)
    assert [(r["item"], r["role"]) for r in rows] == [(i, role) for i in items for role in ("Player A", "Player B")]
    assert len({r["token"] for r in rows}) == 4 and len({r["game_id"] for r in rows}) == 2
    store.live_games.join(rows[0]["token"], actor=ALICE)
    second = store.live_games.join(rows[1]["token"], actor=BOB)
    assert second.status == "playing" and second.player_of("Player A") == "alice"
    with pytest.raises(ValueError, match="1 to"):
        live.create_study(store, package, loaded, [], seed=1, actor=admin)


def test_the_command_line_creates_a_study_over_a_slices_items_and_says_why_it_cannot_in_one_line(tmp_path, capsys):
    import json

    from data_access.__main__ import main

    target = tmp_path / "store.sqlite3"
    opened = Store(target)
    saved = opened.slices.save("two targets", "config in (C5, C6)", owner="ann")
    opened.close()
    demo = tmp_path / "demo"
    from data_access.corpora import demo_path

    demo_path("minecraft", demo)  # the demo corpus on disk: --path is read as a released corpus is
    argv = ["live-study", "minecraft", str(target), "--path", str(demo_path("minecraft", demo))]
    assert main([*argv, "--slice", f"@{saved}", "--seed", "4"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert (printed["corpus"], printed["seed"], printed["games"]) == ("minecraft", 4, 2)
    assert [(r["item"], r["role"]) for r in printed["invitations"]] == [
        ("C5", "Architect"), ("C5", "Builder"), ("C6", "Architect"), ("C6", "Builder")]
    reopened = Store(target)
    joined = reopened.live_games.join(printed["invitations"][1]["token"], player="ben")
    assert (joined.item, joined.status) == ("C5", "waiting")  # the Builder's link: the Architect's is still open
    reopened.close()
    for extra, named in ((["--slice", "@999"], "no saved slice 999"), (["--slice", "no_such > 1"], "no_such"),
                         (["--slice", "dialog_id = absent"], "none of the 0 dialogs")):
        assert main([*argv, *extra]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and len(captured.err.strip().splitlines()) == 1 and named in captured.err
    assert main(["live-study", "minecraft", str(tmp_path / "absent.sqlite3"), "--slice", "split = test"]) == 2
    assert "is not a store" in capsys.readouterr().err and not (tmp_path / "absent.sqlite3").exists()


@pytest.mark.parametrize("name", ["codraw", "gos", "minecraft"])
def test_a_slices_dialogs_give_the_items_they_played_each_once(name, tmp_path):
    from types import SimpleNamespace

    from data_access.corpora import demo_path

    package = corpus_module(name)
    built, _skipped = package.build_frames(demo_path(name, tmp_path / "demo"))
    loaded = SimpleNamespace(frames=built)
    rules = live.rules_of(package)
    dialogs = built["dialogs"]["dialog_id"].astype(str).tolist()
    items = rules.dialog_items(loaded, dialogs[:2] + dialogs[:1] + ["absent"])
    assert 1 <= len(items) <= 2 and len(set(items)) == len(items) and set(items) <= set(rules.items(loaded))
    with pytest.raises(ValueError, match="none of the 1 dialogs"):
        live.study_items(package, loaded, ["absent"])
