"""TrueType text for the images the app exports (GIF and PNG-strip captions), with per-character fallback.

Pillow's default font is a small bitmap face that draws a box for anything beyond ASCII (the em dash of
our own captions, accents, curly quotes, CJK, emoji). Captions are drawn instead with Noto fonts from
two maintained PyPI packages: ``manimgx-fonts`` (Noto Sans, Noto Sans Symbols, Noto Emoji — monochrome
outlines) and ``noto-cjk-sans-otc`` (Noto Sans CJK). Each character is drawn with the first font of
``FONT_FILES`` whose character map has it; a character no font has is drawn with the first font.

Which characters the real corpora hold (checked on the full copies): CoDraw, Minecraft: ASCII only;
A Game Of Sorts: ASCII plus 😂 and 👍. Our own captions add · and —.
"""
from __future__ import annotations

from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Iterator, Optional

from PIL import ImageDraw, ImageFont


def _font_files() -> list[Path]:
    import manimgx_fonts
    import noto_cjk_sans_otc

    noto = files(manimgx_fonts)
    return [Path(str(noto / "NotoSans[wght].ttf")), Path(str(noto / "NotoSansSymbols[wght].ttf")),
            Path(str(noto / "NotoEmoji[wght].ttf")), Path(str(noto_cjk_sans_otc.FONT_PATH))]


FONT_FILES: list[Path] = _font_files()


@lru_cache(maxsize=None)
def _charmap(path: Path) -> frozenset[int]:
    from fontTools.ttLib import TTCollection, TTFont

    if path.suffix.lower() in (".ttc", ".otc"):
        collection = TTCollection(str(path), lazy=True)
        return frozenset(collection.fonts[0].getBestCmap())
    return frozenset(TTFont(str(path), lazy=True).getBestCmap())


@lru_cache(maxsize=64)
def font(size: int, index: int = 0) -> ImageFont.FreeTypeFont:
    """The ``index``-th font of the chain at ``size`` pixels."""
    return ImageFont.truetype(str(FONT_FILES[index]), size)


def font_index(character: str) -> Optional[int]:
    """The first font of the chain that has ``character`` (None when none has it)."""
    code = ord(character)
    for index, path in enumerate(FONT_FILES):
        if code in _charmap(path):
            return index
    return None


def covers(character: str) -> bool:
    """Whether some font of the chain has a glyph for ``character`` (whitespace and controls count as covered)."""
    return character.isspace() or not character.isprintable() or font_index(character) is not None


def runs(text: str) -> Iterator[tuple[int, str]]:
    """``text`` cut into (font index, run) pieces, each drawn with one font.

    Spaces take the first font (an emoji font's space is very wide); variation selectors and zero-width
    joiners stay with the run before them."""
    current: Optional[int] = None
    piece = ""
    for character in text:
        if character.isspace():
            index = 0
        elif character in "\ufe0f\ufe0e\u200d":
            index = current if current is not None else 0
        else:
            found = font_index(character)
            index = 0 if found is None else found
        if current is not None and index != current:
            yield current, piece
            piece = ""
        current = index
        piece += character
    if piece and current is not None:
        yield current, piece


def text_length(draw: ImageDraw.ImageDraw, text: str, size: int) -> float:
    """Width in pixels of ``text`` drawn with ``draw_text``."""
    return sum(draw.textlength(piece, font=font(size, index)) for index, piece in runs(text))


def draw_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill) -> None:
    """``text`` at ``xy`` (top left), each run in the first font that has its characters."""
    x, y = xy
    baseline = y + font(size, 0).getmetrics()[0]  # one baseline for every font of the line
    for index, piece in runs(text):
        face = font(size, index)
        draw.text((x, baseline), piece, fill=fill, font=face, anchor="ls")
        x += draw.textlength(piece, font=face)
