"""Replay section of A Game Of Sorts: one round of one interaction, step by step.

Deep link: ``/replay?corpus=gos&dialog=<interaction_id>&round=<1..4>&turn=<step>``. The section keeps
``dialog``, ``round`` and ``turn`` in the URL in step with the widgets. All game state comes from
``corpora.gos.data.replay_step`` through ``ui.cached.derived``, so stepping only renders one small view.
"""
from __future__ import annotations

from functools import partial
from typing import Optional

import streamlit as st

from corpora.gos.data import replay_step, round_steps
from corpora.gos.views.images import placeholder_note
from corpora.gos.views.layers import replay_mentions, step_mentions
from dialogue_dashboard.plugin.views import (
    LEADING_ROLES,
    Corpus,
    Picture,
    PlayerDialog,
    PlayerStep,
    TimelineEntry,
    corpus_ready,
    derived,
    dialog_picker,
    latex_table_download,
    marked_html,
    player_step,
    query_param,
    requested_highlight,
    show_player,
    source_facts,
    transcript_lines,
)
from dialogue_dashboard.plugin.views import md_escape as _md

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


def show(corpus: Corpus) -> None:
    if not corpus_ready(corpus):
        return
    demo = derived(source_facts, corpus)["is_demo"]
    placeholder_note(corpus, compact=True, lead="Generated demo corpus (GAME_OF_SORTS_DATA names the real one)." if demo else "")
    dialog, round_number = dialog_picker(corpus, key="gos_dialog", label="Interaction")
    if dialog is None:
        return
    steps_per_round = derived(round_steps, corpus, dialog)
    if not steps_per_round or round_number not in steps_per_round:
        st.info("This interaction has no rounds to replay.")
        return
    # The picker drops a step that belonged to another dialog or round, so a new round starts at its own
    # remembered step (or step 1), not at the old number.
    assert round_number is not None  # it is in steps_per_round, whose keys are rounds
    step_key = f"gos_step_{dialog}_{round_number}"
    step = player_step(steps_per_round[round_number], query_param("turn"), key=step_key, label="Step")

    view = derived(replay_step, corpus, dialog, step, round_number)
    if view is None:
        st.warning("This round cannot be shown.")
        return
    # one line: the step below keeps the screen (a long scenario and the players' instruction, the same in every
    # game, in its help)
    criterion = str(view.criterion)
    short = criterion if len(criterion) <= 110 else criterion[:108].rstrip() + "…"
    st.markdown(f"**Scenario.** {_md(short)}",
                help="\n\n".join(_md(t) for t in (criterion if short != criterion else "", view.instruction) if t) or None)
    mentions_on = bool(st.session_state.get("gos_layer_mentions", True))  # a new state: the boards described anew
    with st.container(key="player_fallback_all"):  # the player has its own switch (all lines)
        show_all = st.toggle("Show the whole round", key="gos_full_transcript")
    lines = view.transcript.rename(columns={"step": "turn", "player": "speaker", "event": "text"})
    rounds = sorted(steps_per_round)
    dialog_view = PlayerDialog(f"{corpus.name}|{dialog}|{round_number}|{mentions_on}", "Step", steps_per_round[round_number],
                               transcript_lines(lines, LEADING_ROLES), _timeline(view), rounds=(round_number, rounds[-1]),
                               legend="Bars: images ranked so far · 🔒 a lock · ★ a rank agreed · ✗ a mismatch · "
                                      "→ at the last step opens the next round",
                               extra={"roundLabel": f"{view.category} · board {view.board_number} · round {view.round} of {view.n_rounds}"})
    show_player("player_replay", step_key, dialog_view, step,
                partial(player_view, corpus, dialog, round_number=round_number),
                on_round=lambda delta: _cross_round(dialog, round_number, rounds, steps_per_round, delta), showAll=show_all,
                notesKey=True, panels=partial(step_panels, corpus, dialog, round_number))


def step_panels(corpus: Corpus, dialog: str, round_number: int, step: int) -> None:
    """Under the player, of step ``step``: the search match, the published mentions, the legend of the boards, and
    the final ranking once the round is complete."""
    view = derived(replay_step, corpus, dialog, step, round_number)
    if view is None:
        st.warning("This step cannot be shown.")
        return
    # What only some steps show (a search match, the published mentions) is under the player, in one container
    with st.container():
        _search_match(view)
        replay_mentions(step_mentions(corpus, view))
    st.caption("Number badge = agreed rank · blue border and lock = the player's own pending lock (the partner cannot "
               "see it) · amber frame and bubble = images the current message marks, on the sender's board · "
               "red = a lock that met a different image (mismatch).")

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


def _cross_round(dialog: str, round_number: int, rounds: list[int], steps_per_round: dict[int, int], delta: int) -> None:
    """The player stepped past the end (start) of a round: the next round at its first step (the previous at
    its last). Runs as the player's callback, before the picker reads its radio."""
    position = rounds.index(round_number) + delta if round_number in rounds else -1
    if delta == 0 or not 0 <= position < len(rounds):
        return
    target = rounds[position]
    st.session_state[f"gos_dialog_round_{dialog}"] = target
    st.session_state[f"gos_step_{dialog}_{target}"] = 1 if delta > 0 else steps_per_round[target]


def _timeline(view) -> tuple[TimelineEntry, ...]:
    """Per step of the round: the ranks agreed by then (a bar), its locks, ranks and mismatches."""
    steps = view.transcript
    kinds_of: dict = {}
    texts_of: dict = {}
    # one pass over the round's rows (a frame filtered per step was a fifth of a step's run on a long round)
    for number, kind, event in zip(steps["step"], steps["kind"] if "kind" in steps else [None] * len(steps),
                                   steps["event"] if "event" in steps else [""] * len(steps)):
        kinds_of.setdefault(number, set()).add(kind)
        texts_of.setdefault(number, []).append(str(event))
    entries = []
    ranked = 0
    for number in range(1, view.n_steps + 1):
        kinds = kinds_of.get(number, set()) - {None}
        text = " ".join(texts_of.get(number, []))
        marks: tuple[str, ...] = ()
        if any(str(k).startswith("lock") for k in kinds):
            marks += ("lock",)
        if "→ rank" in text:
            ranked += 1
            marks += ("rank",)
        if "mismatch" in text.lower():
            marks += ("mismatch",)
        entries.append(TimelineEntry(float(ranked), marks, text[:120]))
    return tuple(entries)


def player_view(corpus: Corpus, dialog: str, step: int, round_number: int) -> Optional[PlayerStep]:
    """Step ``step`` of a round as the step player shows it: both boards (the published mentions of its message
    framed, where it has any), the event, the locks and the ranks."""
    view = derived(replay_step, corpus, dialog, step, round_number)
    if view is None:
        return None
    pictures = []
    for board in step_mentions(corpus, view).boards:
        lock = f" · pending lock on {board.pending_label or board.pending}" if board.pending else ""
        pictures.append(Picture(board.png, f"{board.role}: {board.username}{lock}"))
    ranks = view.ranks
    columns = [c for c in ("rank", "image", "at step", "time") if c in ranks.columns]
    return PlayerStep(step, tuple(pictures), facts=(("Ranks so far", f"{len(ranks)} of 9"),),
                      event=view.event, event_level=view.event_level,
                      table_title=f"Ranks so far: {len(ranks)}", table_columns=tuple(columns),
                      table_rows=tuple(tuple(str(v) for v in row) for row in ranks[columns].itertuples(index=False)))
