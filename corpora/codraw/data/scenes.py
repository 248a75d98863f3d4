"""CoDraw scene strings: the clip-art vocabulary, a readable one-scene parser and the vectorised parser
that turns every distinct scene of the corpus into clipart rows and dense per-identity arrays.

A scene string is ``"<N>,"`` followed by N records of 8 fields
``png, local index, object id, type id, x, y, z, flip`` (a trailing comma may follow). Items whose x or y
is -10000 sit in the Drawer's palette, not on the canvas, and are dropped (the stored scores treat them
so: with "x = -10000 alone means palette" all 68,278 stored scores reproduce, with "both" 8,602 do not).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dialogue_dashboard.plugin import frame_table, to_pandas

if TYPE_CHECKING:  # scenes are parsed into an Arrow table, not a pandas frame (see data_access.tables)
    import pandas as pd

CANVAS_WIDTH, CANVAS_HEIGHT = 500, 400
PALETTE = -10000.0
# Where a clip art can lie: the canvas and one canvas width / height beyond each edge (the real corpus spans
# x -40..650, y -189..704). A position farther out cannot come from dragging in the interface, and the
# original 7-term metric, which does not cap distances, would turn it into an absurd score.
X_REACH = (-CANVAS_WIDTH, 2 * CANVAS_WIDTH)
Y_REACH = (-CANVAS_HEIGHT, 2 * CANVAS_HEIGHT)
N_IDENTITIES = 58
N_PERSON_SUBTYPES = 35  # 7 poses x 5 expressions
PEOPLE_TYPES = (2, 3)

TYPE_PREFIXES = ("s", "p", "hb0", "hb1", "a", "c", "e", "t")
TYPE_NAMES = ("sky", "large object", "boy", "girl", "animal", "clothing", "food", "toy")
TYPE_SIZES = (8, 10, 1, 1, 6, 10, 7, 15)  # objects per type (people: one identity, 35 subtypes)
IDENTITY_START = np.array([0, 8, 18, 19, 20, 26, 36, 43])
DEPTH_SCALES = (1.0, 0.7, 0.49)

OBJECT_NAMES = {
    0: ("helicopter", "hot-air balloon", "cloud", "sun", "lightning cloud", "rain cloud", "rocket", "airplane"),
    1: ("spring rider", "slide", "sandbox", "grill", "swing set", "tent", "picnic table", "pine tree",
        "tree", "apple tree"),
    4: ("bear", "cat", "dog", "duck", "owl", "snake"),
    5: ("cap", "crown", "chef hat", "pirate hat", "winter hat", "propeller cap", "wizard hat",
        "viking helmet", "glasses", "sunglasses"),
    6: ("pie", "pizza", "hot dog", "ketchup", "mustard", "hamburger", "soda"),
    7: ("baseball", "bucket", "beach ball", "basketball", "soccer ball", "tennis ball", "football",
        "frisbee", "baseball bat", "balloons", "baseball glove", "shovel", "racket", "kite", "campfire"),
}
PERSON_NAMES = {2: "boy", 3: "girl"}  # "Mike" and "Jenny" in the game
EXPRESSIONS = ("angry", "laughing", "smiling", "sad", "surprised")  # subtype % 5
POSES = ("standing", "arms up", "kicking", "running", "sitting cross-legged", "sitting", "waving")  # subtype // 5


def identity_of(type_id: int, object_id: int) -> int:
    """The clipart identity 0..57 (people are one identity each, whatever their pose and expression)."""
    return int(IDENTITY_START[type_id]) + (0 if type_id in PEOPLE_TYPES else int(object_id))


def clipart_label(type_id: int, object_id: int) -> str:
    """A short human name: "pine tree", or "boy · smiling · kicking" for the people."""
    if type_id in PEOPLE_TYPES:
        return f"{PERSON_NAMES[type_id]} · {EXPRESSIONS[object_id % 5]} · {POSES[object_id // 5]}"
    return OBJECT_NAMES[type_id][object_id]


def png_name(type_id: int, object_id: int) -> str:
    return f"{TYPE_PREFIXES[type_id]}_{object_id}s.png"


@dataclass(frozen=True)
class Clipart:
    """One on-canvas clipart, as the scene string stores it (x, y are the sprite's centre)."""

    identity: int
    name: str
    type: int
    object: int  # object id, or the people's pose/expression subtype
    x: float
    y: float
    z: int
    flip: int


def parse_scene(text: str) -> list[Clipart]:
    """The on-canvas cliparts of one scene string, in string order. Raises ValueError when malformed.

    The readable reference for ``parse_scene_strings``; used by tests and for single scenes."""
    if not text:
        return []
    fields = text.split(",")
    if fields[-1] == "":
        fields.pop()  # the trailing comma most scene strings carry
    count = int(fields[0])
    if len(fields) != 1 + 8 * count:
        raise ValueError(f"{len(fields) - 1} fields for {count} cliparts (expected {8 * count})")
    cliparts = []
    for start in range(1, len(fields), 8):
        name, _local, object_text, type_text, x_text, y_text, z, flip = fields[start:start + 8]
        x, y, type_id, object_id = float(x_text), float(y_text), int(type_text), int(object_text)
        if not (np.isfinite(x) and np.isfinite(y)):
            raise ValueError(f"position {x},{y} is not a number")
        if not 0 <= type_id < len(TYPE_PREFIXES):
            raise ValueError(f"unknown type id {type_id}")
        if x == PALETTE or y == PALETTE:
            continue
        if not (X_REACH[0] <= x <= X_REACH[1] and Y_REACH[0] <= y <= Y_REACH[1]):
            raise ValueError(f"position {x:g},{y:g} lies far outside the canvas")
        cliparts.append(Clipart(identity_of(type_id, object_id), name, type_id, object_id, x, y, int(z), int(flip)))
    return cliparts


# ----------------------------------------------------------------------------------------------------
# Vectorised parsing of many scene strings at once

CLIPART_COLUMNS = ["scene_id", "identity", "name", "type", "object", "x", "y", "z", "flip"]
_COMMA, _NEWLINE = ord(","), ord("\n")
_INT_PATTERN = r"^-?[0-9]+$"
_FLOAT_PATTERN = r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$"


@dataclass
class ParsedScenes:
    """Every on-canvas clipart of a list of scene strings (scene i = position i in that list)."""

    table: pa.Table  # CLIPART_COLUMNS, grouped by scene_id in string order
    problems: dict[int, str]  # scene index -> why it was rejected (its cliparts are not in ``table``)

    @cached_property
    def cliparts(self) -> "pd.DataFrame":
        """``table`` as a pandas frame (the ``cliparts`` frame's dtypes)."""
        return to_pandas(self.table)


def _field_strings(data: bytes, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """A zero-copy Arrow string array over ``data`` whose even elements are the fields [start, end) and
    whose odd elements are the one-byte delimiters between them (offsets must be contiguous)."""
    offsets = np.empty(2 * len(starts) + 1, dtype=np.int64)
    offsets[0:-1:2] = starts
    offsets[1::2] = ends
    offsets[-1] = ends[-1] + 1 if len(ends) else 0
    return pa.Array.from_buffers(pa.large_string(), 2 * len(starts), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


_PALETTE_BYTES = b"-10000"


def _is_palette_literal(data: bytes, starts: np.ndarray, ends: np.ndarray, field: np.ndarray) -> np.ndarray:
    """Whether each of the given fields is exactly "-10000": its length, then its bytes compared as one
    unaligned 4-byte and one 2-byte integer per field (two gathers instead of six)."""
    padded = data + b"\0" * 8  # so that reads past the last field stay inside the buffer
    words4 = np.ndarray((len(data),), dtype="<u4", buffer=padded, strides=(1,))
    words2 = np.ndarray((len(data),), dtype="<u2", buffer=padded, strides=(1,))
    begin = starts[field]
    return ((ends[field] - begin) == 6) & (words4[begin] == _HEAD) & (words2[begin + 4] == _TAIL)


_HEAD = int.from_bytes(_PALETTE_BYTES[:4], "little")
_TAIL = int.from_bytes(_PALETTE_BYTES[4:], "little")


def _is_on_canvas_record(record: int, kept: np.ndarray) -> bool:
    position = np.searchsorted(kept, record)
    return bool(position < len(kept) and kept[position] == record)


def _cast(strings: pa.Array, to: pa.DataType, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """(values, ok): the strings cast to numbers; where a string is not a number, ok is False and value 0."""
    try:
        return pc.cast(strings, to).to_numpy(zero_copy_only=False), np.ones(len(strings), dtype=bool)
    except pa.ArrowInvalid:
        pass  # some field is not a number: find which ones (rare, so the slower path is fine)
    ok = pc.match_substring_regex(pc.utf8_trim_whitespace(strings), pattern).to_numpy(zero_copy_only=False)
    ok = ok.astype(bool)
    cleaned = pc.if_else(pa.array(ok), strings, pa.scalar("0", strings.type))
    try:
        return pc.cast(cleaned, to).to_numpy(zero_copy_only=False), ok
    except pa.ArrowInvalid:  # e.g. an integer too large for the type: find which, one by one (rarer still)
        pass
    values = np.zeros(len(strings), dtype=to.to_pandas_dtype())
    for i in np.flatnonzero(ok):
        try:
            values[i] = pc.cast(strings[int(i)], to).as_py()
        except (pa.ArrowInvalid, OverflowError):
            ok[i] = False  # costs only the record that holds it
    return values, ok


def parse_scene_strings(scenes: Sequence[str], chunk: int = 2048) -> ParsedScenes:
    """Parse all scene strings at once with numpy/Arrow (no Python loop over cliparts).

    The strings are joined with newlines into one byte buffer; the delimiter positions give every
    field's span, a zero-copy Arrow string array over those spans is cast to numbers, and each scene's
    field count, type ids, value ranges and positions are checked with array operations. A malformed
    scene is reported in ``problems`` and contributes no cliparts. Work goes in chunks of scenes so the
    temporary arrays stay small and their memory is reused (page faults dominate otherwise). Chunks are
    parsed on two threads: numpy and Arrow release the GIL in their kernels, so both cores work."""
    problems: dict[int, str] = {}
    starts = range(0, len(scenes), chunk)
    if len(starts) > 1:
        with ThreadPoolExecutor(max_workers=2) as pool:
            parts = list(pool.map(lambda begin: _parse_chunk(scenes[begin:begin + chunk], begin, problems), starts))
    else:
        parts = [_parse_chunk(scenes[begin:begin + chunk], begin, problems) for begin in starts]
    if not parts:
        return ParsedScenes(empty_cliparts(), problems)
    columns = {name: np.concatenate([part[name] for part in parts]) for name in parts[0] if name != "name"}
    names = pa.chunked_array([part["name"] for part in parts], type=pa.string()).combine_chunks()
    return ParsedScenes(_clipart_table(columns, names), problems)


_CLIPART_TYPES = {"scene_id": np.int32, "identity": np.int8, "type": np.int8, "object": np.int8,
                  "x": np.float64, "y": np.float64, "z": np.int8, "flip": np.int8}


def _clipart_table(columns: dict[str, np.ndarray], names: pa.Array) -> pa.Table:
    return frame_table({c: names if c == "name" else pa.array(columns[c].astype(_CLIPART_TYPES[c], copy=False))
                        for c in CLIPART_COLUMNS})


def _parse_chunk(scenes: Sequence[str], first_scene: int, problems: dict[int, str]) -> dict[str, np.ndarray]:
    """Cliparts of scenes[0..n) (numbered from ``first_scene``); adds rejected scenes to ``problems``."""
    n_scenes = len(scenes)
    chunk_problems: dict[int, str] = {}
    if any("\n" in s for s in scenes):  # a line break inside a scene would shift every later scene
        chunk_problems = {i: "scene string contains a line break" for i, s in enumerate(scenes) if "\n" in s}
        scenes = ["" if "\n" in s else s for s in scenes]
    data = ("\n".join(scenes) + "\n").encode("utf-8", "surrogatepass")
    buffer = np.frombuffer(data, dtype=np.uint8)
    is_newline = buffer == _NEWLINE
    delimiters = np.flatnonzero(is_newline | (buffer == _COMMA))
    line_ends = np.flatnonzero(is_newline[delimiters])  # index (in fields) of each line's last field
    starts = np.empty_like(delimiters)
    starts[0] = 0
    starts[1:] = delimiters[:-1] + 1
    fields = _field_strings(data, starts, delimiters)
    line_first = np.empty_like(line_ends)
    line_first[0] = 0
    line_first[1:] = line_ends[:-1] + 1
    fields_per_line = line_ends - line_first + 1

    counts, count_ok = _cast(fields.take(pa.array(2 * line_first)), pa.int64(), _INT_PATTERN)
    trailing_empty = (delimiters[line_ends] - starts[line_ends]) == 0  # a trailing comma leaves an empty last field
    data_fields = fields_per_line - 1 - trailing_empty
    good = count_ok & (counts >= 0) & (data_fields == 8 * counts)
    for i in np.flatnonzero(~good):
        if i in chunk_problems:
            continue
        if not scenes[int(i)]:
            chunk_problems[int(i)] = "empty scene string"
        elif not count_ok[i] or counts[i] < 0:
            chunk_problems[int(i)] = "clipart count is not a number"
        else:
            chunk_problems[int(i)] = f"{int(data_fields[i])} fields for {int(counts[i])} cliparts (expected {8 * int(counts[i])})"

    # One entry per clipart record of every well-formed scene.
    per_scene = np.where(good, counts, 0)
    record_scene = np.repeat(np.arange(n_scenes), per_scene)
    first_record = np.cumsum(per_scene) - per_scene
    record_in_scene = np.arange(len(record_scene)) - first_record[record_scene]
    record_field = line_first[record_scene] + 1 + 8 * record_in_scene  # index of the png field

    def column(offset: int, to: pa.DataType, pattern: str, where):
        return _cast(fields.take(pa.array(2 * (record_field[where] + offset))), to, pattern)

    # Most records of a Drawer's scene are palette items: recognise their literal "-10000" from the
    # bytes so that only the candidates for the canvas are cast to numbers.
    palette = _is_palette_literal(data, starts, delimiters, record_field + 4) \
        | _is_palette_literal(data, starts, delimiters, record_field + 5)
    candidates = np.flatnonzero(~palette)
    x, x_ok = column(4, pa.float64(), _FLOAT_PATTERN, candidates)
    y, y_ok = column(5, pa.float64(), _FLOAT_PATTERN, candidates)
    type_id, type_ok = column(3, pa.int64(), _INT_PATTERN, candidates)
    number_ok = x_ok & y_ok & np.isfinite(x) & np.isfinite(y)
    type_ok &= (type_id >= 0) & (type_id < len(TYPE_PREFIXES))
    on_canvas = np.flatnonzero(number_ok & (x != PALETTE) & (y != PALETTE))
    kept = candidates[on_canvas]  # record numbers of the on-canvas cliparts
    x, y, type_id, number_ok_all = x[on_canvas], y[on_canvas], type_id[on_canvas], number_ok
    object_id, object_ok = column(2, pa.int64(), _INT_PATTERN, kept)
    z, z_ok = column(6, pa.int64(), _INT_PATTERN, kept)
    flip, flip_ok = column(7, pa.int64(), _INT_PATTERN, kept)
    kept_type = np.clip(type_id, 0, len(TYPE_PREFIXES) - 1)
    is_person = (kept_type == PEOPLE_TYPES[0]) | (kept_type == PEOPLE_TYPES[1])
    object_limit = np.where(is_person, N_PERSON_SUBTYPES, np.array(TYPE_SIZES)[kept_type])
    value_ok = object_ok & z_ok & flip_ok & (object_id >= 0) & (object_id < object_limit) \
        & (z >= 0) & (z <= 2) & ((flip == 0) | (flip == 1))
    in_reach = (x >= X_REACH[0]) & (x <= X_REACH[1]) & (y >= Y_REACH[0]) & (y <= Y_REACH[1])

    # Report the first broken record of each scene: a bad number among the candidates, or a bad
    # type/object/depth/flip among the on-canvas ones.
    record_ok = np.ones(len(record_scene), dtype=bool)
    record_ok[candidates[~number_ok_all]] = False
    kept_ok = value_ok & type_ok[on_canvas] & in_reach
    record_ok[kept[~kept_ok]] = False
    bad_records = np.flatnonzero(~record_ok)
    for scene in np.unique(record_scene[bad_records]):
        record = bad_records[record_scene[bad_records] == scene][0]
        k = int(record_in_scene[record]) + 1
        at = np.searchsorted(kept, record)  # its place among the on-canvas records, if it is one
        if not _is_on_canvas_record(record, kept):
            reason = f"clipart {k}: position is not a finite number"
        elif not type_ok[on_canvas][at]:
            reason = f"clipart {k}: unknown type id"
        elif not in_reach[at]:
            reason = f"clipart {k}: position {x[at]:g},{y[at]:g} lies far outside the canvas"
        else:
            reason = f"clipart {k}: object id, depth or flip out of range"
        chunk_problems.setdefault(int(scene), reason)

    identity = IDENTITY_START[kept_type] + np.where(is_person, 0, object_id)
    scene_of_kept = record_scene[kept]
    # A scene holds each identity once; a repeated one would make the metrics ambiguous.
    key = scene_of_kept.astype(np.int64) * N_IDENTITIES + identity
    order = np.argsort(key, kind="stable")
    repeated = np.zeros(len(key), dtype=bool)
    repeated[order[1:]] = key[order[1:]] == key[order[:-1]]
    for scene in np.unique(scene_of_kept[repeated & kept_ok]):
        chunk_problems.setdefault(int(scene), "a clipart appears twice")
    rejected = np.zeros(n_scenes, dtype=bool)
    rejected[list(chunk_problems)] = True
    keep = kept_ok & ~rejected[scene_of_kept]
    rows = kept[keep]
    problems.update({first_scene + i: reason for i, reason in chunk_problems.items()})
    return {
        "scene_id": first_scene + record_scene[rows],
        "identity": identity[keep],
        "name": fields.take(pa.array(2 * record_field[rows])).cast(pa.string()),
        "type": kept_type[keep],
        "object": object_id[keep],
        "x": x[keep],
        "y": y[keep],
        "z": z[keep],
        "flip": flip[keep],
    }


def empty_cliparts() -> pa.Table:
    """The ``cliparts`` table with no rows."""
    return _clipart_table({c: np.zeros(0, dtype=t) for c, t in _CLIPART_TYPES.items()}, pa.array([], pa.string()))


def cliparts_of(rows: pd.DataFrame) -> list[Clipart]:
    """Clipart objects from rows of the ``cliparts`` frame (one scene), in string order."""
    return [Clipart(int(r.identity), str(r.name), int(r.type), int(r.object), float(r.x), float(r.y), int(r.z), int(r.flip))
            for r in rows.itertuples(index=False)]


@dataclass
class DenseScenes:
    """Per-scene arrays over the 58 clipart identities (row = scene_id), for vectorised metrics."""

    present: np.ndarray  # bool [scenes, 58]
    x: np.ndarray  # float64, as stored (0 where ``present`` is False: read only through that mask)
    y: np.ndarray
    z: np.ndarray  # int8
    flip: np.ndarray  # int8
    subtype: np.ndarray  # int8 (the people's pose/expression subtype; object id otherwise)


def dense_scenes(cliparts: "pd.DataFrame | pa.Table", n_scenes: int) -> DenseScenes:
    """The dense arrays of the cliparts of scenes 0..n_scenes-1 (a ``cliparts`` frame or table)."""
    scene = np.asarray(cliparts["scene_id"])
    identity = np.asarray(cliparts["identity"]).astype(np.intp)
    shape = (n_scenes, N_IDENTITIES)
    present = np.zeros(shape, dtype=bool)
    present[scene, identity] = True
    arrays = {}
    for column, dtype in (("x", np.float64), ("y", np.float64), ("z", np.int8), ("flip", np.int8), ("object", np.int8)):
        # zeros, not a NaN fill: calloc'd pages are only touched where a clipart is written
        values = np.zeros(shape, dtype=dtype)
        values[scene, identity] = np.asarray(cliparts[column])
        arrays[column] = values
    return DenseScenes(present, arrays["x"], arrays["y"], arrays["z"], arrays["flip"], arrays["object"])
