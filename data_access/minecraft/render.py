"""Pictures of Minecraft builds: interactive plotly 3-D figures (the build at a step, the aligned target)
and a PIL isometric snapshot for exports. Pure functions of block lists.

Blocks are drawn as unit cubes centred on their integer cell (x, y, z), y up. A world point of the game
(the Builder's position) lies at cell corner coordinates, so it is shifted by −0.5 to share the frame.
Traces are built in game coordinates; ``_figure`` then maps them to plotly's frame, whose vertical axis
is z: (x, y, z) → (x, −z, y). That is a proper rotation, so the build is not mirrored, and the z ticks
are relabelled with the game's values.
Traces stay few: one Mesh3d per colour, one for ghosts, one line trace per edge style, the Builder marker
and its view cone.
"""
from __future__ import annotations

import math
from typing import Iterable, Optional, Sequence

import numpy as np
import plotly.graph_objects as go
from PIL import Image, ImageDraw

from .blocks import COLOR_HEX, COLORS, X_MAX, X_MIN, Y_MAX, Y_MIN, Z_MAX, Z_MIN

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


def _mesh(blocks: Sequence[Block], color: str, name: str, opacity: float = 1.0, showlegend: bool = True) -> dict:
    centres = np.array([b[:3] for b in blocks], dtype=float).reshape(-1, 1, 3)
    corners = (centres + _CORNER_OFFSETS).reshape(-1, 3)  # 8 corners per block
    faces = (np.arange(len(blocks)).reshape(-1, 1, 1) * 8 + _TRIANGLE_INDEX).reshape(-1, 3)
    return dict(type="mesh3d", x=corners[:, 0], y=corners[:, 1], z=corners[:, 2],
                i=faces[:, 0], j=faces[:, 1], k=faces[:, 2], color=color, opacity=opacity, flatshading=True,
                name=name, showlegend=showlegend, hoverinfo="name",
                lighting=dict(ambient=0.55, diffuse=0.8, specular=0.1, roughness=0.9))


def _edges(blocks: Sequence[Block], color: str, width: float, name: str) -> dict:
    centres = np.array([b[:3] for b in blocks], dtype=float).reshape(-1, 1, 3)
    corners = centres + _CORNER_OFFSETS
    # Each edge as (start, end, gap): NaN breaks the line between edges.
    points = np.full((len(blocks), len(_EDGES), 3, 3), np.nan)
    points[:, :, 0] = corners[:, _EDGE_INDEX[:, 0]]
    points[:, :, 1] = corners[:, _EDGE_INDEX[:, 1]]
    points = points.reshape(-1, 3)  # type: ignore[assignment]  # numpy types the shape; one array, reshaped
    return dict(type="scatter3d", x=points[:, 0], y=points[:, 1], z=points[:, 2], mode="lines", line=dict(color=color, width=width), name=name,
                hoverinfo="skip", showlegend=False)


def _bounds(points: Iterable[tuple]) -> dict:
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


def _figure(traces: list[dict], bounds: dict, title: str) -> go.Figure:
    """The traces in plotly's frame, axes fixed to ``bounds`` (game coordinates), equal scale, y up.

    Traces and layout are plain dicts that this module writes and the tests check, so the figure is
    assembled without plotly's per-property validation, which costs most of a replay step otherwise
    (most of a 60-block build's time); vertex arrays are numpy so plotly's copy of them is cheap."""
    spans = {axis: bounds[axis][1] - bounds[axis][0] for axis in "xyz"}
    largest = max(spans.values())
    z_lo, z_hi = bounds["z"]
    z_ticks = list(range(math.ceil(z_lo), math.floor(z_hi) + 1))
    layout = dict(
        title=dict(text=title, x=0.02, font=dict(size=14)),
        margin=dict(l=0, r=0, t=36, b=0), height=460, uirevision="minecraft",
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


def _solid_by_color(blocks: Sequence[Block], suffix: str = "") -> list[dict]:
    traces = []
    for color in COLORS:
        group = [b for b in blocks if b[3] == color]
        if group:
            traces.append(_mesh(group, COLOR_HEX[color], f"{color}{suffix} ({len(group)})"))
    return traces


def build_figure(blocks: Sequence[Block], placed: Sequence[Block] = (), removed: Sequence[Block] = (),
                 builder: Optional[tuple] = None, title: str = "Build") -> go.Figure:
    """The build as coloured cubes; this step's placements outlined thick in black, its removals as
    translucent ghosts, and the Builder as a marker with a cone along the view direction."""
    traces: list = _solid_by_color(blocks)
    if blocks:
        traces.append(_edges(blocks, "rgba(40,40,40,0.55)", 1.5, "edges"))
    if placed:
        traces.append(_edges(placed, "#000000", 7, "placed this step"))
        traces.append(dict(type="scatter3d", x=[b[0] for b in placed], y=[b[1] for b in placed],
                           z=[b[2] for b in placed], mode="markers",
                           marker=dict(size=3, color="white", line=dict(color="black", width=1)),
                           name=f"placed this step ({len(placed)})", hoverinfo="name"))
    if removed:
        traces.append(_mesh(removed, "#9a9a9a", f"removed this step ({len(removed)})", opacity=0.25))
        traces.append(_edges(removed, "rgba(120,120,120,0.8)", 2, "removed"))
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
    return _figure(traces, _bounds(points), title)


def target_figure(gold_aligned: Sequence[Block], gold_missing: Sequence[Block] = (), title: str = "Target (aligned)") -> go.Figure:
    """The target structure in the build's frame: blocks already built solid, missing ones as ghosts."""
    missing = {tuple(b) for b in gold_missing}
    present = [b for b in gold_aligned if tuple(b) not in missing]
    traces: list = _solid_by_color(present)
    if present:
        traces.append(_edges(present, "rgba(40,40,40,0.55)", 1.5, "edges"))
    if missing:
        for color in COLORS:
            group = [b for b in gold_missing if b[3] == color]
            if group:
                traces.append(_mesh(group, COLOR_HEX[color], f"{color} missing ({len(group)})", opacity=0.22))
        traces.append(_edges(list(gold_missing), "rgba(90,90,90,0.7)", 2, "missing"))
    return _figure(traces, _bounds([b[:3] for b in gold_aligned]), title)


# --------------------------------------------------------------------------------------------- isometric PNG

def _shade(hex_color: str, factor: float) -> tuple[int, int, int]:
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return tuple(max(0, min(255, int(v * factor))) for v in (r, g, b))  # type: ignore[return-value]  # three values


def snapshot_image(blocks: Sequence[Block], ghosts: Sequence[Block] = (), highlight: Sequence[Block] = (),
                   cell: int = 22, title: Optional[str] = None) -> Image.Image:
    """A small isometric drawing of the build (viewed from +x, +y, +z) on the 11 × 11 ground grid.

    ``ghosts`` are drawn as outlines (e.g. missing target blocks), ``highlight`` blocks get a thick outline."""
    c30, s30 = math.cos(math.radians(30)) * cell, math.sin(math.radians(30)) * cell
    everything = [*blocks, *ghosts]
    bounds = _bounds([b[:3] for b in everything])
    (x0, x1), (y0, y1), (z0, z1) = bounds["x"], bounds["y"], bounds["z"]

    def project(x, y, z):
        return ((x - z) * c30, (x + z) * s30 - y * cell)

    corners = [project(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    min_u, max_u = min(p[0] for p in corners), max(p[0] for p in corners)
    min_v, max_v = min(p[1] for p in corners), max(p[1] for p in corners)
    top = 24 if title else 6
    width, height = int(max_u - min_u) + 12, int(max_v - min_v) + top + 6
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)

    def to_screen(x, y, z):
        u, v = project(x, y, z)
        return (u - min_u + 6, v - min_v + top)

    for gx in range(X_MIN, X_MAX + 2):  # the ground grid of the build region, at the bottom of layer y = 1
        draw.line([to_screen(gx - 0.5, 0.5, Z_MIN - 0.5), to_screen(gx - 0.5, 0.5, Z_MAX + 0.5)], fill=(215, 215, 215))
    for gz in range(Z_MIN, Z_MAX + 2):
        draw.line([to_screen(X_MIN - 0.5, 0.5, gz - 0.5), to_screen(X_MAX + 0.5, 0.5, gz - 0.5)], fill=(215, 215, 215))

    highlighted = {tuple(b[:3]) for b in highlight}
    ghost_cells = {tuple(b[:3]) for b in ghosts}
    for block in sorted(everything, key=lambda b: (b[0] + b[1] + b[2], b[1])):
        x, y, z, color = block[:4]
        faces = [  # top, +x side, +z side
            ([(x - .5, y + .5, z - .5), (x + .5, y + .5, z - .5), (x + .5, y + .5, z + .5), (x - .5, y + .5, z + .5)], 1.15),
            ([(x + .5, y + .5, z - .5), (x + .5, y + .5, z + .5), (x + .5, y - .5, z + .5), (x + .5, y - .5, z - .5)], 0.85),
            ([(x - .5, y + .5, z + .5), (x + .5, y + .5, z + .5), (x + .5, y - .5, z + .5), (x - .5, y - .5, z + .5)], 0.65),
        ]
        ghost = tuple(block[:3]) in ghost_cells and block in ghosts
        for polygon, factor in faces:
            points = [to_screen(*p) for p in polygon]
            if ghost:
                draw.polygon(points, outline=_shade(COLOR_HEX[color], 0.9))
            else:
                draw.polygon(points, fill=_shade(COLOR_HEX[color], factor), outline=(40, 40, 40))
        if tuple(block[:3]) in highlighted:
            outline = [to_screen(*p) for p in faces[0][0]] + [to_screen(x + .5, y - .5, z + .5)]
            draw.line(outline[:4] + outline[:1], fill="black", width=3)
    if title:
        draw.text((6, 5), title, fill=(20, 20, 20))
    return image
