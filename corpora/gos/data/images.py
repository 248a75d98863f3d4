"""How many of the corpus's images the tiles can show: the others are drawn as labelled placeholders
(``GAME_OF_SORTS_IMAGES`` unset, or images missing from it)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass(frozen=True)
class ImageCoverage:
    """How many of a Game Of Sorts corpus's images the tiles can show (the others are placeholders)."""

    folder: Optional[str]  # GAME_OF_SORTS_IMAGES, None when unset
    total: int
    found: int

    @property
    def placeholders(self) -> int:
        return self.total - self.found


def image_coverage(image_ids, folder: Optional[str]) -> ImageCoverage:
    """Which of ``image_ids`` have an ``<image_id>.jpg`` in ``folder`` (the name get_images.sh writes)."""
    ids = sorted({str(i) for i in image_ids})
    if not folder:
        return ImageCoverage(None, len(ids), 0)
    root = Path(folder)
    try:
        present = {entry.name for entry in root.iterdir()} if root.is_dir() else set()
    except OSError:
        present = set()
    return ImageCoverage(str(folder), len(ids), sum(f"{i}.jpg" in present for i in ids))
