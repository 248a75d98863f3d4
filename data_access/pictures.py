"""Pictures made of pictures, corpus-free: captioned cells in a grid or a strip, an animated GIF, a captioned
blank for a step with nothing to show, a PNG read back. The replay exports (``exports``), the snapshots of replay
steps and each corpus's run pictures use them; this module sits below all of them and imports only the fonts."""
from __future__ import annotations

import io
import math
from typing import Optional, Sequence, Union

from PIL import Image, ImageDraw

from . import fonts

Color = Union[str, tuple[int, int, int]]

CAPTION_FONT_SIZE = 16
CAPTION_PADDING = 6


# -- images --------------------------------------------------------------------------------------------------

def _wrap(text: str, size: int, width: int, draw: ImageDraw.ImageDraw) -> list[str]:
    """Greedy word wrap of each line of ``text`` to ``width`` pixels (a long word is cut by characters)."""
    lines: list[str] = []

    def textlength(piece: str) -> float:
        return fonts.text_length(draw, piece, size)

    for paragraph in str(text).splitlines() or [""]:
        current = ""
        for word in paragraph.split(" "):
            candidate = f"{current} {word}" if current else word
            if textlength(candidate) <= width:
                current = candidate
                continue
            if current:
                lines.append(current)
            current = word
            while textlength(current) > width and len(current) > 1:
                cut = len(current) - 1
                while cut > 1 and textlength(current[:cut]) > width:
                    cut -= 1
                lines.append(current[:cut])
                current = current[cut:]
        lines.append(current)
    return lines


def _line_height(font_size: int) -> int:
    """Caption line pitch: the primary font's ascent + descent (Noto's accents and descenders fit)."""
    ascent, descent = fonts.font(font_size, 0).getmetrics()
    return ascent + descent


def _caption_height(captions: Sequence[Optional[str]], width: int, font_size: int) -> int:
    if not any(captions):
        return 0
    draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    line_height = _line_height(font_size)
    most_lines = max(len(_wrap(c, font_size, width - 2 * CAPTION_PADDING, draw)) for c in captions if c)
    return most_lines * line_height + 2 * CAPTION_PADDING


def _cell(image: Image.Image, size: tuple[int, int], caption: Optional[str], caption_height: int,
          font_size: int, background: Color, text_color: Color) -> Image.Image:
    """``image`` centred on a ``size`` canvas of ``background``, with the caption strip below it."""
    width, height = size
    cell = Image.new("RGB", (width, height + caption_height), background)
    where = ((width - image.width) // 2, (height - image.height) // 2)
    if image.mode == "RGB":  # opaque: no mask to blend through (most snapshots; a quarter of a grid's time)
        cell.paste(image, where)
    else:
        source = image.convert("RGBA")
        cell.paste(source, where, source)
    if caption and caption_height:
        draw = ImageDraw.Draw(cell)
        y = height + CAPTION_PADDING
        for line in _wrap(caption, font_size, width - 2 * CAPTION_PADDING, draw):
            fonts.draw_text(draw, (CAPTION_PADDING, y), line, font_size, text_color)
            y += _line_height(font_size)
    return cell


def _check_captions(images: Sequence[Image.Image], captions: Optional[Sequence[Optional[str]]]) -> list:
    if not images:
        raise ValueError("no images to export")
    if captions is None:
        return [None] * len(images)
    if len(captions) != len(images):
        raise ValueError(f"{len(captions)} captions for {len(images)} images")
    return list(captions)


def animated_gif(
    frames: Sequence[Image.Image],
    durations_ms: Union[int, Sequence[int]] = 1000,
    *,
    captions: Optional[Sequence[Optional[str]]] = None,
    loop: Optional[int] = 0,
    background: Color = "white",
    text_color: Color = "black",
    font_size: int = CAPTION_FONT_SIZE,
) -> bytes:
    """A replay as an animated GIF.

    Frames of different sizes are centred on one canvas (the largest width × the largest height). With
    ``captions`` (one per frame, None for none) a strip under every frame shows its caption, wrapped.
    ``durations_ms`` is one duration for all frames or one per frame; ``loop=0`` loops forever, None
    plays once. Pillow merges identical consecutive frames into one longer frame."""
    captions = _check_captions(frames, captions)
    durations = [int(durations_ms)] * len(frames) if isinstance(durations_ms, (int, float)) else list(durations_ms)
    if len(durations) != len(frames):
        raise ValueError(f"{len(durations)} durations for {len(frames)} frames")
    if any(d <= 0 for d in durations):
        raise ValueError("frame durations must be positive")
    size = (max(f.width for f in frames), max(f.height for f in frames))
    strip = _caption_height(captions, size[0], font_size)
    cells = [_cell(f, size, c, strip, font_size, background, text_color) for f, c in zip(frames, captions)]
    buffer = io.BytesIO()
    options = {"save_all": True, "append_images": cells[1:], "duration": durations, "disposal": 1}
    if loop is not None:
        options["loop"] = loop
    cells[0].save(buffer, format="GIF", **options)
    return buffer.getvalue()


def image_grid(
    images: Sequence[Image.Image],
    captions: Optional[Sequence[Optional[str]]] = None,
    *,
    columns: Optional[int] = None,
    gap: int = 8,
    background: Color = "white",
    text_color: Color = "black",
    font_size: int = CAPTION_FONT_SIZE,
) -> Image.Image:
    """Images in a grid of equal cells (``columns`` per row; default: all in one row), captions below
    each. Cell = largest width × largest height (+ caption strip); ``gap`` pixels between and around."""
    captions = _check_captions(images, captions)
    columns = len(images) if columns is None else max(1, min(int(columns), len(images)))
    rows = math.ceil(len(images) / columns)
    size = (max(i.width for i in images), max(i.height for i in images))
    strip = _caption_height(captions, size[0], font_size)
    cell_w, cell_h = size[0], size[1] + strip
    sheet = Image.new("RGB", (columns * cell_w + (columns + 1) * gap, rows * cell_h + (rows + 1) * gap), background)
    for index, (image, caption) in enumerate(zip(images, captions)):
        row, column = divmod(index, columns)
        cell = _cell(image, size, caption, strip, font_size, background, text_color)
        sheet.paste(cell, (gap + column * (cell_w + gap), gap + row * (cell_h + gap)))
    return sheet


def png_strip(
    images: Sequence[Image.Image],
    captions: Optional[Sequence[Optional[str]]] = None,
    *,
    columns: Optional[int] = None,
    gap: int = 8,
    background: Color = "white",
    text_color: Color = "black",
    font_size: int = CAPTION_FONT_SIZE,
) -> bytes:
    """``image_grid(...)`` as PNG bytes — replay steps side by side for a slide."""
    return png_bytes(image_grid(images, captions, columns=columns, gap=gap, background=background,
                                text_color=text_color, font_size=font_size))


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def note_picture(text: str, size: tuple[int, int] = (640, 160)) -> Image.Image:
    """A blank picture captioned with why there is nothing to show at a step."""
    return image_grid([Image.new("RGB", size, (244, 244, 244))], [text])


def png_image(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")
