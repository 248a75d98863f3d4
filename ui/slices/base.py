"""What every slice in the app is evaluated against, and the one place it is (docs/slices.md, "In the app"): a
corpus's slice features (its dialog table with the analysis pages' and the layers' features, its step table built
when a step slice first needs it), built once per corpus source and layer files and shared by every session; the
runs' columns and step scores, the codes and the notes read only for a slice that tests them; and ``kept_by``, which
evaluates within one ``EvaluationBudget`` stopped when the session goes and catches what it raises."""
from __future__ import annotations

import logging
from typing import Optional

import pandas as pd
import streamlit as st

from data_access import slices
from data_access.contract import layers_of as package_layers
from data_access.corpus import Corpus
from data_access.slices import EvaluationBudget, Kept, Node, SliceData, SliceError, SliceStopped, tree
from ui import cached
from ui.shell.session_alive import session_gone
from ui.store import opened, remembered

log = logging.getLogger("dialogue.slices")


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


def with_what_it_tests(corpus: Corpus, base: SliceData, node) -> SliceData:
    """``base`` (of ``corpus``) with the runs, codes and notes the slice's calls read (and only those): a run's
    Browse columns for a dialog slice, its step scores for a step slice."""
    calls = {test.feature.name for test in tree.tests(node) if test.feature.args is not None}
    runs, step_runs, annotations, notes = {}, {}, None, None
    if calls & {"score", "gap"}:
        from data_access.runs.browse_columns import run_columns, step_run_scores

        for name, key in cached.run_keys(corpus).items():
            frame = cached.run_derived(run_columns, corpus, key)
            if frame is not None:
                runs[name] = frame
            if tree.reads_steps(node):
                steps = cached.run_derived(step_run_scores, corpus, key)
                if steps is not None:
                    step_runs[name] = steps
    if calls & {"code", "tag"}:
        store = opened("Slices")
        if store is not None:
            if "code" in calls:
                annotations = remembered(f"slice annotations {base.corpus}",
                                         lambda: store.coding.annotations(corpus=base.corpus), pd.DataFrame(), "Slices")
            if "tag" in calls:
                notes = remembered(f"slice notes {base.corpus}", lambda: store.notes.notes(corpus=base.corpus),
                                   pd.DataFrame(), "Slices")
    return base.with_extras(runs=runs, step_runs=step_runs, annotations=annotations, notes=notes,
                            search_index=cached.search_index)


def evaluation_budget(seconds: Optional[float] = None) -> EvaluationBudget:
    """One evaluation's budget in this session: ``seconds`` for all its tests (None: ``EVALUATION_SECONDS``), and
    stopped once the session is gone."""
    return EvaluationBudget(seconds, stopped=session_gone())


def kept_by(corpus: Corpus, base: SliceData, node: Node, budget: Optional[EvaluationBudget] = None
            ) -> tuple[Optional[Kept], Optional[SliceError]]:
    """The one place the app evaluates a slice of the grammar: the dialogs (and steps) of ``base`` (``corpus``'s
    features) ``node`` keeps, or the error that kept it from being used (a ``SliceError``, whose text is for the
    user), never a traceback. ``budget``: ``evaluation_budget()`` when None."""
    budget = budget if budget is not None else evaluation_budget()
    try:
        return slices.select(node, with_what_it_tests(corpus, base, node), budget), None
    except SliceStopped as exc:
        log.warning("a slice on %s: %s", corpus.name, exc)
        return None, exc
    except SliceError as exc:
        return None, exc
    except (ArithmeticError, LookupError, TypeError, ValueError) as exc:  # what pandas raises on what no test foresaw
        log.warning("a slice on %s failed: %r", corpus.name, exc, exc_info=True)
        return None, SliceError(f"unexpected {type(exc).__name__}: {exc}")


__all__ = ["base_key", "evaluation_budget", "kept_by", "layers_of", "slice_base", "with_what_it_tests"]
