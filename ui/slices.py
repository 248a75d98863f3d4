"""Slices in the app (issue 37): the current slice is the URL's ``slice=`` (docs/slices.md); every page that
honours it asks here which of a corpus's dialogs it keeps, and shows it in words above what it filters.

A slice that does not parse, or names what the corpus does not have, is said in a warning and the page shows
itself unfiltered. The slice's features (the corpus's dialog table with the analysis pages' and the layers'
per-dialog features) are built once per corpus source and layer file and shared by every session; the runs'
columns, the codes and the notes are read only for a slice that tests them.

Also here: the saved slices of the store and the SQL console of a corpus (one locked DuckDB database per corpus
source, shared by every session), for the Slices page.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd
import streamlit as st

from data_access import slices
from data_access.common import CORPUS_NAMES, CORPUS_TITLES
from data_access.links import shortened
from data_access.slices import SliceData, SliceError
from data_access.sql_console import SqlConsole, SqlRefused, SqlResult, console_tables
from ui import cached
from ui.corpus_edge import resolve
from ui.store import opened, remembered
from ui.url_state import query_param, served
from ui.widgets import md_escape

SLICE_PARAM = "slice"


@dataclass(frozen=True)
class SliceOutcome:
    """A slice evaluated on one corpus: its canonical text, the ids it keeps (in the corpus's dialog order) and
    its description; or the error that kept it from being used (``kept`` None then)."""
    text: str
    kept: Optional[np.ndarray]
    description: str
    error: Optional[str] = None

    # A set and a tuple of 100,000 ids cost more than the slice itself: made only for who asks.
    @functools.cached_property
    def ids(self) -> Optional[frozenset[str]]:
        return None if self.kept is None else frozenset(self.kept.tolist())

    @functools.cached_property
    def ordered_ids(self) -> tuple[str, ...]:
        return () if self.kept is None else tuple(self.kept.tolist())


# ------------------------------------------------------------------------------------------ the features

def _layers_of(corpus: str) -> dict:
    loaded = {}
    for name in resolve(corpus).package.LAYERS:
        layer = cached.layer(name)
        if layer is not None and hasattr(layer, "annotations"):
            loaded[name] = layer
    return loaded


@st.cache_resource(show_spinner="Preparing the slice features…", max_entries=6)
def _base(key: tuple, corpus: str) -> Optional[SliceData]:
    loaded = cached.corpus(corpus)
    if not hasattr(loaded, "dialogs"):
        return None
    return slices.slice_data(loaded, layers=_layers_of(corpus))  # type: ignore[arg-type]


def _base_key(corpus: str) -> tuple:
    return (cached.corpus_key(corpus), tuple(cached.layer_key(name) for name in resolve(corpus).package.LAYERS))


def slice_base(corpus: str) -> Optional[SliceData]:
    """The corpus's slice features (shared; None when the corpus does not load)."""
    return _base(_base_key(corpus), corpus)


def _with_what_it_tests(base: SliceData, node) -> SliceData:
    """``base`` with the runs, codes and notes the slice's calls read (and only those)."""
    calls = {test.feature.name for test in slices.grammar.tests(node) if test.feature.args is not None}
    runs, annotations, notes = {}, None, None
    if calls & {"score", "gap"}:
        from data_access.runs.browse_columns import run_columns

        for name, key in cached.run_keys(base.corpus).items():
            frame = cached.run_derived(run_columns, base.corpus, key)
            if frame is not None:
                runs[name] = frame
    if calls & {"code", "tag"}:
        store = opened("Slices")
        if store is not None:
            if "code" in calls:
                annotations = remembered(f"slice annotations {base.corpus}",
                                         lambda: store.coding.annotations(corpus=base.corpus), pd.DataFrame(), "Slices")
            if "tag" in calls:
                notes = remembered(f"slice notes {base.corpus}", lambda: store.notes.notes(corpus=base.corpus),
                                   pd.DataFrame(), "Slices")
    return SliceData(base.corpus, base.title, base.dialogs, runs, annotations, notes, base.utterances,
                     cached.search_index)


def evaluate(corpus: str, text: str) -> SliceOutcome:
    """``text`` on ``corpus``: which dialogs it keeps and what it says, or why it cannot be used."""
    title = CORPUS_TITLES.get(corpus, corpus)
    try:
        node = slices.parse(text)
    except SliceError as exc:
        return SliceOutcome(text, None, "", f"The link's slice “{shortened(text)}” is not one: {exc}.")
    canonical = slices.unparse(node)
    base = slice_base(corpus)
    if base is None:
        return SliceOutcome(canonical, None, "", f"{title} could not be loaded.")
    try:
        keep = slices.evaluate(node, _with_what_it_tests(base, node))
    except SliceError as exc:
        return SliceOutcome(canonical, None, "", f"The slice “{shortened(canonical)}” cannot be used on {title}: {exc}.")
    ids = base.dialogs["dialog_id"].to_numpy(dtype=object)[keep]
    return SliceOutcome(canonical, ids, slices.describe(node, title, int(keep.sum())))


def current_slice() -> Optional[str]:
    """The URL's slice (None when there is none)."""
    return query_param(SLICE_PARAM)


def current_outcome(corpus: str) -> Optional[SliceOutcome]:
    """The URL's slice evaluated on ``corpus`` (None without one)."""
    text = current_slice()
    return None if text is None else evaluate(corpus, text)


def said(outcome: Optional[SliceOutcome], container=None) -> bool:
    """Show the slice in words (or the warning why it is not used); whether it filters."""
    if outcome is None:
        return False
    where = container or st
    if outcome.error:
        where.warning(md_escape(outcome.error) + " Showing every dialog.", icon="⚠️")
        return False
    where.info(f"**Slice**: {md_escape(outcome.description)}", icon=":material/filter_alt:")
    return True


def apply_slice(corpus: str, table: pd.DataFrame, container=None) -> pd.DataFrame:
    """``table`` (one row per dialog, with ``dialog_id``) restricted to the URL's slice, which is said above it;
    ``table`` itself without a slice or when the slice cannot be used (said)."""
    outcome = current_outcome(corpus)
    if not said(outcome, container) or outcome is None or outcome.kept is None:
        return table
    # isin on the string column itself took 30 ms over CoDraw's 9,993 ids; on its objects, 1 ms
    return table[table["dialog_id"].astype(object).isin(outcome.kept).to_numpy()]


def slice_ids(corpus: str) -> Optional[tuple[str, ...]]:
    """The ids the URL's slice keeps on ``corpus``, in dialog order, without saying anything; None without a
    usable slice."""
    outcome = current_outcome(corpus)
    return None if outcome is None or outcome.kept is None else outcome.ordered_ids


def page_link(page: str, corpus: str, text: str, **params: str) -> str:
    """A served link to ``page`` (``browse``, ``replay`` …) on ``corpus`` with the slice ``text``."""
    from urllib.parse import urlencode

    return served(f"/{page}?" + urlencode({"corpus": corpus, SLICE_PARAM: text, **params}))


def slice_choices(corpus: str, choices: dict[str, str], requested: Optional[str]) -> dict[str, str]:
    """A dialog picker's choices narrowed to the URL's slice (in their own order), the ``requested`` dialog kept
    so that a link to it still opens it; ``choices`` as they are without a usable slice."""
    ids = slice_ids(corpus)
    if ids is None:
        return choices
    kept = set(ids)
    narrowed = {d: label for d, label in choices.items() if d in kept or d == requested}
    return narrowed or choices


def slice_navigation(corpus: str, dialog_id: Optional[str]) -> None:
    """On the Replay (and Present): the slice in words, where the dialog shown is in it, and links to the
    previous and the next dialog of the slice, so a slice plays like a playlist."""
    outcome = current_outcome(corpus)
    if not said(outcome) or outcome is None or outcome.kept is None:
        return
    from urllib.parse import urlencode

    from data_access import snapshots

    kept = outcome.ids or frozenset()
    order = [d for d in (cached.shared(snapshots.dialog_choices, corpus) or {}) if d in kept]
    if not order:
        return
    position = order.index(dialog_id) if dialog_id in order else None

    def link(target: str) -> str:
        return served("/replay?" + urlencode({"corpus": corpus, "dialog": target, SLICE_PARAM: outcome.text}))

    where = (f"dialog {position + 1:,} of {len(order):,} in the slice" if position is not None
             else f"this dialog is not in the slice of {len(order):,}")
    previous = order[position - 1] if position is not None and position > 0 else None
    following = order[position + 1] if position is not None and position + 1 < len(order) else (
        order[0] if position is None else None)
    columns = st.columns([4, 1, 1], vertical_alignment="center")
    columns[0].caption(md_escape(where))
    if previous is not None:
        columns[1].link_button("◀ Previous in the slice", link(previous), width="stretch")
    if following is not None:
        columns[2].link_button("Next in the slice ▶", link(following), width="stretch")


def browse_slice(corpus: str, shown: pd.DataFrame, *, splits, ranges, id_contains: str, only_noted: bool,
                 run_help: dict) -> tuple[Optional[str], str]:
    """The slice of Browse's view: its filters as a predicate (with the URL's slice), or, when a filter has no
    predicate (id contains, only with notes), the list of the dialogs shown; with why there is none."""
    from data_access.runs.browse_columns import GAP, SCORE, SEPARATOR
    from data_access.slices.builders import browse_filter_node, ids_node

    if shown.empty:
        return None, "No dialog is shown."
    run_columns = {}
    for column in run_help:
        run, _, what = column.rpartition(SEPARATOR)
        if what in (SCORE, GAP):
            run_columns[column] = (run, what)
    label = query_param("label")
    node: Optional[slices.Node]
    try:
        if id_contains or only_noted:
            node = ids_node(shown["dialog_id"].astype(str))
        else:
            node = browse_filter_node(
                splits=list(splits), ranges=list(ranges), with_cr=query_param("cr") == "1",
                label=(label, query_param("coder") or "", query_param("book") or "") if label else None,
                run_columns=run_columns)
            outcome = current_outcome(corpus)
            if outcome is not None and outcome.kept is not None:
                node = slices.all_of(slices.parse(outcome.text), *([node] if node is not None else []))
            if node is None:
                return None, "No filter is set: the slice would be every dialog."
        text = slices.unparse(node)
        slices.parse(text)  # within the bounds of a slice
    except SliceError as exc:
        return None, f"This view cannot be a slice: {exc}."
    return text, ""


def make_slice_button(corpus: str, dialog_ids, key: str, container=None) -> None:
    """"Make a slice of these N dialogs" under a list of dialogs (a chart's selected bars or lasso): a click
    opens the Slices page with exactly them, within the current slice when there is one."""
    from ui.url_state import open_page

    ids = list(dict.fromkeys(str(d) for d in dialog_ids))
    if not ids:
        return
    where = container or st
    try:
        node = slices.parse(slices.ids_slice(ids))
        outcome = current_outcome(corpus)
        if outcome is not None and outcome.kept is not None:
            node = slices.all_of(slices.parse(outcome.text), node)
        text = slices.unparse(node)
        slices.parse(text)
    except SliceError as exc:
        where.caption(f"These {len(ids):,} dialogs are too many for a slice of chosen dialogs ({md_escape(exc)}).")
        return
    if where.button(f"Make a slice of these {len(ids):,} dialogs", key=key, icon=":material/filter_alt:",
                    help="Opens the Slices page with exactly these dialogs as the slice, to save, share or play"):
        open_page("pages/slices.py", corpus=corpus, slice=text)


# ------------------------------------------------------------------------------------------ saved slices

def counts_per_corpus(text: str) -> dict[str, Optional[int]]:
    """How many dialogs ``text`` keeps on each corpus that loads (None where it cannot be used there)."""
    counts: dict[str, Optional[int]] = {}
    for corpus in CORPUS_NAMES:
        if not cached.derived(_loads, corpus):
            continue
        outcome = evaluate(corpus, text)
        counts[corpus] = None if outcome.kept is None else len(outcome.kept)
    return counts


def _loads(loaded) -> bool:
    return True


def saved_table() -> Optional[pd.DataFrame]:
    """The saved slices this session sees, with their count on each corpus (``n_<corpus>``: empty where the
    slice cannot be used) and a link that opens each in Browse; None when the store cannot be read (said)."""
    from ui import auth

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
    from ui import auth

    store = opened("Saved slices")
    if store is None:
        return "the store cannot be reached"
    try:
        getattr(store.slices, action)(*args, actor=auth.writer(), **kwargs)
    except (AccessRefused, StoreError, ValueError) as exc:
        return str(exc)
    return None


# ------------------------------------------------------------------------------------------ the SQL console

@st.cache_resource(show_spinner="Opening the SQL console…", max_entries=3)
def _console(key: tuple, corpus: str, run_keys: tuple) -> Optional[SqlConsole]:
    loaded = cached.corpus(corpus)
    base = slice_base(corpus)
    if not hasattr(loaded, "frames") or base is None:
        return None
    runs = {}
    for run_key in run_keys:
        run = cached.model_run(corpus, run_key)
        if hasattr(run, "frames"):
            runs[run_key.run] = run
    return SqlConsole(console_tables(loaded, layers=_layers_of(corpus), runs=runs, features=base.dialogs,
                                     codes=pd.DataFrame({"corpus": pd.Series(dtype="str")})))


def sql_console(corpus: str) -> Optional[SqlConsole]:
    """The corpus's console (shared by every session; None when the corpus does not load)."""
    run_keys = tuple(sorted(cached.run_keys(corpus).values(), key=lambda k: k.run))
    return _console(_base_key(corpus), corpus, run_keys)


def _codes_frame(corpus: str) -> pd.DataFrame:
    store = opened("The SQL console's codes")
    if store is None:
        return pd.DataFrame({"corpus": pd.Series(dtype="str")})
    frame = remembered(f"sql codes {corpus}", lambda: store.coding.annotations(corpus=corpus), pd.DataFrame(),
                       "The SQL console's codes")
    if frame.empty:
        return pd.DataFrame({"corpus": pd.Series(dtype="str")})
    frame = frame.copy()
    for column in frame.columns:  # lists and timestamps as plain values DuckDB types at once
        if frame[column].dtype == object:
            frame[column] = frame[column].map(lambda v: v if v is None or isinstance(v, str) else str(v))
    return frame


def run_sql(console: SqlConsole, corpus: str, query: str, status) -> SqlResult:
    """Run ``query`` while the page stays live: the script waits in short steps (each a Streamlit call), so a
    click anywhere on the page (the Stop button) ends this run and the ``finally`` interrupts the query."""
    if "codes" in query.lower():
        console.replace_table("codes", _codes_frame(corpus))
    running = console.start(query)
    started = time.monotonic()
    try:
        while True:
            result = running.wait(0.1)
            if result is not None:
                return result
            status.caption(f"Running… {time.monotonic() - started:.1f} s (Stop ends it)")
    finally:
        if not running.done():
            running.cancel()


def result_slice(result: SqlResult) -> tuple[Optional[str], str]:
    """The slice of a result's dialogs, or why there is none."""
    if result.dialog_ids is None:
        return None, "The result has no dialog_id column, so it is no set of dialogs."
    if not result.dialog_ids:
        return None, "The result holds no dialog."
    if not result.row_count_complete:
        return None, "The result was too large to be read to its end; narrow it to make a slice of it."
    try:
        text = slices.ids_slice(result.dialog_ids)
        slices.parse(text)
    except SliceError as exc:
        return None, (f"{len(result.dialog_ids):,} dialogs are too many for a slice of chosen dialogs ({exc}); "
                      "describe them with a condition instead.")
    return text, ""


__all__ = ["SLICE_PARAM", "SliceOutcome", "SqlRefused", "apply_slice", "browse_slice", "make_slice_button",
           "slice_choices",
           "slice_navigation", "counts_per_corpus", "current_outcome",
           "current_slice", "evaluate", "page_link", "result_slice", "run_sql", "said", "saved_table", "slice_base",
           "slice_ids", "sql_console", "write_saved"]
