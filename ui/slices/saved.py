"""Saved slices in the app (docs/slices.md, "Saved slices"): the ones this session sees, with their counts on each
corpus and a link each, and the writes (save, update, delete) under this session's writer; for the Slices page.

Counts are lazy. A count is kept server-wide by the slice's text, the corpus and the version of what it reads
(the corpus source and layer files, and the runs for ``score`` / ``gap``; one that reads codes or notes for a
minute), so a list of 1,500 shared slices costs dictionary look-ups once counted. A run of the page counts the
slices not yet counted for ``COUNT_SECONDS`` at most, each within ``COUNT_ONE_SECONDS`` over all corpora; the
rest say so, and a slice chosen in the list is counted at once with a whole evaluation's budget. A slice that
cannot be counted (its text is no slice, it names what the corpus does not have, its tests run too long) says
why in the list and is skipped.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import NamedTuple, Optional

import pandas as pd
import streamlit as st

from data_access import slices
from data_access.common import CORPUS_NAMES, CORPUS_TITLES
from data_access.corpus import Corpus
from data_access.slices import SliceData, SliceError, SliceStopped, SliceTooSlow, tree
from data_access.slices.definitions import SAVED_PREFIX, is_sql
from ui import cached
from ui.slices.base import base_key, evaluation_budget, kept_by, slice_base
from ui.slices.current import page_link
from ui.store import opened, remembered

COUNT_SECONDS = 2.0  # a run of the Slices page starts counting no further saved slice after this
COUNT_ONE_SECONDS = 1.0  # one saved slice's count in the list, over all corpora; past it, counted when chosen
STORE_COUNT_SECONDS = 60.0  # how long a count of a slice that reads the store's codes or notes is kept
COUNTS_KEPT = 20_000  # counts kept server-wide (a slice on each corpus is one)
NOT_COUNTED = "not counted yet: choose it in the list to count it now"

class Count(NamedTuple):
    """A saved slice on one corpus: the dialogs it keeps (None: it cannot be used there) and why not; ``final``
    False for a count the list gave up on within its short budget, which choosing the slice counts again."""
    dialogs: Optional[int]
    reason: str = ""
    final: bool = True


class _Counts:
    """The server-wide counts: (slice text, corpus, version) -> (count, time it expires)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entries: OrderedDict[tuple, tuple[Count, float]] = OrderedDict()

    def get(self, key: tuple) -> Optional[Count]:
        with self.lock:
            entry = self.entries.get(key)
            if entry is None or entry[1] < time.monotonic():
                return None
            self.entries.move_to_end(key)
            return entry[0]

    def put(self, key: tuple, count: Count, seconds: float) -> None:
        with self.lock:
            self.entries[key] = (count, time.monotonic() + seconds)
            self.entries.move_to_end(key)
            while len(self.entries) > COUNTS_KEPT:
                self.entries.popitem(last=False)


@st.cache_resource(show_spinner=False)
def _counts() -> _Counts:
    return _Counts()


class _Counter:
    """Counts of saved slices in one script run: each corpus's features and versions looked up once."""

    def __init__(self) -> None:
        self.corpora = [c for c in cached.loadable_corpora() if slice_base(c) is not None]
        self.bases: dict[str, SliceData] = {c.name: slice_base(c) for c in self.corpora}  # type: ignore[misc]
        self.versions: dict[tuple[str, bool], tuple] = {}
        self.cache = _counts()

    def _version(self, corpus: Corpus, reads_runs: bool) -> tuple:
        if (corpus.name, reads_runs) not in self.versions:
            runs = tuple(sorted(cached.run_keys(corpus).items())) if reads_runs else ()
            self.versions[(corpus.name, reads_runs)] = (base_key(corpus), runs)
        return self.versions[(corpus.name, reads_runs)]

    def known(self, text: str) -> Optional[dict[str, Count]]:
        """The counts of ``text`` on each corpus already kept, or None when one is missing."""
        if is_sql(text):
            return None
        node = _parsed(text)
        if isinstance(node, SliceError):
            return {c.name: Count(None, str(node)) for c in self.corpora}
        found = {}
        for corpus in self.corpora:
            count = self.cache.get(self._key(text, corpus, node))
            if count is None:
                return None
            found[corpus.name] = count
        return found

    def count(self, text: str, seconds: Optional[float] = None) -> dict[str, Count]:
        """``text`` counted on each corpus within one budget of ``seconds`` (None: a whole evaluation's), and kept
        (unless the session went). A slice defined by a query is counted only with a whole evaluation's budget
        (chosen in the list), on the corpus its query runs on."""
        if is_sql(text):
            return self._count_query(text, seconds)
        node = _parsed(text)
        if isinstance(node, SliceError):
            return {c.name: Count(None, str(node)) for c in self.corpora}
        budget, found = evaluation_budget(seconds), {}
        for corpus in self.corpora:
            keep, error = kept_by(corpus, self.bases[corpus.name], node, budget)
            if isinstance(error, SliceStopped):
                return {c.name: Count(None, str(error), final=False) for c in self.corpora}
            if isinstance(error, SliceTooSlow) and seconds is not None:
                found[corpus.name] = Count(None, f"counting it takes more than {seconds:g} s; choose it in the list "
                                                 "to count it with more time", final=False)
            else:
                found[corpus.name] = Count(None, str(error)) if keep is None else _counted(keep)
            self.cache.put(self._key(text, corpus, node), found[corpus.name], _lifetime(node))
        return found

    def _count_query(self, text: str, seconds: Optional[float]) -> dict[str, Count]:
        from ui.slices.console import sql_kept

        if seconds is not None:
            return {c.name: Count(None, "defined by a query: choose it in the list to count it", final=False)
                    for c in self.corpora}
        found = {}
        for corpus in self.corpora:
            keep, error = sql_kept(corpus, text)
            found[corpus.name] = Count(None, str(error)) if keep is None else _counted(keep)
        return found

    def _key(self, text: str, corpus: Corpus, node: slices.Node) -> tuple:
        return text, corpus.name, self._version(corpus, bool(_calls(node) & {"score", "gap"}))


def _what_counted(text: str) -> str:
    """What a saved slice's counts are of: its steps, its dialogs, or a query's (either)."""
    if is_sql(text):
        return "query rows"
    node = _parsed(text)
    return "dialogs" if isinstance(node, SliceError) or slices.level(node) == slices.DIALOG else "steps"


def _counted(kept) -> Count:
    """A slice's count: its steps for a step slice, else its dialogs."""
    return Count(int(kept.steps.sum()) if kept.steps is not None else int(kept.dialogs.sum()))


def _parsed(text: str):
    try:
        return slices.parse(text)
    except SliceError as exc:
        return SliceError(f"it is no slice: {exc}")


def _calls(node: slices.Node) -> set[str]:
    return {test.feature.name for test in tree.tests(node) if test.feature.args is not None}


def _lifetime(node: slices.Node) -> float:
    return STORE_COUNT_SECONDS if _calls(node) & {"code", "tag"} else float("inf")


def counts_per_corpus(text: str) -> dict[str, Count]:
    """How many dialogs ``text`` keeps on each corpus that loads (None and why where it cannot be used there),
    counted now within a whole evaluation's budget, or as kept."""
    counter = _Counter()
    known = counter.known(text)
    if known is not None and all(count.final for count in known.values()):
        return known
    return counter.count(text)


def said_counts(text: str) -> str:
    """``counts_per_corpus`` in words (plain text): 'CoDraw: 12 dialogs · Minecraft: cannot be used (…)'."""
    parts = []
    for name, (count, reason, _) in counts_per_corpus(text).items():
        title = CORPUS_TITLES.get(name, name)
        parts.append(f"{title}: {count:,} dialog{'' if count == 1 else 's'}" if count is not None
                     else f"{title}: not counted ({reason})")
    return " · ".join(parts) or "No corpus loads."


def saved_table() -> Optional[pd.DataFrame]:
    """The saved slices this session sees, with their count on each corpus that loads (a column named by its
    title: empty where the slice cannot be used or is not counted yet), why a count is missing (``note``) and a
    link that opens each in Browse; None when the store cannot be read (said). Counts not kept yet are counted
    for ``COUNT_SECONDS`` of this run."""
    from ui.shell import auth

    store = opened("Saved slices")
    if store is None:
        return None
    viewer = auth.identity()
    frame = remembered("saved slices", lambda: store.slices.list(viewer=viewer), None, "Saved slices")
    if frame is None or frame.empty:
        return frame
    frame = frame.copy()
    counter, stop = _Counter(), time.monotonic() + COUNT_SECONDS
    counts: list[Optional[dict[str, Count]]] = []
    for text in frame["slice"]:
        known = counter.known(text)
        if known is None and time.monotonic() < stop:
            known = counter.count(text, COUNT_ONE_SECONDS)
        counts.append(known)
    for corpus in counter.corpora:  # a column per corpus that loads, counted or not
        frame[corpus.title] = pd.array([c[corpus.name].dialogs if c and corpus.name in c else None for c in counts],
                                       dtype="Int64")
    frame["note"] = [_note(c, corpus) for c, corpus in zip(counts, frame["corpus"])]
    frame["counts"] = [_what_counted(text) for text in frame["slice"]]
    # a link carries the slice's id, evaluated again when opened: a slice of 50,000 rounds is two characters long
    frame["link"] = [page_link("browse", corpus or CORPUS_NAMES[0], f"{SAVED_PREFIX}{int(slice_id)}")
                     for corpus, slice_id in zip(frame["corpus"], frame["id"])]
    return frame


def _note(counts: Optional[dict[str, Count]], corpus: Optional[str]) -> str:
    """Why the list shows no count: not counted yet, or why the slice cannot be counted on its own corpus (on
    any, for a slice of no corpus); empty where it is counted (a corpus it names nothing of stays empty)."""
    if counts is None:
        return NOT_COUNTED
    if corpus in counts:
        return counts[corpus].reason
    return "" if any(count.dialogs is not None for count in counts.values()) else next(
        (count.reason for count in counts.values()), "")


def not_counted(frame: pd.DataFrame) -> int:
    """How many of ``saved_table``'s slices are not counted yet."""
    return int((frame["note"] == NOT_COUNTED).sum()) if "note" in frame.columns else 0


def may_remove_shared(record) -> bool:
    """Whether this session may delete ``record``, a shared slice of someone else's: an admin may."""
    from data_access.access import Action
    from ui.shell import auth

    return bool(record["shared"]) and auth.writer().may(Action.MANAGE)


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
        return str(exc).removeprefix("Not saved: ")  # the page says "Not saved" / "Not deleted" itself
    return None
