"""An A Game Of Sorts replay state drawn compactly for Compare and Present (``CorpusViews.state_details``): the
step's event and the ranks so far; its transcript lists the lock events too."""
from __future__ import annotations

from typing import Optional

import streamlit as st

from corpora.gos.data import replay_step
from dialogue_dashboard.plugin.views import Corpus, derived, md_escape, prefetch_neighbours, step_lines


def details(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]) -> None:
    """The step's event and the ranks so far (nothing without a round)."""
    if round_number is None:
        return
    view = derived(replay_step, corpus, dialog_id, step, round_number)
    if view is None:
        st.caption("This round cannot be shown.")
        return
    {"success": st.success, "warning": st.warning}.get(view.event_level, st.info)(md_escape(view.event))
    st.markdown(f"**Ranks so far:** {len(view.ranks)} of 9")
    if not view.ranks.empty:
        st.dataframe(view.ranks[["rank", "image", "at step"]], hide_index=True, width="stretch",
                     height=min(36 * (len(view.ranks) + 1) + 2, 220))


def prefetch(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int], n_steps: int) -> None:
    """Compute the neighbouring steps' details in the background."""
    prefetch_neighbours(corpus, dialog_id, step, n_steps, replay_step, round_number, with_round=True)


def lines(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]):
    """A round's transcript also lists the lock events (+ time), as on the Replay page."""
    if round_number is not None:
        view = derived(replay_step, corpus, dialog_id, step, round_number)
        if view is not None:
            return view.transcript.rename(columns={"step": "turn", "player": "speaker", "event": "text"})
    return step_lines(corpus, dialog_id, step, round_number)
