"""A Game Of Sorts' live game on the Play page (``live.js``; the rules are ``corpora.gos.data.live``): each player's
board drawn by the solo game, its tiles as the Replay draws them, served as media (``play.setup``)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from corpora.gos.data.view import image_labels
from corpora.gos.views.play import setup as play_view_setup
from dialogue_dashboard.plugin.views import Corpus, LoadedCorpus

_HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def script() -> str:
    return (_HERE / "live.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def style() -> str:
    return (_HERE / "live.css").read_text(encoding="utf-8")


def setup(corpus: Corpus, loaded: LoadedCorpus, item: str) -> dict:
    """The game's images, each with its label and tile (``item`` is the game)."""
    labels = image_labels(loaded, item)
    images = {image: {"label": label.short_id, "category": label.category, "colour": label.colour}
              for image, label in labels.items()}
    return play_view_setup(corpus, {"images": images})
