"""Where to obtain each corpus (and its images or clip art) and how to cite it, for the Data page and the
README. Each corpus package holds its own as static text (its ``PROVENANCE``), never read from a file; the links
and references are the ones the corpora's own releases give (their README and reference.bib)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .common import CorpusAttribute
from .types import Provenance

# corpus name -> its provenance, held by each corpus package (its ``PROVENANCE``).
PROVENANCE: Mapping[str, Provenance] = CorpusAttribute("PROVENANCE")


@dataclass(frozen=True)
class ImageCoverage:
    """How many of a Game Of Sorts corpus's images the tiles can show (the others are placeholders)."""

    folder: Optional[str]  # GAME_OF_SORTS_IMAGES, None when unset
    total: int
    found: int

    @property
    def placeholders(self) -> int:
        return self.total - self.found


def gos_image_coverage(image_ids, folder: Optional[str]) -> ImageCoverage:
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
