"""A Game Of Sorts' live game on the Play page (``live.js``; the rules are ``corpora.gos.data.live``): each player's
board drawn by the solo game, its tiles as the Replay draws them, served as media (``play.setup``)."""
from __future__ import annotations

from corpora.gos.data.view import image_labels
from corpora.gos.views.play import setup as play_view_setup
from dialogue_dashboard.plugin.views import Corpus, LoadedCorpus, packaged_asset

script = packaged_asset(__file__, "live.js")  # the game's script and style, read once
style = packaged_asset(__file__, "live.css")


def setup(corpus: Corpus, loaded: LoadedCorpus, item: str) -> dict:
    """The game's images, each with its label and tile (``item`` is the game)."""
    labels = image_labels(loaded, item)
    images = {image: {"label": label.short_id, "category": label.category, "colour": label.colour}
              for image, label in labels.items()}
    return play_view_setup(corpus, {"images": images})
