"""Replay of one Minecraft Collaborative Building game: step through the utterances and watch the build
grow beside its (aligned) target structure. Deep link: /replay?corpus=minecraft&dialog=<experiment id>&turn=k.

Each step first shows two pictures drawn on the server (``corpora.minecraft.data.view.step_pictures``, cached
per step), so a step costs two images, as a CoDraw round does; the interactive 3-D view (WebGL, seconds to
draw in a browser without a GPU) is a toggle away, kept in the URL as ``view3d=1``, and keeps its camera from
step to step within a game."""
from __future__ import annotations

import math
from functools import partial
from typing import Optional

import streamlit as st

from corpora.minecraft.data.render import build_figure, target_figure
from corpora.minecraft.data.view import f1_by_step, replay_step, step_pictures
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
    dialog_row,
    md_escape,
    player_step,
    query_param,
    show_player,
    transcript_lines,
    url_toggle,
)


def show(corpus: Corpus) -> None:
    if not corpus_ready(corpus):
        return
    game_id, _ = dialog_picker(corpus, key="minecraft_dialog", label="Game")
    if game_id is None:
        return
    game = derived(dialog_row, corpus, game_id)
    n_steps = int(game["n_steps"])
    st.caption(f"{md_escape(game['config'])} · {md_escape(game['split'])} split · Builder {md_escape(game['builder'])}, "
               f"Architect {md_escape(game['architect'])} · "
               f"{n_steps} messages · {game['duration_s']:.0f} s"
               + (" · augmented copy" if bool(game["from_aug_data"]) else ""))
    if n_steps == 0:
        st.info("This game has no messages to step through.")
        return
    step_key = f"minecraft_turn_{game_id}"
    turn = player_step(n_steps, query_param("turn"), key=step_key, label="Message")
    step = derived(replay_step, corpus, game_id, turn)
    if step is None:
        st.error("This game could not be prepared for replay.")
        return

    alignment = step.alignment
    note = "" if alignment is None else f" (rotated {alignment.rotation}°, shifted {-alignment.dx:+d}, {-alignment.dz:+d})"
    st.caption(f"Target blocks: {step.facts['gold_blocks']} · final outcome: "
               + ("match" if step.outcome_match else f"F1 {step.facts['final_f1']:.2f}"))
    with st.container(key="player_fallback_all"):  # the player has its own switch (all lines)
        show_all = st.toggle("Show the whole game", key="minecraft_show_all")
    dialog = PlayerDialog(f"{corpus.name}|{game_id}", "Message", n_steps, transcript_lines(step.utterances, LEADING_ROLES), (),
                          legend="Bars: F1 of the build to the target · + blocks placed · − blocks removed")
    show_player("player_replay", step_key, dialog, turn, partial(player_view, corpus, game_id, note),
                # F1 after every step costs an alignment per step: not on the run that opens the game (its step alone)
                timeline=lambda known: _timeline(derived(f1_by_step, corpus, game_id) if len(known) > 1 else None, n_steps, known),
                showAll=show_all, notesKey=True, panels=partial(message_panels, corpus, game_id, note))


def message_panels(corpus: Corpus, game_id: str, note: str, turn: int) -> None:
    """Under the player, of message ``turn``: the 3D view when asked for, the Builder's actions and the BAP sample."""
    step = derived(replay_step, corpus, game_id, turn)
    if step is None:
        st.error("This game could not be prepared for replay.")
        return
    in_3d = url_toggle("Interactive 3D view", param="view3d", key="minecraft_view3d",
                       help="Turn, zoom and hover the build and the target (WebGL: slower to draw than the pictures).")
    if in_3d:
        build_col, target_col = st.columns(2)
        _figures_3d(step, game_id, note, build_col, target_col)

    actions_col, bap_col = st.columns(2)
    with actions_col:
        st.subheader("Actions this step", divider="gray")
        if step.actions.empty:
            st.caption("The Builder did not change the structure after this message.")
        else:
            st.dataframe(step.actions[["seq", "kind", "x", "y", "z", "color", "time_s", "state_idx"]],
                         hide_index=True, width="stretch")
    with bap_col:
        st.subheader("BAP sample", divider="gray")
        if step.next_actions is None:
            st.caption("No Builder Action Prediction sample starts after this message.")
        else:
            st.caption(f"sample_id {step.bap_sample_id}: the actions a model must predict from the dialogue so far.")
            st.dataframe(step.next_actions, hide_index=True, width="stretch")


def player_view(corpus: Corpus, game_id: str, note: str, number: int) -> Optional[PlayerStep]:
    """Message ``number`` as the step player shows it: the build and the aligned target, blocks and F1."""
    step = derived(replay_step, corpus, game_id, number)
    pictures = derived(step_pictures, corpus, game_id, number)
    if step is None or pictures is None:
        return None
    build = Picture(pictures.build_png, f"Build after message {number}: black outline = placed in this step, magenta "
                                        "crossed wire cube = removed in this step (drawn over the blocks in front); "
                                        "the dark figure is the Builder, its line the gaze.")
    target = Picture(pictures.target_png, "Target, aligned" + note + ": outlined cells are not built yet." if pictures.target_png
                     else "No gold configuration is available for this game.")
    return PlayerStep(number, (build, target),
                      facts=(("Blocks", str(len(step.blocks))), ("Placed / removed", f"{len(step.placed)} / {len(step.removed)}"),
                             ("F1 to target", "–" if math.isnan(step.f1) else f"{step.f1:.2f}")),
                      notes=() if not step.actions.empty else ("The Builder did not change the structure after this message.",))


def _timeline(f1, n_steps: int, known: dict) -> tuple[TimelineEntry, ...]:
    values = dict(zip(f1["turn"], f1["f1"])) if f1 is not None else {}
    entries = []
    for number in range(1, n_steps + 1):
        value = values.get(number)
        facts = dict(known[number].facts) if number in known else {}
        placed, _, removed = facts.get("Placed / removed", "0 / 0").partition(" / ")
        marks = (("place",) if placed not in ("", "0") else ()) + (("remove",) if removed not in ("", "0") else ())
        title = "" if value is None or math.isnan(value) else f"F1 {value:.2f}"
        entries.append(TimelineEntry(None if value is None or math.isnan(value) else float(value), marks, title))
    return tuple(entries)


def _figures_3d(step, game_id: str, note: str, build_col, target_col) -> None:
    revision = f"minecraft:{game_id}"  # one camera per game: turning it survives the steps, a new game starts fresh
    with build_col:
        st.plotly_chart(build_figure(step.blocks, step.placed, step.removed, step.builder,
                                     title=f"Build after message {step.step}", revision=revision),
                        width="stretch", key="minecraft_build")
    with target_col:
        if step.gold_aligned:
            st.plotly_chart(target_figure(step.gold_aligned, step.gold_missing, title="Target, aligned" + note,
                                          revision=revision),
                            width="stretch", key="minecraft_target")
        else:
            st.info("No gold configuration is available for this game.")
