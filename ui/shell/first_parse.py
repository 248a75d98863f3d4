"""A corpus's first parse, with its progress on the page: what is read and how far. ``ui.cached`` calls it once
per source and process, before its cached loader reads the Parquet cache this parse has filled."""
from __future__ import annotations

import time

import streamlit as st

from data_access.corpora import is_cached, load_source
from data_access.corpus import Corpus


def parse_with_progress(corpus: Corpus) -> None:
    """Parse a source that is not in the Parquet cache yet, showing what is read and how far.

    st.cache_data cannot show live progress from inside a cached function, so the first parse happens
    here (it fills the Parquet cache) and ``_load`` then reads the cache."""
    source = corpus.source
    try:
        if is_cached(source):
            return
    except OSError:
        return  # _load reports the problem
    with st.status(f"Reading {corpus.title} for the first time…", expanded=True) as status:
        bar = st.progress(0.0, text="starting")

        def progress(message: str, fraction=None) -> None:
            bar.progress(min(max(float(fraction or 0.0), 0.0), 1.0), text=message)

        started = time.perf_counter()
        try:
            load_source(source, progress=progress)
        except Exception:  # noqa: BLE001 - _load turns the same failure into a LoadFailure with its message
            status.update(state="error", expanded=False)
            return
        status.update(label=f"{corpus.title} is ready (parsed in {time.perf_counter() - started:.1f} s); "
                            "later starts read it from the cache.",
                      state="complete", expanded=False)
