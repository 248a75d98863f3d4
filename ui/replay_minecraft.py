"""Replay of one Minecraft Collaborative Building game: step through the utterances and watch the build
grow beside its (aligned) target structure. Deep link: /replay?corpus=minecraft&dialog=<experiment id>&turn=k."""
from __future__ import annotations

import math

import streamlit as st

from data_access.minecraft.render import build_figure, target_figure
from data_access.minecraft.view import replay_step
from data_access.replay import dialog_row
from ui.cached import corpus_ready, derived
from ui.picker import dialog_picker
from ui.transcript import transcript
from ui.widgets import md_escape, query_param, stepper


def show(name: str) -> None:
    if not corpus_ready(name):
        return
    game_id, _ = dialog_picker(name, key="minecraft_dialog", label="Game")
    if game_id is None:
        return
    game = derived(dialog_row, name, game_id)
    n_turns = int(game["n_turns"])
    st.caption(f"{md_escape(game['config'])} · {md_escape(game['split'])} split · Builder {md_escape(game['builder'])}, "
               f"Architect {md_escape(game['architect'])} · "
               f"{n_turns} utterances · {game['duration_s']:.0f} s"
               + (" · augmented copy" if bool(game["from_aug_data"]) else ""))
    if n_turns == 0:
        st.info("This game has no utterances to step through.")
        return
    turn = stepper(n_turns, query_param("turn"), key=f"minecraft_turn_{game_id}", label="Utterance")
    step = derived(replay_step, name, game_id, turn)
    if step is None:
        st.error("This game could not be prepared for replay.")
        return

    metrics = st.columns(5)
    metrics[0].metric("Blocks", len(step.blocks))
    metrics[1].metric("Placed / removed", f"{len(step.placed)} / {len(step.removed)}")
    metrics[2].metric("F1 to target", "–" if math.isnan(step.f1) else f"{step.f1:.2f}")
    metrics[3].metric("Target blocks", step.facts["gold_blocks"])
    metrics[4].metric("Final outcome", "match" if step.outcome_match else f"F1 {step.facts['final_f1']:.2f}")

    build_col, target_col = st.columns(2)
    with build_col:
        st.plotly_chart(build_figure(step.blocks, step.placed, step.removed, step.builder,
                                     title=f"Build after utterance {step.turn}"),
                        width="stretch", key="minecraft_build")
    with target_col:
        alignment = step.alignment
        note = "" if alignment is None else f" (rotated {alignment.rotation}°, shifted {-alignment.dx:+d}, {-alignment.dz:+d})"
        if step.gold_aligned:
            st.plotly_chart(target_figure(step.gold_aligned, step.gold_missing, title="Target, aligned" + note),
                            width="stretch", key="minecraft_target")
        else:
            st.info("No gold configuration is available for this game.")

    actions_col, chat_col = st.columns([2, 3])
    with actions_col:
        st.subheader("Actions this step", divider="gray")
        if step.actions.empty:
            st.caption("The Builder did not change the structure after this utterance.")
        else:
            st.dataframe(step.actions[["seq", "kind", "x", "y", "z", "color", "time_s", "state_idx"]],
                         hide_index=True, width="stretch")
        st.subheader("BAP sample", divider="gray")
        if step.next_actions is None:
            st.caption("No Builder Action Prediction sample starts after this utterance.")
        else:
            st.caption(f"sample_id {step.bap_sample_id}: the actions a model must predict from the dialogue so far.")
            st.dataframe(step.next_actions, hide_index=True, width="stretch")
    with chat_col:
        st.subheader("Transcript", divider="gray")
        show_all = st.toggle("Show the whole game", key="minecraft_show_all")
        transcript(step.utterances, step.turn, show_all, unit="utterance", key="minecraft_transcript")
