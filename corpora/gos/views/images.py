"""A visible note when the board tiles are placeholders (``GAME_OF_SORTS_IMAGES`` unset, or images missing from
it): on the Data page (the corpus's ``data_note``) and, compactly, on the Replay."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from corpora.gos.data.images import ImageCoverage, image_coverage
from dialogue_dashboard.plugin.views import Corpus, LoadedCorpus, derived


def _coverage(loaded: LoadedCorpus, _folder_stamp: int) -> ImageCoverage:
    return image_coverage(loaded.frames["images"]["image_id"], loaded.assets)


def _folder_stamp(folder) -> int:
    """Changes when files are added to or removed from the folder (so the count is not stale)."""
    try:
        return Path(folder).stat().st_mtime_ns if folder else 0
    except OSError:
        return -1


def placeholder_note(corpus: Corpus, compact: bool = False, lead: str = "") -> None:
    """An info box (a caption when ``compact``, after ``lead`` on its line) when some or all tiles are placeholders."""
    coverage = derived(_coverage, corpus, _folder_stamp(corpus.source.assets))
    if coverage is None or coverage.total == 0 or coverage.placeholders == 0:
        if lead:
            st.caption(lead.replace("_", "\\_"))
        return
    if coverage.folder is None:
        text = (f"The {coverage.total} Game Of Sorts images are shown as labelled placeholder tiles because "
                "GAME_OF_SORTS_IMAGES is not set. Run the release's dataset/get_images.sh and set "
                "GAME_OF_SORTS_IMAGES to the folder it fills to see the photos.")
    else:
        text = (f"{coverage.placeholders} of the {coverage.total} Game Of Sorts images are not in the "
                "GAME_OF_SORTS_IMAGES folder (as <image_id>.jpg) and are shown as labelled placeholder tiles.")
    if compact:  # one line above the replay, the whole note in its help
        short = "Placeholder tiles: " + ("GAME_OF_SORTS_IMAGES is not set." if coverage.folder is None else
                                         f"{coverage.placeholders} of {coverage.total} images are missing.")
        st.caption(" ".join(part for part in (lead, short) if part).replace("_", "\\_"),
                   help=text.replace("_", "\\_").replace("<", "\\<"))
    else:
        st.info(text.replace("_", "\\_").replace("<", "\\<"), icon=":material/image:")


