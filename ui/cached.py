"""The only place that wraps ``data_access`` in ``st.cache_data``.

Pages call these functions, never the loaders directly, so every corpus is parsed once per source and each rerun
only pays for small per-dialog results. They take the corpus resolved at the edge (``ui.shell.corpus_edge``) and key on
its source's path (not just its name), so pointing an environment variable elsewhere loads the new data. Load
failures are returned, not raised, so one broken corpus shows an error box while the others stay usable.
"""
from __future__ import annotations

import pickle
from typing import Callable, Optional

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from data_access.access import Action, Identity, check
from data_access.common import CORPUS_NAMES, CORPUS_TITLES, LoadedCorpus, SourceError, describe_unexpected  # noqa: F401 - the pages' lists
from data_access.corpora import load_source
from data_access.corpus import Corpus
from ui.cache_keys import _HASH_FUNCTIONS, _derivable, key_source, plain_key
from ui.cache_keys import CorpusKey as CorpusKey  # the keys, as every caller has named them
from ui.cache_keys import LayerKey as LayerKey
from ui.cache_keys import LoadFailure as LoadFailure
from ui.cache_keys import RunKey as RunKey
from ui.cache_keys import corpus_key as _key_of
from ui.shell.corpus_edge import every_corpus, layer_corpus_of
from ui.shell.first_parse import parse_with_progress
from ui.widgets import md_escape


# A shared resource, not cache_data: cache_data would pickle the whole corpus (every lazy frame read) and
# hand each caller its own unpickled copy, so each session's cache miss would copy hundreds of MB. The
# loaded frames are immutable by convention: nothing may modify them in place.
@st.cache_resource(show_spinner=False, max_entries=6)
def _load(key: CorpusKey) -> LoadedCorpus | LoadFailure:
    source = key_source(key)  # the key's source, resolved here once: below it the corpus travels as this value
    try:
        return load_source(source)
    except SourceError as exc:
        return LoadFailure(key.corpus, str(exc))
    except Exception as exc:  # noqa: BLE001 - a broken corpus must not take the app down
        return LoadFailure(key.corpus, f"{key.data or 'demo corpus'}: {describe_unexpected(exc)}")


# Sources this process has already parsed (or failed on) once; later runs go straight to _load.
_prepared: set[CorpusKey] = set()


def _prepared_key(corpus: Corpus) -> CorpusKey:
    """The source key of ``corpus``, after making sure its first parse (if still due) showed progress."""
    key = _key_of(corpus)
    if key not in _prepared:
        parse_with_progress(corpus)
        _prepared.add(key)
    return key


def corpus(corpus: Corpus) -> LoadedCorpus | LoadFailure:
    """The corpus loaded, parsed once per source (with visible progress the first time)."""
    result = _load(_prepared_key(corpus))
    if isinstance(result, LoadedCorpus) and result.cache_note:
        _say_once(result.cache_note)
    return result


_loaded = corpus  # for the functions below whose parameter ``corpus`` hides this one


def _say_once(note: str) -> None:
    """A problem that concerns every corpus (e.g. a cache folder that cannot be written), shown once per session."""
    shown = st.session_state.setdefault("_notes_shown", set())
    if note not in shown:
        shown.add(note)
        st.warning(md_escape(note), icon="ℹ️")


def reload_all(actor: Identity) -> None:
    """Forget every loaded corpus so that changed files are read again: for every session of the server, so
    only an admin (or the local user) may (``AccessRefused`` otherwise, logged)."""
    check(actor, Action.RELOAD, what="reloading every corpus (the caches every session shares)")
    _prepared.clear()
    _load.clear()
    st.cache_data.clear()
    _search_index.clear()
    _search.clear()


def loaded_corpus(corpus: Corpus) -> Optional[LoadedCorpus]:
    """The corpus loaded, or None after showing an error box naming the file."""
    result = _loaded(corpus)
    if isinstance(result, LoadFailure):
        st.error(f"{corpus.title} could not be loaded: {md_escape(result.message)}", icon="⚠️")
        return None
    return result


def _is_loaded(loaded: LoadedCorpus) -> bool:
    return True


def corpus_ready(corpus: Corpus) -> bool:
    """Whether the corpus loaded; shows the error box otherwise. Unlike ``loaded_corpus`` it does not
    copy the whole corpus out of the cache, so a page that then uses ``derived`` reruns light. It is one element
    of the page on every run, whatever it shows (a first parse's progress, an error), so that what follows keeps
    its place: moved, the browser builds it anew (the step player then lost its state and a key pressed)."""
    with st.container():
        if derived(_is_loaded, corpus):
            return True
        loaded_corpus(corpus)
        return False


def _dialogs(loaded: LoadedCorpus):
    return loaded.dialogs


def dialogs_frame(corpus: Corpus):
    """The corpus's ``dialogs`` frame alone (one row per dialog), without copying the rest of the corpus."""
    return derived(_dialogs, corpus)


def loadable_corpora() -> list[Corpus]:
    """Every registered corpus that loads, without copying any of them out of the cache."""
    return [corpus for corpus in every_corpus() if derived(_is_loaded, corpus)]


def available_corpora() -> list[str]:
    """The names of the corpora that load: the choices of a filter over rows that name their corpus (Search)."""
    return [corpus.name for corpus in loadable_corpora()]


def derived(function: Callable, corpus: Corpus, *args):
    """``function(loaded_corpus, *args)`` cached per source and arguments.

    For per-dialog views and statistics: the whole corpus is only touched on a cache miss, so a
    replay rerun unpickles a few small frames instead of the full corpus."""
    function, key = _derivable(function), _prepared_key(corpus)
    whole = plain_key(function, key, args)
    if whole is not None:  # one string to hash, not each argument (ui.cache_keys.plain_key)
        return _derived_plain(whole, function, key, args)
    return _derived(function, key, args)


@st.cache_data(show_spinner=False, max_entries=512)
def _derived_plain(whole: str, _function: Callable, _key: CorpusKey, _args: tuple):
    """``_derived`` keyed by ``whole`` alone (Streamlit does not hash the arguments named with a leading "_")."""
    return _compute_derived(_function, _key, _args)


@st.cache_data(show_spinner=False, max_entries=512, hash_funcs=_HASH_FUNCTIONS)
def _derived(function: Callable, key: CorpusKey, args: tuple):
    return _compute_derived(function, key, args)


def _compute_derived(function: Callable, key: CorpusKey, args: tuple):
    loaded = _load(key)
    if isinstance(loaded, LoadFailure):
        return None
    return _as_on_a_hit(function(loaded, *args))


def shared(function: Callable, corpus: Corpus, *args):
    """Like ``derived``, for a large result that is never modified (e.g. the dialog labels of a picker): one
    object shared by all sessions, so a rerun does not unpickle a copy of it."""
    return _shared(_derivable(function), _prepared_key(corpus), args)


@st.cache_resource(show_spinner=False, max_entries=256, hash_funcs=_HASH_FUNCTIONS)
def _shared(function: Callable, key: CorpusKey, args: tuple):
    loaded = _load(key)
    return None if isinstance(loaded, LoadFailure) else function(loaded, *args)


def _as_on_a_hit(value):
    """What a cache hit will hand out: st.cache_data returns the computed object on a miss but an unpickled
    copy on every hit. For a ``Chart`` the two differ where it matters: a plotly figure serialises its layout
    in another key order after the round trip, and Streamlit derives a chart's widget id from that JSON, so a
    point selected on the first run would be dropped on the next. Other results are handed out as computed."""
    from data_access.analysis.charts import Chart

    if isinstance(value, Chart):
        return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    return value


def search_index():
    """One SearchIndex over the utterances of every loadable corpus, rebuilt only when a source changes.

    A shared resource (immutable), so a rerun does not copy the corpora's utterances out of a cache."""
    return _search_index(tuple(_prepared_key(corpus) for corpus in every_corpus()))


@st.cache_resource(show_spinner="Indexing utterances…", max_entries=2)
def _search_index(keys: tuple[CorpusKey, ...]):
    from data_access.search import SearchIndex

    loaded = [_load(key) for key in keys]
    return SearchIndex.build([c.utterances for c in loaded if isinstance(c, LoadedCorpus)])


def search(query: str, mode: str, case_sensitive: bool, whole_word: bool, corpora: tuple[str, ...], within=None):
    """The search's result (counts and matching rows, no KWIC rows: see ``search_page``), or the
    ``InvalidQuery`` message as a string. Shared and not copied, like the index; failures are kept too,
    so a slow or malformed pattern costs its time once, not on every rerun."""
    return _search(tuple(_prepared_key(corpus) for corpus in every_corpus()), query, mode, case_sensitive, whole_word,
                   tuple(corpora), within)


def search_page(query: str, mode: str, case_sensitive: bool, whole_word: bool, corpora: tuple[str, ...],
                corpus_name: str, page: int, size: int, within=None):
    """KWIC rows of one page of one corpus's hits (small; built on demand)."""
    result = search(query, mode, case_sensitive, whole_word, corpora, within)
    return search_index().page(result, corpus_name, page, size)


@st.cache_resource(show_spinner="Searching…", max_entries=16)
def _search(keys: tuple[CorpusKey, ...], query: str, mode: str, case_sensitive: bool, whole_word: bool,
            corpora: tuple[str, ...], within=None):
    from data_access.search import InvalidQuery

    try:
        return _search_index(keys).search(query, mode=mode, case_sensitive=case_sensitive, whole_word=whole_word,
                                           corpora=corpora, within=within, limit=0)
    except InvalidQuery as exc:
        return str(exc)


# --------------------------------------------------------------------------------------------- model runs
# A run is keyed by its file and version (RunKey), scored once per corpus source.

# The session's run keys listed in the current script run: the Runs page asks for them five times a run, and
# each listing reads the run folders and stats every file. Kept with the run's cursor map, a dict Streamlit
# replaces at the start of every script run (holding it keeps its identity from being reused), so the next
# run lists the folders again.
_RUN_KEYS_STATE = "_run_keys_this_run"


def _run_keys_listed() -> Optional[dict[str, dict[str, RunKey]]]:
    """The run keys listed so far in this script run, by corpus; None outside a script run."""
    context = get_script_run_ctx(suppress_warning=True)
    if context is None:
        return None
    run_marker, listed = st.session_state.get(_RUN_KEYS_STATE, (None, {}))
    if run_marker is not context.cursors:
        listed = {}
        st.session_state[_RUN_KEYS_STATE] = (context.cursors, listed)
    return listed


def run_keys(corpus: Corpus) -> dict[str, RunKey]:
    """The runs of a corpus by name: demo runs of a demo corpus, DIALOGUE_RUNS_DIR/<corpus>/ and uploads.
    Listed at most once per script run (``forget_run_keys`` after adding or removing a run file)."""
    listed = _run_keys_listed()
    if listed is None:
        return _list_run_keys(corpus)
    if corpus.name not in listed:
        listed[corpus.name] = _list_run_keys(corpus)
    return dict(listed[corpus.name])


def forget_run_keys(corpus: Corpus) -> None:
    """List the runs of ``corpus`` again at the next ``run_keys``, in this script run too (a run file was saved
    or removed)."""
    listed = _run_keys_listed()
    if listed is not None:
        listed.pop(corpus.name, None)


def _list_run_keys(corpus: Corpus) -> dict[str, RunKey]:
    from data_access.runs import available_runs
    from ui.play.runs import sync_play_runs

    sync_play_runs(corpus, lambda: _loaded(corpus))  # the people's finished plays, as runs person:<name> (docs/play.md)
    keys = {}
    for run, (file, demo) in available_runs(corpus.name, corpus.is_demo).items():
        try:
            stamp = file.stat().st_mtime_ns
        except OSError:
            stamp = 0
        keys[run] = RunKey(corpus.name, run, str(file), demo, stamp)
    return keys


# A shared resource like the corpora: a scored run (77,502 CoDraw rounds) unpickled from st.cache_data on
# every rerun cost 0.29 s per replay step; it is never modified in place.
@st.cache_resource(show_spinner="Scoring the run…", max_entries=256)  # 50 runs of a corpus on one page: more than 32
def _load_run(key: CorpusKey, run_key: RunKey):
    from data_access.runs import load_run

    loaded = _load(key)
    if isinstance(loaded, LoadFailure):
        return loaded
    try:
        return load_run(loaded, run_key.file, run_key.run, is_demo=run_key.is_demo)
    except SourceError as exc:
        return LoadFailure(key.corpus, str(exc))
    except Exception as exc:  # noqa: BLE001 - a broken run must not take the page down
        return LoadFailure(key.corpus, f"{run_key.file}: {describe_unexpected(exc)}")


def model_run(corpus: Corpus, run_key: RunKey):
    """The scored run (``LoadedRun``), or a ``LoadFailure`` naming the run file."""
    run = _load_run(_prepared_key(corpus), run_key)
    if getattr(run, "cache_note", None):
        _say_once(run.cache_note)
    return run


def run_derived(function: Callable, corpus: Corpus, run_key: RunKey, *args):
    """``function(loaded_corpus, loaded_run, *args)`` cached per corpus source, run file and arguments."""
    return _run_derived(_derivable(function), _prepared_key(corpus), run_key, args)


@st.cache_data(show_spinner=False, max_entries=256, hash_funcs=_HASH_FUNCTIONS)
def _run_derived(function: Callable, key: CorpusKey, run_key: RunKey, args: tuple):
    loaded, run = _load(key), _load_run(key, run_key)
    if isinstance(loaded, LoadFailure) or isinstance(run, LoadFailure):
        return None
    return _as_on_a_hit(function(loaded, run, *args))


# ---------------------------------------------------------------------------------------------------
# Published annotation layers (data_access.layers): linked to the configured corpus, cached per corpus
# source and layer file (its size and modification time, so an edited layer is read again).

def layer_source(name: str):
    """Where the layer ``name`` comes from (``data_access.layers.load.LayerSource``)."""
    from data_access.layers.load import configured_layer

    return configured_layer(name, layer_corpus_of(name).source)


def _layer_key(name: str) -> Optional[LayerKey]:
    source = layer_source(name)
    if source.path is None:
        return None
    try:
        stat = source.path.stat()
        stamp: Optional[tuple[int, int]] = (stat.st_size, stat.st_mtime_ns)
    except OSError:
        stamp = None
    return LayerKey(name, _prepared_key(layer_corpus_of(name)), str(source.path), source.is_demo, stamp)


def corpus_key(corpus: Corpus) -> CorpusKey:
    """The cache key of ``corpus``'s current source, for caches of things built from it outside this module (the
    Words index, the slice features); a changed source file gives a new key. Its first parse shows progress."""
    return _prepared_key(corpus)


def layer_key(name: str) -> Optional[LayerKey]:
    """The cache key of annotation layer ``name``'s current file (None when there is none), for caches
    outside this module that read the layer; a changed file gives a new key."""
    return _layer_key(name)


def layer(name: str):
    """The layer linked to its corpus (``LoadedLayer``), a ``LoadFailure`` naming the file, or None when no
    layer is configured for the corpus (``layer_source(name).reason`` says why)."""
    key = _layer_key(name)
    return None if key is None else _layer(key)


@st.cache_data(show_spinner="Linking the published annotation layer…", max_entries=4)
def _layer(key: LayerKey):
    from data_access.layers.load import load_layer

    loaded = _load(key.corpus)
    if isinstance(loaded, LoadFailure):
        return LoadFailure(key.layer, f"its corpus could not be loaded: {loaded.message}")
    try:
        return load_layer(key.layer, loaded, key.file, key.is_demo)
    except SourceError as exc:
        return LoadFailure(key.layer, str(exc))
    except Exception as exc:  # noqa: BLE001 - a broken layer must not take the page down
        return LoadFailure(key.layer, f"{key.file}: {describe_unexpected(exc)}")


def layer_derived(function: Callable, name: str, *args):
    """``function(loaded_layer, loaded_corpus, *args)`` cached per layer, corpus and arguments; None when the
    layer is absent or failed (so replay reruns unpickle small results, not the whole layer)."""
    key = _layer_key(name)
    return None if key is None else _layer_derived(_derivable(function), key, args)


@st.cache_data(show_spinner=False, max_entries=512, hash_funcs=_HASH_FUNCTIONS)
def _layer_derived(function: Callable, key: LayerKey, args: tuple):
    result = _layer(key)
    loaded = _load(key.corpus)
    if isinstance(result, LoadFailure) or isinstance(loaded, LoadFailure):
        return None
    return _as_on_a_hit(function(result, loaded, *args))
