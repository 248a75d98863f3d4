"""CoDraw's run panels in the Replay: each canvas (the human's, the run's) marked against the target with its
scores under both metrics; registered for the corpus in ``ui.shell.corpus_views``."""
from __future__ import annotations

import streamlit as st

from dialogue_dashboard.plugin.views import Corpus, md_escape, number


def _codraw_canvas(panel, turn: int, narrow: bool = False) -> None:
    """One canvas (the human's or a run's) marked against the target, with its scores under both metrics (in a
    ``narrow`` column one under the other when they do not fit side by side, never cut short)."""
    if panel.png is not None:
        st.image(panel.png, caption=f"{md_escape(panel.title)} after round {turn}", width="stretch", output_format="PNG")
    else:
        st.info(panel.note)
    left, right = [st.container(horizontal=True, gap="small")] * 2 if narrow else st.columns(2)
    left.metric("Paper's metric", number(panel.score_final))
    right.metric("Original metric", number(panel.score_original))


def _codraw_marks_and_final(shown: list) -> None:
    st.caption("Marked against the target: green correct · orange misplaced (arrow from the target position) · "
               "blue wrong pose, flip or depth · dashed red missing · magenta extra.")
    with st.expander("Clip art marked against the target"):
        columns = st.columns(1 + len(shown))
        columns[0].markdown("**Human**")
        columns[0].dataframe(shown[0].human.marks, hide_index=True, width="stretch")
        for column, view in zip(columns[1:], shown):
            column.markdown(f"**Model ({md_escape(view.run)})**")
            column.dataframe(view.model.marks, hide_index=True, width="stretch")
    for view in shown:
        final = view.final
        if final:
            st.caption(("" if len(shown) == 1 else f"{md_escape(view.run)}: ")
                       + f"Final drawing (last non-empty canvas): model round {final.get('final_round')}, paper's metric "
                       f"{number(final.get('final_score'))} · human round {final.get('human_final_round')}, "
                       f"{number(final.get('human_final_score'))}.")


def panel(corpus: Corpus, view, dialog: str, turn: int) -> None:
    side_by_side(corpus, [view], dialog, turn)


def side_by_side(corpus: Corpus, shown: list, dialog: str, turn: int) -> None:
    """Target, the human's canvas and each run's canvas in one row, each canvas with its scores."""
    columns = st.columns(2 + len(shown))
    columns[0].image(shown[0].target_png, caption="Target", width="stretch", output_format="PNG")
    for column, panel in zip(columns[1:], (shown[0].human, *(view.model for view in shown))):
        with column:
            _codraw_canvas(panel, turn, narrow=len(shown) > 1)
    _codraw_marks_and_final(shown)


def pictures(corpus: Corpus, view, step: int) -> list:
    """The run's canvas after round ``step`` beside the humans' in the step player, with its paper's metric."""
    model = view.model
    return [(f"Model ({view.run}) after round {step} · paper's metric {number(model.score_final)}"
             if model.png is not None else f"Model ({view.run}): {model.note}", model.png)]
