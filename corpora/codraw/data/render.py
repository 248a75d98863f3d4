"""Rendering CoDraw scenes as 500x400 PIL images, with or without the Abstract Scenes clip art.

``render_scene`` is a pure function of the scene's cliparts: with a clip-art folder it composes the
real sprites like the original viewer (background, then sky objects far to near, then everything else
far to near, string order within one depth; sprites centred on (x, y), scaled 1.0/0.7/0.49 by depth,
mirrored when flipped). Without one it draws an art-free rendition: a shape and colour per category,
sized like the real sprite, with a short label, so the scene can still be read. ``scene_changes``
compares a round's canvas with the one before it; ``render_scene`` can mark those changes.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence

import pandas as pd
from PIL import Image, ImageDraw, ImageFont, ImageOps

from corpora.codraw.data.scenes import (
    CANVAS_HEIGHT,
    CANVAS_WIDTH,
    DEPTH_SCALES,
    EXPRESSIONS,
    OBJECT_NAMES,
    PEOPLE_TYPES,
    PERSON_NAMES,
    Clipart,
    clipart_label,
    cliparts_of,
)

# Size (w, h) of each identity's sprite in Abstract Scenes v1.1 (people: their standing pose), so the
# art-free rendition has the real proportions.
SPRITE_SIZES = (
    (196, 110), (136, 186), (170, 102), (148, 148), (158, 188), (176, 206), (118, 108), (230, 122),
    (98, 110), (248, 262), (380, 118), (72, 92), (360, 304), (424, 200), (270, 114), (368, 766), (290, 508), (376, 428),
    (108, 202), (120, 194),
    (178, 258), (62, 82), (142, 106), (76, 72), (46, 66), (104, 70),
    (78, 46), (70, 54), (90, 76), (90, 42), (70, 50), (66, 40), (90, 76), (76, 52), (62, 22), (62, 16),
    (62, 30), (88, 32), (54, 30), (16, 40), (16, 40), (38, 28), (30, 34),
    (78, 54), (46, 72), (78, 78), (60, 60), (62, 60), (20, 20), (60, 42), (64, 30), (50, 124), (108, 232), (54, 50),
    (34, 60), (96, 104), (310, 264), (88, 118),
)
# Art-free look per type: fill colour and shape.
TYPE_STYLES = {
    0: ((135, 190, 235), "cloud"),  # sky
    1: ((96, 160, 80), "box"),  # large objects and plants
    2: ((70, 130, 200), "person"),  # boy
    3: ((220, 110, 160), "person"),  # girl
    4: ((170, 120, 70), "ellipse"),  # animals
    5: ((150, 100, 200), "triangle"),  # clothing
    6: ((240, 160, 60), "box"),  # food
    7: ((220, 70, 70), "diamond"),  # toys
}
POSE_SHORT = ("stand", "arms up", "kick", "run", "sit", "sit", "wave")
CHANGE_COLOURS = {"added": (40, 170, 60), "moved": (240, 140, 0), "changed": (40, 110, 220), "removed": (220, 40, 40)}


@dataclass(frozen=True)
class SceneChange:
    """One difference between the canvas before a round and after it."""

    identity: int
    label: str
    change: str  # added | moved | changed | removed
    before: Optional[Clipart]
    after: Optional[Clipart]
    details: str


def draw_order(cliparts: Sequence[Clipart]) -> list[Clipart]:
    """The original viewer's order: sky (type 0) far to near, then all others far to near; stable."""
    return sorted(cliparts, key=lambda c: (c.type != 0, -c.z))


def scene_changes(before: Sequence[Clipart], after: Sequence[Clipart]) -> list[SceneChange]:
    """Added, moved, changed (pose, depth or flip) and removed cliparts, in the after-scene's order."""
    old = {c.identity: c for c in before}
    new = {c.identity: c for c in after}
    changes = []
    for identity, c in new.items():
        previous = old.get(identity)
        if previous is None:
            changes.append(SceneChange(identity, clipart_label(c.type, c.object), "added", None, c,
                                       f"at ({c.x:.0f}, {c.y:.0f})"))
            continue
        moved = (previous.x, previous.y) != (c.x, c.y)
        what = [w for w, differs in (("pose/expression", previous.object != c.object), ("depth", previous.z != c.z),
                                     ("facing", previous.flip != c.flip)) if differs]
        if moved or what:
            details = (f"({previous.x:.0f}, {previous.y:.0f}) → ({c.x:.0f}, {c.y:.0f})" if moved else "")
            details = ", ".join([details] * bool(details) + [f"{w} changed" for w in what])
            changes.append(SceneChange(identity, clipart_label(c.type, c.object), "moved" if moved else "changed",
                                       previous, c, details))
    for identity, c in old.items():
        if identity not in new:
            changes.append(SceneChange(identity, clipart_label(c.type, c.object), "removed", c, None,
                                       f"was at ({c.x:.0f}, {c.y:.0f})"))
    return changes


def changes_table(changes: Iterable[SceneChange]) -> pd.DataFrame:
    return pd.DataFrame([{"change": c.change, "clipart": c.label, "details": c.details} for c in changes],
                        columns=["change", "clipart", "details"])


# ----------------------------------------------------------------------------------------------------
# Sprites and the art-free stand-ins

@functools.lru_cache(maxsize=8)
def _background(folder: Optional[str]) -> Image.Image:
    if folder is not None:
        path = Path(folder) / "background.png"
        if path.is_file():
            return Image.open(path).convert("RGBA").resize((CANVAS_WIDTH, CANVAS_HEIGHT))
    image = Image.new("RGBA", (CANVAS_WIDTH, CANVAS_HEIGHT), (214, 234, 250, 255))
    draw = ImageDraw.Draw(image)
    for row in range(170, CANVAS_HEIGHT):  # grass that darkens towards the viewer
        shade = (row - 170) / (CANVAS_HEIGHT - 170)
        draw.line([(0, row), (CANVAS_WIDTH, row)], fill=(int(200 - 60 * shade), int(228 - 40 * shade), int(170 - 70 * shade), 255))
    return image


@functools.lru_cache(maxsize=512)
def _sprite(folder: str, name: str, z: int, flip: int) -> Optional[Image.Image]:
    """A clip-art sprite scaled for its depth and mirrored when flipped; None when the file is missing."""
    path = Path(folder) / name
    if not path.is_file():
        return None
    image = Image.open(path).convert("RGBA")
    scale = DEPTH_SCALES[z]
    if scale != 1.0:
        image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.Resampling.LANCZOS)
    return ImageOps.mirror(image) if flip else image


@functools.lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def short_label(c: Clipart) -> str:
    """"boy·kick" for people, the object's name otherwise."""
    if c.type in PEOPLE_TYPES:
        return f"{PERSON_NAMES[c.type]}·{POSE_SHORT[c.object // 5]}"
    return OBJECT_NAMES[c.type][c.object]


def _box(c: Clipart, size: Optional[tuple[int, int]] = None) -> tuple[float, float, float, float]:
    width, height = size or SPRITE_SIZES[c.identity]
    if size is None:
        width, height = width * DEPTH_SCALES[c.z], height * DEPTH_SCALES[c.z]  # type: ignore[assignment]  # pixels, now fractional
    return c.x - width / 2, c.y - height / 2, c.x + width / 2, c.y + height / 2


def _draw_stand_in(image: Image.Image, c: Clipart) -> None:
    """The art-free rendition of one clipart: category shape and colour, real proportions, a label,
    a face for the people (mouth by expression) and a mirror marker (◂▸) when flipped."""
    layer = Image.new("RGBA", image.size)
    draw = ImageDraw.Draw(layer)
    colour, shape = TYPE_STYLES[c.type]
    big = c.type == 1  # trees, tents, slides: see-through so that what stands in front stays visible
    fill, edge = colour + (110 if big else 210,), tuple(int(v * 0.6) for v in colour) + (255,)
    left, top, right, bottom = _box(c)
    width, height = right - left, bottom - top
    if shape == "cloud":
        draw.rounded_rectangle((left, top, right, bottom), radius=min(width, height) / 2, fill=fill, outline=edge, width=2)
    elif shape == "box":
        draw.rounded_rectangle((left, top, right, bottom), radius=8, fill=fill, outline=edge, width=2)
    elif shape == "ellipse":
        draw.ellipse((left, top, right, bottom), fill=fill, outline=edge, width=2)
    elif shape == "triangle":
        draw.polygon([(c.x, top), (right, bottom), (left, bottom)], fill=fill, outline=edge, width=2)
    elif shape == "diamond":
        draw.polygon([(c.x, top), (right, c.y), (c.x, bottom), (left, c.y)], fill=fill, outline=edge, width=2)
    else:  # a person: head with a face, and a body
        radius = width * 0.3
        head = (c.x - radius, top, c.x + radius, top + 2 * radius)
        draw.ellipse(head, fill=(250, 220, 190, 255), outline=edge, width=2)
        draw.rounded_rectangle((left + width * 0.18, top + 2 * radius, right - width * 0.18, bottom), radius=10, fill=fill,
                               outline=edge, width=2)
        eye_y, eye = top + radius * 0.8, max(1.5, radius * 0.12)
        for side in (-1, 1):
            draw.ellipse((c.x + side * radius * 0.4 - eye, eye_y - eye, c.x + side * radius * 0.4 + eye, eye_y + eye), fill=(40, 40, 40, 255))
        mouth = (c.x - radius * 0.45, top + radius * 1.05, c.x + radius * 0.45, top + radius * 1.6)
        expression = EXPRESSIONS[c.object % 5]
        if expression in ("laughing", "smiling"):
            draw.chord(mouth, 0, 180, fill=(160, 40, 40, 255) if expression == "laughing" else None, outline=(60, 30, 30, 255), width=2)
        elif expression == "sad":
            draw.arc((mouth[0], mouth[1] + radius * 0.2, mouth[2], mouth[3] + radius * 0.3), 200, 340, fill=(60, 30, 30, 255), width=2)
        elif expression == "surprised":
            draw.ellipse((c.x - radius * 0.15, mouth[1], c.x + radius * 0.15, mouth[3]), outline=(60, 30, 30, 255), width=2)
        else:  # angry
            draw.line([(mouth[0], mouth[1] + radius * 0.3), (mouth[2], mouth[1] + radius * 0.3)], fill=(60, 30, 30, 255), width=2)
            for side in (-1, 1):
                draw.line([(c.x + side * radius * 0.65, eye_y - radius * 0.35), (c.x + side * radius * 0.15, eye_y - radius * 0.15)],
                          fill=(40, 40, 40, 255), width=2)
    if c.flip:
        x, y = right - 14, top + 8
        draw.polygon([(x - 12, y), (x - 4, y - 6), (x - 4, y + 6)], fill=(30, 30, 30, 230))
        draw.polygon([(x + 12, y), (x + 4, y - 6), (x + 4, y + 6)], fill=(30, 30, 30, 230))
    font = _font(max(10, int(16 * DEPTH_SCALES[c.z])))
    draw.text((c.x, min(bottom + 2, CANVAS_HEIGHT - 16)), short_label(c), fill=(30, 30, 30, 255), font=font, anchor="ma",
              stroke_width=2, stroke_fill=(255, 255, 255, 220))
    image.alpha_composite(layer)


def dashed_rectangle(draw: ImageDraw.ImageDraw, box, colour, dash: int = 8, width: int = 3) -> None:
    left, top, right, bottom = box
    for (x0, y0, x1, y1) in ((left, top, right, top), (right, top, right, bottom), (right, bottom, left, bottom), (left, bottom, left, top)):
        length = math.hypot(x1 - x0, y1 - y0)
        for start in range(0, int(length), 2 * dash):
            a, b = start / max(length, 1), min(start + dash, length) / max(length, 1)
            draw.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)], fill=colour, width=width)


def draw_arrow(draw: ImageDraw.ImageDraw, start, end, colour, width: int = 3) -> None:
    draw.line([start, end], fill=colour, width=width)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    wing = 12
    points = [end] + [(end[0] - wing * math.cos(angle + s * 0.45), end[1] - wing * math.sin(angle + s * 0.45)) for s in (-1, 1)]
    draw.polygon(points, fill=colour)


def sprite_box(c: Clipart, folder: Optional[str]) -> tuple[float, float, float, float]:
    sprite = _sprite(folder, c.name, c.z, c.flip) if folder else None
    return _box(c, sprite.size) if sprite is not None else _box(c)


# A clipart whose centre lies further than this from the canvas cannot show any part of itself (the
# largest sprite is 766 px tall); drawing it would only feed huge numbers to Pillow (x = 1e300 overflows).
DRAW_MARGIN = 1000.0


def _drawable(c: Optional[Clipart]) -> bool:
    return c is not None and math.isfinite(c.x) and math.isfinite(c.y) \
        and -DRAW_MARGIN <= c.x <= CANVAS_WIDTH + DRAW_MARGIN and -DRAW_MARGIN <= c.y <= CANVAS_HEIGHT + DRAW_MARGIN


def _mark_changes(image: Image.Image, changes: Sequence[SceneChange], folder: Optional[str]) -> None:
    layer = Image.new("RGBA", image.size)
    draw = ImageDraw.Draw(layer)
    for change in changes:
        if not _drawable(change.after if change.change != "removed" else change.before):
            continue
        colour = CHANGE_COLOURS[change.change] + (255,)
        if change.change == "removed":
            assert change.before is not None  # a removed clipart was there before
            box = sprite_box(change.before, folder)
            draw.rectangle(box, fill=CHANGE_COLOURS["removed"] + (40,))
            dashed_rectangle(draw, box, colour)
            draw.text((change.before.x, change.before.y), "✕", fill=colour, font=_font(22), anchor="mm")
            continue
        assert change.after is not None  # an added, moved or changed clipart is there after
        draw.rectangle(sprite_box(change.after, folder), outline=colour, width=3)
        if change.change == "moved" and change.before is not None and _drawable(change.before):
            draw_arrow(draw, (change.before.x, change.before.y), (change.after.x, change.after.y), colour)
    image.alpha_composite(layer)


def render_scene(cliparts: Sequence[Clipart] | pd.DataFrame, clipart_folder: Optional[str | Path] = None,
                 changes: Sequence[SceneChange] = ()) -> Image.Image:
    """The scene as a 500x400 RGB image; real clip art when ``clipart_folder`` has it, else the
    art-free rendition. ``changes`` (from ``scene_changes``) are outlined: added green, moved orange
    with an arrow from the old position, changed blue, removed as a dashed red ghost."""
    if isinstance(cliparts, pd.DataFrame):
        cliparts = cliparts_of(cliparts)
    folder = str(clipart_folder) if clipart_folder and Path(clipart_folder, "background.png").is_file() else None
    image = _background(folder).copy()
    for c in draw_order(cliparts):
        if not _drawable(c):  # far off the canvas (or not a number): nothing of it would be visible
            continue
        sprite = _sprite(folder, c.name, c.z, c.flip) if folder else None
        if sprite is None:
            _draw_stand_in(image, c)
        else:
            image.alpha_composite(sprite, (round(c.x - sprite.width / 2), round(c.y - sprite.height / 2))) \
                if _inside(image, c, sprite) else _paste_clipped(image, sprite, c)
    if changes:
        _mark_changes(image, changes, folder)
    return image.convert("RGB")


def _inside(image: Image.Image, c: Clipart, sprite: Image.Image) -> bool:
    left, top = round(c.x - sprite.width / 2), round(c.y - sprite.height / 2)
    return left >= 0 and top >= 0 and left + sprite.width <= image.width and top + sprite.height <= image.height


def _paste_clipped(image: Image.Image, sprite: Image.Image, c: Clipart) -> None:
    """alpha_composite needs the sprite inside the canvas: crop the part that is."""
    left, top = round(c.x - sprite.width / 2), round(c.y - sprite.height / 2)
    crop = (max(0, -left), max(0, -top), min(sprite.width, image.width - left), min(sprite.height, image.height - top))
    if crop[0] >= crop[2] or crop[1] >= crop[3]:
        return
    image.alpha_composite(sprite.crop(crop), (left + crop[0], top + crop[1]))
