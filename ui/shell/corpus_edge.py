"""The app's edge for corpora: the one ui module that makes a corpus's resolved value, a ``data_access.corpus.
Corpus`` (package, title, source, scoring), from a name that comes in from outside, as ``ui.shell.url_state`` is the one
module that reads the URL. A page gets its corpus here once per run: from the corpus picker (``corpus_selector``,
kept in the URL's ``corpus=``), as the corpus whose analysis page it is (``page_corpus``), or as every registered corpus
(``every_corpus``); and hands that value to the ui modules, which take the name from it (``corpus.name``: widget
keys, URL parameters, file names, store rows) and the behaviour (``corpus.package``, ``corpus.title``, its UI in
``ui.shell.corpus_views.views_of``). Nothing below asks the registry for a package by name again
(``tests/unit/test_corpus_resolution.py``, ``tests/unit/test_corpus_edge.py``); the cache key of a resolved
corpus is ``ui.cache_keys.corpus_key``."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import streamlit as st

from data_access.common import CORPUS_NAMES, CORPUS_TITLES
from data_access.contract import CorpusPackage
from data_access.corpus import Corpus
from data_access.registry import PLUGIN_PROBLEMS, check_plugins, corpus_module, layer_corpus
from data_access.registry import resolve as registered_name
from data_access.sources import configured_source
from ui.shell.url_state import linked, publish, query_param, swap_url
from ui.widgets import md_link_value


def resolve(name: str) -> Corpus:
    """Corpus ``name`` where the environment points (``CODRAW_DATA``...; unset: its demo corpus). Raises
    ValueError for a name that is not a registered corpus. Cheap: a lookup and two environment variables."""
    return corpus_of(corpus_module(name))


def corpus_of(package: CorpusPackage) -> Corpus:
    """The corpus of ``package`` (a ``contract.CorpusPackage`` at hand), where the environment points."""
    return Corpus(package.NAME, configured_source(package), package)


def every_corpus() -> tuple[Corpus, ...]:
    """Every registered corpus, in the order the pages list them: for a page over all of them (Data, Overview)
    and for the indexes built over every corpus (Search, Words)."""
    skip_broken_plugins()
    return tuple(resolve(name) for name in CORPUS_NAMES)


def skip_broken_plugins() -> dict[str, str]:
    """Leave out of every list of corpora the installed plugins that cannot be used (their package raises on
    import, ``SystemExit`` included, or misses a member of the contract): the router does it before a page runs,
    so that no picker or table meets one. Returns them, name -> why, for the Data page. Cheap after the first
    call of a process (``registry.check_plugins``)."""
    return check_plugins()


def layer_corpus_of(layer: str) -> Corpus:
    """The corpus the published annotation layer ``layer`` lies over (its package's ``LAYERS`` names it)."""
    return corpus_of(layer_corpus(layer))


def page_corpus(page_file: str) -> Corpus:
    """The corpus whose views name the analysis page ``page_file`` (a page's ``__file__``; ``CorpusViews.
    analysis_page``): the page's own corpus. LookupError when no corpus's views name it."""
    from ui.shell.corpus_views import views_of

    wanted = f"pages/{Path(page_file).name}"
    for name in CORPUS_NAMES:
        corpus = resolve(name)
        if views_of(corpus).analysis_page == wanted:
            return corpus
    raise LookupError(f"no corpus's views draw the page {wanted}")


def corpus_selector(key: str, default: Optional[str] = None, label: str = "Corpus", container=None,
                    compact: bool = False) -> Corpus:
    """Segmented control over the registered corpora (the first by default), kept in the URL's ``corpus``
    parameter; the corpus chosen, resolved. ``compact``: without its label, each corpus by its short title (a
    page's header row)."""
    default = default or CORPUS_NAMES[0]
    requested = query_param("corpus")
    if requested in PLUGIN_PROBLEMS:
        st.warning(f"The link names the corpus plugin “{md_link_value(requested)}”, which cannot be used (the Data "
                   f"page says why); showing {CORPUS_TITLES[default]}.")
    elif requested is not None and registered_name(requested) is None:
        st.warning(f"The link names an unknown corpus “{md_link_value(requested)}”; showing {CORPUS_TITLES[default]}.")
    requested = registered_name(requested) if requested is not None else None
    # The URL names another corpus than the one it was last given (Back over a corpus switch, a new link):
    # the URL wins, as a deep link does.
    if key not in st.session_state or (requested is not None and requested != linked(key)):
        st.session_state[key] = requested or default
    titles = {name: corpus_module(name).SHORT_TITLE for name in CORPUS_NAMES} if compact else CORPUS_TITLES
    # a compact row holds three corpora's buttons; with plugins beside them, a list
    control = (container or st).selectbox if compact and len(CORPUS_NAMES) > 3 else (container or st).segmented_control
    choice = control(label, CORPUS_NAMES, format_func=titles.__getitem__, key=key, on_change=_switch_corpus, args=(key,),
                     label_visibility="collapsed" if compact else "visible") or default
    publish(key, "corpus", choice)
    return resolve(choice)


def _switch_corpus(key: str) -> None:
    """Another corpus's dialog, turn and filters mean nothing in this one, so the URL is cleared; what it said
    for the corpus left is kept (per page), and coming back to a corpus brings back its dialog and filters."""
    swap_url(key, leaving=query_param("corpus"), entering=st.session_state.get(key))
