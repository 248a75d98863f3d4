"""TrueType text for the images the app exports (GIF and PNG-strip captions), with per-character fallback.

Pillow's default font is a small bitmap face that draws a box for anything beyond ASCII (the em dash of
our own captions, accents, curly quotes, CJK, emoji). Captions are drawn instead with a chain of fonts found
through fontconfig (``fc-list``), each from a Debian package that ``make run`` and ``make test`` install as root
(``scripts/system_packages.py``; without root the Data page names the missing package):

========  =========================  =================  ==========================================
slot      family                     Debian package     draws
========  =========================  =================  ==========================================
text      Noto Sans                  fonts-noto-core    Latin, Greek, Cyrillic, punctuation
symbols   Noto Sans Symbols          fonts-noto-core    arrows, technical and other symbols
emoji     Noto Emoji, else Symbola   fonts-symbola      emoji and pictographs only (outlines)
CJK       Noto Sans CJK              fonts-noto-cjk     Chinese, Japanese, Korean
========  =========================  =================  ==========================================

Each character is drawn with the first font of ``FONT_FILES`` that has it (the emoji font is asked only for
emoji and pictographs: Symbola also draws CJK, badly); a character no font has is drawn with the first font.
Where fontconfig finds no Noto Sans, the text slot falls back to the copy of Noto Sans Regular that ships with
the code (``fallback_fonts/``, SIL Open Font License, provenance in its ``OFL.txt``); a slot whose family is
not installed is left out, and ``covers`` then says which characters have no glyph.

Which characters the real corpora hold (checked on the full copies): CoDraw, Minecraft: ASCII only;
A Game Of Sorts: ASCII plus 😂 and 👍. Our own captions add · and —.
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator, Optional

from PIL import ImageDraw, ImageFont

FALLBACK_TEXT_FONT = Path(__file__).with_name("fallback_fonts") / "NotoSans-Regular.ttf"


def _is_pictograph(code: int) -> bool:
    """Emoji and pictographs: the symbol blocks from U+2600 (dingbats, miscellaneous symbols and arrows) and
    everything from U+1F000 (emoji, pictographs, symbols and pictographs extended)."""
    return 0x2600 <= code <= 0x27BF or 0x2B00 <= code <= 0x2BFF or code >= 0x1F000


@dataclass(frozen=True)
class FontSlot:
    """One font of the chain: the fontconfig families to look for (the first one installed is taken), the Debian
    package that provides them, and which characters it may draw (None: every character it has)."""
    role: str
    families: tuple[str, ...]
    package: str
    claims: Optional[Callable[[int], bool]] = None
    fallback: Optional[Path] = None  # shipped with the code, for when no family is installed


SLOTS = (
    FontSlot("text", ("Noto Sans",), "fonts-noto-core", fallback=FALLBACK_TEXT_FONT),
    FontSlot("symbols", ("Noto Sans Symbols",), "fonts-noto-core"),
    FontSlot("emoji", ("Noto Emoji", "Symbola"), "fonts-symbola", claims=_is_pictograph),
    FontSlot("CJK", ("Noto Sans CJK SC",), "fonts-noto-cjk"),
)


def installed_font(family: str) -> Optional[Path]:
    """The file of the regular face of ``family`` as fontconfig lists it (None when the family is not installed
    or fontconfig is absent). Only an exact family match counts: ``fc-match`` would offer a substitute."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return None
    try:
        listed = subprocess.run([fc_list, "--format", "%{file}\n", f"{family}:style=Regular"], capture_output=True,
                                text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    files = sorted(Path(line) for line in listed.splitlines() if line.strip())
    return next((path for path in files if path.is_file()), None)


@dataclass(frozen=True)
class _ChainFont:
    path: Path
    claims: Optional[Callable[[int], bool]]


@lru_cache(maxsize=1)
def _chain() -> tuple[_ChainFont, ...]:
    chain = []
    for slot in SLOTS:
        path = next((found for found in map(installed_font, slot.families) if found is not None), slot.fallback)
        if path is not None:
            chain.append(_ChainFont(path, slot.claims))
    return tuple(chain)


def font_files() -> list[Path]:
    """The font files of the chain, in the order a character's font is looked for."""
    return [entry.path for entry in _chain()]


def __getattr__(name: str) -> list[Path]:
    # FONT_FILES is looked up through fontconfig on first use, not when the module is imported.
    if name == "FONT_FILES":
        return font_files()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    return ImageFont.truetype(str(_chain()[index].path), size)


def font_index(character: str) -> Optional[int]:
    """The first font of the chain that has ``character`` (None when none has it)."""
    code = ord(character)
    for index, entry in enumerate(_chain()):
        if (entry.claims is None or entry.claims(code)) and code in _charmap(entry.path):
            return index
    return None


def covers(character: str) -> bool:
    """Whether some font of the chain has a glyph for ``character`` (whitespace and controls count as covered)."""
    return character.isspace() or not character.isprintable() or font_index(character) is not None


def _is_cjk(code: int) -> bool:
    """Han, kana, Hangul, CJK punctuation and full-width forms: what Noto Sans CJK is in the chain for."""
    return (0x1100 <= code <= 0x11FF or 0x2E80 <= code <= 0x9FFF or 0xA960 <= code <= 0xA97F
            or 0xAC00 <= code <= 0xD7FF or 0xF900 <= code <= 0xFAFF or 0xFE30 <= code <= 0xFE4F
            or 0xFF00 <= code <= 0xFFEF or 0x20000 <= code <= 0x3FFFF)


def package_for(character: str) -> Optional[str]:
    """The Debian package whose font would draw ``character``, when no font of the chain has it (None when one
    has it). A character that none of the packages covers is put down to the first slot that may draw it."""
    if covers(character):
        return None
    code = ord(character)
    role = "CJK" if _is_cjk(code) else "emoji" if _is_pictograph(code) else "symbols"
    return next(slot.package for slot in SLOTS if slot.role == role)


def missing_font_packages(characters) -> dict[str, list[str]]:
    """For the characters no font of the chain draws, the Debian package to install and the characters it
    would draw (sorted), e.g. ``{"fonts-noto-cjk": ["中", "日"]}``; empty when every character has a glyph."""
    wanted: dict[str, set[str]] = {}
    for character in set(characters):
        package = package_for(character)
        if package is not None:
            wanted.setdefault(package, set()).add(character)
    if wanted and shutil.which("fc-list") is None:
        wanted = {"fontconfig": set(), **wanted}  # without it no installed font is found at all
    return {package: sorted(chars) for package, chars in wanted.items()}


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
