"""GIF / PNG-strip captions draw every character the corpora hold with a real glyph, not a missing-glyph box."""
from __future__ import annotations

import pytest
from PIL import Image, ImageChops

from data_access import fonts
from data_access.exports import files as export
from tests.system import require, require_fonts_for

MISSING = "\U000e01ef"  # a variation selector no font draws: stands for "no glyph"
SAMPLES = ["—", "é", "ß", "’", "“", "·", "中", "日本", "한", "😂", "👍", "✓", "→"]


def _caption_strip(caption: str) -> Image.Image:
    """The caption strip of a one-cell grid (the picture above it is blank)."""
    blank = Image.new("RGB", (400, 20), "white")
    sheet = export.image_grid([blank], [caption], gap=0)
    return sheet.crop((0, 20, sheet.width, sheet.height)).convert("L")


def _differs(a: Image.Image, b: Image.Image) -> bool:
    return a.size != b.size or ImageChops.difference(a, b).getbbox() is not None


@pytest.mark.parametrize("text", SAMPLES)
def test_a_caption_character_is_drawn_with_its_own_glyph(text):
    """Before: Pillow's default face drew the same box for all of these (and for a missing glyph)."""
    require_fonts_for(text)
    drawn = _caption_strip(f"x {text} x")
    missing = _caption_strip(f"x {MISSING * len(text)} x")
    assert _differs(drawn, missing), f"{text!r} is drawn as a missing-glyph box"
    assert all(fonts.covers(c) for c in text)


def test_different_characters_get_different_glyphs():
    require_fonts_for("—中😂é")
    strips = [_caption_strip(t) for t in ("—", "中", "😂", "é")]
    for i, a in enumerate(strips):
        for b in strips[i + 1:]:
            assert _differs(a, b)


def test_captions_use_truetype_fonts_with_fallback():
    require("fontconfig", "fonts_core", "fonts_emoji", "fonts_cjk")
    assert [p.suffix for p in fonts.FONT_FILES] == [".ttf", ".ttf", ".ttf", ".ttc"]
    assert list(fonts.runs("a — 中 😂")) == [(0, "a — "), (3, "中"), (0, " "), (2, "😂")]


@pytest.mark.shared
@pytest.mark.parametrize("corpus, folder", [("gos", "game-of-sorts"), ("minecraft", "minecraft")])
def test_every_character_of_the_real_corpora_has_a_glyph(shared_data, real_cache, corpus, folder):
    from data_access.corpora import load_path

    loaded = load_path(corpus, shared_data / folder, cache_root=real_cache)
    characters = set("".join(loaded.utterances["text"].astype(str))) | set("".join(loaded.dialogs["dialog_id"].astype(str)))
    require_fonts_for("".join(characters))
    assert not {c for c in characters if not fonts.covers(c)}
    if corpus == "gos":
        assert {"😂", "👍"} <= characters  # the non-ASCII characters this corpus holds
