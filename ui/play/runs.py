"""The people's finished plays as runs: before the runs of a corpus are listed (``ui.cached.run_keys``), each
person's finished plays are written from the store as the run ``person:<name>`` into the plays folder the run loader
lists (``data_access.runs.plays_dir``; ``data_access.play.write_person_runs``). Only when a play finished since the
last time (one cheap query), so listing runs costs the same as before; a store that cannot be read leaves the files
as they are."""
from __future__ import annotations

import threading
from typing import Callable

from data_access.contract import play_rules_of
from data_access.corpus import Corpus
from data_access.play import write_person_runs
from data_access.runs import plays_dir
from data_access.store import StoreError
from ui.cache_keys import corpus_key

_SYNCED: dict[tuple, tuple[int, int]] = {}  # (store, corpus source) -> the finished plays' stamp last written
_LOCK = threading.Lock()


def sync_play_runs(corpus: Corpus, loaded: Callable[[], object]) -> None:
    """Write the people's runs of ``corpus`` when a play finished since they were last written (``loaded()``: the
    corpus loaded, or a load failure, which leaves the files as they are)."""
    from data_access.types import LoadedCorpus
    from ui.store import shared_store

    if play_rules_of(corpus.package) is None:
        return
    try:
        store = shared_store()
        stamp = store.plays.finished_stamp(corpus.name)
    except StoreError:
        return
    folder = plays_dir(corpus.name)
    key = (store.location, corpus_key(corpus), str(folder))
    if _SYNCED.get(key) == stamp and (stamp[0] == 0 or folder.is_dir()):
        return
    if stamp[0] == 0 and not folder.is_dir():
        _SYNCED[key] = stamp
        return
    corpus_loaded = loaded()
    if not isinstance(corpus_loaded, LoadedCorpus):
        return
    with _LOCK:
        try:
            write_person_runs(store, corpus_loaded, folder)
        except (StoreError, OSError):
            return
        _SYNCED[key] = stamp


def forget_synced() -> None:
    """Write every person's runs again at the next listing (a test's fresh store)."""
    _SYNCED.clear()
