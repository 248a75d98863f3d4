"""CoDraw's game on the Play page: the Drawer's canvas and the clip-art palette (``play.js``; the rules are
``corpora.codraw.data.play``). With the clip-art folder (``CODRAW_CLIPART``) the pieces are sent as one picture, an
atlas of every piece made once per folder, and the background as another, each served as media (a page run names
two pictures, not 131, and the browser fetches each once); without it the game draws the art-free rendition."""
from __future__ import annotations

import io
from functools import lru_cache
from pathlib import Path
from typing import Optional

from dialogue_dashboard.plugin.views import Corpus, packaged_asset, play_media_url

MAX_PIECE_BYTES = 1 << 20  # one clip-art PNG (the largest of Abstract Scenes v1.1 is about 60 kB)
ATLAS_WIDTH = 2048  # pixels: the pieces' shelves wrap at this width
GAP = 2  # pixels between pieces, so that a scaled piece never shows its neighbour's edge


script = packaged_asset(__file__, "play.js")  # the game's script and style, read once
style = packaged_asset(__file__, "play.css")


def _stamp(folder: str, names: tuple[str, ...]) -> tuple:
    """What changes when a piece's file does (the atlas is made again)."""
    stamps = []
    for name in names:
        try:
            found = (Path(folder) / name).stat()
            stamps.append((name, found.st_size, found.st_mtime_ns))
        except OSError:
            stamps.append((name, -1, -1))
    return tuple(stamps)


@lru_cache(maxsize=4)
def _atlas(folder: str, stamp: tuple) -> tuple[Optional[bytes], dict[str, tuple[int, int, int, int]], Optional[bytes],
                                               tuple[int, int]]:
    """(the atlas PNG, png name -> (x, y, w, h) in it, the background PNG, the atlas's size) of the pieces in
    ``folder``: shelves of pieces sorted by height. A piece that is missing, too large or unreadable is left out
    (drawn art-free)."""
    from PIL import Image

    pieces = []
    for name, size, _ in stamp:
        if name == "background.png" or size < 0 or size > MAX_PIECE_BYTES:
            continue
        try:
            with Image.open(Path(folder) / name) as opened:
                pieces.append((name, opened.convert("RGBA")))
        except (OSError, ValueError):
            continue
    places: dict[str, tuple[int, int, int, int]] = {}
    x = y = shelf = 0
    for name, piece in sorted(pieces, key=lambda item: -item[1].height):
        if x + piece.width > ATLAS_WIDTH:
            x, y, shelf = 0, y + shelf + GAP, 0
        places[name] = (x, y, piece.width, piece.height)
        x, shelf = x + piece.width + GAP, max(shelf, piece.height)
    atlas = None
    if places:
        sheet = Image.new("RGBA", (ATLAS_WIDTH, y + shelf), (0, 0, 0, 0))
        for name, piece in pieces:
            sheet.paste(piece, places[name][:2])
        buffer = io.BytesIO()
        sheet.save(buffer, format="PNG", compress_level=6)
        atlas = buffer.getvalue()
    background = None
    path = Path(folder) / "background.png"
    try:
        if path.is_file() and path.stat().st_size <= MAX_PIECE_BYTES:
            background = path.read_bytes()
    except OSError:
        pass
    return atlas, places, background, (ATLAS_WIDTH, y + shelf)


def setup(corpus: Corpus, rules_setup: dict) -> dict:
    """The rules' setup with the atlas (its URL and each piece's place in it) and the background, when the clip art
    is there."""
    folder = str(corpus.source.assets) if corpus.source.assets and rules_setup.get("art") else None
    if folder is None:
        return rules_setup
    names = tuple(sorted({piece["png"] for group in rules_setup["groups"] for piece in group["pieces"]} | {"background.png"}))
    atlas, places, background, size = _atlas(folder, _stamp(folder, names))
    groups = [{**group, "pieces": [{**piece, "sprite": places[piece["png"]]} if piece["png"] in places else piece
                                   for piece in group["pieces"]]} for group in rules_setup["groups"]]
    return {**rules_setup, "groups": groups,
            "atlas": play_media_url("codraw:atlas", atlas) if atlas else None, "atlas_size": list(size),
            "background": play_media_url("codraw:background", background) if background else None}
