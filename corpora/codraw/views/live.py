"""CoDraw's live game on the Play page (``live.js``; the rules are ``corpora.codraw.data.live``): the Drawer draws
with the solo game's canvas and palette, the Teller sees the target drawn by the same code. The browser gets the
solo game's palette (every clip-art piece, grouped as in the original) with its atlas when the clip art is there."""
from __future__ import annotations

from corpora.codraw.data.play import setup as play_setup
from corpora.codraw.views.play import setup as play_view_setup
from dialogue_dashboard.plugin.views import Corpus, LoadedCorpus, packaged_asset

script = packaged_asset(__file__, "live.js")  # the game's script and style, read once
style = packaged_asset(__file__, "live.css")


def setup(corpus: Corpus, loaded: LoadedCorpus, item: str) -> dict:
    """The solo game's canvas, sizes and palette (the same for every scene)."""
    return play_view_setup(corpus, play_setup(loaded, item, "Drawer"))
