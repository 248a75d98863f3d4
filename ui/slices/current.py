"""Slices in the app (issue 37): the current slice is the URL's ``slice=`` (docs/slices.md); every page that
honours it asks here which of a corpus's dialogs (and, for a step slice, which of its replay steps: its moments)
it keeps, and shows it in words above what it filters.

A slice is its definition (``data_access.slices.definitions``): the grammar's text, a SQL query (``sql:…``, run in
the corpus's console) or a saved slice by its id (``@12``, read from the store for this session's viewer), evaluated
again wherever it is used. A slice that does not parse, names what the corpus does not have, or runs past its
evaluation budget is said in a warning and the page shows itself unfiltered: every evaluation goes through
``ui.slices.base.kept_by`` (or the console for SQL), where its errors are caught.

The saved slices of the store are ``ui.slices.saved``, the SQL console ``ui.slices.console`` (both for the Slices
page); the figures of the analysis pages on a slice and the slice against the rest ``ui.slices.charts``; a step
slice's moments on Browse and the Replay ``ui.slices.moments``; the contrast builder ``ui.slices.contrasts``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd
import streamlit as st

from data_access import slices
from data_access.corpus import Corpus
from data_access.links import shortened
from data_access.slices import DIALOG, STEP, Kept, SliceError
from data_access.slices.definitions import is_sql, saved_id, sql_query
from ui import cached
from ui.shell.url_state import page_link as same_tab_link
from ui.shell.url_state import query_param, served
from ui.slices.base import base_key, evaluation_budget, kept_by, layers_of, slice_base
from ui.store import opened
from ui.widgets import md_escape

SLICE_PARAM = "slice"


@dataclass(frozen=True)
class SliceOutcome:
    """A slice evaluated on one corpus: its definition as links carry it, the ids of the dialogs it keeps (in the
    corpus's dialog order; a step slice's: those with a kept step) and its description; for a step slice the kept
    steps (a mask over the corpus's step table); or the error that kept it from being used (``kept`` None then)."""
    text: str
    kept: Optional[np.ndarray]
    description: str
    error: Optional[str] = None
    level: str = DIALOG
    steps: Optional[np.ndarray] = None  # a step slice's moments: a mask over ``slice_base(corpus).steps``

    # A set and a tuple of 100,000 ids cost more than the slice itself: made only for who asks.
    @functools.cached_property
    def ids(self) -> Optional[frozenset[str]]:
        return None if self.kept is None else frozenset(self.kept.tolist())

    @functools.cached_property
    def ordered_ids(self) -> tuple[str, ...]:
        return () if self.kept is None else tuple(self.kept.tolist())

    @property
    def is_moments(self) -> bool:
        """Whether the slice selects replay steps (and can be used here)."""
        return self.level == STEP and self.steps is not None and self.kept is not None


# ------------------------------------------------------------------------------------------ evaluating

def saved_definition(slice_id: int) -> tuple[Optional[dict], str]:
    """The saved slice ``slice_id`` this session may read (its record), or why not."""
    from data_access.store import StoreError
    from ui.shell import auth

    store = opened("Saved slices")
    if store is None:
        return None, "the store of saved slices cannot be reached"
    try:
        return store.slices.get(slice_id, viewer=auth.identity()), ""
    except StoreError as exc:
        return None, str(exc)


def _kept_by_sql(corpus: Corpus, text: str) -> tuple[Optional[Kept], Optional[str]]:
    from ui.slices.console import sql_kept

    return sql_kept(corpus, text)


def evaluate(corpus: Corpus, text: str) -> SliceOutcome:
    """``text`` (a slice's definition) on ``corpus``: what it keeps and says, or why it cannot be used."""
    title = corpus.title
    definition, named = text.strip(), ""
    reference = saved_id(definition)
    if reference is not None:
        record, why = saved_definition(reference)
        if record is None:
            return SliceOutcome(definition, None, "", f"The link's saved slice {definition} cannot be used: {why}.")
        definition, named = record["slice"], f"saved “{record['name']}” ({definition})"
    base = slice_base(corpus)
    if base is None:
        return SliceOutcome(text.strip(), None, "", f"{title} could not be loaded.")
    if is_sql(definition):
        kept, problem = _kept_by_sql(corpus, definition)
        shown = f"the query “{shortened(sql_query(definition))}”"
        node = None
    else:
        try:
            node = slices.parse(definition)
        except SliceError as exc:
            return SliceOutcome(text, None, "", f"The link's slice “{shortened(text)}” is not one: {exc}.")
        if reference is None:
            text = slices.unparse(node)
        kept, error = kept_by(corpus, base, node)
        problem = None if error is None else str(error)
        shown = shortened(slices.unparse(node))
    link_text = text.strip() if reference is not None or is_sql(definition) else text
    if kept is None:
        return SliceOutcome(link_text, None, "", f"The slice {named or shown} cannot be used on {title}: "
                                                 f"{str(problem).rstrip('.')}.")
    ids = base.dialogs["dialog_id"].to_numpy(dtype=object)[kept.dialogs]
    n_steps = int(kept.steps.sum()) if kept.steps is not None else None
    said = slices.describe(node) if node is not None else f"{'steps' if kept.level == STEP else 'dialogs'} of {shown}"
    count = slices.count_phrase(len(ids) if n_steps is None else n_steps, kept.level,
                                None if n_steps is None else len(ids))
    description = " · ".join([title, *([named] if named else []), said, count])
    return SliceOutcome(link_text, ids, description, level=kept.level, steps=kept.steps)


def grammar_node(outcome: Optional[SliceOutcome]) -> Optional[slices.Node]:
    """The tree of a usable slice written in the grammar (None for one defined by SQL or saved: those are narrowed
    by the list of what they keep)."""
    if outcome is None or outcome.kept is None or is_sql(outcome.text) or saved_id(outcome.text) is not None:
        return None
    try:
        return slices.parse(outcome.text)
    except SliceError:
        return None


def current_slice() -> Optional[str]:
    """The URL's slice (None when there is none)."""
    return query_param(SLICE_PARAM)


def current_outcome(corpus: Corpus) -> Optional[SliceOutcome]:
    """The URL's slice evaluated on ``corpus`` (None without one); evaluated once per script run and corpus, however
    many of the page's figures ask."""
    text = current_slice()
    return None if text is None else outcome_of(corpus, text)


def outcome_of(corpus: Corpus, text: str) -> SliceOutcome:
    """``evaluate(corpus, text)``, once per script run (a page asks for the same slice from several places)."""
    from ui.store import run_token

    run = run_token()
    memo: Optional[tuple[Optional[int], dict[tuple[str, str], SliceOutcome]]] = st.session_state.get("_slice_outcomes")
    if run is None or memo is None or memo[0] != run:
        memo = (run, {})
        if run is not None:
            st.session_state["_slice_outcomes"] = memo
    if (corpus.name, text) not in memo[1]:
        memo[1][(corpus.name, text)] = evaluate(corpus, text)
    return memo[1][(corpus.name, text)]


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


def apply_slice(corpus: Corpus, table: pd.DataFrame, container=None) -> pd.DataFrame:
    """``table`` (one row per dialog, with ``dialog_id``) restricted to the URL's slice, which is said above it;
    ``table`` itself without a slice or when the slice cannot be used (said)."""
    outcome = current_outcome(corpus)
    if not said(outcome, container) or outcome is None or outcome.kept is None:
        return table
    # isin on the string column itself took 30 ms over CoDraw's 9,993 ids; on its objects, 1 ms
    return table[table["dialog_id"].astype(object).isin(outcome.kept).to_numpy()]


def slice_ids(corpus: Corpus) -> Optional[tuple[str, ...]]:
    """The ids the URL's slice keeps on ``corpus``, in dialog order, without saying anything; None without a
    usable slice."""
    outcome = current_outcome(corpus)
    return None if outcome is None or outcome.kept is None else outcome.ordered_ids


def page_link(page: str, corpus: str, text: str, **params: str) -> str:
    """A served link to ``page`` (``browse``, ``replay`` …) on the corpus named ``corpus`` (a saved slice's row names
    it) with the slice ``text``."""
    from urllib.parse import urlencode

    return served(f"/{page}?" + urlencode({"corpus": corpus, SLICE_PARAM: text, **params}))


def slice_choices(corpus: Corpus, choices: dict[str, str], requested: Optional[str]) -> dict[str, str]:
    """A dialog picker's choices narrowed to the URL's slice (in their own order), the ``requested`` dialog kept
    so that a link to it still opens it; ``choices`` as they are without a usable slice."""
    ids = slice_ids(corpus)
    if ids is None:
        return choices
    kept = set(ids)
    narrowed = {d: label for d, label in choices.items() if d in kept or d == requested}
    return narrowed or choices


def slice_navigation(corpus: Corpus, dialog_id: Optional[str]) -> None:
    """On the Replay (and Present): the slice in words, where the dialog shown is in it, and links to the
    previous and the next dialog of the slice, so a slice plays like a playlist; a step slice's moments walked
    instead ("moment k of N", the previous and next moment, each at its step in its round)."""
    outcome = current_outcome(corpus)
    if not said(outcome) or outcome is None or outcome.kept is None:
        return
    if outcome.is_moments:
        from ui.slices.moments import moment_navigation

        moment_navigation(corpus, outcome.text, outcome.steps, dialog_id)
        return
    order = _slice_order(corpus, outcome)
    if not order:
        return
    position = order.index(dialog_id) if dialog_id in order else None

    def link(target: str) -> dict[str, str]:
        return {"corpus": corpus.name, "dialog": target, SLICE_PARAM: outcome.text}

    where = (f"dialog {position + 1:,} of {len(order):,} in the slice" if position is not None
             else f"this dialog is not in the slice of {len(order):,}")
    previous = order[position - 1] if position is not None and position > 0 else None
    following = order[position + 1] if position is not None and position + 1 < len(order) else (
        order[0] if position is None else None)
    columns = st.columns([4, 1, 1], vertical_alignment="center")
    columns[0].caption(md_escape(where))
    # Same-tab links (a playlist steps in its own tab; a link button would open a new one each time)
    if previous is not None:
        same_tab_link("pages/replay.py", "◀ Previous in the slice", link(previous), container=columns[1])
    if following is not None:
        same_tab_link("pages/replay.py", "Next in the slice ▶", link(following), container=columns[2])


def compare_moments(corpus: Corpus, columns) -> Optional[pd.DataFrame]:
    """On Compare, with a step slice in the URL: its moments offered on each side (``moments_on_compare``), their
    keys returned; None without a usable step slice."""
    outcome = current_outcome(corpus)
    if outcome is None or outcome.steps is None or not outcome.is_moments or not said(outcome):
        return None
    from ui.slices.moments import moments_on_compare

    return moments_on_compare(corpus, outcome.steps, columns)


def moment_walk(corpus: Corpus, dialog_id: Optional[str], page: str) -> None:
    """On Present (``page``), with a step slice in the URL: the slice in words and which of its moments the step
    shown is, with the previous and the next moment on the same page (a dialog slice: nothing here, its autoplay
    goes on to the slice's next dialog)."""
    outcome = current_outcome(corpus)
    if outcome is None or outcome.kept is None or not outcome.is_moments or not said(outcome):
        return
    from ui.slices.moments import moment_navigation

    moment_navigation(corpus, outcome.text, outcome.steps, dialog_id, page)


def _slice_order(corpus: Corpus, outcome) -> list[str]:
    """The slice's dialogs in the corpus's own order (the dialog pickers')."""
    from data_access import snapshots

    kept = outcome.ids or frozenset()
    return [d for d in (cached.shared(snapshots.dialog_choices, corpus) or {}) if d in kept]


def next_in_slice(corpus: Corpus, dialog_id: Optional[str]) -> Optional[str]:
    """With a slice in the URL, the dialog after ``dialog_id`` in it (Present's autoplay goes on to it), or None
    (no slice, the last dialog of the slice, or one outside it)."""
    outcome = current_outcome(corpus)
    if outcome is None or outcome.kept is None:
        return None
    order = _slice_order(corpus, outcome)
    position = order.index(dialog_id) if dialog_id in order else None
    return order[position + 1] if position is not None and position + 1 < len(order) else None


def browse_slice(corpus: Corpus, shown: pd.DataFrame, *, splits, ranges, id_contains: str, only_noted: bool,
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
            current = grammar_node(outcome)
            if current is not None:
                node = slices.within(current, *([node] if node is not None else []))
            elif outcome is not None and outcome.kept is not None:  # a slice by SQL or saved: the dialogs shown
                node = ids_node(shown["dialog_id"].astype(str))
            if node is None:
                return None, "No filter is set: the slice would be every dialog."
        text = slices.unparse(node)
        slices.parse(text)  # within the bounds of a slice
    except SliceError as exc:
        return None, f"This view cannot be a slice: {exc}."
    return text, ""


def make_slice_button(corpus: Corpus, dialog_ids, key: str, container=None, *, within_current: bool = True,
                      label: Optional[str] = None, bars: Optional[tuple] = None) -> None:
    """"Make a slice of these N dialogs" under a list of dialogs (a chart's selected bars or lasso, a concordance's
    hits, a worst-cases list): a click opens the Slices page with exactly them, within the current slice when there
    is one (``within_current``; a list already drawn from a slice of its own, such as Words' sub-corpus B, is
    not). ``label``: the button's text instead. ``bars``: (feature, the selected values, the bars' width, an edge,
    every value of the chart) of a histogram's selected bars, said as ranges of the feature when they keep exactly these dialogs."""
    from ui.shell.url_state import open_page

    ids = list(dict.fromkeys(str(d) for d in dialog_ids))
    if not ids:
        return
    where = container or st
    try:
        node = slices.parse(slices.ids_slice(ids))
        current = grammar_node(current_outcome(corpus)) if within_current else None
        within = [current] if current is not None else []
        node = slices.within(current, node) if current is not None else node
        if bars is not None:
            node = _as_bars(corpus, within, bars, ids) or node
        text = slices.unparse(node)
        slices.parse(text)
    except SliceError as exc:
        where.caption(f"These {len(ids):,} dialogs are too many for a slice of chosen dialogs ({md_escape(exc)}).")
        return
    if where.button(label or f"Make a slice of these {len(ids):,} dialogs", key=key, icon=":material/filter_alt:",
                    help="Opens the Slices page with exactly these dialogs as the slice, to save, share or play"):
        open_page("pages/slices.py", corpus=corpus.name, slice=text)


def _as_bars(corpus: Corpus, within: list, bars: tuple, ids: list[str]):
    """The selected bars as ranges of their feature (with the current slice), when that keeps exactly ``ids``."""
    from data_access.slices.builders import bars_node

    feature, values, size, start, every = bars
    ranges = bars_node(slices.Feature(feature), values, size, start, every)
    if ranges is None:
        return None
    node = slices.within(within[0], ranges) if within else ranges
    found = evaluate(corpus, slices.unparse(node))
    return node if found.kept is not None and set(found.kept.tolist()) == set(ids) else None


__all__ = ["SLICE_PARAM", "SliceOutcome", "apply_slice", "base_key", "browse_slice", "current_outcome",
           "current_slice", "evaluate", "evaluation_budget", "grammar_node", "kept_by", "layers_of", "outcome_of",
           "make_slice_button", "page_link", "said", "saved_definition", "slice_base", "slice_choices", "slice_ids",
           "moment_walk", "slice_navigation"]
