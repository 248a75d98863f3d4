"""A Game Of Sorts' game on the Play page: one player's board in their recorded layout, LOCK, the recorded dialog
(``play.js``; the rules are ``corpora.gos.data.play``). Each tile is drawn as the Replay draws it (the photo from
``GAME_OF_SORTS_IMAGES`` with its caption strip, or the labelled placeholder tile) and served as media."""
from __future__ import annotations

import io
from functools import lru_cache
from typing import Optional

from corpora.gos.data.render import TileLabel, tile_picture
from dialogue_dashboard.plugin.views import Corpus, packaged_asset, play_media_url

TILE_PX = 180


script = packaged_asset(__file__, "play.js")  # the game's script and style, read once
style = packaged_asset(__file__, "play.css")


@lru_cache(maxsize=256)
def _tile(image_id: str, label: TileLabel, folder: Optional[str]) -> bytes:
    buffer = io.BytesIO()
    tile_picture(image_id, label, folder, TILE_PX).convert("RGB").save(buffer, format="JPEG", quality=88)
    return buffer.getvalue()


def setup(corpus: Corpus, rules_setup: dict) -> dict:
    """The rules' setup with each image's tile as a media URL."""
    folder = str(corpus.source.assets) if corpus.source.assets else None
    images = {}
    for image_id, info in rules_setup["images"].items():
        label = TileLabel(info["category"], info["label"], info["colour"])
        images[image_id] = {**info, "src": play_media_url(f"gos:{image_id}", _tile(image_id, label, folder), "image/jpeg")}
    return {**rules_setup, "images": images}
