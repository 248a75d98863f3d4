"""Collected games written in each corpus's own files (issue 50) and read back by the very readers and frames the app
uses for the released corpora: every message, move, peek, lock and rank comes back, in order, and the scores the
files carry (CoDraw's stored 7-term score; the ranks A Game Of Sorts' reader derives; Minecraft's outcome against its
gold) equal an independent recomputation written here from FORMATS.md, not with the app's metric code."""
from __future__ import annotations

import json
import math
from itertools import product

import pytest

from corpora.codraw.data import frames as codraw_frames
from corpora.codraw.data import writer as codraw_writer
from corpora.codraw.data.reader import read_file
from corpora.codraw.data.scenes import Clipart, identity_of, png_name
from corpora.gos.data import frames as gos_frames
from corpora.gos.data import writer as gos_writer
from corpora.minecraft.data import frames as minecraft_frames
from corpora.minecraft.data import writer as minecraft_writer
from corpora.minecraft.data.blocks import COLOR_IDS, encode

# ---------------------------------------------------------------------------------------------------- CoDraw


def clipart(type_id, object_id, x, y, z=0, flip=0):
    return Clipart(identity_of(type_id, object_id), png_name(type_id, object_id), type_id, object_id, x, y, z, flip)


SUN = clipart(0, 3, 420, 40, 2)
TREE = clipart(1, 8, 120, 180, 1, 1)
BOY = clipart(2, 12, 250, 270)  # pose 2 (kicking), expression 2 (smiling)
DOG = clipart(4, 2, 330, 330, 0, 1)
TARGET = (SUN, TREE, BOY, DOG)
PALETTE = (SUN, TREE, clipart(2, 0, 0, 0), clipart(2, 12, 0, 0), DOG, clipart(7, 4, 0, 0))


def moved(c, **changes):
    return Clipart(*(changes.get(name, getattr(c, name)) for name in ("identity", "name", "type", "object", "x", "y",
                                                                     "z", "flip")))


CODRAW_ROUNDS = (
    codraw_writer.CollectedRound("", "hi, ready when you are", ()),  # the Drawer speaks first, nothing drawn
    codraw_writer.CollectedRound("a small sun top right", "ok", (moved(SUN, x=400.5, y=-2.0),)),
    codraw_writer.CollectedRound("a tree on the left <b>facing left</b>", "done",
                                 (moved(SUN, x=400.5, y=-2.0), moved(TREE, x=140, flip=0))),
    codraw_writer.CollectedRound("a smiling boy kicking, big, in the middle", "like this?",
                                 (moved(SUN, x=400.5, y=-2.0), moved(TREE, x=140, flip=0), moved(BOY, x=260, z=1)),
                                 peeked=True),
    codraw_writer.CollectedRound("", "i removed the sun", (moved(TREE, x=140, flip=0), moved(BOY, x=260, z=1))),
)


def codraw_dialog(key="study_00001", image_id=1234):
    return codraw_writer.CollectedDialog(
        key, image_id, TARGET, PALETTE, CODRAW_ROUNDS,
        teller=codraw_writer.Session("/#teller1", 1_700_000_000_000, 1_700_000_095_000),
        drawer=codraw_writer.Session("/#drawer1", 1_700_000_002_000, 1_700_000_120_500))


def independent_original_score(drawing, target):
    """FORMATS.md 0.4, the stored metric: common cliparts by identity, IoU, 7 terms over truncated positions, pairs
    ordered with i = j, each term times IoU and its weight."""
    weights = (5, -1, -1, -1, -1, -0.5, -0.5)
    drawn = {c.identity: c for c in drawing}
    common = [(t, drawn[t.identity]) for t in target if t.identity in drawn]
    union = len({c.identity for c in drawing} | {c.identity for c in target})
    iou = len(common) / union if union else 0.0
    things = [(t, d) for t, d in common if t.type not in (2, 3)]
    people = [(t, d) for t, d in common if t.type in (2, 3)]

    def ratio(count, of):
        return count / of if of else 0.0

    x = [(int(t.x), int(d.x)) for t, d in common]
    y = [(int(t.y), int(d.y)) for t, d in common]
    pairs = len(common) ** 2
    terms = [1.0,
             ratio(sum(t.flip != d.flip for t, d in things), len(things)),
             ratio(sum(t.object != d.object or t.flip != d.flip for t, d in people), len(people)),
             ratio(sum(t.z != d.z for t, d in common), len(common)),
             ratio(sum(math.hypot((xt - xd) / 500, (yt - yd) / 400) for (xt, xd), (yt, yd) in zip(x, y)), len(common)),
             ratio(sum((a[0] - b[0]) * (a[1] - b[1]) < 0 for a in x for b in x), pairs),
             ratio(sum((a[0] - b[0]) * (a[1] - b[1]) < 0 for a in y for b in y), pairs)]
    weighted = [w * r * iou for w, r in zip(weights, terms)]
    return sum(weighted), [iou] + terms[1:], weighted


def test_codraw_game_round_trips_through_the_apps_reader(tmp_path):
    path = codraw_writer.write_corpus(tmp_path, [codraw_dialog(), codraw_dialog("study_00002", 99)])
    assert path.name == "CoDraw_1_0.json"
    entries, stat, _lenient = read_file(path, [])
    raw = dict((key, dialog) for _label, key, dialog in entries)["study_00001"]
    assert raw["image_id"] == 1234 and raw["socketId"] == "/#teller1/#drawer1"
    assert [("peeked" in r) for r in raw["dialog"]] == [False, False, False, True, False]  # only after the peek
    assert raw["dialog"][0]["abs_b"] == raw["dialog"][0]["abs_d"] == "" and raw["dialog"][0]["score"] == []
    assert [r["abs_b"] for r in raw["dialog"][1:]] == [r["abs_d"] for r in raw["dialog"][:-1]]
    assert raw["dialog"][1]["abs_d"].count("-10000") == 2 * (len(PALETTE) - 1)  # the palette is in every drawing
    assert stat["/#drawer1"] == {"start": [1_700_000_002_000], "end": 1_700_000_120_500, "duration": 118.5, "round": 5}

    frames, skipped = codraw_frames.build_frames(path)
    assert skipped == []
    dialogs, rounds = frames["dialogs"], frames["rounds"]
    dialog = dialogs[dialogs["dialog_id"] == "study_00001"].iloc[0]
    assert (dialog["split"], dialog["image_id"], dialog["n_rounds"], dialog["peek_round"]) == ("study", 1234, 5, 4)
    assert dialog["duration_s"] == 118.5  # the longer of the two sessions
    mine = rounds[rounds["dialog_id"] == "study_00001"]
    assert mine["msg_t"].tolist() == [r.msg_t for r in CODRAW_ROUNDS]  # markup kept as the text it is
    assert mine["msg_d"].tolist() == [r.msg_d for r in CODRAW_ROUNDS]
    assert mine["peeked"].tolist() == [r.peeked for r in CODRAW_ROUNDS]
    assert mine["score_status"].tolist() == ["empty"] + ["present"] * 4
    assert mine["stored_reproduced"].iloc[1:].tolist() == [True] * 4  # the app's vectorised metric agrees
    for row, turn in zip(mine.iloc[1:].itertuples(), CODRAW_ROUNDS[1:]):
        score, terms, _weighted = independent_original_score(turn.canvas, TARGET)
        assert row.stored_score == pytest.approx(score, abs=1e-12)
        assert list(row.stored_terms) == pytest.approx(terms, abs=1e-12)
    # Every move comes back: each round's canvas as the cliparts parsed from its scene.
    cliparts = frames["cliparts"]
    for row, turn in zip(mine.iloc[1:].itertuples(), CODRAW_ROUNDS[1:]):
        drawn = cliparts[cliparts["scene_id"] == row.after_scene]
        assert sorted(zip(drawn["name"], drawn["x"], drawn["y"], drawn["z"], drawn["flip"])) == \
            sorted((c.name, c.x, c.y, c.z, c.flip) for c in turn.canvas)


@pytest.mark.parametrize("change, problem", [
    (dict(key="study-1"), "not <split>_<number>"),
    (dict(rounds=(codraw_writer.CollectedRound("a", "b", (), peeked=True),) * 2), "peeks once"),
    (dict(rounds=(codraw_writer.CollectedRound("a", "b", (moved(SUN, x=5000),)),)), "far outside the canvas"),
    (dict(rounds=(codraw_writer.CollectedRound("a", "b", (SUN, moved(SUN, x=3))),)), "on the canvas twice"),
    (dict(teller=codraw_writer.Session("teller", 0, 1)), "socket id"),
])
def test_codraw_writer_refuses_what_the_corpus_cannot_hold(tmp_path, change, problem):
    values = {**codraw_dialog().__dict__, **change}
    with pytest.raises(ValueError, match=problem):
        codraw_writer.write_corpus(tmp_path, [codraw_writer.CollectedDialog(**values)])
    assert not (tmp_path / "CoDraw_1_0.json").exists()


# ---------------------------------------------------------------------------------------------- A Game Of Sorts

IMAGES = tuple(f"img{n}" for n in range(1, 10))
BOARDS = tuple(gos_writer.Board("game_7_toys_1", n, f"game_7_toys_1_board_{n}", f"Which toy for case {n}?",
                                "Please rank these toys.", IMAGES) for n in (1, 2))
CREATED = 1_700_000_000_000
ANN, BOB = "ann-study-1", "bob-study-2"


def gos_round(board_id, start, order, mismatch=False):
    """A round: a message each, a manual unlock, optionally a mismatch (two automatic unlocks), the nine ranks in
    ``order``, then a message after the round."""
    t = iter(range(start, start + 10_000, 7))
    events = [gos_writer.Message(ANN, "hi <script>alert(1)</script>", (), next(t)),
              gos_writer.Message(BOB, f"{order[0]} or {order[1]}?", (order[0], order[1]), next(t)),
              gos_writer.Lock(ANN, "lock", order[5], next(t)), gos_writer.Lock(ANN, "unlock manual", order[5], next(t))]
    if mismatch:
        events += [gos_writer.Lock(ANN, "lock", order[0], next(t)), gos_writer.Lock(BOB, "lock", order[1], next(t)),
                   gos_writer.Lock(BOB, "unlock automatic", order[1], next(t)),
                   gos_writer.Lock(ANN, "unlock automatic", order[0], next(t))]
    for image in order:
        events += [gos_writer.Message(BOB, f"{image} next", (image,), next(t)),
                   gos_writer.Lock(BOB, "lock", image, next(t)), gos_writer.Lock(ANN, "lock", image, next(t))]
    events.append(gos_writer.Message(ANN, "nice!", (), next(t)))
    layouts = {ANN: IMAGES[::-1], BOB: IMAGES[3:] + IMAGES[:3]}
    return gos_writer.CollectedRound(board_id, layouts, tuple(events))


def gos_interaction():
    rounds = (gos_round("game_7_toys_1_board_2", CREATED + 20_000, IMAGES[::2] + IMAGES[1::2], mismatch=True),
              gos_round("game_7_toys_1_board_1", CREATED + 60_000, IMAGES))
    return gos_writer.CollectedInteraction(gos_writer.object_id(CREATED, 1), "game_7_toys_1", (ANN, BOB), rounds)


def independent_ranks(events):
    """FORMATS.md A.4: an image is ranked when both players' pending locks are on it; unlocks clear a pending lock."""
    pending, ranks = {}, []
    for e in events:
        if isinstance(e, gos_writer.Lock):
            if e.event_type == "lock":
                pending[e.username] = e.image_id
                if list(pending.values()).count(e.image_id) == 2:
                    ranks.append(e.image_id)
                    pending = {}
            else:
                pending.pop(e.username, None)
    return ranks


def test_gos_interaction_round_trips_through_the_apps_reader(tmp_path):
    interaction = gos_interaction()
    gos_writer.write_corpus(tmp_path, [interaction], BOARDS)
    lines = (tmp_path / "a-game-of-sorts_log_interaction_all.jsonl").read_text().splitlines()
    assert [json.loads(line)["timestamp"] for line in lines] == sorted(json.loads(line)["timestamp"] for line in lines)
    frames, skipped = gos_frames.build_frames(tmp_path)
    assert skipped == []
    messages, locks, ranks, layouts = (frames[k] for k in ("messages", "lock_events", "ranks", "layouts"))
    assert frames["dialogs"]["players"].iloc[0] == [ANN, BOB]
    for number, turn in enumerate(interaction.rounds, start=1):
        written_messages = [e for e in turn.events if isinstance(e, gos_writer.Message)]
        read = messages[messages["round"] == number]
        assert read["text"].tolist() == [m.text for m in written_messages]
        assert read["username"].tolist() == [m.username for m in written_messages]
        assert [list(ids) for ids in read["image_ids"]] == [list(m.image_ids) for m in written_messages]
        assert read["in_round"].tolist() == [True] * (len(written_messages) - 1) + [False]  # after the ninth rank
        written_locks = [e for e in turn.events if isinstance(e, gos_writer.Lock)]
        read_locks = locks[locks["round"] == number]
        assert list(zip(read_locks["username"], read_locks["lock_event_type"], read_locks["image_id"])) == \
            [(e.username, e.event_type, e.image_id) for e in written_locks]
        read_ranks = ranks[ranks["round"] == number].sort_values("rank")
        assert read_ranks["image_id"].tolist() == independent_ranks(turn.events) and len(read_ranks) == 9
        for player in (ANN, BOB):
            layout = layouts[(layouts["round"] == number) & (layouts["username"] == player)].sort_values("position")
            assert tuple(layout["image_id"]) == turn.layouts[player]
    assert frames["rounds"]["mismatches"].tolist() == [1, 0]
    assert frames["rounds"]["board_id"].tolist() == ["game_7_toys_1_board_2", "game_7_toys_1_board_1"]


def test_gos_writer_refuses_times_that_do_not_increase_and_foreign_images(tmp_path):
    interaction = gos_interaction()
    first = interaction.rounds[0]
    doubled = gos_writer.CollectedRound(first.board_id, first.layouts, first.events[:1] + first.events[:1])
    with pytest.raises(ValueError, match="increase strictly"):
        gos_writer.write_corpus(tmp_path, [gos_writer.CollectedInteraction(
            interaction.interaction_id, interaction.game_id, interaction.players, (doubled,))], BOARDS)
    foreign = gos_writer.CollectedRound(first.board_id, first.layouts,
                                        (gos_writer.Lock(ANN, "lock", "not-on-board", CREATED + 1),))
    with pytest.raises(ValueError, match="no lock event of this board"):
        gos_writer.write_corpus(tmp_path, [gos_writer.CollectedInteraction(
            interaction.interaction_id, interaction.game_id, interaction.players, (foreign,))], BOARDS)
    assert not any(tmp_path.iterdir())


# ---------------------------------------------------------------------------------------------------- Minecraft

GOLD = [(1, 1, 0, "blue"), (0, 3, 0, "blue"), (1, 3, 0, "blue"), (0, 4, 0, "blue")]


def minecraft_game(start_ms=1_700_000_000_000):
    c, p, r = minecraft_writer.Chat, minecraft_writer.Place, minecraft_writer.Remove
    events = (c("Architect", "a blue block, then a tower of three next to it", 2_000), c("Builder", "ok", 4_500),
              p(0, 1, 1, "blue", 6_000), p(-1, 1, 1, "blue", 7_000, (1.5, 1.0, -2.0, 90.0, 30.0)),
              p(-1, 2, 1, "red", 7_400), c("Architect", "the top one is blue, and one more on top", 9_000),
              r(-1, 2, 1, 10_000), p(-1, 3, 1, "blue", 11_000), p(-1, 2, 1, "blue", 11_000),
              c("Builder", "done <i>I think</i>", 12_000))
    return minecraft_writer.CollectedGame(3, 4, "C9", start_ms, events)


def independent_f1(built, gold):
    """FORMATS.md B.5: the best of the four rotations about y and x/z shifts of -10..10, F1 of equal blocks."""
    best = 0
    for rotation, dx, dz in product(range(4), range(-10, 11), range(-10, 11)):
        turned = set()
        for x, y, z, color in built:
            for _ in range(rotation):
                x, z = -z, x
            turned.add((x + dx, y, z + dz, color))
        best = max(best, len(turned & set(gold)))
    return 2 * best / (len(built) + len(gold)), best == len(built) == len(gold)


def test_minecraft_game_round_trips_through_the_apps_reader(tmp_path):
    game = minecraft_game()
    gold = {"C9": [encode(x, y, z, COLOR_IDS[color]) for x, y, z, color in GOLD]}
    minecraft_writer.write_corpus(tmp_path / "study", [game], gold, {"C9": "test"})
    assert json.loads((tmp_path / "study" / "logs" / "splits.json").read_text()) == {"train": [], "val": [], "test": ["C9"]}
    frames, skipped = minecraft_frames.build_frames(tmp_path / "study")
    assert skipped == []
    dialog = frames["dialogs"].iloc[0]
    assert (dialog["dialog_id"], dialog["split"], dialog["config"], dialog["builder"], dialog["architect"]) == \
        (game.experiment_id, "test", "C9", "B3", "A4")
    assert dialog["duration_s"] == 12.0
    chats = [e for e in game.events if isinstance(e, minecraft_writer.Chat)]
    utterances = frames["utterances"]
    assert list(zip(utterances["role"], utterances["text"])) == [(e.speaker, e.text) for e in chats]
    actions = frames["actions"]
    moves = [("placement" if isinstance(e, minecraft_writer.Place) else "removal", e.x, e.y, e.z)
             for e in game.events if not isinstance(e, minecraft_writer.Chat)]
    assert list(zip(actions["kind"], actions["x"], actions["y"], actions["z"])) == moves
    assert actions["color"].tolist() == ["blue", "blue", "red", "red", "blue", "blue"]
    built = [(0, 1, 1, "blue"), (-1, 1, 1, "blue"), (-1, 3, 1, "blue"), (-1, 2, 1, "blue")]
    f1, exact = independent_f1(built, GOLD)
    assert dialog["outcome_f1"] == pytest.approx(f1) and bool(dialog["outcome_match"]) is exact
    assert frames["bap_samples"]["game"].tolist() == [game.experiment_id] * 2  # two runs of actions after chat
    states = frames["states"]
    assert states["n_blocks"].tolist() == [0, 0, 0, 1, 2, 3, 3, 2, 3, 4, 4]


@pytest.mark.parametrize("event, problem", [
    (minecraft_writer.Place(6, 1, 0, "blue", 1), "outside the build region"),
    (minecraft_writer.Place(0, 1, 0, "pink", 1), "not a block colour"),
    (minecraft_writer.Remove(0, 1, 0, 1), "no block to pick up"),
    (minecraft_writer.Chat("Teller", "hi", 1), "Architect or the Builder"),
])
def test_minecraft_writer_refuses_moves_the_game_does_not_allow(tmp_path, event, problem):
    game = minecraft_writer.CollectedGame(1, 2, "C9", 1_700_000_000_000, (event,))
    with pytest.raises(ValueError, match=problem):
        minecraft_writer.write_corpus(tmp_path / "study", [game], {"C9": []}, {})
    assert not (tmp_path / "study").exists()


def test_minecraft_writer_writes_only_into_an_empty_folder(tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "released.txt").write_text("x")
    with pytest.raises(ValueError, match="not empty"):
        minecraft_writer.write_corpus(tmp_path / "corpus", [minecraft_game()], {"C9": []}, {})
