"""One replay state drawn compactly (picture plus what was said), for the compare and presentation pages."""
from __future__ import annotations

from typing import Optional

import streamlit as st

from data_access import snapshots
from data_access.links import replay_link
from ui import cached
from ui.widgets import md_escape


def dialog_and_round(name: str, key: str, label: str, choices: dict[str, str], default_index: int = 0,
                     only: Optional[list[tuple[str, int]]] = None) -> tuple[Optional[str], Optional[int]]:
    """Pick a dialog (and for A Game Of Sorts a round); ``only`` restricts to given (dialog, round) plays."""
    if only is not None:
        options = [f"{d}|{r}" for d, r in only]
        if not options:
            st.info("No other play of this board.")
            return None, None
        picked = st.selectbox(label, options, key=f"{key}_play",
                              format_func=lambda o: f"{choices.get(o.split('|')[0], o)} · round {o.split('|')[1]}")
        dialog_id, round_text = picked.split("|")
        return dialog_id, int(round_text)
    ids = list(choices)
    if not ids:
        st.info("This corpus has no dialogs.")
        return None, None
    dialog_id = st.selectbox(label, ids, index=min(default_index, len(ids) - 1), key=f"{key}_dialog",
                             format_func=choices.get)
    rounds = cached.derived(snapshots.rounds_of, name, dialog_id)
    round_number = None
    if rounds != [None]:
        round_number = st.radio("Round", rounds, horizontal=True, key=f"{key}_round_{dialog_id}")
    return dialog_id, round_number


def show_state(name: str, dialog_id: str, step: int, round_number: Optional[int], n_steps: int,
               transcript_up_to: bool = False) -> None:
    """The snapshot of ``step`` and the utterances at it (or up to it), with a link to the full replay."""
    st.image(cached.derived(snapshots.snapshot, name, dialog_id, step, round_number), width="stretch")
    where = f"Round {round_number}, step" if round_number is not None else "Step"
    st.caption(f"{where} {step} of {n_steps} · [open in Replay]({replay_link(name, dialog_id, step, round_number)})")
    lines = cached.derived(snapshots.step_messages, name, dialog_id, step, round_number, transcript_up_to)
    if lines.empty:
        st.caption("Nothing said at this step.")
    for row in lines.itertuples(index=False):
        st.markdown(f"**{md_escape(row.speaker)}** · {md_escape(row.role)}")
        st.text(row.text)
