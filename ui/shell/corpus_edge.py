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
from data_access.corpus import Corpus, collection_title
from data_access.registry import PLUGIN_PROBLEMS, check_plugins, corpus_module, layer_corpus
from data_access.registry import resolve as registered_name
from data_access.sources import COLLECTED, configured_source, source_name, split_source_name
from ui.shell.url_state import linked, publish, query_param, swap_url
from ui.widgets import md_link_value


def resolve(name: str) -> Corpus:
    """Corpus ``name`` where the environment points (``CODRAW_DATA``...; unset: its demo corpus), or, for
    ``<corpus>@collected``, the corpus's collection beside it (``ui.shell.collections``). Raises ValueError for a
    name that is not a registered corpus or a collection that is not there. Cheap for a corpus: a lookup and two
    environment variables; a collection from the store asks it for its finished games."""
    corpus_name, collection = split_source_name(name)
    package = corpus_module(corpus_name)
    if collection is None:
        return corpus_of(package)
    from ui.shell.collections import collected_source

    return Corpus.of_source(collected_source(package, collection))


def package_named(name: str) -> CorpusPackage:
    """The package of the corpus a source's name names (``codraw``, ``codraw@collected``): a cache key's."""
    return corpus_module(split_source_name(name)[0])


def source_names() -> list[str]:
    """What the corpus picker offers: every registered corpus, each followed by its collection when it has one
    (after a warning for each entry of ``DIALOGUE_COLLECTIONS`` that cannot be used)."""
    from ui.shell.collections import collection_problems, has_collection

    for problem in collection_problems(CORPUS_NAMES):
        st.warning(md_link_value(problem))
    names = []
    for name in CORPUS_NAMES:
        names.append(name)
        if has_collection(corpus_module(name)):
            names.append(source_name(name, COLLECTED))
    return names


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
            return _linked_collection(corpus) or corpus
    raise LookupError(f"no corpus's views draw the page {wanted}")


def _linked_collection(corpus: Corpus) -> Optional[Corpus]:
    """The collection of ``corpus`` when the URL's ``corpus=`` names it (an analysis page opened from the
    collection); a warning and None when it names one that is not there."""
    requested = query_param("corpus") or ""
    corpus_name, collection = split_source_name(requested)
    if collection is None or corpus_name != corpus.name:
        return None
    try:
        return resolve(requested)
    except ValueError as exc:
        st.warning(f"{md_link_value(str(exc))}; showing {corpus.title}.")
        return None


def corpus_selector(key: str, default: Optional[str] = None, label: str = "Corpus", container=None,
                    compact: bool = False) -> Corpus:
    """Segmented control over the registered corpora (the first by default), each followed by its collection when
    it has one (``source_names``), kept in the URL's ``corpus`` parameter; the corpus chosen, resolved.
    ``compact``: without its label, each corpus by its short title (a page's header row)."""
    default = default or CORPUS_NAMES[0]
    options = source_names()
    requested = _requested_source(query_param("corpus"), options, default)
    # The URL names another corpus than the one it was last given (Back over a corpus switch, a new link):
    # the URL wins, as a deep link does.
    if key not in st.session_state or (requested is not None and requested != linked(key)):
        st.session_state[key] = requested or default
    if st.session_state[key] not in options:  # a collection no longer there (its store went away)
        st.session_state[key] = split_source_name(st.session_state[key])[0]
    titles = {name: _source_title(name, compact) for name in options}
    # a compact row holds three corpora's buttons; with plugins or collections beside them, a list
    control = (container or st).selectbox if compact and len(options) > 3 else (container or st).segmented_control
    choice = control(label, options, format_func=titles.__getitem__, key=key, on_change=_switch_corpus, args=(key,),
                     label_visibility="collapsed" if compact else "visible") or default
    publish(key, "corpus", choice)
    try:
        return resolve(choice)
    except ValueError as exc:  # the collection could not be made (its store failed since it was listed)
        st.error(md_link_value(str(exc)))
        return resolve(split_source_name(choice)[0])


def _source_title(name: str, compact: bool) -> str:
    corpus_name, collection = split_source_name(name)
    package = corpus_module(corpus_name)
    return collection_title(package.SHORT_TITLE if compact else package.TITLE, collection)


def _requested_source(requested: Optional[str], options: list[str], default: str) -> Optional[str]:
    """The source the URL's ``corpus=`` names, among ``options``, after a warning for one it cannot show; None when
    it names none."""
    if requested is None:
        return None
    if requested in PLUGIN_PROBLEMS:
        st.warning(f"The link names the corpus plugin “{md_link_value(requested)}”, which cannot be used (the Data "
                   f"page says why); showing {CORPUS_TITLES[default]}.")
        return None
    corpus_name, collection = split_source_name(requested)
    found = registered_name(corpus_name)
    if found is None:
        st.warning(f"The link names an unknown corpus “{md_link_value(requested)}”; showing {CORPUS_TITLES[default]}.")
        return None
    if collection is None:
        return found
    if source_name(found, collection) in options:
        return source_name(found, collection)
    st.warning(f"The link names the collection “{md_link_value(collection)}” of {CORPUS_TITLES[found]}, which is not "
               f"here (no game of it has finished, or it is not {COLLECTED!r}); showing {CORPUS_TITLES[found]}.")
    return found


def _switch_corpus(key: str) -> None:
    """Another corpus's dialog, turn and filters mean nothing in this one, so the URL is cleared; what it said
    for the corpus left is kept (per page), and coming back to a corpus brings back its dialog and filters."""
    swap_url(key, leaving=query_param("corpus"), entering=st.session_state.get(key))
