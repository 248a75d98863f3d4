"""The Replay's panel of a model run in the contract's common form (``contract.RunStepView``: pictures, scores, a
note), one run or several side by side: what a corpus without a panel of its own shows (``ui.shell.corpus_views``), and
the number format every run panel shares."""
from __future__ import annotations

import math
from typing import Optional

import streamlit as st

from data_access.contract import RunStepView
from data_access.corpus import Corpus
from ui.widgets import md_escape


def number(value, digits: int = 3) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"



def step_view_panel(corpus: Corpus, view: RunStepView, dialog: str, turn: int) -> None:
    """A run's view in the contract's common form (``contract.RunStepView``): pictures, scores, a note."""
    if view.note:
        st.info(view.note)
    if view.scores:
        columns = st.columns(len(view.scores))
        for column, (metric, value) in zip(columns, view.scores.items()):
            column.metric(metric, number(value))
    if view.pictures:
        columns = st.columns(len(view.pictures))
        for column, (caption, png) in zip(columns, view.pictures):
            column.image(png, caption=md_escape(caption), width="stretch", output_format="PNG")


def step_views_side_by_side(corpus: Corpus, shown: list, dialog: str, turn: int) -> None:
    """Several runs in the contract's common form, one column each, each shown by ``step_view_panel``."""
    for column, view in zip(st.columns(len(shown)), shown):
        with column:
            st.markdown(f"**{md_escape(view.run)}**")
            step_view_panel(corpus, view, dialog, turn)


def step_view_pictures(corpus: Corpus, view: RunStepView, step: int) -> list[tuple[str, Optional[bytes]]]:
    """A run's pictures at one step in the contract's common form, for the step player beside the humans'."""
    if view.pictures:
        return [(f"{view.run}: {caption}", png) for caption, png in view.pictures]
    return [(f"{view.run}: {view.note or 'no picture at this ' + corpus.package.STEP_UNIT}", None)]
