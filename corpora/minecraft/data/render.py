"""Pictures of Minecraft builds: PIL isometric snapshots (what the replay shows first, and the exports) and
interactive plotly 3-D figures (the build at a step, the aligned target). Pure functions of block lists.

Blocks are drawn as unit cubes centred on their integer cell (x, y, z), y up. A world point of the game
(the Builder's position) lies at cell corner coordinates, so it is shifted by −0.5 to share the frame.
Traces are built in game coordinates; ``framed_figure`` then maps them to plotly's frame, whose vertical axis
is z: (x, y, z) → (x, −z, y). That is a proper rotation, so the build is not mirrored, and the z ticks
are relabelled with the game's values.
Traces stay few: one Mesh3d per colour, one for ghosts, one line trace per edge style, the Builder marker
and its view cone.
"""
from __future__ import annotations

import io
import itertools
import math
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import numpy as np
import plotly.graph_objects as go
from PIL import Image, ImageDraw

from corpora.minecraft.data.blocks import COLOR_HEX, COLORS, X_MAX, X_MIN, Y_MAX, Y_MIN, Z_MAX, Z_MIN

Block = tuple  # (x, y, z, colour name)
EYE_HEIGHT = 1.62

# The 8 corners of a unit cube and its 12 triangles (two per face) and 12 edges.
_CORNERS = [(dx, dy, dz) for dx in (-0.5, 0.5) for dy in (-0.5, 0.5) for dz in (-0.5, 0.5)]
_TRIANGLES = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
              (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
_EDGES = [(0, 1), (0, 2), (0, 4), (1, 3), (1, 5), (2, 3), (2, 6), (3, 7), (4, 5), (4, 6), (5, 7), (6, 7)]
_CORNER_OFFSETS = np.array(_CORNERS)
_TRIANGLE_INDEX = np.array(_TRIANGLES)
_EDGE_INDEX = np.array(_EDGES)


def view_direction(yaw: float, pitch: float) -> tuple[float, float, float]:
    """Minecraft's look vector: yaw 0 faces +z, yaw 90 faces −x, positive pitch looks down."""
    yaw_r, pitch_r = math.radians(yaw), math.radians(pitch)
    return (-math.sin(yaw_r) * math.cos(pitch_r), -math.sin(pitch_r), math.cos(yaw_r) * math.cos(pitch_r))


def mesh_trace(blocks: Sequence[Block], color: str, name: str, opacity: float = 1.0, showlegend: bool = True) -> dict:
    centres = np.array([b[:3] for b in blocks], dtype=float).reshape(-1, 1, 3)
    corners = (centres + _CORNER_OFFSETS).reshape(-1, 3)  # 8 corners per block
    faces = (np.arange(len(blocks)).reshape(-1, 1, 1) * 8 + _TRIANGLE_INDEX).reshape(-1, 3)
    return dict(type="mesh3d", x=corners[:, 0], y=corners[:, 1], z=corners[:, 2],
                i=faces[:, 0], j=faces[:, 1], k=faces[:, 2], color=color, opacity=opacity, flatshading=True,
                name=name, showlegend=showlegend, hoverinfo="name",
                lighting=dict(ambient=0.55, diffuse=0.8, specular=0.1, roughness=0.9))


def edge_trace(blocks: Sequence[Block], color: str, width: float, name: str) -> dict:
    centres = np.array([b[:3] for b in blocks], dtype=float).reshape(-1, 1, 3)
    corners = centres + _CORNER_OFFSETS
    # Each edge as (start, end, gap): NaN breaks the line between edges.
    points = np.full((len(blocks), len(_EDGES), 3, 3), np.nan)
    points[:, :, 0] = corners[:, _EDGE_INDEX[:, 0]]
    points[:, :, 1] = corners[:, _EDGE_INDEX[:, 1]]
    points = points.reshape(-1, 3)  # type: ignore[assignment]  # numpy types the shape; one array, reshaped
    return dict(type="scatter3d", x=points[:, 0], y=points[:, 1], z=points[:, 2], mode="lines", line=dict(color=color, width=width), name=name,
                hoverinfo="skip", showlegend=False)


def scene_bounds(points: Iterable[tuple]) -> dict:
    lo = [X_MIN, Y_MIN, Z_MIN]
    hi = [X_MAX, Y_MAX, Z_MAX]
    for p in points:
        for axis in range(3):
            lo[axis] = min(lo[axis], math.floor(p[axis]))
            hi[axis] = max(hi[axis], math.ceil(p[axis]))
    lo[1] = min(lo[1], Y_MIN)
    return {"x": (lo[0] - 0.5, hi[0] + 0.5), "y": (lo[1] - 0.5, hi[1] + 0.5), "z": (lo[2] - 0.5, hi[2] + 0.5)}


def _to_plot_frame(trace: dict) -> dict:
    """Game (x, y up, z) → plotly (x, −z, y up), for one trace (the vector of a cone too)."""
    def negated(values):
        if values is None or isinstance(values, np.ndarray):
            return None if values is None else -values
        return [None if v is None else -v for v in values]

    trace["y"], trace["z"] = negated(trace.get("z")), trace.get("y")
    if trace["type"] == "cone":
        trace["v"], trace["w"] = negated(trace.get("w")), trace.get("v")
    return trace


def framed_figure(traces: list[dict], bounds: dict, title: str, revision: str = "minecraft") -> go.Figure:
    """The traces in plotly's frame, axes fixed to ``bounds`` (game coordinates), equal scale, y up.

    Traces and layout are plain dicts that this module writes and the tests check, so the figure is
    assembled without plotly's per-property validation, which costs most of a replay step otherwise
    (most of a 60-block build's time); vertex arrays are numpy so plotly's copy of them is cheap.
    ``revision`` is plotly's ``uirevision``: while it stays the same (e.g. one game), a redrawn figure keeps
    the camera the reader turned it to."""
    spans = {axis: bounds[axis][1] - bounds[axis][0] for axis in "xyz"}
    largest = max(spans.values())
    z_lo, z_hi = bounds["z"]
    z_ticks = list(range(math.ceil(z_lo), math.floor(z_hi) + 1))
    layout = dict(
        title=dict(text=title, x=0.02, font=dict(size=14)),
        margin=dict(l=0, r=0, t=36, b=0), height=460, uirevision=revision,
        legend=dict(orientation="h", y=0.02, x=0.02, bgcolor="rgba(255,255,255,0.6)"),
        scene=dict(
            xaxis=dict(range=list(bounds["x"]), title=dict(text="x"), dtick=1, showbackground=True,
                       backgroundcolor="#f4f4f4"),
            yaxis=dict(range=[-z_hi, -z_lo], title=dict(text="z"), tickvals=[-t for t in z_ticks],
                       ticktext=[str(t) for t in z_ticks], showbackground=True, backgroundcolor="#f4f4f4"),
            zaxis=dict(range=list(bounds["y"]), title=dict(text="y (up)"), dtick=1, showbackground=True,
                       backgroundcolor="#e9efe6"),
            aspectmode="manual",
            aspectratio=dict(x=spans["x"] / largest, y=spans["z"] / largest, z=spans["y"] / largest),
            camera=dict(up=dict(x=0, y=0, z=1), eye=dict(x=1.35, y=-1.35, z=0.95), center=dict(x=0, y=0, z=-0.1)),
            dragmode="turntable",
        ),
    )
    return go.Figure({"data": [_to_plot_frame(t) for t in traces], "layout": layout}, _validate=False)


def solid_traces(blocks: Sequence[Block], suffix: str = "") -> list[dict]:
    traces = []
    for color in COLORS:
        group = [b for b in blocks if b[3] == color]
        if group:
            traces.append(mesh_trace(group, COLOR_HEX[color], f"{color}{suffix} ({len(group)})"))
    return traces


def build_figure(blocks: Sequence[Block], placed: Sequence[Block] = (), removed: Sequence[Block] = (),
                 builder: Optional[tuple] = None, title: str = "Build", revision: str = "minecraft") -> go.Figure:
    """The build as coloured cubes; this step's placements outlined thick in black, its removals as
    translucent ghosts, and the Builder as a marker with a cone along the view direction. ``revision``: see
    ``framed_figure``."""
    traces: list = solid_traces(blocks)
    if blocks:
        traces.append(edge_trace(blocks, "rgba(40,40,40,0.55)", 1.5, "edges"))
    if placed:
        traces.append(edge_trace(placed, "#000000", 7, "placed this step"))
        traces.append(dict(type="scatter3d", x=[b[0] for b in placed], y=[b[1] for b in placed],
                           z=[b[2] for b in placed], mode="markers",
                           marker=dict(size=3, color="white", line=dict(color="black", width=1)),
                           name=f"placed this step ({len(placed)})", hoverinfo="name"))
    if removed:
        traces.append(mesh_trace(removed, "#9a9a9a", f"removed this step ({len(removed)})", opacity=0.25))
        traces.append(edge_trace(removed, "rgba(120,120,120,0.8)", 2, "removed"))
    points = [b[:3] for b in (*blocks, *removed)]
    if builder is not None:
        x, y, z, yaw, pitch = builder
        eye = (x - 0.5, y - 0.5 + EYE_HEIGHT, z - 0.5)
        direction = view_direction(yaw, pitch)
        traces.append(dict(type="scatter3d", x=[x - 0.5, eye[0]], y=[y - 0.5, eye[1]], z=[z - 0.5, eye[2]],
                           mode="lines+markers", line=dict(color="#222", width=6), marker=dict(size=[3, 6], color="#222"),
                           name="Builder", hovertext=f"Builder yaw {yaw:.0f}°, pitch {pitch:.0f}°", hoverinfo="text"))
        traces.append(dict(type="cone", x=[eye[0]], y=[eye[1]], z=[eye[2]], u=[direction[0]], v=[direction[1]],
                           w=[direction[2]], sizemode="absolute", sizeref=1.4, anchor="tail", showscale=False,
                           colorscale=[[0, "#222"], [1, "#222"]], name="view direction", hoverinfo="skip"))
        # Far-away positions (the corpus has some) would shrink the blocks to dots: only nearby ones widen the box.
        if abs(x) <= 12 and abs(z) <= 12 and y <= 14:
            points.append(eye)
    return framed_figure(traces, scene_bounds(points), title, revision)


def target_figure(gold_aligned: Sequence[Block], gold_missing: Sequence[Block] = (), title: str = "Target (aligned)",
                  revision: str = "minecraft") -> go.Figure:
    """The target structure in the build's frame: blocks already built solid, missing ones as ghosts."""
    missing = {tuple(b) for b in gold_missing}
    present = [b for b in gold_aligned if tuple(b) not in missing]
    traces: list = solid_traces(present)
    if present:
        traces.append(edge_trace(present, "rgba(40,40,40,0.55)", 1.5, "edges"))
    if missing:
        for color in COLORS:
            group = [b for b in gold_missing if b[3] == color]
            if group:
                traces.append(mesh_trace(group, COLOR_HEX[color], f"{color} missing ({len(group)})", opacity=0.22))
        traces.append(edge_trace(list(gold_missing), "rgba(90,90,90,0.7)", 2, "missing"))
    return framed_figure(traces, scene_bounds([b[:3] for b in gold_aligned]), title, revision)


# --------------------------------------------------------------------------------------------- isometric PNG

def _shade(hex_color: str, factor: float) -> tuple[int, int, int]:
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return tuple(max(0, min(255, int(v * factor))) for v in (r, g, b))  # type: ignore[return-value]  # three values


# How the pictures mark a step's changes (fixed colours, so that tests and readers can rely on them).
PLACED_MARK = (0, 0, 0)  # a thick black outline around a block placed this step
REMOVED_MARK = (214, 0, 140)  # a magenta wire cube with a cross on top where a block was removed this step
EDGE = (40, 40, 40)
BUILDER_MARK = (34, 34, 34)
GRID = (215, 215, 215)
PICTURE_CELL = 26  # pixels per block edge in the replay's pictures (the exports' snapshots use 22)


@dataclass(frozen=True)
class IsometricFrame:
    """Where a game point (x, y, z) lands on a snapshot drawn from +x, +y, +z: the projection with the
    picture's offsets, so that tests and callers can find a block's faces on the image."""

    cell: int
    min_u: float
    min_v: float
    top: int
    size: tuple[int, int]

    def to_screen(self, x: float, y: float, z: float) -> tuple[float, float]:
        c30, s30 = math.cos(math.radians(30)) * self.cell, math.sin(math.radians(30)) * self.cell
        return ((x - z) * c30 - self.min_u + 6, (x + z) * s30 - y * self.cell - self.min_v + self.top)


def isometric_frame(points: Iterable[tuple], cell: int = 22, title: Optional[str] = None) -> IsometricFrame:
    """The frame of a snapshot of ``points`` (block cells; at least the build region)."""
    bounds = scene_bounds(points)
    (x0, x1), (y0, y1), (z0, z1) = bounds["x"], bounds["y"], bounds["z"]
    c30, s30 = math.cos(math.radians(30)) * cell, math.sin(math.radians(30)) * cell
    corners = [((x - z) * c30, (x + z) * s30 - y * cell) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    min_u, max_u = min(p[0] for p in corners), max(p[0] for p in corners)
    min_v, max_v = min(p[1] for p in corners), max(p[1] for p in corners)
    top = 24 if title else 6
    return IsometricFrame(cell, min_u, min_v, top, (int(max_u - min_u) + 12, int(max_v - min_v) + top + 6))


def _cube_faces(x, y, z) -> list[tuple[list[tuple], float]]:
    """The three faces seen from +x, +y, +z (top, +x side, +z side), each with its shading factor."""
    return [
        ([(x - .5, y + .5, z - .5), (x + .5, y + .5, z - .5), (x + .5, y + .5, z + .5), (x - .5, y + .5, z + .5)], 1.15),
        ([(x + .5, y + .5, z - .5), (x + .5, y + .5, z + .5), (x + .5, y - .5, z + .5), (x + .5, y - .5, z - .5)], 0.85),
        ([(x - .5, y + .5, z + .5), (x + .5, y + .5, z + .5), (x + .5, y - .5, z + .5), (x - .5, y - .5, z + .5)], 0.65),
    ]


def _silhouette(x, y, z) -> list[tuple]:
    """The outline of a cube seen from +x, +y, +z (a hexagon), closed."""
    corners = [(x - .5, y + .5, z - .5), (x + .5, y + .5, z - .5), (x + .5, y - .5, z - .5), (x + .5, y - .5, z + .5),
               (x - .5, y - .5, z + .5), (x - .5, y + .5, z + .5)]
    return [*corners, corners[0]]


def snapshot_image(blocks: Sequence[Block], ghosts: Sequence[Block] = (), highlight: Sequence[Block] = (),
                   cell: int = 22, title: Optional[str] = None, removed: Sequence[Block] = (),
                   builder: Optional[tuple] = None, frame_of: Sequence[Block] = (), mode: str = "RGB") -> Image.Image:
    """A small isometric drawing of the build (viewed from +x, +y, +z) on the 11 × 11 ground grid.

    ``ghosts`` are drawn as outlines in their colour (e.g. missing target blocks), ``highlight`` blocks (this
    step's placements) get a thick black outline (``PLACED_MARK``), ``removed`` cells (this step's removals) a
    magenta wire cube crossed on top (``REMOVED_MARK``), drawn over every block so that none hides it; ``builder`` (x, y, z, yaw, pitch, as the replay's)
    is drawn as a standing figure looking along its yaw when it is within the picture. The picture covers
    the build region and every block drawn, and the cells of ``frame_of`` too (so that two pictures share
    one frame). ``mode="P"`` returns the palette image it is drawn in (the same pixels; its PNG is a
    fifth of the RGB one's encoding time), else an RGB image."""
    standing = {tuple(b[:3]) for b in blocks}
    removed = [b for b in removed if tuple(b[:3]) not in standing]  # removed and put back: a placement
    frame = isometric_frame([b[:3] for b in (*blocks, *ghosts, *removed, *frame_of)], cell, title)
    image = Image.new("P", frame.size, (255, 255, 255))  # few colours: a palette
    draw = ImageDraw.Draw(image)
    to_screen = frame.to_screen

    for gx in range(X_MIN, X_MAX + 2):  # the ground grid of the build region, at the bottom of layer y = 1
        draw.line([to_screen(gx - 0.5, 0.5, Z_MIN - 0.5), to_screen(gx - 0.5, 0.5, Z_MAX + 0.5)], fill=GRID)
    for gz in range(Z_MIN, Z_MAX + 2):
        draw.line([to_screen(X_MIN - 0.5, 0.5, gz - 0.5), to_screen(X_MAX + 0.5, 0.5, gz - 0.5)], fill=GRID)

    highlighted = {tuple(b[:3]) for b in highlight}
    # Painter's order: farthest first (smallest x + y + z), each block tagged with how it is drawn.
    drawn = [(b, "solid") for b in blocks] + [(b, "ghost") for b in ghosts]
    drawn.sort(key=lambda item: (item[0][0] + item[0][1] + item[0][2], item[0][1]))
    mark_width = max(2, cell // 8)
    for block, kind in drawn:
        x, y, z, color = block[:4]
        faces = _cube_faces(x, y, z)
        for polygon, factor in faces:
            points = [to_screen(*p) for p in polygon]
            if kind == "ghost":
                draw.polygon(points, outline=_shade(COLOR_HEX[color], 0.9))
            else:
                draw.polygon(points, fill=_shade(COLOR_HEX[color], factor), outline=EDGE)
        if kind == "solid" and (x, y, z) in highlighted:
            draw.line([to_screen(*p) for p in _silhouette(x, y, z)], fill=PLACED_MARK, width=mark_width, joint="curve")
    # The removals over every block, as if seen through them: a cell emptied under a layer that stays, or behind
    # a column, would otherwise be painted over and not be seen at all.
    for x, y, z, *_ in sorted(removed, key=lambda b: (b[0] + b[1] + b[2], b[1])):
        _draw_removed(draw, frame, x, y, z, mark_width)
    if builder is not None:
        _draw_builder(draw, frame, builder)
    if title:
        draw.text((6, 5), title, fill=(20, 20, 20))
    return image if mode == "P" else image.convert(mode)


def _draw_removed(draw: ImageDraw.ImageDraw, frame: IsometricFrame, x: int, y: int, z: int, width: int) -> None:
    """The removed cell's mark: its cube's twelve edges in ``REMOVED_MARK`` (the three hidden ones too, so that it
    reads as a box seen through whatever stands in front) and a cross on its top face."""
    corner = {(dx, dy, dz): frame.to_screen(x + dx, y + dy, z + dz)
              for dx in (-.5, .5) for dy in (-.5, .5) for dz in (-.5, .5)}
    for a, b in itertools.combinations(corner, 2):
        if sum(p != q for p, q in zip(a, b)) == 1:  # an edge: the corners differ on one axis
            draw.line([corner[a], corner[b]], fill=REMOVED_MARK, width=2)
    top = [corner[(-.5, .5, -.5)], corner[(.5, .5, -.5)], corner[(.5, .5, .5)], corner[(-.5, .5, .5)]]
    draw.line([top[0], top[2]], fill=REMOVED_MARK, width=width)
    draw.line([top[1], top[3]], fill=REMOVED_MARK, width=width)


def _draw_builder(draw: ImageDraw.ImageDraw, frame: IsometricFrame, builder: tuple) -> None:
    """The Builder as a line from feet to eyes with a dot at the eyes and a short line along its gaze
    (horizontal part of the view direction), when the eyes fall within the picture."""
    x, y, z, yaw, pitch = builder
    feet = (x - 0.5, y - 0.5, z - 0.5)  # a world point lies at cell corner coordinates
    eye = (feet[0], feet[1] + EYE_HEIGHT, feet[2])
    u, v = frame.to_screen(*eye)
    width, height = frame.size
    if not (0 <= u < width and 0 <= v < height):
        return
    dx, _, dz = view_direction(yaw, pitch)
    gaze = frame.to_screen(eye[0] + 1.6 * dx, eye[1], eye[2] + 1.6 * dz)
    radius = max(3, frame.cell // 5)
    draw.line([frame.to_screen(*feet), (u, v)], fill=BUILDER_MARK, width=max(2, frame.cell // 9))
    draw.line([(u, v), gaze], fill=BUILDER_MARK, width=2)
    draw.ellipse([u - radius, v - radius, u + radius, v + radius], fill=BUILDER_MARK)


def picture_png(image: Image.Image) -> bytes:
    """A picture as PNG bytes, compressed lightly: a replay step's pictures are drawn on a click and sent
    over loopback or a LAN, where a few KB more cost less than the stronger compression's time."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()
