"""The analysis pages on the URL's slice (docs/slices.md, "In the app"): every figure drawn on the slice's dialogs
only (``data_access.slices.subcorpus.restrict``; a step slice's step-level figures on its moments), and the slice against the rest of the corpus on the page's
headline per-dialog measure, with the 95% bootstrap interval of the difference of the means
(``data_access.slices.subcorpus.contrast``). Both are computed once per corpus source and slice and shared by every
session (the slice keyed by the digest of its dialog ids)."""
from __future__ import annotations

from typing import Optional, Sequence

import streamlit as st

from data_access.common import LoadedCorpus
from data_access.corpus import Corpus
from data_access.slices.subcorpus import Contrast, contrast_of, restrict
from ui.cache_keys import DialogSelection
from ui.cached import shared
from ui.shell.corpus_edge import every_corpus, layer_corpus_of
from ui.slices.current import current_outcome, said


def selection(corpus: Corpus) -> Optional[DialogSelection]:
    """The dialogs of the URL's slice on ``corpus`` (None without a usable one); says nothing."""
    outcome = current_outcome(corpus)
    if outcome is None or outcome.kept is None:
        return None
    memo = st.session_state.setdefault("_slice_selections", {})  # one per corpus: the last slice's
    chosen, ids = memo.get(corpus.name), tuple(outcome.kept.tolist())
    steps = _moments(corpus, outcome)
    same_steps = (chosen is not None and (chosen.steps is None) == (steps is None)
                  and (steps is None or chosen.steps.equals(steps)))
    if chosen is None or chosen.text != outcome.text or chosen.ids != ids or not same_steps:  # codes may change it
        chosen = DialogSelection.of(outcome.text, ids, steps)
        memo[corpus.name] = chosen
    return chosen


def _moments(corpus: Corpus, outcome):
    """A step slice's moments (dialog_id, round, turn), for the step-level charts; None for a dialog slice."""
    if not outcome.is_moments:
        return None
    from ui.slices.base import slice_base

    base = slice_base(corpus)
    return None if base is None else base.steps.keys(outcome.steps)


def said_selection(corpus: Corpus) -> Optional[DialogSelection]:
    """The URL's slice in words (or the warning why it is not used) and its dialogs on ``corpus`` (None without a
    usable slice): for a page whose sections each take the slice (the Runs page, Agreement)."""
    return selection(corpus) if said(current_outcome(corpus)) else None


def within_slice(frame, corpus_column: str = "corpus"):
    """With a ``slice=`` in the URL: the rows of ``frame`` (one per coded item, with ``corpus`` and ``dialog_id``)
    in the slice's dialogs, the slice said for each corpus the rows are of (a corpus it cannot be used on is said
    and its rows are left out), and the set of (corpus, dialog_id) kept; without one, ``frame`` and None."""
    from ui.slices.current import current_slice

    if current_slice() is None:
        return frame, None
    kept: set[tuple[str, str]] = set()
    named = set(frame[corpus_column].astype(str)) if len(frame) else set()
    for corpus in sorted((corpus for corpus in every_corpus() if corpus.name in named), key=lambda c: c.name):
        outcome = current_outcome(corpus)
        if said(outcome) and outcome is not None and outcome.kept is not None:
            kept.update((corpus.name, str(d)) for d in outcome.kept.tolist())
    if not len(frame):
        st.caption("With the slice: nothing is coded yet to restrict to it.")
        return frame, kept
    keys = zip(frame[corpus_column].astype(str), frame["dialog_id"].astype(str))
    return frame[[key in kept for key in keys]].reset_index(drop=True), kept


def analysis_page(corpus: Corpus) -> Optional[str]:
    """The page of ``corpus``'s own charts (None for a corpus without one, e.g. a plugin's): its entry in the one
    registry of per-corpus UI (``ui.shell.corpus_views``)."""
    from ui.shell.corpus_views import views_of

    return views_of(corpus).analysis_page


def on_dialogs(loaded: LoadedCorpus, chosen: DialogSelection, builder, *args):
    """``builder(loaded, *args)`` on the chosen dialogs only (for ``ui.cached.shared``): a step slice's step frames
    cut to its moments, so a step-level chart (CoDraw's score by round) is drawn on them."""
    return builder(restrict(loaded, chosen.ids, chosen.steps), *args)


def build(builder, corpus: Corpus, *args):
    """``builder(loaded, *args)`` on the URL's slice when it has one that ``corpus`` can use, else on the whole
    corpus; shared by every session."""
    chosen = selection(corpus)
    if chosen is None:
        return shared(builder, corpus, *args)
    return shared(on_dialogs, corpus, chosen, builder, *args)


def on_layer_dialogs(layer, loaded: LoadedCorpus, chosen: DialogSelection, builder, *args):
    """``builder(layer, loaded, *args)`` with the corpus cut to the chosen dialogs (for ``cached.layer_derived``):
    a layer's figures count the corpus's rounds and dialogs, so they follow the cut."""
    return builder(layer, restrict(loaded, chosen.ids, chosen.steps), *args)


def layer_build(builder, layer: str, *args):
    """``cached.layer_derived(builder, layer, *args)`` on the URL's slice of the layer's corpus (whole without a
    usable one)."""
    from ui.cached import layer_derived

    chosen = selection(layer_corpus_of(layer))
    if chosen is None:
        return layer_derived(builder, layer, *args)
    return layer_derived(on_layer_dialogs, layer, chosen, builder, *args)


def _contrast(loaded: LoadedCorpus, chosen: DialogSelection, column: str, splits: tuple) -> Optional[Contrast]:
    dialogs = loaded.dialogs
    if splits and "split" in dialogs.columns:
        dialogs = dialogs[dialogs["split"].isin(list(splits)).to_numpy()]
    return contrast_of(dialogs, column, chosen.ids)


def slice_against_rest(corpus: Corpus, column: str, label: str, *, splits: Sequence[str] = (), digits: int = 2,
                       heading: bool = False) -> Optional[Contrast]:
    """The URL's slice in words (or why it is not used), then, when it filters, ``label`` (the dialog table's
    ``column``) on the slice, on the rest and their difference with its interval, as three metrics; the contrast
    (None without a usable slice or values)."""
    outcome = current_outcome(corpus)
    if outcome is None:
        return None
    if heading:
        st.markdown(f"**{corpus.title}**")
    if not said(outcome):
        return None
    chosen = selection(corpus)
    if chosen is None:
        return None
    found = shared(_contrast, corpus, chosen, column, tuple(splits))
    if found is None or not found.n_slice or not found.n_rest:
        st.caption(f"No {label[:1].lower() + label[1:]} to compare: " + ("no dialog of the slice has one." if found is not None and
                                                    not found.n_slice else "every dialog with one is in the slice."))
        return found
    on_slice, on_rest, difference = st.columns(3)
    on_slice.metric(f"{label}: the slice", f"{found.mean_slice:.{digits}f}", help=f"Mean over {found.n_slice:,} "
                    "dialogs of the slice with a value.")
    on_rest.metric(f"{label}: the rest", f"{found.mean_rest:.{digits}f}", help=f"Mean over the other "
                   f"{found.n_rest:,} dialogs with a value" + (" (of the splits chosen)." if splits else "."))
    interval = ("n < 2" if found.low != found.low else
                f"{found.low:+.{digits}f} to {found.high:+.{digits}f}")
    difference.metric("Slice − rest (95% CI)", f"{found.difference:+.{digits}f}", interval, delta_color="off",
                      delta_arrow="off", help=f"Interval: the {found.method}.")
    _to_the_builder(corpus, outcome, column)
    return found


def _to_the_builder(corpus: Corpus, outcome, column: str) -> None:
    """One click to the contrast builder with this figure's measure, the slice (a step slice's dialogs) and the rest:
    medians, a p-value, an effect size, pairing, another slice as B."""
    from data_access import slices
    from ui.shell.url_state import page_link as same_tab_link
    from ui.slices.contrasts import B_PARAM, MEASURE_PARAM
    from ui.slices.current import SLICE_PARAM, grammar_node

    node = grammar_node(outcome)
    if outcome.is_moments and node is None:
        return  # a step slice by SQL has no dialog-level form to lift
    a = slices.unparse(slices.lift(node)) if node is not None else outcome.text
    same_tab_link("pages/slices.py", "Contrast it in the builder", {"corpus": corpus.name, SLICE_PARAM: a,
                                                                     B_PARAM: "rest", MEASURE_PARAM: column},
                  icon=":material/compare_arrows:", help="The Slices page's contrast builder with this measure: "
                  "the medians, a permutation p-value, an effect size, pairing, another slice as B, CSV and LaTeX")


__all__ = ["analysis_page", "build", "layer_build", "on_layer_dialogs", "on_dialogs", "said_selection", "selection", "slice_against_rest", "within_slice"]
