"""Saved slices in the app (docs/slices.md, "Saved slices"): the ones this session sees, with their counts on each
corpus and a link each, and the writes (save, update, delete) under this session's writer; for the Slices page."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from data_access.common import CORPUS_NAMES, CORPUS_TITLES
from ui import cached
from ui.slices.current import evaluate, page_link
from ui.store import opened, remembered


def counts_per_corpus(text: str) -> dict[str, Optional[int]]:
    """How many dialogs ``text`` keeps on each corpus that loads (None where it cannot be used there)."""
    counts: dict[str, Optional[int]] = {}
    for corpus in cached.loadable_corpora():
        outcome = evaluate(corpus, text)
        counts[corpus.name] = None if outcome.kept is None else len(outcome.kept)
    return counts


def saved_table() -> Optional[pd.DataFrame]:
    """The saved slices this session sees, with their count on each corpus (``n_<corpus>``: empty where the
    slice cannot be used) and a link that opens each in Browse; None when the store cannot be read (said)."""
    from ui.shell import auth

    store = opened("Saved slices")
    if store is None:
        return None
    viewer = auth.identity()
    frame = remembered("saved slices", lambda: store.slices.list(viewer=viewer), None, "Saved slices")
    if frame is None:
        return None
    frame = frame.copy()
    counts = [counts_per_corpus(text) for text in frame["slice"]]
    for corpus in CORPUS_NAMES:
        if any(corpus in c for c in counts):
            frame[CORPUS_TITLES[corpus]] = pd.array([c.get(corpus) for c in counts], dtype="Int64")
    frame["link"] = [page_link("browse", corpus or CORPUS_NAMES[0], text)
                     for corpus, text in zip(frame["corpus"], frame["slice"])]
    return frame


def write_saved(action: str, *args, **kwargs) -> Optional[str]:
    """``store.slices.<action>(*args, actor=<this session's writer>, **kwargs)``; the refusal's message (plain
    text) when it is refused or the store fails, else None."""
    from data_access.access import AccessRefused
    from data_access.store import StoreError
    from ui.shell import auth

    store = opened("Saved slices")
    if store is None:
        return "the store cannot be reached"
    try:
        getattr(store.slices, action)(*args, actor=auth.writer(), **kwargs)
    except (AccessRefused, StoreError, ValueError) as exc:
        return str(exc)
    return None
