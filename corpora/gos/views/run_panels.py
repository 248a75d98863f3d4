"""A Game Of Sorts' run panels in the Replay: the message, its gold and each run's images marked on both
players' boards; registered for the corpus in ``ui.shell.corpus_views``."""
from __future__ import annotations

from typing import Sequence

import streamlit as st

from dialogue_dashboard.plugin.views import Corpus, md_escape, number


def _ranking(view) -> None:
    """A ranking run (a person's play) at this step: its ranks so far beside the pair's, its agreement, both boards."""
    ranking = view.ranking
    st.caption(md_escape(view.note))
    st.markdown("**The run's ranks:** " + (", ".join(md_escape(i) for i in ranking["ranked"]) or "none yet"))
    st.markdown("**The pair's ranks:** " + (", ".join(md_escape(i) for i in ranking["pair"]) or "none yet"))
    st.caption(f"Over the round ({ranking['n_ranked']} ranked): Spearman rho {number(ranking['spearman_rho'])}, "
               f"Kendall tau {number(ranking['kendall_tau'])}, {ranking['exact_positions']} at the pair's rank.")
    for column, (username, png) in zip(st.columns(len(view.boards) or 1), view.boards):
        column.image(png, caption=f"Board of {md_escape(username)}: the run's ranks", width="stretch", output_format="PNG")


def panel(corpus: Corpus, view, dialog: str, step: int) -> None:
    if getattr(view, "ranking", None) is not None:
        _ranking(view)
        return
    if view.message_number is None:
        st.info(view.note)
        return
    st.markdown(f"Message {view.message_number}:")
    st.text(view.text)
    if view.note:
        st.info(view.note)
    left, right = st.columns(2)
    left.markdown(_gos_predicted(view))
    right.markdown(_gos_gold(view))
    _gos_run_scores_and_boards(view, st.columns(4) if view.scores and not view.scores["gold_empty"] else [])
    st.caption("Green frame = gold image · magenta inner frame = the model's image, on both players' boards.")


def _gos_predicted(view) -> str:
    return "**Model says it refers to:** " + (", ".join(md_escape(i) for i in view.predicted) or "no image")


def _gos_gold(view) -> str:
    return "**Gold (the sender's own marking):** " + (", ".join(md_escape(i) for i in view.gold) or "no image")


def _gos_run_scores_and_boards(view, cells: Sequence) -> None:
    """A run's scores of the message (one metric per cell) and both boards with its images marked."""
    if view.scores and not view.scores["gold_empty"]:
        cells[0].metric("Exact set", "yes" if view.scores["exact"] else "no")
        cells[1].metric("Precision", number(view.scores["precision"]))
        cells[2].metric("Recall", number(view.scores["recall"]))
        cells[3].metric("F1", number(view.scores["f1"]))
    elif view.scores:
        st.caption("Gold is empty here: " + ("the model names an image anyway." if view.scores["names_image"] else "the model names none either."))
    columns = st.columns(len(view.boards) or 1)
    for column, (username, png) in zip(columns, view.boards):
        column.image(png, caption=f"Board of {md_escape(username)}", width="stretch", output_format="PNG")


def side_by_side(corpus: Corpus, shown: list, dialog: str, step: int) -> None:
    """The message and its gold once, then per run (one column each) its images, scores and marked boards."""
    first = shown[0]
    if any(getattr(view, "ranking", None) is not None for view in shown):
        for column, view in zip(st.columns(len(shown)), shown):
            with column:
                st.markdown(f"**{md_escape(view.run)}**")
                _ranking(view) if view.ranking is not None else st.info(view.note or "No ranking at this step.")
        return
    if first.message_number is None:
        st.info(first.note)
        return
    st.markdown(f"Message {first.message_number}:")
    st.text(first.text)
    st.markdown(_gos_gold(first))
    for column, view in zip(st.columns(len(shown)), shown):
        with column:
            st.markdown(f"**{md_escape(view.run)}**")
            if view.note:
                st.info(view.note)
            st.markdown(_gos_predicted(view))
            scores = st.container(horizontal=True, gap="small")
            _gos_run_scores_and_boards(view, [scores] * 4)
    st.caption("Green frame = gold image · magenta inner frame = the run's image, on both players' boards.")



def pictures(corpus: Corpus, view, step: int) -> list:
    """The run's images marked on both players' boards, beside the humans' in the step player."""
    if view.message_number is None or not view.boards:
        return [(f"{view.run}: {view.note or 'no message scored at this step'}", None)]
    f1 = f" · F1 {number(view.scores['f1'])}" if view.scores and not view.scores.get("gold_empty") else ""
    return [(f"{view.run} on {username}'s board{f1}", png) for username, png in view.boards]
