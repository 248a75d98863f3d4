"""The current slice's exports on the Slices page (issue 37): its dialog table (with the slice features: peek gain,
CRs, …) as CSV and Parquet (a step slice's moments with their step features too), and its dialogs' transcripts as one LaTeX document (``data_access.exports.latex.
slice_transcripts_zip``; the steps a published layer marks, as CoDraw's CR rounds, noted under them). Each file is made
when its button is clicked."""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from data_access.corpus import Corpus
from data_access.exports.latex import MAX_SLICE_TRANSCRIPTS, slice_transcripts_zip
from ui import cached
from ui.cache_keys import DialogSelection
from ui.shell.corpus_views import views_of
from ui.slices.current import SliceOutcome, slice_base
from ui.widgets import download_buttons, md_escape


def slice_table(corpus: Corpus, outcome: SliceOutcome) -> pd.DataFrame:
    """The slice's rows of the corpus's dialog table with the slice features joined (as the SQL console's
    ``features``), in the corpus's order."""
    base = slice_base(corpus)
    if base is None or outcome.kept is None:
        return pd.DataFrame()
    dialogs = base.dialogs
    return dialogs[dialogs["dialog_id"].astype(object).isin(outcome.kept).to_numpy()].reset_index(drop=True)


def _transcripts(loaded, chosen: DialogSelection, description: str, marked: Optional[dict]) -> bytes:
    return slice_transcripts_zip(loaded, chosen.ids, description, marked)


def slice_exports(corpus: Corpus, outcome: SliceOutcome, stem: str) -> None:
    """CSV / Parquet of the slice's dialog table and its transcripts as LaTeX (.zip)."""
    if outcome.kept is None or not len(outcome.kept):
        return
    st.markdown("**Export the slice**")
    if outcome.is_moments:  # a step slice: its moments with their step features, then their dialogs
        from ui.slices.moments import moment_frame

        moments = int(outcome.steps.sum()) if outcome.steps is not None else 0
        download_buttons(lambda: moment_frame(corpus, outcome.steps), f"{stem}-moments", f"its {moments:,} moments")
    download_buttons(lambda: slice_table(corpus, outcome), stem, f"its {len(outcome.kept):,} dialogs")
    if len(outcome.kept) > MAX_SLICE_TRANSCRIPTS:
        st.caption(f"Transcripts are exported for a slice of at most {MAX_SLICE_TRANSCRIPTS:,} dialogs; narrow this "
                   "one to export them.")
        return
    chosen = DialogSelection.of(outcome.text, outcome.kept.tolist())
    marked = views_of(corpus).slice_marks(corpus, chosen)  # the steps a layer marks (CoDraw's CR rounds), or None
    st.download_button("⬇ Its transcripts as LaTeX (.zip: slice.tex and a table per dialog)", key=f"{stem}__latex",
                       file_name=f"{stem}-transcripts.zip", mime="application/zip", on_click="ignore",
                       icon=":material/description:",
                       help="pdflatex slice.tex compiles one document with a section per dialog (each A Game Of "
                            "Sorts round on its own); each table alone is in tables/ to \\input into a paper.",
                       data=lambda: cached.derived(_transcripts, corpus, chosen, outcome.description, marked))
    st.caption(md_escape(f"Transcripts of {len(outcome.kept):,} dialogs."))
