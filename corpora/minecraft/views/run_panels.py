"""Minecraft's run panels in the Replay: the BAP sample of the step, the run's structure beside the gold one with
its net-action scores; registered for the corpus in ``ui.shell.corpus_views``."""
from __future__ import annotations

from typing import Sequence

import streamlit as st

from corpora.minecraft.data.run_views import NET_ACTION_HELP, scores_and_marks
from dialogue_dashboard.plugin.views import Corpus, md_escape, number, query_param, run_link, served


def panel(corpus: Corpus, view, dialog: str, turn: int) -> None:
    """One run at a BAP sample: its scores, then its predicted structure beside the human's as server-drawn
    pictures (one frame), or as the interactive 3D figures behind the replay's ``view3d=1`` toggle."""
    from corpora.minecraft.data.run_views import gold_figure, model_figure

    if view.sample_id is None:
        st.info(view.note)
        if view.sample_turns:
            links = " · ".join(f"[utterance {t} (sample {s})]({served(run_link(corpus, dialog, t, None, view.run))})"
                               for s, t in view.sample_turns if t > 0)
            st.markdown(f"Samples of this game in the run: {links}")
        return
    _minecraft_scores(view, st.columns(5))
    left, right = st.columns(2)
    if query_param("view3d") == "1":
        left.plotly_chart(model_figure(view), width="stretch", key=f"run_model_{dialog}_{turn}")
        right.plotly_chart(gold_figure(view), width="stretch", key=f"run_gold_{dialog}_{turn}")
        marked = (f"solid correct ({view.counts['correct']}), magenta-edged extra ({view.counts['extra']}), grey ghosts "
                  f"missing ({view.counts['missing']})")
    else:
        left.image(view.model_png, width="stretch", output_format="PNG", caption=f"Model ({md_escape(view.run)}): predicted structure")
        right.image(view.gold_png, width="stretch", output_format="PNG", caption="Human (gold) structure after the sample")
        marked = (f"solid correct ({view.counts['correct']}), black-outlined extra ({view.counts['extra']}), outlined "
                  f"ghosts missing ({view.counts['missing']})")
    st.caption(f"BAP sample {view.sample_id}: the model's structure after its predicted actions, blocks marked against "
               f"the human (gold) structure: {marked}. {scores_and_marks(view)}")


def _minecraft_scores(view, cells: Sequence) -> None:
    """A run's net-action scores of the sample, one metric per cell (columns, or one container five times)."""
    scores = view.scores
    cells[0].metric("Net-action F1", number(scores["f1"]))
    cells[1].metric("Precision", number(scores["precision"]))
    cells[2].metric("Recall", number(scores["recall"]))
    cells[3].metric("TP / FP / FN", f"{scores['tp']} / {scores['fp']} / {scores['fn']}", help=NET_ACTION_HELP)
    cells[4].metric("Infeasible actions", f"{scores['infeasible']} of {scores['n_actions']}")


def side_by_side(corpus: Corpus, shown: list, dialog: str, turn: int) -> None:
    """Each run's predicted structure after the sample as the server-drawn picture (no WebGL scene per run),
    marked against the human's, with its scores; the human's build and target are the pictures above."""
    for column, view in zip(st.columns(len(shown)), shown):
        with column:
            st.markdown(f"**{md_escape(view.run)}**")
            if view.sample_id is None:
                st.info(view.note)
                continue
            scores = st.container(horizontal=True, gap="small")
            _minecraft_scores(view, [scores] * 5)
            st.image(view.model_png, width="stretch", output_format="PNG",
                     caption=f"{md_escape(view.run)}, BAP sample {view.sample_id}: correct {view.counts['correct']} · "
                             f"extra {view.counts['extra']} · missing {view.counts['missing']} blocks")
            st.caption(scores_and_marks(view))
    st.caption("Each run's structure after its predicted actions, marked against the human (gold) structure: "
               "solid correct, black-outlined extra, outlined ghosts missing.")


def pictures(corpus: Corpus, view, step: int) -> list:
    """The run's predicted structure after the BAP sample of this step, beside the humans' in the step player."""
    if view.sample_id is None:
        return [(f"{view.run}: {view.note}", None)]
    return [(f"Model ({view.run}), BAP sample {view.sample_id}: F1 {number(view.scores['f1'])} · correct "
             f"{view.counts['correct']} · extra {view.counts['extra']} · missing {view.counts['missing']}", view.model_png)]
