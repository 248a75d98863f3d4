"""The Minecraft replay's server-drawn pictures: this step's placements and removals marked at their cells,
the target's missing blocks outlined, both pictures in one frame, and quick enough to draw on every click."""
from __future__ import annotations

import io
import time

import pytest
from PIL import Image

from corpora.minecraft.data import build_frames, demo_source, write_demo
from corpora.minecraft.data.blocks import COLOR_HEX
from corpora.minecraft.data.render import PLACED_MARK, REMOVED_MARK, _shade, isometric_frame, snapshot_image
from corpora.minecraft.data.view import replay_step, step_pictures
from data_access.common import LoadedCorpus

TOWER = "B1-A2-C1-1523304955000"  # step 2 puts up a blue tower (0, 1..5, 1); step 3 removes levels 2 and 4


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("minecraft-demo")
    write_demo(folder)
    frames, skipped = build_frames(demo_source(folder), lambda *a: None)
    return LoadedCorpus("minecraft", str(folder), True, frames, skipped)


def colours_near(image: Image.Image, point: tuple[float, float], radius: int = 1) -> set[tuple[int, int, int]]:
    u, v = round(point[0]), round(point[1])
    return {image.getpixel((u + du, v + dv)) for du in range(-radius, radius + 1) for dv in range(-radius, radius + 1)}


def decoded(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def test_a_step_s_placements_are_outlined_black_at_their_cells(loaded):
    pictures = step_pictures(loaded, TOWER, 2)
    build, frame = decoded(pictures.build_png), pictures.frame
    top = (0, 5, 1)  # the tower's top block, placed at this step, nothing in front of its top face
    x, y, z = top
    assert build.getpixel(tuple(round(c) for c in frame.to_screen(x, y + 0.5, z))) == _shade(COLOR_HEX["blue"], 1.15)
    back_edge_middle = frame.to_screen(x, y + 0.5, z - 0.5)  # the silhouette's top back-right edge
    assert PLACED_MARK in colours_near(build, back_edge_middle)
    assert REMOVED_MARK not in set(build.get_flattened_data())


def test_a_step_s_removals_are_magenta_wire_cubes_where_the_blocks_were(loaded):
    step = replay_step(loaded, TOWER, 3)
    assert sorted(b[:3] for b in step.removed) == [(0, 2, 1), (0, 4, 1)]
    pictures = step_pictures(loaded, TOWER, 3)
    build, frame = decoded(pictures.build_png), pictures.frame
    for x, y, z in ((0, 2, 1), (0, 4, 1)):
        # The removed cube's back vertical edge: the blocks left above and below it do not cover it.
        assert REMOVED_MARK in colours_near(build, frame.to_screen(x + 0.5, y, z - 0.5)), (x, y, z)
    assert PLACED_MARK not in colours_near(build, frame.to_screen(0, 5.5, 0.5))  # nothing was placed at step 3


def test_a_removal_under_a_layer_that_stays_or_behind_a_column_is_drawn_over_them():
    layer = [(x, 2, z, "orange") for x in (-1, 0, 1) for z in (-1, 0, 1)]  # covers (0, 1, 0) from above
    column = [(3, 1, 3, "green"), (3, 2, 3, "green")]  # stands in front of (2, 1, 2)
    removed = [(0, 1, 0, "blue"), (2, 1, 2, "red")]
    image = snapshot_image(layer + column, removed=removed, cell=26)
    frame = isometric_frame([b[:3] for b in layer + column + removed], cell=26)
    for x, y, z, _ in removed:
        # the crossing of the top face's diagonals, where a block in front had hidden the whole mark
        assert image.getpixel(tuple(round(c) for c in frame.to_screen(x, y + 0.5, z))) == REMOVED_MARK, (x, y, z)
    marked = sum(pixel == REMOVED_MARK for pixel in image.get_flattened_data())
    alone = sum(pixel == REMOVED_MARK for pixel in snapshot_image([], removed=removed, cell=26).get_flattened_data())
    assert marked == alone  # the whole mark, as on an empty grid


def test_the_target_outlines_missing_blocks_and_shares_the_build_s_frame(loaded):
    step = replay_step(loaded, TOWER, 3)
    pictures = step_pictures(loaded, TOWER, 3)
    build, target = decoded(pictures.build_png), decoded(pictures.target_png)
    assert build.size == target.size == pictures.frame.size
    assert step.gold_missing
    x, y, z, colour = max(step.gold_missing, key=lambda b: b[0] + b[1] + b[2])
    centre = pictures.frame.to_screen(x, y + 0.5, z)  # a missing block is an outline: its top face stays empty
    assert target.getpixel(tuple(round(c) for c in centre)) == (255, 255, 255)


def test_a_removed_cell_drawn_alone_and_a_placed_block_alone():
    frame = isometric_frame([(0, 1, 0)], cell=26)
    removed = snapshot_image([], removed=[(0, 1, 0, "red")], cell=26)
    assert removed.size == frame.size
    assert removed.getpixel(tuple(round(c) for c in frame.to_screen(0, 1.5, 0))) == REMOVED_MARK  # the cross
    placed = snapshot_image([(0, 1, 0, "red")], highlight=[(0, 1, 0, "red")], cell=26)
    assert PLACED_MARK in colours_near(placed, frame.to_screen(-0.5, 1, 0.5))  # the silhouette's left edge
    plain = snapshot_image([(0, 1, 0, "red")], cell=26)
    assert PLACED_MARK not in colours_near(plain, frame.to_screen(-0.5, 1, 0.5))
    assert placed.mode == "RGB" and snapshot_image([], cell=26, mode="P").mode == "P"


def test_a_step_s_pictures_take_milliseconds(loaded):
    step_pictures(loaded, TOWER, 1)
    started = time.process_time()
    for step in range(1, 10):
        step_pictures(loaded, TOWER, step)
    assert (time.process_time() - started) / 9 < 0.1  # ~10 ms here; the real corpus's longest games ~20 ms
