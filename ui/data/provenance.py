"""Where the corpora come from: the Data page's sections (where to obtain each corpus and how to cite it, its
counts and the fonts of its captions, the installed corpus plugins that cannot be used, with why) and the Overview's
note on the generated demo corpora.

The source settings and load counts the Data page shows (``DATA_VARIABLES``, ``cache_dir``,
``loaded_counts``, …) are handed to it from here, so that pages import no data_access module."""
from __future__ import annotations

from typing import Iterable

import streamlit as st

from data_access import fonts
from data_access.common import LoadedCorpus
from data_access.corpus import Corpus
from data_access.figures.overview import frame_rows as frame_rows
from data_access.figures.overview import loaded_counts as loaded_counts
from data_access.sources import ASSET_VARIABLES as ASSET_VARIABLES
from data_access.sources import DATA_VARIABLES as DATA_VARIABLES
from data_access.sources import cache_dir as cache_dir
from data_access.sources import notes_db_display as notes_db_display
from ui import cached
from ui.shell.corpus_edge import skip_broken_plugins
from ui.widgets import md_code, md_escape


def _characters(loaded: LoadedCorpus) -> frozenset[str]:
    """Every character a caption of this corpus may draw: its messages and its dialog ids."""
    texts = (loaded.utterances["text"].astype(str), loaded.dialogs["dialog_id"].astype(str))
    return frozenset().union(*(set("".join(text)) for text in texts))


def caption_font_note(corpora) -> None:
    """A warning naming the Debian package of each caption font that is missing for characters ``corpora`` hold
    (the GIF / PNG exports would draw a box for them); nothing when every character has a glyph."""
    characters: set[str] = set()
    for corpus in corpora:
        characters |= cached.derived(_characters, corpus) or frozenset()
    wanted = fonts.missing_font_packages(characters)
    if not wanted:
        return
    examples = "; ".join(f"{package}: {' '.join(chars[:8]) or 'every installed font'}" for package, chars in wanted.items())
    st.warning(f"The GIF / PNG-strip captions cannot draw some characters of these corpora (they come out as boxes). "
               f"Install the caption fonts: `apt-get install {' '.join(wanted)}` (as root, `make run` does), then "
               f"restart the app. Missing: {examples}.", icon=":material/font_download_off:")


def broken_plugin_notes() -> None:
    """An error box for each installed corpus plugin that cannot be used (no page offers it), with its error."""
    for plugin, problem in skip_broken_plugins().items():
        named = "The installed corpus plugins" if plugin == "*" else f"The corpus plugin {md_code(plugin)}"
        st.error(f"{named} cannot be used, so no page offers it: {md_escape(problem)}", icon="⚠️")


def demo_corpora_note(corpora: Iterable[Corpus]) -> None:
    """An info box naming the corpora that are the generated demo ones (no data configured), whose figures are
    nobody's findings, and the variables that point them at real copies; nothing when every corpus is real data."""
    corpora = list(corpora)
    demo = [corpus for corpus in corpora if corpus.is_demo]
    if not demo:
        return
    one = len(demo) == 1
    which = "" if len(demo) == len(corpora) else " for " + " and ".join(md_escape(corpus.title) for corpus in demo)
    variables = ", ".join(md_code(corpus.package.DATA_VARIABLE) for corpus in demo)
    st.info(f"No corpus data is configured{which}, so {'it is the small demo corpus' if one else 'these are the small demo corpora'} "
            "the app generates itself (in the real file format, with made-up dialogs): the figures below describe "
            f"{'it, not the published corpus' if one else 'them, not the published corpora'}. Set {variables} to your "
            f"cop{'y' if one else 'ies'} before starting the app; the Data page says where to get each corpus.",
            icon=":material/science:")


def corpus_provenance(corpus: Corpus) -> None:
    """Where to get the corpus, its images or clip art, its licence and the references to cite."""
    source = corpus.package.PROVENANCE
    with st.expander("Where to get it and how to cite it"):
        st.markdown(source.obtain)
        st.markdown(source.assets)
        st.markdown(f"**Licence:** {source.licence}.")
        st.markdown("**Cite:**" if len(source.citations) == 1 else "**Cite both:**")
        for entry in source.citations:
            st.text(entry)
        st.download_button("BibTeX", "\n\n".join(source.citations), f"{corpus.name}.bib", "application/x-bibtex",
                           key=f"bibtex__{corpus.name}", on_click="ignore", icon=":material/download:", type="tertiary")
