"""Block keys, gold XML quirks, alignment (rotation + shift), F1 and perspective coordinates."""
from __future__ import annotations

import numpy as np
import pytest

from corpora.minecraft.data.blocks import (
    COLOR_IDS,
    GRID_SHAPE,
    all_in_region,
    best_alignment,
    block_f1,
    decode,
    encode,
    parse_gold_xml,
    perspective_coordinates,
    rotate_xz,
)


def keys(blocks):
    return [encode(x, y, z, COLOR_IDS[c]) for x, y, z, c in blocks]


C63_GOLD = [(1, 1, 0, "blue"), (0, 3, 0, "blue"), (1, 3, 0, "blue"), (0, 4, 0, "blue"), (0, 5, 0, "blue"), (1, 5, 0, "blue")]
C63_FINAL = [(0, 1, 1, "blue"), (-1, 3, 1, "blue"), (0, 3, 1, "blue"), (-1, 4, 1, "blue"), (-1, 5, 1, "blue"), (0, 5, 1, "blue")]


def test_keys_round_trip_and_sort_like_x_y_z_type():
    blocks = [(-8, 1, 6, "yellow"), (0, 9, -5, "blue"), (5, 3, 0, "green"), (0, 9, -5, "red")]
    assert [decode(k) for k in keys(blocks)] == blocks
    assert [decode(k) for k in sorted(keys(blocks))] == sorted(blocks)
    assert all_in_region(keys(blocks[1:])) and not all_in_region(keys(blocks[:1]))


def test_gold_xml_is_parsed_line_by_line_with_offsets_both_spellings_and_spaced_ends():
    text = ('<DrawBlock type="cwcmod:cwc_minecraft_blue_rn" x="101" y="1" z="100"/>\n'
            '<DrawBlock type="cwcmod:cwc_orange_rn" x="95" y="9" z="105" />\n\n')
    assert [decode(k) for k in parse_gold_xml(text)] == [(1, 1, 0, "blue"), (-5, 9, 5, "orange")]


@pytest.mark.parametrize("bad", ['<DrawBlock type="cwcmod:cwc_blue_rn" x="1" y="1"/>',
                                 '<DrawBlock type="cwcmod:cwc_pink_rn" x="1" y="1" z="1"/>', "<DrawBlock x="])
def test_a_broken_gold_line_names_its_line(bad):
    with pytest.raises(ValueError, match="C9.xml line 2"):
        parse_gold_xml('<DrawBlock type="cwcmod:cwc_blue_rn" x="100" y="1" z="100"/>\n' + bad, "C9.xml")


def test_the_c63_example_matches_after_a_translation():
    alignment = best_alignment(keys(C63_FINAL), keys(C63_GOLD))
    assert alignment.exact and alignment.f1 == 1.0
    assert (alignment.rotation, alignment.dx, alignment.dz) == (0, 1, -1)


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_a_rotated_and_shifted_build_matches(rotation):
    gold = np.array([[x, y, z, COLOR_IDS[c]] for x, y, z, c in C63_GOLD])
    x, z = rotate_xz(gold[:, 0], gold[:, 2], rotation)
    built = [(int(a) - 2, int(y), int(b) + 3, c) for a, b, (_, y, _, c) in zip(x, z, C63_GOLD)]
    alignment = best_alignment(keys(built), keys(C63_GOLD))
    assert alignment.exact
    moved = alignment.gold_to_built(gold)
    assert sorted(map(tuple, moved.tolist())) == sorted((bx, by, bz, COLOR_IDS[c]) for bx, by, bz, c in built)


def test_f1_counts_colour_and_position():
    partial = C63_FINAL[:3]  # 3 of 6 built
    assert block_f1(keys(partial), keys(C63_GOLD)) == pytest.approx(2 * 3 / 9)
    wrong_colour = [(x, y, z, "red") for x, y, z, _ in C63_FINAL]
    assert block_f1(keys(wrong_colour), keys(C63_GOLD)) == 0.0
    assert block_f1([], keys(C63_GOLD)) == 0.0
    assert not best_alignment(keys(C63_FINAL + [(3, 1, 3, "red")]), keys(C63_GOLD)).exact


def test_perspective_coordinates_follow_the_repo_formula():
    grid = perspective_coordinates(1.5, 2.0, -0.5, 90.0, 30.0)
    assert grid.shape == (3, *GRID_SHAPE) == (3, 11, 9, 11) and grid.dtype == np.float32
    # cell index (0, 0, 0) minus the position, yaw −90 about y, then pitch 30 about x
    vx, vy, vz = -1.5, -2.0, 0.5
    t = np.radians(-90.0)
    x1, z1 = np.cos(t) * vx - np.sin(t) * vz, np.sin(t) * vx + np.cos(t) * vz
    p = np.radians(30.0)
    expected = (x1, np.cos(p) * vy + np.sin(p) * z1, -np.sin(p) * vy + np.cos(p) * z1)
    assert grid[:, 0, 0, 0] == pytest.approx(expected, abs=1e-5)
    assert perspective_coordinates(0, 0, 0, 0, 0)[:, 10, 8, 10] == pytest.approx((10, 8, 10))
