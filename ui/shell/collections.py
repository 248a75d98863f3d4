"""A corpus's collection beside it (issue 50): the games collected live, in the corpus's own files, opened as a
corpus source of their own (``codraw@collected`` in the URL, "CoDraw (collected)" in the corpus picker). Where it
is: the path ``DIALOGUE_COLLECTIONS`` names for the corpus, else the store's finished games of the corpus,
exported once into the cache folder (``data_access.live.exported_collection``; a game finished since makes a new
export). Only ``ui.shell.corpus_edge`` asks here, when it resolves a name."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import streamlit as st

from data_access.contract import CorpusPackage, live_rules_of
from data_access.sources import (
    COLLECTED,
    COLLECTIONS_VARIABLE,
    Source,
    cache_dir,
    collection_source,
    configured_collections,
)
from data_access.store import StoreError

AVAILABLE_TTL_S = 30  # how long the picker's "which corpora have a collection?" is kept (one store call)


def collected_source(package: CorpusPackage, collection: str) -> Source:
    """The source of ``package``'s collection ``collection``; ValueError saying why there is none (the path
    named is checked when the corpus loads, which names it)."""
    if collection != COLLECTED:
        raise ValueError(f"{package.TITLE} has no collection “{collection}”; its collected games are “{COLLECTED}”")
    named = configured_collections()[0].get(package.NAME)
    if named is not None:
        return collection_source(package, named)
    if live_rules_of(package) is None:
        raise ValueError(f"{package.TITLE} is not played live, and DIALOGUE_COLLECTIONS names no collection of it")
    path = _store_export(package)
    if path is None:
        raise ValueError(f"{package.TITLE} has no collected games yet: no live game of it has finished")
    return collection_source(package, path)


def _store_export(package: CorpusPackage) -> Optional[Path]:
    from data_access import live
    from ui.shell.auth import identity
    from ui.store import shared_store

    try:
        return live.exported_collection(shared_store(), package, cache_dir(), viewer=identity())
    except (StoreError, OSError, ValueError) as exc:
        raise ValueError(f"the collected games of {package.TITLE} cannot be exported from the store: {exc}") from None


def collection_problems(corpus_names: list[str]) -> list[str]:
    """One line per entry of ``DIALOGUE_COLLECTIONS`` the app cannot use: not ``corpus=path``, or naming no
    registered corpus (``corpus_names``)."""
    found, problems = configured_collections()
    unknown = [f"{COLLECTIONS_VARIABLE}: {name[:80]!r} is not a corpus ({', '.join(corpus_names)})"
               for name in found if name not in corpus_names]
    return problems + unknown


def has_collection(package: CorpusPackage) -> bool:
    """Whether the picker offers ``package``'s collection: ``DIALOGUE_COLLECTIONS`` names one, or a live game of it
    has finished that this session may see (the store asked at most every ``AVAILABLE_TTL_S`` seconds, for every
    corpus at once: a store that cannot be reached costs one failed connection per period, not one per page)."""
    if package.NAME in configured_collections()[0]:
        return True
    if live_rules_of(package) is None:
        return False
    from data_access.common import CORPUS_NAMES
    from ui.shell.auth import identity

    person = identity()
    return package.NAME in _with_finished_games(tuple(CORPUS_NAMES), person.signed_in, person.read_only_reason is None)


@st.cache_data(ttl=AVAILABLE_TTL_S, show_spinner=False, max_entries=16)
def _with_finished_games(corpora: tuple[str, ...], signed_in: bool, may_read: bool) -> frozenset[str]:
    # keyed by what decides whether finished games are shown (``LiveGames.finished_ids``), not by the person
    from data_access.access import Identity, Role
    from ui.store import shared_store

    viewer = Identity(coder="", role=Role.VIEWER, signed_in=signed_in,
                      read_only_reason=None if may_read else "read only")
    try:
        games = shared_store().live_games
        return frozenset(name for name in corpora if games.finished_ids(name, viewer=viewer)[:1])
    except StoreError:
        return frozenset()
