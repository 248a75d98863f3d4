"""Blocks of the Minecraft corpus as integers, the build region, gold-configuration XML, the
alignment of a build to its target (rotation about y plus an x/z shift, as the repo's ``diff.py``),
block-level F1, the repo's perspective-coordinate grid and one block's logged perspective coordinates.

A block (x, y, z, colour) is encoded as one non-negative ``int`` so that the state diffs of a whole
corpus are plain set differences of small ints (see ``encode``). Keys sort like the repo's
``itemgetter('x', 'y', 'z', 'type')`` because colour ids follow the alphabetical order of the names.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence
from xml.etree.ElementTree import ParseError

import numpy as np
from defusedxml import ElementTree as SafeElementTree

from dialogue_dashboard.plugin import LIMITS, read_capped

# Alphabetical, so that sorting keys sorts by colour name like the repo's sort on "type".
COLORS = ("blue", "green", "orange", "purple", "red", "yellow")
COLOR_IDS = {name: i for i, name in enumerate(COLORS)}
# Display colours close to the Minecraft wool/terracotta blocks the game used.
COLOR_HEX = {
    "blue": "#2f5fd0", "green": "#3c9a3c", "orange": "#f08a24",
    "purple": "#8a3fc0", "red": "#cf2f2f", "yellow": "#f2d33a",
}
COLOR_PATTERN = re.compile("red|orange|purple|blue|green|yellow")

# The build region of utils.py / diff.py: x -5..5, y 1..9, z -5..5 (11 x 9 x 11).
X_MIN, X_MAX, Y_MIN, Y_MAX, Z_MIN, Z_MAX = -5, 5, 1, 9, -5, 5
GRID_SHAPE = (X_MAX - X_MIN + 1, Y_MAX - Y_MIN + 1, Z_MAX - Z_MIN + 1)
# diff.py searches x and z shifts of -10..10 and four rotations about the vertical axis.
MAX_SHIFT = 10
ROTATIONS = (0, 90, 180, 270)

_OFFSET = 128  # coordinates -128..127 fit in one byte each


def encode(x: int, y: int, z: int, color: int) -> int:
    """One int per block: x, y, z in bytes and the colour id in the low 3 bits."""
    return ((((x + _OFFSET) << 8 | (y + _OFFSET)) << 8 | (z + _OFFSET)) << 3) | color


COORDINATE_MIN, COORDINATE_MAX = -_OFFSET, _OFFSET - 1  # what one byte of a key holds


def checked_key(x: int, y: int, z: int, color: int) -> int:
    """``encode`` for values read from a file: ValueError when a coordinate does not fit its byte (it
    would silently become another block)."""
    for axis, value in (("x", x), ("y", y), ("z", z)):
        if not COORDINATE_MIN <= value <= COORDINATE_MAX:
            raise ValueError(f"{axis} = {value} is outside the world this tool can hold ({COORDINATE_MIN}..{COORDINATE_MAX})")
    return encode(x, y, z, color)


def decode(key: int) -> tuple[int, int, int, str]:
    """(x, y, z, colour name) of a key."""
    return ((key >> 19) - _OFFSET, ((key >> 11) & 255) - _OFFSET, ((key >> 3) & 255) - _OFFSET, COLORS[key & 7])


def decode_array(keys: Iterable[int]) -> np.ndarray:
    """An (n, 4) int array of x, y, z, colour id."""
    k = np.fromiter(keys, dtype=np.int64)
    return np.stack([(k >> 19) - _OFFSET, ((k >> 11) & 255) - _OFFSET, ((k >> 3) & 255) - _OFFSET, k & 7], axis=1)


def encode_array(xyzc: np.ndarray) -> np.ndarray:
    x, y, z, c = (xyzc[:, i].astype(np.int64) for i in range(4))
    return ((((x + _OFFSET) << 8 | (y + _OFFSET)) << 8 | (z + _OFFSET)) << 3) | c


# The colour as a word of its own ("cwc_minecraft_red_rn", "cwcmod:cwc_red_rn"): "reddish" is no colour.
COLOR_WORD = re.compile(r"(?<![a-z])(red|orange|purple|blue|green|yellow)(?![a-z])")


def strict_color_id(type_string: str) -> int:
    """Colour id of a block type in any spelling (``cwc_minecraft_blue_rn``, ``cwcmod:cwc_blue_rn``).

    ValueError unless exactly one of the six colours appears as a word: an unknown block type is never
    taken for a colour it merely contains."""
    if not isinstance(type_string, str):
        raise ValueError(f"block type {type_string!r} is not text")
    found = set(COLOR_WORD.findall(type_string))
    if len(found) != 1:
        raise ValueError(f"unknown block type {type_string!r}")
    return COLOR_IDS[found.pop()]


color_id = strict_color_id


# Every key inside the build region: a region test of a whole state is then one C-level superset check.
REGION_KEYS = frozenset(
    encode(x, y, z, c)
    for x in range(X_MIN, X_MAX + 1) for y in range(Y_MIN, Y_MAX + 1) for z in range(Z_MIN, Z_MAX + 1)
    for c in range(len(COLORS))
)


def in_region(key: int) -> bool:
    return key in REGION_KEYS


def all_in_region(keys: Iterable[int]) -> bool:
    return REGION_KEYS.issuperset(keys)


def block_dict(key: int) -> dict:
    """The repo's block dict {"x", "y", "z", "type"} (type = colour word)."""
    x, y, z, color = decode(key)
    return {"x": x, "y": y, "z": z, "type": color}


# ---------------------------------------------------------------------------------------------- gold XML

GOLD_DISPLACEMENT = 100  # x and z are stored +100 in the XML


def parse_gold_xml(text: str, name: str = "gold configuration") -> list[int]:
    """Block keys of a gold configuration file.

    The files are one ``<DrawBlock type=... x=... y=... z=.../>`` element per line without a root element
    (not a well-formed document), so each non-empty line is parsed on its own, by ``defusedxml`` (no entity
    expansion, no external entities or DTDs, whatever the expat version). Raises ValueError naming the line
    when one cannot be parsed, holds a colour that is not one of the six, a coordinate that is not an
    integer the block key can hold, or a second block in a cell that already holds one (the target would be
    ambiguous), or when the file holds no block at all (an empty target is no target). A leading byte order
    mark is read as the UTF-8 it is."""
    keys = []
    line_of_cell: dict[tuple[int, int, int], int] = {}
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        try:
            element = SafeElementTree.fromstring(line, forbid_dtd=True)
            if element.tag != "DrawBlock":
                raise ValueError(f"<{element.tag}> is not a <DrawBlock>")
            x, y, z = (int(element.attrib[a]) for a in ("x", "y", "z"))
            keys.append(checked_key(x - GOLD_DISPLACEMENT, y, z - GOLD_DISPLACEMENT, strict_color_id(element.attrib["type"])))
            first = line_of_cell.setdefault((x, y, z), number)
            if first != number:
                raise ValueError(f"a second block in the cell x={x} y={y} z={z} (line {first} has one)")
        except (ParseError, KeyError, ValueError) as exc:
            raise ValueError(f"{name} line {number}: {type(exc).__name__}: {exc}") from exc
    if not keys:
        raise ValueError(f"{name} holds no block (an empty target)")
    return keys


def read_gold_xml(path: Path) -> list[int]:
    raw = read_capped(path, LIMITS["gold"], "gold configuration")
    return parse_gold_xml(raw.decode("utf-8"), Path(path).name)


def gold_xml_text(keys: Sequence[int], short_type: bool = False, space_before_slash: bool = False) -> str:
    """The XML text of a gold configuration in the corpus's own spelling (used by the demo corpus)."""
    lines = []
    for key in keys:
        x, y, z, color = decode(key)
        type_string = f"cwcmod:cwc_{color}_rn" if short_type else f"cwcmod:cwc_minecraft_{color}_rn"
        end = " />" if space_before_slash else "/>"
        lines.append(f'<DrawBlock type="{type_string}" x="{x + GOLD_DISPLACEMENT}" y="{y}" '
                     f'z="{z + GOLD_DISPLACEMENT}"{end}')
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------- alignment

def rotate_xz(x: np.ndarray, z: np.ndarray, rotation: int) -> tuple[np.ndarray, np.ndarray]:
    """Rotate about the vertical axis by 0/90/180/270 degrees (integer-exact)."""
    if rotation % 360 == 0:
        return x, z
    if rotation % 360 == 90:
        return -z, x
    if rotation % 360 == 180:
        return -x, -z
    return z, -x


@dataclass(frozen=True)
class Alignment:
    """Maps built coordinates onto gold coordinates: gold = rotate(built, rotation) + (dx, dz).

    ``matched`` is the number of built blocks that land on a gold block of the same colour."""

    rotation: int
    dx: int
    dz: int
    matched: int
    n_built: int
    n_gold: int

    @property
    def f1(self) -> float:
        """Block-level F1 of (x, y, z, colour) at this alignment (0 when both are empty... or either is)."""
        total = self.n_built + self.n_gold
        return 2.0 * self.matched / total if total else 0.0

    @property
    def exact(self) -> bool:
        return self.matched == self.n_built == self.n_gold

    def gold_to_built(self, gold: np.ndarray) -> np.ndarray:
        """(n, 4) gold blocks moved into the built frame (the inverse transform)."""
        if len(gold) == 0:
            return gold.reshape(0, 4)
        x, z = rotate_xz(gold[:, 0] - self.dx, gold[:, 2] - self.dz, (360 - self.rotation) % 360)
        return np.stack([x, gold[:, 1], z, gold[:, 3]], axis=1)


IDENTITY = Alignment(0, 0, 0, 0, 0, 0)


def _feasible(built: np.ndarray, gold: np.ndarray, gold_keys: set, rotation: int, dx: int, dz: int) -> bool:
    """diff.py drops alignments whose missing gold blocks, mapped back into the built frame, leave the region."""
    x, z = rotate_xz(built[:, 0], built[:, 2], rotation)
    moved = set(encode_array(np.stack([x + dx, built[:, 1], z + dz, built[:, 3]], axis=1)).tolist()) if len(built) else set()
    missing = [k for k in gold_keys if k not in moved]
    if not missing:
        return True
    back = Alignment(rotation, dx, dz, 0, 0, 0).gold_to_built(decode_array(missing))
    return bool(((back[:, 0] >= X_MIN) & (back[:, 0] <= X_MAX) & (back[:, 1] >= Y_MIN) & (back[:, 1] <= Y_MAX)
                 & (back[:, 2] >= Z_MIN) & (back[:, 2] <= Z_MAX)).all())


def best_alignment(built_keys: Iterable[int], gold_keys: Iterable[int], prefer: Optional[Alignment] = None) -> Alignment:
    """The rotation and shift (−10..10) that maximise the blocks in common, as ``diff.py`` searches them.

    Maximal overlap is the same as the repo's minimal diff |gold − built| + |built − gold| and as maximal F1.
    Like diff.py, alignments that would put a missing gold block outside the build region are not used
    (unless no alignment is feasible). Ties go to ``prefer`` when it is among the best (so a replay keeps
    the target still), else to the first in (rotation, dx, dz) order."""
    built = decode_array(sorted(set(built_keys)))
    gold_set = set(gold_keys)
    gold = decode_array(sorted(gold_set))
    n_built, n_gold = len(built), len(gold)
    # counts[r, dx, dz] = number of built blocks landing on a same-coloured gold block.
    side = 2 * MAX_SHIFT + 1
    counts = np.zeros((len(ROTATIONS), side, side), dtype=np.int64)
    if n_built and n_gold:
        same = (built[:, None, 3] == gold[None, :, 3]) & (built[:, None, 1] == gold[None, :, 1])
        for r, rotation in enumerate(ROTATIONS):
            x, z = rotate_xz(built[:, 0], built[:, 2], rotation)
            dx = gold[None, :, 0] - x[:, None]
            dz = gold[None, :, 2] - z[:, None]
            ok = same & (np.abs(dx) <= MAX_SHIFT) & (np.abs(dz) <= MAX_SHIFT)
            if ok.any():
                flat = (dx[ok] + MAX_SHIFT) * side + (dz[ok] + MAX_SHIFT)
                counts[r] = np.bincount(flat, minlength=side * side).reshape(side, side)
    order = np.argsort(-counts.ravel(), kind="stable")

    def candidate(flat_index: int) -> Alignment:
        r, i, j = np.unravel_index(flat_index, counts.shape)
        return Alignment(ROTATIONS[r], int(i) - MAX_SHIFT, int(j) - MAX_SHIFT, int(counts[r, i, j]), n_built, n_gold)

    best_count = counts.ravel()[order[0]]
    if prefer is not None and prefer.rotation in ROTATIONS and abs(prefer.dx) <= MAX_SHIFT and abs(prefer.dz) <= MAX_SHIFT:
        r = ROTATIONS.index(prefer.rotation)
        if counts[r, prefer.dx + MAX_SHIFT, prefer.dz + MAX_SHIFT] == best_count:
            chosen = Alignment(prefer.rotation, prefer.dx, prefer.dz, int(best_count), n_built, n_gold)
            if _feasible(built, gold, gold_set, chosen.rotation, chosen.dx, chosen.dz):
                return chosen
    # Feasibility is only checked on the best few candidates: it almost always holds for the first one.
    for flat_index in order[:64]:
        chosen = candidate(int(flat_index))
        if _feasible(built, gold, gold_set, chosen.rotation, chosen.dx, chosen.dz):
            return chosen
    return candidate(int(order[0]))


def block_f1(built_keys: Iterable[int], gold_keys: Iterable[int]) -> float:
    """F1 of (x, y, z, colour) blocks at the best alignment."""
    return best_alignment(built_keys, gold_keys).f1


# ---------------------------------------------------------------------------------------------- perspective

def perspective_coordinates(x: float, y: float, z: float, yaw: float, pitch: float) -> np.ndarray:
    """The repo's ``get_perspective_coord_repr``: a float32 array of shape 3 × 11 × 9 × 11.

    As coded in the repo, the Builder position is subtracted from the grid ARRAY INDICES
    (i, j, k) = (0..10, 0..8, 0..10), not from the cells' world coordinates:
        v = (i − x, j − y, k − z)
    then rotated by yaw about the vertical axis (θ = −yaw), then by pitch about the x axis (φ = pitch):
        x1 = cos θ · vx − sin θ · vz,   y1 = vy,   z1 = sin θ · vx + cos θ · vz
        x2 = x1,   y2 = cos φ · y1 + sin φ · z1,   z2 = −sin φ · y1 + cos φ · z1
    Channels 0, 1, 2 hold x2, y2, z2 (torch.Tensor of the repo is float32)."""
    i, j, k = np.meshgrid(np.arange(GRID_SHAPE[0]), np.arange(GRID_SHAPE[1]), np.arange(GRID_SHAPE[2]), indexing="ij")
    vx, vy, vz = i - x, j - y, k - z
    theta = np.radians(-yaw)
    c, s = np.cos(theta), np.sin(theta)
    x1, y1, z1 = c * vx - s * vz, vy, s * vx + c * vz
    phi = np.radians(pitch)
    c, s = np.cos(phi), np.sin(phi)
    return np.stack([x1, c * y1 + s * z1, -s * y1 + c * z1]).astype(np.float32)


def block_perspective(block: Sequence[float], position: Sequence[float]) -> dict:
    """A block's ``PerspectiveCoordinates`` as the game logged them: its coordinates relative to the Builder's eyes
    (1.62 above the position) and view (yaw, pitch), rounded to 3 decimals. ``position``: x, y, z, yaw, pitch."""
    x, y, z, yaw, pitch = position
    vx, vy, vz = block[0] - x, block[1] - (y + 1.62), block[2] - z
    t = math.radians(-yaw)
    x1, z1 = math.cos(t) * vx - math.sin(t) * vz, math.sin(t) * vx + math.cos(t) * vz
    p = math.radians(pitch)
    return {"X": round(x1, 3), "Y": round(math.cos(p) * vy + math.sin(p) * z1, 3), "Z": round(-math.sin(p) * vy + math.cos(p) * z1, 3)}


def config_from_json(text: str) -> dict[tuple[int, int, int], str]:
    """A structure stored as JSON ``[[x, y, z, colour], ...]`` (a run's frames) as cell -> colour."""
    return {(int(x), int(y), int(z)): str(c) for x, y, z, c in json.loads(text)}
