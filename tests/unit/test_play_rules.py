"""Each corpus's play rules in detail (issue 49), on the demo corpora: what a move may be (CoDraw's pieces, one of
each clip art, within reach; A Game Of Sorts' image of the round's board, ranked once; Minecraft's feasible actions
in the build region), where a step starts (the person's own canvas; the human Builder's structure; the dialog up to
where the pair began to agree on a rank) and the clip-art atlas the CoDraw game draws from (every piece at its own
size, none overlapping)."""
from __future__ import annotations

import pytest
from PIL import Image

from corpora.codraw.data import play as codraw_play
from corpora.gos.data import play as gos_play
from corpora.minecraft.data import play as minecraft_play
from data_access.corpora import demo_path, load_path


@pytest.fixture(scope="module")
def loaded():
    return {name: load_path(name, demo_path(name)) for name in ("codraw", "gos", "minecraft")}


def test_codraw_moves_are_pieces_of_the_palette_one_of_each_clip_art(loaded):
    corpus = loaded["codraw"]
    dialog = codraw_play.playable(corpus)[0]
    mike = {"type": 2, "object": 12, "x": 100, "y": 200, "z": 1, "flip": 1}
    assert codraw_play.checked_move(corpus, dialog, "Drawer", 1, {"canvas": [mike], "reply": "ok"}, []) == {
        "canvas": [mike], "reply": "ok"}
    refused = [
        {"canvas": [mike, {**mike, "object": 3}]},  # Mike twice, in two poses
        {"canvas": [{**mike, "x": 5000}]}, {"canvas": [{**mike, "z": 3}]}, {"canvas": [{**mike, "flip": True}]},
        {"canvas": [{**mike, "type": 8}]}, {"canvas": [{**mike, "type": 0, "object": 8}]},
        {"canvas": [{**mike, "x": float("nan")}]}, {"canvas": [mike], "reply": "x" * 2001}, {"canvas": [mike] * 59},
    ]
    for move in refused:
        with pytest.raises(ValueError):
            codraw_play.checked_move(corpus, dialog, "Drawer", 1, move, [])
    with pytest.raises(ValueError):
        codraw_play.checked_move(corpus, dialog, "Teller", 1, {"canvas": []}, [])
    view = codraw_play.step_view(corpus, dialog, "Drawer", 2, [{"canvas": [mike], "reply": "hello"}])
    assert view["canvas"] == [mike] and view["lines"][0]["reply"] == "hello" and len(view["lines"]) == 2
    setup = codraw_play.setup(corpus, dialog, "Drawer")
    assert [g["title"] for g in setup["groups"]] == ["Sky", "Trees and large objects", "Mike", "Jenny", "Animals",
                                                     "Clothing", "Food", "Toys"]
    assert sum(len(g["pieces"]) for g in setup["groups"]) == 126 and not setup["art"]


def test_codraw_clip_art_atlas_holds_every_piece_at_its_size(tmp_path, loaded):
    from corpora.codraw.views import play as codraw_views

    names = ["a_0s.png", "hb0_12s.png", "p_7s.png", "background.png"]
    sizes = {"a_0s.png": (178, 258), "hb0_12s.png": (108, 202), "p_7s.png": (368, 766), "background.png": (500, 400)}
    for name in names:
        Image.new("RGBA", sizes[name], (10, 200, 30, 255)).save(tmp_path / name)
    atlas, places, background, size = codraw_views._atlas(str(tmp_path), codraw_views._stamp(str(tmp_path), tuple(names)))
    assert set(places) == {"a_0s.png", "hb0_12s.png", "p_7s.png"} and background is not None
    for name, (x, y, w, h) in places.items():
        assert (w, h) == sizes[name] and x + w <= size[0] and y + h <= size[1]
    boxes = list(places.values())
    for i, (x, y, w, h) in enumerate(boxes):
        for (u, v, p, q) in boxes[i + 1:]:
            assert x + w <= u or u + p <= x or y + h <= v or v + q <= y  # no two pieces overlap
    with Image.open(__import__("io").BytesIO(atlas)) as sheet:
        assert sheet.size == size


def test_gos_moves_rank_each_image_of_the_round_once(loaded):
    corpus = loaded["gos"]
    interaction = gos_play.playable(corpus)[0]
    seat = gos_play.seats(corpus, interaction)[0]
    first = gos_play.human_move(corpus, interaction, seat, 1)
    assert gos_play.checked_move(corpus, interaction, seat, 1, first, []) == first
    with pytest.raises(ValueError, match="ranked already"):
        gos_play.checked_move(corpus, interaction, seat, 2, first, [first])
    with pytest.raises(ValueError, match="not on the board"):
        gos_play.checked_move(corpus, interaction, seat, 1, {"image_id": "elsewhere"}, [])
    with pytest.raises(ValueError):
        gos_play.checked_move(corpus, interaction, "a stranger", 1, first, [])
    assert gos_play.step_count(corpus, interaction, seat) == 36 and len(gos_play.seats(corpus, interaction)) == 2
    layouts = {s: gos_play.setup(corpus, interaction, s)["rounds"][0]["layout"] for s in gos_play.seats(corpus, interaction)}
    assert len(set(map(tuple, layouts.values()))) == 2  # each player's own layout


def test_gos_dialog_stops_where_the_pair_began_to_agree(loaded):
    corpus = loaded["gos"]
    interaction = gos_play.playable(corpus)[0]
    seat = gos_play.seats(corpus, interaction)[0]
    steps = corpus.frames["steps"]
    round_steps = steps[(steps["interaction_id"] == interaction) & (steps["round"] == 1)]
    rank_one = gos_play.human_move(corpus, interaction, seat, 1)["image_id"]
    view = gos_play.step_view(corpus, interaction, seat, 1, [])
    first_lock = round_steps[(round_steps["kind"] == "lock") & (round_steps["image_id"] == rank_one)].iloc[-2]
    before = round_steps[(round_steps["step"] < int(first_lock["step"])) & (round_steps["kind"] == "message")]
    said = [line["text"] for line in view["lines"] if line["kind"] == "message"]
    assert said == before.sort_values("step")["text"].tolist()  # the messages up to the pair's first lock of rank 1
    assert all(line["who"] != seat for line in view["lines"] if line["kind"] != "message")  # not the seat's own locks
    assert all(not line["mine"] for line in view["lines"] if line["kind"] != "message")
    assert view["ranked"] == [] and gos_play.step_view(corpus, interaction, seat, 2, [{"image_id": rank_one}])["ranked"] == [rank_one]


def test_minecraft_moves_are_feasible_actions_in_the_region(loaded):
    corpus = loaded["minecraft"]
    game = minecraft_play.playable(corpus)[0]
    start = minecraft_play.step_view(corpus, game, "Builder", 1, [])["start"]
    assert start == []  # the first sample starts from the empty world
    place = {"action": "place", "x": 0, "y": 1, "z": 0, "color": "red"}
    assert minecraft_play.checked_move(corpus, game, "Builder", 1, {"actions": [place]}, []) == {"actions": [place]}
    for actions in ([place, place], [{**place, "y": 0}], [{**place, "color": "pink"}], [{"action": "remove", "x": 0, "y": 1, "z": 0}],
                    [{**place, "x": True}], [place] * 1001):
        with pytest.raises(ValueError):
            minecraft_play.checked_move(corpus, game, "Builder", 1, {"actions": actions}, [])
    human = minecraft_play.human_move(corpus, game, "Builder", 1)
    assert minecraft_play.run_lines(corpus, game, "Builder", [human])[0]["actions"] == human["actions"]
