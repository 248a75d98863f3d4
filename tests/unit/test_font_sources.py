"""Where the caption fonts come from: fontconfig's Debian Noto fonts (and Symbola for emoji), with the bundled
Noto Sans (OFL, licence beside it) when fontconfig finds none; the emoji font draws emoji only."""
from __future__ import annotations

from fontTools.ttLib import TTFont

from data_access import fonts
from tests.system import require


def test_the_bundled_fallback_is_noto_sans_under_the_ofl():
    assert fonts.FALLBACK_TEXT_FONT.is_file()
    names = TTFont(str(fonts.FALLBACK_TEXT_FONT), lazy=True)["name"]
    assert names.getDebugName(1) == "Noto Sans" and names.getDebugName(2) == "Regular"
    licence = (fonts.FALLBACK_TEXT_FONT.parent / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL Open Font License, Version 1.1" in licence and "fonts-noto-core" in licence


def test_without_fontconfig_the_captions_use_the_bundled_font(monkeypatch):
    monkeypatch.setattr(fonts, "installed_font", lambda family: None)
    fonts._chain.cache_clear()
    fonts.font.cache_clear()
    try:
        assert fonts.FONT_FILES == [fonts.FALLBACK_TEXT_FONT]
        assert all(fonts.covers(c) for c in "Round 3 · Drawer — café “ok”")
        assert list(fonts.runs("a — é")) == [(0, "a — é")]
    finally:
        fonts._chain.cache_clear()
        fonts.font.cache_clear()


def test_the_installed_families_are_found_through_fontconfig():
    require("fontconfig", "fonts_core", "fonts_cjk")
    assert fonts.installed_font("Noto Sans").name == "NotoSans-Regular.ttf"
    assert fonts.installed_font("Noto Sans CJK SC").suffix == ".ttc"
    assert fonts.installed_font("No Such Family Anywhere") is None  # no substitute, unlike fc-match


def test_the_emoji_font_is_asked_for_emoji_only():
    require("fontconfig", "fonts_core", "fonts_emoji", "fonts_cjk")
    emoji = [slot.role for slot in fonts.SLOTS].index("emoji")
    assert fonts.font_index("😂") == emoji and fonts.font_index("👍") == emoji
    # Symbola has CJK ideographs too; they are drawn by Noto Sans CJK
    assert fonts.font_index("中") == [slot.role for slot in fonts.SLOTS].index("CJK")
