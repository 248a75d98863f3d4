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

import streamlit as st

from data_access.common import CORPUS_NAMES, CORPUS_TITLES, LoadedCorpus, SourceError
from data_access.corpora import is_cached, load_source
from data_access.sources import Source, configured_source
from ui.widgets import md_escape

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
    name, path, _assets = key
    try:
        return load_source(_source(key))
    except SourceError as exc:
        return LoadFailure(name, str(exc))
    except Exception as exc:  # noqa: BLE001 - a broken corpus must not take the app down
        return LoadFailure(name, f"{path or 'demo corpus'}: unexpected {type(exc).__name__}: {exc}")


def _source(key: SourceKey) -> Source:
    name, path, assets = key
    return Source(name, Path(path) if path else None, Path(assets) if assets else None)


# Sources this process has already parsed (or failed on) once; later runs go straight to _load.
_prepared: set[SourceKey] = set()


def _parse_with_progress(key: SourceKey) -> None:
    """Parse a source that is not in the Parquet cache yet, showing what is read and how far.

    st.cache_data cannot show live progress from inside a cached function, so the first parse happens
    here (it fills the Parquet cache) and ``_load`` then reads the cache."""
    source = _source(key)
    try:
        if is_cached(source):
            return
    except OSError:
        return  # _load reports the problem
    with st.status(f"Reading {CORPUS_TITLES[key[0]]} for the first time…", expanded=True) as status:
        bar = st.progress(0.0, text="starting")

        def progress(message: str, fraction=None) -> None:
            bar.progress(min(max(float(fraction or 0.0), 0.0), 1.0), text=message)

        try:
            load_source(source, progress=progress)
        except Exception:  # noqa: BLE001 - _load turns the same failure into a LoadFailure with its message
            status.update(state="error", expanded=False)
            return
        status.update(label=f"{CORPUS_TITLES[key[0]]} is ready; later starts read it from the cache.",
                      state="complete", expanded=False)


def _prepared_key(name: str) -> SourceKey:
    """The source key of ``name``, after making sure its first parse (if still due) showed progress."""
    key = source_key(name)
    if key not in _prepared:
        _parse_with_progress(key)
        _prepared.add(key)
    return key


def corpus(name: str) -> LoadedCorpus | LoadFailure:
    """The configured corpus, parsed once per source (with visible progress the first time)."""
    result = _load(_prepared_key(name))
    if isinstance(result, LoadedCorpus) and result.cache_note:
        _say_once(result.cache_note)
    return result


def _say_once(note: str) -> None:
    """A problem that concerns every corpus (e.g. a cache folder that cannot be written), shown once per session."""
    shown = st.session_state.setdefault("_notes_shown", set())
    if note not in shown:
        shown.add(note)
        st.warning(md_escape(note), icon="ℹ️")


def reload_all() -> None:
    """Forget every loaded corpus so that changed files are read again."""
    _prepared.clear()
    st.cache_data.clear()


def loaded_corpus(name: str) -> Optional[LoadedCorpus]:
    """The corpus, or None after showing an error box naming the file."""
    result = corpus(name)
    if isinstance(result, LoadFailure):
        st.error(f"{CORPUS_TITLES[name]} could not be loaded: {md_escape(result.message)}", icon="⚠️")
        return None
    return result


def _is_loaded(loaded: LoadedCorpus) -> bool:
    return True


def corpus_ready(name: str) -> bool:
    """Whether the corpus loaded; shows the error box otherwise. Unlike ``loaded_corpus`` it does not
    copy the whole corpus out of the cache, so a page that then uses ``derived`` reruns light."""
    if derived(_is_loaded, name):
        return True
    loaded_corpus(name)
    return False


def available_corpora() -> list[str]:
    return [name for name in CORPUS_NAMES if not isinstance(corpus(name), LoadFailure)]


def derived(function: Callable, name: str, *args):
    """``function(loaded_corpus, *args)`` cached per source and arguments.

    For per-dialog views and statistics: the whole corpus is only touched on a cache miss, so a
    replay rerun unpickles a few small frames instead of the full corpus."""
    return _derived(function.__module__, function.__qualname__, _prepared_key(name), args)


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


def search_index():
    """One SearchIndex over the utterances of every loadable corpus, rebuilt only when a source changes."""
    return _search_index(tuple(_prepared_key(name) for name in CORPUS_NAMES))


@st.cache_data(show_spinner="Indexing utterances…", max_entries=2)
def _search_index(keys: tuple[SourceKey, ...]):
    from data_access.search import SearchIndex

    loaded = [_load(key) for key in keys]
    return SearchIndex.build([c.utterances for c in loaded if isinstance(c, LoadedCorpus)])
