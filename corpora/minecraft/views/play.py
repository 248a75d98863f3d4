"""Minecraft's game on the Play page: the Builder's 3-D grid, colours, clicks and typed actions (``play.js``; the
rules are ``corpora.minecraft.data.play``)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def script() -> str:
    return (_HERE / "play.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def style() -> str:
    return (_HERE / "play.css").read_text(encoding="utf-8")
