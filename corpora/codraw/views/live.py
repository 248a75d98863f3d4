"""CoDraw's live game on the Play page (``live.js``; the rules are ``corpora.codraw.data.live``): the Drawer draws
with the solo game's canvas and palette, the Teller sees the target drawn by the same code. The browser gets the
solo game's palette (every clip-art piece, grouped as in the original) with its atlas when the clip art is there."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from corpora.codraw.data.play import setup as play_setup
from corpora.codraw.views.play import setup as play_view_setup
from dialogue_dashboard.plugin.views import Corpus, LoadedCorpus

_HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def script() -> str:
    return (_HERE / "live.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def style() -> str:
    return (_HERE / "live.css").read_text(encoding="utf-8")


def setup(corpus: Corpus, loaded: LoadedCorpus, item: str) -> dict:
    """The solo game's canvas, sizes and palette (the same for every scene)."""
    return play_view_setup(corpus, play_setup(loaded, item, "Drawer"))
