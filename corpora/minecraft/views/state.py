"""A Minecraft replay state drawn compactly for Compare and Present (``CorpusViews.state_details``): blocks, F1 to
the target and the Builder's actions after the message."""
from __future__ import annotations

import math
from typing import Optional

import streamlit as st

from corpora.minecraft.data.view import replay_step
from dialogue_dashboard.plugin.views import Corpus, derived, prefetch_neighbours


def details(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int] = None) -> None:
    """Blocks, F1 to the target and the Builder's actions after the message."""
    view = derived(replay_step, corpus, dialog_id, step)
    if view is None:
        st.caption("This game cannot be shown.")
        return
    metrics = st.columns(3)
    metrics[0].metric("Blocks", len(view.blocks))
    metrics[1].metric("Placed / removed", f"{len(view.placed)} / {len(view.removed)}")
    metrics[2].metric("F1 to target", "–" if math.isnan(view.f1) else f"{view.f1:.2f}")
    if view.actions.empty:
        st.caption("The Builder did not change the structure after this message.")
    else:
        st.dataframe(view.actions[["kind", "x", "y", "z", "color"]], hide_index=True, width="stretch",
                     height=min(36 * (len(view.actions) + 1) + 2, 220))


def prefetch(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int], n_steps: int) -> None:
    """Compute the neighbouring steps' details in the background."""
    prefetch_neighbours(corpus, dialog_id, step, n_steps, replay_step, round_number, with_round=False)
