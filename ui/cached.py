"""The only place that wraps ``data_access`` in ``st.cache_data``.

Pages call these functions, never the loaders directly, so every corpus is parsed once per source and
each rerun only pays for small per-dialog results. Every cached function is keyed by the source's path
(not just the corpus name), so pointing an environment variable elsewhere loads the new data. Load
failures are returned, not raised, so one broken corpus shows an error box while the others stay usable.
"""
from __future__ import annotations

import pickle
import time
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


# A shared resource, not cache_data: cache_data would pickle the whole corpus (every lazy frame read) and
# hand each caller its own unpickled copy, so each session's cache miss would copy hundreds of MB. The
# loaded frames are immutable by convention: nothing may modify them in place.
@st.cache_resource(show_spinner=False, max_entries=6)
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

        started = time.perf_counter()
        try:
            load_source(source, progress=progress)
        except Exception:  # noqa: BLE001 - _load turns the same failure into a LoadFailure with its message
            status.update(state="error", expanded=False)
            return
        status.update(label=f"{CORPUS_TITLES[key[0]]} is ready (parsed in {time.perf_counter() - started:.1f} s); "
                            "later starts read it from the cache.",
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
    _load.clear()
    st.cache_data.clear()
    _search_index.clear()
    _search.clear()


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


def _dialogs(loaded: LoadedCorpus):
    return loaded.dialogs


def dialogs_frame(name: str):
    """The corpus's ``dialogs`` frame alone (one row per dialog), without copying the rest of the corpus."""
    return derived(_dialogs, name)


def available_corpora() -> list[str]:
    """The corpora that load, without copying any of them out of the cache."""
    return [name for name in CORPUS_NAMES if derived(_is_loaded, name)]


def derived(function: Callable, name: str, *args):
    """``function(loaded_corpus, *args)`` cached per source and arguments.

    For per-dialog views and statistics: the whole corpus is only touched on a cache miss, so a
    replay rerun unpickles a few small frames instead of the full corpus."""
    return _derived(function.__module__, function.__qualname__, _prepared_key(name), args)


@st.cache_data(show_spinner=False, max_entries=512)
def _derived(module: str, qualname: str, key: SourceKey, args: tuple):
    function = _resolve(module, qualname)
    loaded = _load(key)
    if isinstance(loaded, LoadFailure):
        return None
    return _as_on_a_hit(function(loaded, *args))


def shared(function: Callable, name: str, *args):
    """Like ``derived``, for a large result that is never modified (e.g. the dialog labels of a picker): one
    object shared by all sessions, so a rerun does not unpickle a copy of it."""
    return _shared(function.__module__, function.__qualname__, _prepared_key(name), args)


@st.cache_resource(show_spinner=False, max_entries=256)
def _shared(module: str, qualname: str, key: SourceKey, args: tuple):
    loaded = _load(key)
    return None if isinstance(loaded, LoadFailure) else _resolve(module, qualname)(loaded, *args)


def _resolve(module: str, qualname: str) -> Callable:
    """The function a derived cache entry was keyed by (its module and name, which st.cache_data can hash)."""
    import importlib

    function = importlib.import_module(module)
    for part in qualname.split("."):
        function = getattr(function, part)
    return function


def _as_on_a_hit(value):
    """What a cache hit will hand out: st.cache_data returns the computed object on a miss but an unpickled
    copy on every hit. For a ``Chart`` the two differ where it matters: a plotly figure serialises its layout
    in another key order after the round trip, and Streamlit derives a chart's widget id from that JSON, so a
    point selected on the first run would be dropped on the next. Other results are handed out as computed."""
    from data_access.figures.charts import Chart

    if isinstance(value, Chart):
        return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    return value


def search_index():
    """One SearchIndex over the utterances of every loadable corpus, rebuilt only when a source changes.

    A shared resource (immutable), so a rerun does not copy the corpora's utterances out of a cache."""
    return _search_index(tuple(_prepared_key(name) for name in CORPUS_NAMES))


@st.cache_resource(show_spinner="Indexing utterances…", max_entries=2)
def _search_index(keys: tuple[SourceKey, ...]):
    from data_access.search import SearchIndex

    loaded = [_load(key) for key in keys]
    return SearchIndex.build([c.utterances for c in loaded if isinstance(c, LoadedCorpus)])


def search(query: str, mode: str, case_sensitive: bool, whole_word: bool, corpora: tuple[str, ...]):
    """The search's result (counts and matching rows, no KWIC rows: see ``search_page``), or the
    ``InvalidQuery`` message as a string. Shared and not copied, like the index; failures are kept too,
    so a slow or malformed pattern costs its time once, not on every rerun."""
    return _search(tuple(_prepared_key(name) for name in CORPUS_NAMES), query, mode, case_sensitive, whole_word,
                   tuple(corpora))


def search_page(query: str, mode: str, case_sensitive: bool, whole_word: bool, corpora: tuple[str, ...],
                corpus_name: str, page: int, size: int):
    """KWIC rows of one page of one corpus's hits (small; built on demand)."""
    result = search(query, mode, case_sensitive, whole_word, corpora)
    return search_index().page(result, corpus_name, page, size)


@st.cache_resource(show_spinner="Searching…", max_entries=16)
def _search(keys: tuple[SourceKey, ...], query: str, mode: str, case_sensitive: bool, whole_word: bool,
            corpora: tuple[str, ...]):
    from data_access.search import InvalidQuery

    try:
        return _search_index(keys).search(query, mode=mode, case_sensitive=case_sensitive, whole_word=whole_word,
                                           corpora=corpora, limit=0)
    except InvalidQuery as exc:
        return str(exc)


# --------------------------------------------------------------------------------------------- model runs
# (corpus, run name, run file, is_demo, file mtime): a run is keyed by its file and version, scored once per
# corpus source.
RunKey = tuple[str, str, str, bool, int]


def run_keys(name: str) -> dict[str, RunKey]:
    """The runs of a corpus by name: demo runs of a demo corpus, DIALOGUE_RUNS_DIR/<corpus>/ and uploads."""
    from data_access.runs import available_runs

    is_demo = source_key(name)[1] is None
    keys = {}
    for run, (file, demo) in available_runs(name, is_demo).items():
        try:
            stamp = file.stat().st_mtime_ns
        except OSError:
            stamp = 0
        keys[run] = (name, run, str(file), demo, stamp)
    return keys


# A shared resource like the corpora: a scored run (77,502 CoDraw rounds) unpickled from st.cache_data on
# every rerun cost 0.29 s per replay step; it is never modified in place.
@st.cache_resource(show_spinner="Scoring the run…", max_entries=32)
def _load_run(key: SourceKey, run_key: RunKey):
    from data_access.runs import load_run

    loaded = _load(key)
    if isinstance(loaded, LoadFailure):
        return loaded
    try:
        return load_run(loaded, run_key[2], run_key[1], is_demo=run_key[3])
    except SourceError as exc:
        return LoadFailure(key[0], str(exc))
    except Exception as exc:  # noqa: BLE001 - a broken run must not take the page down
        return LoadFailure(key[0], f"{run_key[2]}: unexpected {type(exc).__name__}: {exc}")


def model_run(name: str, run_key: RunKey):
    """The scored run (``LoadedRun``), or a ``LoadFailure`` naming the run file."""
    run = _load_run(_prepared_key(name), run_key)
    if getattr(run, "cache_note", None):
        _say_once(run.cache_note)
    return run


def run_derived(function: Callable, name: str, run_key: RunKey, *args):
    """``function(loaded_corpus, loaded_run, *args)`` cached per corpus source, run file and arguments."""
    return _run_derived(function.__module__, function.__qualname__, _prepared_key(name), run_key, args)


@st.cache_data(show_spinner=False, max_entries=256)
def _run_derived(module: str, qualname: str, key: SourceKey, run_key: RunKey, args: tuple):
    function = _resolve(module, qualname)
    loaded, run = _load(key), _load_run(key, run_key)
    if isinstance(loaded, LoadFailure) or isinstance(run, LoadFailure):
        return None
    return _as_on_a_hit(function(loaded, run, *args))


# ---------------------------------------------------------------------------------------------------
# Published annotation layers (data_access.layers): linked to the configured corpus, cached per corpus
# source and layer file (its size and modification time, so an edited layer is read again).

def layer_source(name: str):
    """Where the layer ``name`` comes from (``data_access.layers.load.LayerSource``)."""
    from data_access.layers import LAYER_CORPUS
    from data_access.layers.load import configured_layer

    return configured_layer(name, _source(source_key(LAYER_CORPUS[name])))


def _layer_key(name: str) -> Optional[tuple]:
    from data_access.layers import LAYER_CORPUS

    source = layer_source(name)
    if source.path is None:
        return None
    try:
        stat = source.path.stat()
        stamp = (stat.st_size, stat.st_mtime_ns)
    except OSError:
        stamp = None
    return (name, _prepared_key(LAYER_CORPUS[name]), str(source.path), source.is_demo, stamp)


def layer(name: str):
    """The layer linked to its corpus (``LoadedLayer``), a ``LoadFailure`` naming the file, or None when no
    layer is configured for the corpus (``layer_source(name).reason`` says why)."""
    key = _layer_key(name)
    return None if key is None else _layer(key)


@st.cache_data(show_spinner="Linking the published annotation layer…", max_entries=4)
def _layer(key: tuple):
    from data_access.layers.load import load_layer

    name, corpus_key, path, is_demo, _stamp = key
    loaded = _load(corpus_key)
    if isinstance(loaded, LoadFailure):
        return LoadFailure(name, f"its corpus could not be loaded: {loaded.message}")
    try:
        return load_layer(name, loaded, path, is_demo)
    except SourceError as exc:
        return LoadFailure(name, str(exc))
    except Exception as exc:  # noqa: BLE001 - a broken layer must not take the page down
        return LoadFailure(name, f"{path}: unexpected {type(exc).__name__}: {exc}")


def layer_derived(function: Callable, name: str, *args):
    """``function(loaded_layer, loaded_corpus, *args)`` cached per layer, corpus and arguments; None when the
    layer is absent or failed (so replay reruns unpickle small results, not the whole layer)."""
    key = _layer_key(name)
    return None if key is None else _layer_derived(function.__module__, function.__qualname__, key, args)


@st.cache_data(show_spinner=False, max_entries=512)
def _layer_derived(module: str, qualname: str, key: tuple, args: tuple):
    function = _resolve(module, qualname)
    result = _layer(key)
    loaded = _load(key[1])
    if isinstance(result, LoadFailure) or isinstance(loaded, LoadFailure):
        return None
    return _as_on_a_hit(function(result, loaded, *args))
