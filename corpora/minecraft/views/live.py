"""Minecraft's live game on the Play page (``live.js``; the rules are ``corpora.minecraft.data.live``): the Builder
builds on the solo game's grid, the Architect sees the target and the build drawn by the same code. The browser
gets the solo game's colours and build region."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from corpora.minecraft.data.play import setup as play_setup
from dialogue_dashboard.plugin.views import Corpus, LoadedCorpus

_HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def script() -> str:
    return (_HERE / "live.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def style() -> str:
    return (_HERE / "live.css").read_text(encoding="utf-8")


def setup(corpus: Corpus, loaded: LoadedCorpus, item: str) -> dict:
    """The six colours and the build region."""
    return play_setup(loaded, item, "Builder")
