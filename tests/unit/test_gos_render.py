"""The board renderer and the replay view model of A Game Of Sorts."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from corpora.gos.data import build_frames, replay_step, round_steps, write_demo
from corpora.gos.data.render import (
    BADGE_FILL,
    LOCK_COLOUR,
    MISMATCH_COLOUR,
    PALETTE,
    TileLabel,
    badge_centre,
    colour_for,
    render_board,
    short_ids,
    tile_origin,
)
from data_access.common import LoadedCorpus
from data_access.corpora import load_path

from .test_gos_frames import IID, A, B, write_corpus

IDS = [f"n0208{i}_{i}" for i in range(9)]
LABELS = {image_id: TileLabel("dogs", image_id[:7], colour_for(image_id, n)) for n, image_id in enumerate(IDS)}


def hex_rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def test_board_size_and_placeholder_colours():
    board = render_board(IDS, LABELS, tile_px=100, gap=10)
    assert board.size == (10 + 3 * 110, 10 + 3 * 110)
    x, y = tile_origin(5, 100, 10)
    assert board.getpixel((x + 3, y + 3)) == hex_rgb(PALETTE[4])  # tile corner shows the image's colour


def test_rank_badge_lock_and_mismatch_are_drawn_on_the_right_tiles():
    board = render_board(IDS, LABELS, ranks={IDS[2]: 1}, pending=IDS[7], tile_px=120, gap=10)
    cx, cy = badge_centre(3, 120, 10)
    assert board.getpixel((cx - 8, cy + 6)) == BADGE_FILL  # inside the circle, beside the digit
    x, y = tile_origin(8, 120, 10)
    assert board.getpixel((x + 1, y + 60)) == LOCK_COLOUR
    plain = render_board(IDS, LABELS, tile_px=120, gap=10)
    cx, cy = badge_centre(4, 120, 10)
    assert plain.getpixel((cx - 8, cy + 6)) != BADGE_FILL
    flashed = render_board(IDS, LABELS, mismatch=IDS[0], tile_px=120, gap=10)
    x, y = tile_origin(1, 120, 10)
    assert flashed.getpixel((x + 1, y + 60)) == MISMATCH_COLOUR


def test_real_pictures_are_used_when_the_image_folder_has_them(tmp_path):
    Image.new("RGB", (300, 200), (1, 2, 3)).save(tmp_path / f"{IDS[0]}.jpg")
    board = render_board(IDS, LABELS, tile_px=100, gap=10, image_folder=str(tmp_path))
    x, y = tile_origin(1, 100, 10)
    assert all(abs(a - b) <= 3 for a, b in zip(board.getpixel((x + 50, y + 30)), (1, 2, 3)))
    x, y = tile_origin(2, 100, 10)
    assert board.getpixel((x + 3, y + 3)) == hex_rgb(PALETTE[1])  # no file: placeholder


def test_short_ids_grow_until_they_are_unique():
    shorts = short_ids(["n02088238_13799", "n02088364_12154", "paul-signac_the-bay"])
    assert shorts == {"n02088238_13799": "n020882", "n02088364_12154": "n020883", "paul-signac_the-bay": "paul-s"}


@pytest.fixture
def small(tmp_path):
    frames, skipped = build_frames(write_corpus(tmp_path / "gos"), lambda *_: None)
    return LoadedCorpus("gos", str(tmp_path / "gos"), False, frames, skipped)


def test_view_of_a_mismatch_step(small):
    view = replay_step(small, IID, 6, 1)
    assert view.event_level == "warning" and view.event.startswith("Mismatch")
    assert [b.username for b in view.boards] == [A, B]
    for board in view.boards:
        assert Image.open(io.BytesIO(board.png)).size == (12 + 3 * 162, 12 + 162)
    assert view.ranks.empty and not view.round_complete
    assert list(view.transcript["later"]) == [False] * 6 + [True] * 10


def test_view_at_a_rank_and_at_the_end(small):
    view = replay_step(small, IID, 11, 1)
    assert view.event_level == "success" and "rank 1" in view.event
    assert list(view.ranks["image_id"]) == ["n1_a"] and list(view.ranks["at step"]) == [11]
    last = replay_step(small, IID, 99, 1)  # clamped to the last step
    assert last.step == 16 and last.round_complete
    assert list(last.comparison.columns) == ["rank", f"{IID[:8]} (this play)"]
    assert last.agreement.empty  # nobody else played this board
    assert replay_step(small, IID, 1, 7) is None
    assert round_steps(small, IID) == {1: 16}


def test_view_on_the_demo_compares_the_plays_of_a_board(tmp_path):
    write_demo(tmp_path / "demo")
    loaded = load_path("gos", tmp_path / "demo", cache_root=tmp_path / "cache")
    interaction = loaded.dialogs["dialog_id"].iloc[0]
    n_steps = round_steps(loaded, interaction)[2]
    view = replay_step(loaded, interaction, n_steps, 2)
    assert view.round_complete and len(view.ranks) == 9
    assert view.comparison.shape == (9, 3) and len(view.agreement) == 1
    assert -1 <= view.agreement["Kendall tau"].iloc[0] <= 1
