"""The published annotation layers (``data_access.layers``) in the app, corpus-free: whether a layer is loaded, the
layer itself or why not, and the Data page's section on every layer (its source, load problems; its figures and
exports are its corpus's views', ``CorpusViews.layer_report`` and ``layer_exports``). What a page shows of a layer
(the mentions on the Replay, the CRs in Browse...) is its corpus's views'.

Every text from a layer or corpus is escaped before it reaches HTML or markdown.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

import pandas as pd
import streamlit as st

from data_access.corpora import cached_summary_if_any
from data_access.layers import LAYER_CORPUS, LAYER_FILES, LAYER_NAMES, LAYER_TITLES
from data_access.layers.load import LAYERS_VARIABLE
from ui import cached
from ui.shell.corpus_edge import layer_corpus_of
from ui.widgets import md_code, md_escape, skipped_count


def _is_loaded(layer, corpus) -> bool:
    return True


def layer_ready(name: str) -> bool:
    """Whether the layer is configured and loaded, without copying it out of the cache (light reruns)."""
    return cached.layer_derived(_is_loaded, name) is True


def loaded_layer(name: str, explain: bool = False):
    """The loaded layer, or None (after a note when ``explain``: not configured, or failed to load)."""
    result = cached.layer(name)
    if result is None:
        if explain:
            st.caption(f"No published {LAYER_TITLES[name]} layer: {md_escape(cached.layer_source(name).reason)}.")
        return None
    if isinstance(result, cached.LoadFailure):
        if explain:
            st.warning(f"The published layer could not be loaded: {md_escape(result.message)}", icon="⚠️")
        return None
    return result


# ----------------------------------------------------------------------------------------------------
# Data page

# A layer's Data-page figures are kept in its corpus's cache entry under a name made of this module's code and
# the layer file's path and version: a restart reads them back instead of linking every layer again.
_CODE = hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]
PROBLEM_ROWS = 1_000  # unmatched messages and skipped lines of a layer kept for the Data page


def _plain(value):
    """A numpy number as the Python number JSON writes."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON: {type(value).__name__}")


def layer_data_figures(name: str) -> Optional[dict]:
    """What the Data page shows of layer ``name`` (its file, figures, load time, unmatched messages and skipped
    lines, the first ``PROBLEM_ROWS`` of each), read from its corpus's cache entry when computed before; None
    when no layer is configured or it could not be loaded (``cached.layer`` says why)."""
    key = cached.layer_key(name)
    if key is None:
        return None
    loaded = cached.corpus(layer_corpus_of(name))
    if isinstance(loaded, cached.LoadFailure):
        return None
    version = hashlib.sha1(repr((key.file, key.stamp, key.is_demo)).encode()).hexdigest()[:16]

    def compute() -> Optional[dict]:
        result = cached.layer(name)
        if result is None or isinstance(result, cached.LoadFailure):
            return None
        return json.loads(json.dumps({
            "path": result.path, "is_demo": result.is_demo, "figures": result.figures,
            "load_seconds": result.load_seconds, "unmatched": list(result.unmatched[:PROBLEM_ROWS]),
            "skipped": [s.as_dict() for s in result.skipped[:PROBLEM_ROWS]],
            "skipped_text": skipped_count(result.skipped, "line(s) or mention link(s)") if result.skipped else ""},
            default=_plain))

    return cached_summary_if_any(loaded, f"layer-data-{_CODE}-{version}", compute)


def layers_section() -> None:
    """Where each layer comes from, its figures (alignment for CoDraw), load problems and exports; the figures
    from a summary in the corpus's cache entry (no layer is linked again after a restart), the exports made
    when their button is clicked."""
    from ui.shell.corpus_views import views_of

    st.header("Published annotation layers")
    st.caption(f"Set `{LAYERS_VARIABLE}` to a folder holding {', '.join(f'`{f}`' for f in LAYER_FILES.values())} "
               "(their published names); unset, the demo corpora come with generated demo layers.")
    for name in LAYER_NAMES:
        st.subheader(LAYER_TITLES[name])
        source = cached.layer_source(name)
        shown = layer_data_figures(name)
        if shown is None:
            result = cached.layer(name)
            if result is None:
                st.info(f"Not loaded: {md_escape(source.reason)}.")
                continue
            if isinstance(result, cached.LoadFailure):
                st.error(f"Could not be loaded: {md_escape(result.message)}", icon="⚠️")
                continue
            continue  # loaded but not summarisable: nothing the page can show
        st.markdown(f"**Source** ({'generated demo layer' if shown['is_demo'] else 'your data'}), over the "
                    f"{LAYER_CORPUS[name]} corpus: {md_code(shown['path'])}")
        corpus = layer_corpus_of(name)
        views_of(corpus).layer_report(corpus, name, shown["figures"], shown["unmatched"])
        st.caption(f"Linked in {shown['load_seconds']:.2f} s. Same figures: "
                   f"`python -m data_access layer-summary {name} CORPUS_PATH LAYER_PATH`.")
        if shown["skipped"]:
            st.warning(f"{shown['skipped_text']} could not be used and were left out; everything else loaded.")
            st.dataframe(pd.DataFrame(shown["skipped"]), hide_index=True, width="stretch")
        views_of(corpus).layer_exports(corpus, name, LAYER_FILES[name])


def linked_layer(name: str):
    """The layer linked to its corpus, for an export being made (the button was clicked)."""
    result = cached.layer(name)
    if result is None or isinstance(result, cached.LoadFailure):
        raise RuntimeError(f"the layer {name} is no longer available")
    return result


def corpus_search_extras(query: str, case_sensitive: bool) -> None:
    """Search: each corpus's own results for the query beside the concordance (its views' ``search_extra``: the
    published A Game Of Sorts mentions)."""
    from ui.shell.corpus_edge import every_corpus
    from ui.shell.corpus_views import views_of

    for corpus in every_corpus():
        views_of(corpus).search_extra(corpus, query, case_sensitive)
