"""Minecraft's game on the Play page: the Builder's 3-D grid, colours, clicks and typed actions (``play.js``; the
rules are ``corpora.minecraft.data.play``)."""
from __future__ import annotations

from dialogue_dashboard.plugin.views import packaged_asset

script = packaged_asset(__file__, "play.js")  # the game's script and style, read once
style = packaged_asset(__file__, "play.css")
