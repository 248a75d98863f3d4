"""Minecraft's live game on the Play page (``live.js``; the rules are ``corpora.minecraft.data.live``): the Builder
builds on the solo game's grid, the Architect sees the target and the build drawn by the same code. The browser
gets the solo game's colours and build region."""
from __future__ import annotations

from corpora.minecraft.data.play import setup as play_setup
from dialogue_dashboard.plugin.views import Corpus, LoadedCorpus, packaged_asset

script = packaged_asset(__file__, "live.js")  # the game's script and style, read once
style = packaged_asset(__file__, "live.css")


def setup(corpus: Corpus, loaded: LoadedCorpus, item: str) -> dict:
    """The six colours and the build region."""
    return play_setup(loaded, item, "Builder")
