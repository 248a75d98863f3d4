"""Replay section of A Game Of Sorts: one round of one interaction, step by step.

Deep link: ``/replay?corpus=gos&dialog=<interaction_id>&round=<1..4>&turn=<step>``. The section keeps
``dialog``, ``round`` and ``turn`` in the URL in step with the widgets. All game state comes from
``data_access.gos.replay_step`` through ``ui.cached.derived``, so stepping only renders one small view.
"""
from __future__ import annotations

import streamlit as st

from data_access.gos import replay_step, round_steps
from data_access.snapshots import source_facts
from ui import cached, layers
from ui.highlight import marked_html, requested_highlight
from ui.picker import dialog_picker
from ui.provenance import gos_placeholder_note
from ui.replay_prefetch import prefetch_neighbours
from ui.share import latex_table_download
from ui.transcript import transcript
from ui.widgets import md_escape as _md
from ui.widgets import query_param, stepper

EVENT_BOX = {"success": st.success, "warning": st.warning, "info": st.info}


def _search_match(view) -> None:
    """The message of this step with the search match from the URL marked, when it contains it."""
    needle = requested_highlight()
    current = view.transcript[(view.transcript["step"] == view.step) & (view.transcript["kind"] == "message")]
    marked = marked_html(str(current["event"].iloc[0]), needle) if needle and len(current) else None
    if marked is not None:
        with st.container(border=True):
            st.caption(f"Search match at step {view.step}:")
            st.html(marked)


def show(name: str) -> None:
    if not cached.corpus_ready(name):
        return
    if cached.derived(source_facts, name)["is_demo"]:
        st.caption("Showing the generated demo corpus; set GAME_OF_SORTS_DATA to the data folder to see the real one.")
    gos_placeholder_note(name, compact=True)
    dialog, round_number = dialog_picker(name, key="gos_dialog", label="Interaction")
    if dialog is None:
        return
    steps_per_round = cached.derived(round_steps, name, dialog)
    if not steps_per_round or round_number not in steps_per_round:
        st.info("This interaction has no rounds to replay.")
        return
    # The picker drops a step that belonged to another dialog or round, so a new round starts at its own
    # remembered step (or step 1), not at the old number.
    step = stepper(steps_per_round[round_number], query_param("turn"), key=f"gos_step_{dialog}_{round_number}", label="Step")

    view = cached.derived(replay_step, name, dialog, step, round_number)
    if view is None:
        st.warning("This round cannot be shown.")
        return
    prefetch_neighbours(name, dialog, step, steps_per_round[round_number], replay_step, round_number, with_round=True)
    st.caption(f"{_md(view.category)} · board {view.board_number} · round {view.round} of {view.n_rounds} · "
               f"step {view.step} of {view.n_steps}")
    with st.container(border=True):
        st.markdown(f"**Scenario.** {_md(view.criterion)}")
        st.caption(_md(view.instruction))
    EVENT_BOX.get(view.event_level, st.info)(_md(view.event))
    _search_match(view)

    boards = layers.gos_replay_mentions(name, view)  # the published mentions of this message, if any
    board_columns = st.columns(len(boards) or 1)
    for column, board in zip(board_columns, boards):
        lock = f" · pending lock on {_md(board.pending_label or board.pending)}" if board.pending else ""
        column.image(board.png, caption=f"{_md(board.role)}: {_md(board.username)}{lock}", width="stretch", output_format="PNG")
    st.caption("Number badge = agreed rank · blue border and lock = the player's own pending lock (the partner cannot "
               "see it) · amber frame and bubble = images the current message marks, on the sender's board · "
               "red = a lock that met a different image (mismatch).")

    ranks_column, transcript_column = st.columns([2, 3])
    with ranks_column:
        st.subheader(f"Ranks so far: {len(view.ranks)}")
        if view.ranks.empty:
            st.caption("No image has been ranked yet at this step.")
        else:
            st.dataframe(view.ranks[["rank", "image", "at step", "time"]], hide_index=True, width="stretch")
    with transcript_column:
        st.subheader("Transcript")
        show_all = st.toggle("Show the whole round", key="gos_full_transcript")
        lines = view.transcript.rename(columns={"step": "turn", "player": "speaker", "event": "text"})
        transcript(lines, view.step, show_all, height=360, unit="step", key="gos_transcript")

    if view.round_complete and view.comparison is not None:
        st.subheader("Final ranking beside the other plays of this board")
        st.dataframe(view.comparison, hide_index=True, width="stretch")
        if view.agreement is not None and not view.agreement.empty:
            st.dataframe(view.agreement, hide_index=True, width="content")
            latex_table_download(view.agreement, "Rank agreement with the other plays of this board.", "gos_play_agreement")
            st.caption("Kendall tau and Spearman rho between this play's ranking and each other play's: 1 = the same "
                       "order, 0 = unrelated, −1 = reversed.")
        else:
            st.caption("No other interaction played this board.")
