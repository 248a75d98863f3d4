"""Replay of one Minecraft Collaborative Building game: step through the utterances and watch the build
grow beside its (aligned) target structure. Deep link: /replay?corpus=minecraft&dialog=<experiment id>&turn=k.

Each step first shows two pictures drawn on the server (``data_access.minecraft.view.step_pictures``, cached
per step), so a step costs two images, as a CoDraw round does; the interactive 3-D view (WebGL, seconds to
draw in a browser without a GPU) is a toggle away, kept in the URL as ``view3d=1``, and keeps its camera from
step to step within a game."""
from __future__ import annotations

import math

import streamlit as st

from data_access.minecraft.render import build_figure, target_figure
from data_access.minecraft.view import replay_step, step_pictures
from data_access.snapshots import dialog_row
from ui.cached import corpus_ready, derived
from ui.picker import dialog_picker
from ui.replay_prefetch import prefetch_neighbours
from ui.transcript import transcript
from ui.url_state import url_toggle
from ui.widgets import md_escape, query_param, stepper


def show(name: str) -> None:
    if not corpus_ready(name):
        return
    game_id, _ = dialog_picker(name, key="minecraft_dialog", label="Game")
    if game_id is None:
        return
    game = derived(dialog_row, name, game_id)
    n_steps = int(game["n_steps"])
    st.caption(f"{md_escape(game['config'])} · {md_escape(game['split'])} split · Builder {md_escape(game['builder'])}, "
               f"Architect {md_escape(game['architect'])} · "
               f"{n_steps} messages · {game['duration_s']:.0f} s"
               + (" · augmented copy" if bool(game["from_aug_data"]) else ""))
    if n_steps == 0:
        st.info("This game has no messages to step through.")
        return
    turn = stepper(n_steps, query_param("turn"), key=f"minecraft_turn_{game_id}", label="Message")
    step = derived(replay_step, name, game_id, turn)
    if step is None:
        st.error("This game could not be prepared for replay.")
        return
    for function in (replay_step, step_pictures):  # the view, then its pictures (which read the view's cache)
        prefetch_neighbours(name, game_id, turn, n_steps, function)

    metrics = st.columns(5)
    metrics[0].metric("Blocks", len(step.blocks))
    metrics[1].metric("Placed / removed", f"{len(step.placed)} / {len(step.removed)}")
    metrics[2].metric("F1 to target", "–" if math.isnan(step.f1) else f"{step.f1:.2f}")
    metrics[3].metric("Target blocks", step.facts["gold_blocks"])
    metrics[4].metric("Final outcome", "match" if step.outcome_match else f"F1 {step.facts['final_f1']:.2f}")

    alignment = step.alignment
    note = "" if alignment is None else f" (rotated {alignment.rotation}°, shifted {-alignment.dx:+d}, {-alignment.dz:+d})"
    in_3d = url_toggle("Interactive 3D view", param="view3d", key="minecraft_view3d",
                       help="Turn, zoom and hover the build and the target (WebGL: slower to draw than the pictures).")
    build_col, target_col = st.columns(2)
    if in_3d:
        _figures_3d(step, game_id, note, build_col, target_col)
    else:
        _pictures(name, step, game_id, note, build_col, target_col)

    actions_col, chat_col = st.columns([2, 3])
    with actions_col:
        st.subheader("Actions this step", divider="gray")
        if step.actions.empty:
            st.caption("The Builder did not change the structure after this message.")
        else:
            st.dataframe(step.actions[["seq", "kind", "x", "y", "z", "color", "time_s", "state_idx"]],
                         hide_index=True, width="stretch")
        st.subheader("BAP sample", divider="gray")
        if step.next_actions is None:
            st.caption("No Builder Action Prediction sample starts after this message.")
        else:
            st.caption(f"sample_id {step.bap_sample_id}: the actions a model must predict from the dialogue so far.")
            st.dataframe(step.next_actions, hide_index=True, width="stretch")
    with chat_col:
        st.subheader("Transcript", divider="gray")
        show_all = st.toggle("Show the whole game", key="minecraft_show_all")
        transcript(step.utterances, step.step, show_all, unit="message", key="minecraft_transcript")


def _pictures(name: str, step, game_id: str, note: str, build_col, target_col) -> None:
    pictures = derived(step_pictures, name, game_id, step.step)
    build_col.image(pictures.build_png, width="stretch", output_format="PNG",
                    caption=f"Build after message {step.step}: black outline = placed in this step, magenta crossed "
                            "wire cube = removed in this step; the dark figure is the Builder, its line the gaze.")
    if pictures.target_png is None:
        target_col.info("No gold configuration is available for this game.")
    else:
        target_col.image(pictures.target_png, width="stretch", output_format="PNG",
                         caption="Target, aligned" + note + ": outlined cells are not built yet.")


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
