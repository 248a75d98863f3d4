"""Drawing one player's 3×3 board as a PIL image (pure: same inputs, same pixels).

Each tile is the real photo when the image folder holds ``<image_id>.jpg``; otherwise a placeholder in a
stable colour with the category and a short id, so a reader can follow an image across the two players'
differently shuffled boards. Overlays show the game state: rank badges, the player's own pending lock,
the images the current message refers to, and a red flash on the image whose lock just mismatched.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Collection, Mapping, Optional, Sequence

from PIL import Image, ImageDraw, ImageFont, ImageOps

# Tableau-10 without its red (red means "mismatch" here): nine colours that stay apart for most eyes.
PALETTE = ("#4E79A7", "#F28E2B", "#59A14F", "#B07AA1", "#76B7B2", "#EDC948", "#FF9DA7", "#9C755F", "#8CD17D")
BACKGROUND = "#EEF0F3"
BADGE_FILL = (31, 41, 55)  # the rank badge: a dark circle with a white number
LOCK_COLOUR = (29, 78, 216)
HIGHLIGHT_COLOUR = (245, 158, 11)
MISMATCH_COLOUR = (220, 38, 38)
COLUMNS = 3


@dataclass(frozen=True)
class TileLabel:
    """How a placeholder tile names its image."""

    category: str
    short_id: str
    colour: str  # "#rrggbb"


def colour_for(image_id: str, game_index: Optional[int] = None) -> str:
    """The image's colour: by its position in the game's config order, else by a stable hash of the id."""
    index = game_index if game_index is not None and game_index >= 0 else zlib.crc32(image_id.encode())
    return PALETTE[index % len(PALETTE)]


def short_ids(image_ids: Sequence[str], minimum: int = 6) -> dict[str, str]:
    """The shortest prefixes (at least ``minimum`` characters) that tell these ids apart.

    Dog ids share long prefixes (n02088238_…, n02088364_…), so a fixed 6 characters would collide."""
    result = {}
    for image_id in image_ids:
        length = minimum
        while length < len(image_id) and any(o != image_id and o[:length] == image_id[:length] for o in image_ids):
            length += 1
        result[image_id] = image_id[:length]
    return result


@lru_cache(maxsize=32)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=256)
def _photo(folder: str, image_id: str, size: int) -> Optional[Image.Image]:
    """The image's photo cropped to a square tile, or None when the folder does not hold it."""
    path = Path(folder) / f"{image_id}.jpg"
    if not path.is_file():
        return None
    try:
        with Image.open(path) as photo:
            return ImageOps.fit(photo.convert("RGB"), (size, size), Image.Resampling.LANCZOS)
    except (OSError, ValueError):
        return None  # an unreadable photo falls back to the placeholder


def tile_origin(position: int, tile_px: int, gap: int) -> tuple[int, int]:
    """Top-left pixel of the tile at 1-based ``position`` (left to right, top to bottom)."""
    row, col = divmod(position - 1, COLUMNS)
    return gap + col * (tile_px + gap), gap + row * (tile_px + gap)


def badge_centre(position: int, tile_px: int, gap: int) -> tuple[int, int]:
    x, y = tile_origin(position, tile_px, gap)
    radius = _badge_radius(tile_px)
    return x + radius + 6, y + radius + 6


def _badge_radius(tile_px: int) -> int:
    return max(10, tile_px // 7)


def _centred_text(draw: ImageDraw.ImageDraw, centre: tuple[float, float], text: str, size: int, fill) -> None:
    draw.text(centre, text, font=_font(size), fill=fill, anchor="mm")


def _fit_size(text: str, width: int, start: int) -> int:
    size = start
    while size > 9 and _font(size).getlength(text) > width:
        size -= 1
    return size


@lru_cache(maxsize=512)
def _placeholder(label: TileLabel, size: int) -> Image.Image:
    """A labelled tile for an image without its photo. Shared by every board that shows it: callers paste or
    blend it into new images and never draw on it."""
    tile = Image.new("RGB", (size, size), label.colour)
    draw = ImageDraw.Draw(tile)
    # A lighter inner panel keeps dark text readable on every palette colour.
    inset = max(6, size // 12)
    draw.rounded_rectangle((inset, size * 0.30, size - inset, size * 0.72), radius=8, fill=(255, 255, 255))
    _centred_text(draw, (size / 2, size * 0.84), label.category.upper(), _fit_size(label.category.upper(), size - 2 * inset, size // 10), (255, 255, 255))
    _centred_text(draw, (size / 2, size * 0.51), label.short_id, _fit_size(label.short_id, size - 4 * inset, size // 6), (17, 24, 39))
    return tile


def _caption(tile: Image.Image, label: TileLabel) -> None:
    """A colour strip with the short id under a photo, so photos and placeholders read alike."""
    size = tile.width
    strip = max(16, size // 7)
    draw = ImageDraw.Draw(tile)
    draw.rectangle((0, size - strip, size, size), fill=label.colour)
    _centred_text(draw, (size / 2, size - strip / 2), label.short_id, _fit_size(label.short_id, size - 8, strip - 4), (255, 255, 255))


def _lock_icon(draw: ImageDraw.ImageDraw, centre: tuple[int, int], radius: int) -> None:
    cx, cy = centre
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=LOCK_COLOUR, outline=(255, 255, 255), width=2)
    body_w, body_h = radius * 1.0, radius * 0.75
    shackle = radius * 0.38
    draw.arc((cx - shackle, cy - radius * 0.65, cx + shackle, cy + radius * 0.1), 180, 360, fill=(255, 255, 255), width=max(2, radius // 5))
    draw.rounded_rectangle((cx - body_w / 2, cy - radius * 0.2, cx + body_w / 2, cy - radius * 0.2 + body_h), radius=2, fill=(255, 255, 255))


def _speech_icon(draw: ImageDraw.ImageDraw, centre: tuple[int, int], radius: int) -> None:
    """An amber speech bubble: "the current message refers to this image"."""
    cx, cy = centre
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=HIGHLIGHT_COLOUR, outline=(255, 255, 255), width=2)
    w, h = radius * 0.6, radius * 0.38
    draw.rounded_rectangle((cx - w, cy - h - 2, cx + w, cy + h - 2), radius=3, fill=(255, 255, 255))
    draw.polygon([(cx - w * 0.5, cy + h - 3), (cx - w * 0.1, cy + h - 3), (cx - w * 0.6, cy + h + radius * 0.3)], fill=(255, 255, 255))


def _cross_icon(draw: ImageDraw.ImageDraw, centre: tuple[int, int], radius: int) -> None:
    """A red circle with a white cross: "this lock met a different image"."""
    cx, cy = centre
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=MISMATCH_COLOUR, outline=(255, 255, 255), width=2)
    arm = radius * 0.45
    for sign in (1, -1):
        draw.line((cx - arm, cy - sign * arm, cx + arm, cy + sign * arm), fill=(255, 255, 255), width=max(2, radius // 4))


def tile_picture(image_id: str, label: Optional[TileLabel], image_folder: Optional[str], tile_px: int = 150) -> Image.Image:
    """One image's tile as the boards draw it: its photo with a caption strip, or the labelled placeholder (the Play
    page's board draws the tiles in the browser)."""
    label = label or TileLabel("image", image_id[:6], colour_for(image_id))
    photo = _photo(image_folder, image_id, tile_px) if image_folder else None
    if photo is None:
        return _placeholder(label, tile_px).copy()
    tile = photo.copy()
    _caption(tile, label)
    return tile


def render_board(
    layout: Sequence[str],
    labels: Mapping[str, TileLabel],
    *,
    ranks: Mapping[str, int] = {},
    pending: Optional[str] = None,
    highlighted: Collection[str] = (),
    mismatch: Optional[str] = None,
    image_folder: Optional[str] = None,
    tile_px: int = 150,
    gap: int = 12,
) -> Image.Image:
    """One player's board: ``layout`` lists the image ids by position (1 = top left, row by row).

    ``ranks`` maps ranked images to their rank; ``pending`` is this player's own pending lock;
    ``highlighted`` are the images the current message refers to (drawn on the sender's board);
    ``mismatch`` is the image whose lock was just rejected because the partner locked another."""
    rows = max(1, -(-len(layout) // COLUMNS))
    width = gap + COLUMNS * (tile_px + gap)
    height = gap + rows * (tile_px + gap)
    board = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(board)
    ring = max(3, gap - 3)
    for position, image_id in enumerate(layout, start=1):
        x, y = tile_origin(position, tile_px, gap)
        label = labels.get(image_id) or TileLabel("image", image_id[:6], colour_for(image_id))
        photo = _photo(image_folder, image_id, tile_px) if image_folder else None
        if photo is not None:
            tile = photo.copy()
            _caption(tile, label)
        else:
            tile = _placeholder(label, tile_px)
        if image_id in ranks:
            # Ranked images recede a little so the ones still to discuss stand out.
            tile = Image.blend(tile, Image.new("RGB", tile.size, (255, 255, 255)), 0.45)
        if image_id == mismatch:
            tile = Image.blend(tile, Image.new("RGB", tile.size, MISMATCH_COLOUR), 0.35)
        board.paste(tile, (x, y))
        box = (x, y, x + tile_px - 1, y + tile_px - 1)
        if image_id in highlighted:  # outside the tile, in the gap, so it combines with a lock border
            draw.rounded_rectangle((x - ring, y - ring, x + tile_px - 1 + ring, y + tile_px - 1 + ring),
                                   radius=6, outline=HIGHLIGHT_COLOUR, width=ring)
            _speech_icon(draw, (x + tile_px // 2, y + _badge_radius(tile_px) + 6), _badge_radius(tile_px))
        if image_id == mismatch:
            draw.rectangle(box, outline=MISMATCH_COLOUR, width=max(5, tile_px // 22))
            _cross_icon(draw, (x + tile_px // 2, y + _badge_radius(tile_px) + 6), _badge_radius(tile_px))
        elif image_id == pending:
            draw.rectangle(box, outline=LOCK_COLOUR, width=max(5, tile_px // 22))
        if image_id == pending or image_id == mismatch:
            radius = _badge_radius(tile_px)
            _lock_icon(draw, (x + tile_px - radius - 6, y + radius + 6), radius)
        if image_id in ranks:
            radius = _badge_radius(tile_px)
            cx, cy = badge_centre(position, tile_px, gap)
            draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=BADGE_FILL, outline=(255, 255, 255), width=2)
            _centred_text(draw, (cx, cy), str(ranks[image_id]), int(radius * 1.2), (255, 255, 255))
    return board
