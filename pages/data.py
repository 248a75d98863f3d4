"""Data: where each corpus was loaded from, how big it is, how long it took, and every skipped record."""
import pandas as pd
import streamlit as st

from ui import cached
from ui.analysis.layers import layers_section
from ui.cached import LoadFailure, reload_all
from ui.data.provenance import (
    ASSET_VARIABLES,
    DATA_VARIABLES,
    broken_plugin_notes,
    cache_dir,
    caption_font_note,
    corpus_provenance,
    frame_rows,
    loaded_counts,
    notes_db_display,
)
from ui.glossary import glossary_markdown, markdown_table
from ui.runs.data_page import data_page_section
from ui.shell import auth
from ui.shell.corpus_edge import every_corpus
from ui.shell.corpus_views import views_of
from ui.shell.router import ensure_routed
from ui.widgets import md_code, md_escape, skipped_count

ensure_routed()

st.title("Data sources")
st.caption("Point a corpus at your own copy by setting its environment variable before `make run`; "
           "unset, the built-in demo corpus is used. Parsed frames are cached as Parquet in "
           f"`{cache_dir()}`; notes are stored in `{notes_db_display()}`.")
if auth.allowed(auth.Action.RELOAD, "reloading every corpus") and st.button(
        "↻ Reload all corpora", help="Read changed files again (the Parquet cache notices what changed)"):
    reload_all(auth.writer())

broken_plugin_notes()
corpora = every_corpus()
loaded = {corpus: cached.corpus(corpus) for corpus in corpora}
caption_font_note([corpus for corpus, result in loaded.items() if not isinstance(result, LoadFailure)])
counts = loaded_counts({corpus.name: result for corpus, result in loaded.items() if not isinstance(result, LoadFailure)})
if not counts.empty:
    st.markdown(markdown_table(counts, labels={"corpus": "Corpus", "load_s": "load time (s)", "loaded_from": "loaded from",
                                               "skipped": "skipped records"}))
    st.caption("Load time: how long this server took to open the source. From the Parquet cache that is near zero, "
               "because its frames are read when a page first needs them; the first parse of a source is timed "
               "in its progress box.")
    with st.expander("What the counts mean"):
        st.markdown(glossary_markdown(["dialogs", "rounds", "replay_steps", "messages"]))

for corpus, result in loaded.items():
    st.subheader(corpus.title)
    corpus_provenance(corpus)
    variables = ", ".join(f"`{v}`" for v in (DATA_VARIABLES[corpus.name], ASSET_VARIABLES.get(corpus.name)) if v)
    if isinstance(result, LoadFailure):
        st.error(f"Could not be loaded: {md_escape(result.message)}", icon="⚠️")
        st.caption(f"Set by {variables}.")
        continue
    origin = "built-in demo corpus" if result.is_demo else "your data"
    st.markdown(f"**Source** ({origin}, set by {variables}): {md_code(result.source)}")
    if result.assets:
        st.markdown(f"**Images / clip art:** {md_code(result.assets)}")
    views_of(corpus).data_note(corpus)
    if result.cache_note:
        st.caption(md_escape(result.cache_note))
    st.caption("Frames: " + ", ".join(f"{frame} ({rows:,} rows)" for frame, rows in frame_rows(result).items()))
    if result.skipped:
        st.warning(f"{skipped_count(result.skipped)} could not be read and were left out; everything else loaded.")
        st.dataframe(pd.DataFrame([s.as_dict() for s in result.skipped]), width="stretch", hide_index=True)

data_page_section()
layers_section()
