"""A CoDraw replay state drawn compactly for Compare and Present (``CorpusViews.state_details``): the stored and
recomputed scores, the peek and the round's changes."""
from __future__ import annotations

import math
from typing import Optional

import streamlit as st

from corpora.codraw.views.replay import peek_note, shown_round, stored_score_metric
from dialogue_dashboard.plugin.views import Corpus, derived, md_escape, prefetch_neighbours


def _score(value) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.2f}"


def details(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int] = None) -> None:
    """Stored and recomputed scores, the peek and the round's changes."""
    shown = derived(shown_round, corpus, dialog_id, step)  # the round's view, its pictures as small PNGs
    view = None if shown is None else shown.view
    if view is None or view.problem:
        st.caption(md_escape(view.problem) if view is not None else "This round cannot be shown.")
        return
    peek_note(view)
    stored, reason = stored_score_metric(view)
    left, middle, right = st.columns(3)
    left.metric("Stored score", stored, help=reason)
    if view.score_status != "present":
        st.caption(md_escape(reason))
    middle.metric("Recomputed", _score(view.original.score if view.original else None),
                  help="The original metric recomputed from the scenes")
    right.metric("Final metric", _score(view.final.score if view.final else None), help="The paper's metric (max 5)")
    st.markdown(f"**Changes in round {view.step}:** " + ("none" if view.changes.empty else f"{len(view.changes)}"))
    if not view.changes.empty:
        st.dataframe(view.changes, hide_index=True, width="stretch", height=min(36 * (len(view.changes) + 1) + 2, 220))


def prefetch(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int], n_steps: int) -> None:
    """Compute the neighbouring rounds' details in the background."""
    prefetch_neighbours(corpus, dialog_id, step, n_steps, shown_round, round_number, with_round=False)
