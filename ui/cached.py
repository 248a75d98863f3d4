"""The only place that wraps ``data_access`` in ``st.cache_data``.

Pages call these functions, never the loaders directly, so every corpus is parsed once per source and
each rerun only pays for small per-dialog results. Every cached function is keyed by the source's path
(not just the corpus name), so pointing an environment variable elsewhere loads the new data. Load
failures are returned, not raised, so one broken corpus shows an error box while the others stay usable.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pandas as pd
import streamlit as st

from data_access.common import CORPUS_NAMES, CORPUS_TITLES, LoadedCorpus, SourceError
from data_access.corpora import load_source
from data_access.sources import Source, configured_source

# (corpus name, data path or None for the demo, assets path or None): hashable, cheap cache key
SourceKey = tuple[str, Optional[str], Optional[str]]


@dataclass(frozen=True)
class LoadFailure:
    corpus: str
    message: str  # names the file and the problem


def source_key(name: str) -> SourceKey:
    source = configured_source(name)
    return (name, str(source.path) if source.path else None, str(source.assets) if source.assets else None)


@st.cache_data(show_spinner=False, max_entries=6)
def _load(key: SourceKey) -> LoadedCorpus | LoadFailure:
    name, path, assets = key
    source = Source(name, Path(path) if path else None, Path(assets) if assets else None)
    try:
        return load_source(source)
    except SourceError as exc:
        return LoadFailure(name, str(exc))
    except Exception as exc:  # noqa: BLE001 - a broken corpus must not take the app down
        return LoadFailure(name, f"{path or 'demo corpus'}: unexpected {type(exc).__name__}: {exc}")


def corpus(name: str) -> LoadedCorpus | LoadFailure:
    """The configured corpus, parsed once per source (a spinner shows while the first load runs)."""
    with st.spinner(f"Loading {CORPUS_TITLES[name]}…"):
        return _load(source_key(name))


def loaded_corpus(name: str) -> Optional[LoadedCorpus]:
    """The corpus, or None after showing an error box naming the file."""
    result = corpus(name)
    if isinstance(result, LoadFailure):
        st.error(f"{CORPUS_TITLES[name]} could not be loaded: {result.message}", icon="⚠️")
        return None
    return result


def available_corpora() -> list[str]:
    return [name for name in CORPUS_NAMES if not isinstance(corpus(name), LoadFailure)]


def derived(function: Callable, name: str, *args):
    """``function(loaded_corpus, *args)`` cached per source and arguments.

    For per-dialog views and statistics: the whole corpus is only touched on a cache miss, so a
    replay rerun unpickles a few small frames instead of the full corpus."""
    return _derived(function.__module__, function.__qualname__, source_key(name), args)


@st.cache_data(show_spinner=False, max_entries=512)
def _derived(module: str, qualname: str, key: SourceKey, args: tuple):
    import importlib

    function = importlib.import_module(module)
    for part in qualname.split("."):
        function = getattr(function, part)
    loaded = _load(key)
    if isinstance(loaded, LoadFailure):
        return None
    return function(loaded, *args)


def dialogs(name: str) -> pd.DataFrame:
    result = corpus(name)
    return result.dialogs if isinstance(result, LoadedCorpus) else pd.DataFrame()


def utterances(name: str) -> pd.DataFrame:
    result = corpus(name)
    return result.utterances if isinstance(result, LoadedCorpus) else pd.DataFrame()
