"""Slices in the app (issue 37): the current slice is the URL's ``slice=`` (docs/slices.md); every page that
honours it asks here which of a corpus's dialogs it keeps, and shows it in words above what it filters.

A slice that does not parse, names what the corpus does not have, or runs past its evaluation budget is said in a
warning and the page shows itself unfiltered: every evaluation in the app goes through ``kept_by``, the one place
its errors are caught, with one ``EvaluationBudget`` that stops when the session is gone. The slice's features
(the corpus's dialog table with the analysis pages' and the layers' per-dialog features) are built once per
corpus source and layer file and shared by every session; the runs' columns, the codes and the notes are read
only for a slice that tests them.

The saved slices of the store are ``ui.slices.saved``, the SQL console ``ui.slices.console`` (both for the Slices
page); the figures of the analysis pages on a slice and the slice against the rest ``ui.slices.charts``.
"""
from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd
import streamlit as st

from data_access import slices
from data_access.contract import layers_of as package_layers
from data_access.corpus import Corpus
from data_access.links import shortened
from data_access.slices import EvaluationBudget, Node, SliceData, SliceError, SliceStopped
from ui import cached
from ui.shell.session_alive import session_gone
from ui.shell.url_state import page_link as same_tab_link
from ui.shell.url_state import query_param, served
from ui.store import opened, remembered
from ui.widgets import md_escape

SLICE_PARAM = "slice"
log = logging.getLogger("dialogue.slices")


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

def layers_of(corpus: Corpus) -> dict:
    loaded = {}
    for name in package_layers(corpus.package):
        layer = cached.layer(name)
        if layer is not None and hasattr(layer, "annotations"):
            loaded[name] = layer
    return loaded


# ``_corpus`` is not hashed (a leading underscore): ``key`` holds its source and its layers' files.
@st.cache_resource(show_spinner="Preparing the slice features…", max_entries=6)
def _base(key: tuple, _corpus: Corpus) -> Optional[SliceData]:
    loaded = cached.corpus(_corpus)
    if not hasattr(loaded, "dialogs"):
        return None
    return slices.slice_data(loaded, layers=layers_of(_corpus))  # type: ignore[arg-type]


def base_key(corpus: Corpus) -> tuple:
    return (cached.corpus_key(corpus), tuple(cached.layer_key(name) for name in package_layers(corpus.package)))


def slice_base(corpus: Corpus) -> Optional[SliceData]:
    """The corpus's slice features (shared; None when the corpus does not load)."""
    return _base(base_key(corpus), corpus)


def _with_what_it_tests(corpus: Corpus, base: SliceData, node) -> SliceData:
    """``base`` (of ``corpus``) with the runs, codes and notes the slice's calls read (and only those)."""
    calls = {test.feature.name for test in slices.grammar.tests(node) if test.feature.args is not None}
    runs, annotations, notes = {}, None, None
    if calls & {"score", "gap"}:
        from data_access.runs.browse_columns import run_columns

        for name, key in cached.run_keys(corpus).items():
            frame = cached.run_derived(run_columns, corpus, key)
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


def evaluation_budget(seconds: Optional[float] = None) -> EvaluationBudget:
    """One evaluation's budget in this session: ``seconds`` for all its tests (None: ``EVALUATION_SECONDS``), and
    stopped once the session is gone."""
    return EvaluationBudget(seconds, stopped=session_gone())


def kept_by(corpus: Corpus, base: SliceData, node: Node, budget: Optional[EvaluationBudget] = None
            ) -> tuple[Optional[np.ndarray], Optional[SliceError]]:
    """The one place the app evaluates a slice: which rows of ``base`` (``corpus``'s features) ``node`` keeps, or
    the error that kept it from being used (a ``SliceError``, whose text is for the user), never a traceback.
    ``budget``: ``evaluation_budget()`` when None."""
    budget = budget if budget is not None else evaluation_budget()
    try:
        return slices.evaluate(node, _with_what_it_tests(corpus, base, node), budget), None
    except SliceStopped as exc:
        log.warning("a slice on %s: %s", corpus.name, exc)
        return None, exc
    except SliceError as exc:
        return None, exc
    except (ArithmeticError, LookupError, TypeError, ValueError) as exc:  # what pandas raises on what no test foresaw
        log.warning("a slice on %s failed: %r", corpus.name, exc, exc_info=True)
        return None, SliceError(f"unexpected {type(exc).__name__}: {exc}")


def evaluate(corpus: Corpus, text: str) -> SliceOutcome:
    """``text`` on ``corpus``: which dialogs it keeps and what it says, or why it cannot be used."""
    title = corpus.title
    try:
        node = slices.parse(text)
    except SliceError as exc:
        return SliceOutcome(text, None, "", f"The link's slice “{shortened(text)}” is not one: {exc}.")
    canonical = slices.unparse(node)
    base = slice_base(corpus)
    if base is None:
        return SliceOutcome(canonical, None, "", f"{title} could not be loaded.")
    keep, error = kept_by(corpus, base, node)
    if keep is None:
        return SliceOutcome(canonical, None, "", f"The slice “{shortened(canonical)}” cannot be used on {title}: "
                                                 f"{str(error).rstrip('.')}.")
    ids = base.dialogs["dialog_id"].to_numpy(dtype=object)[keep]
    return SliceOutcome(canonical, ids, slices.describe(node, title, int(keep.sum())))


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
    previous and the next dialog of the slice, so a slice plays like a playlist."""
    outcome = current_outcome(corpus)
    if not said(outcome) or outcome is None or outcome.kept is None:
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
            if outcome is not None and outcome.kept is not None:
                node = slices.all_of(slices.parse(outcome.text), *([node] if node is not None else []))
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
        outcome = current_outcome(corpus) if within_current else None
        within = [slices.parse(outcome.text)] if outcome is not None and outcome.kept is not None else []
        node = slices.all_of(*within, node)
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
    node = slices.all_of(*within, ranges)
    found = evaluate(corpus, slices.unparse(node))
    return node if found.kept is not None and set(found.kept.tolist()) == set(ids) else None


__all__ = ["SLICE_PARAM", "SliceOutcome", "apply_slice", "base_key", "browse_slice", "current_outcome",
           "current_slice", "evaluate", "evaluation_budget", "kept_by", "layers_of", "outcome_of", "make_slice_button",
           "page_link", "said", "slice_base", "slice_choices", "slice_ids", "slice_navigation"]
