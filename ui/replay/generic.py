"""Replay section of a corpus without a section of its own (a corpus registered with ``corpora.register``):
what the corpus contract gives for every corpus. Pick a dialog (and round), step through it, see the picture
of each state (``snapshot``) and the transcript up to it. Deep link: /replay?corpus=<name>&dialog=...&turn=k."""
from __future__ import annotations

import streamlit as st

from data_access import snapshots
from data_access.corpus import Corpus
from ui import cached
from ui.replay.picker import dialog_picker
from ui.replay.prefetch import prefetch_neighbours
from ui.replay.state import snapshot_png
from ui.replay.transcript import transcript
from ui.widgets import md_escape, query_param, stepper


def show(corpus: Corpus) -> None:
    if not cached.corpus_ready(corpus):
        return
    name = corpus.name  # its widgets' keys
    dialog_id, round_number = dialog_picker(corpus, key=f"{name}_dialog")
    if dialog_id is None:
        return
    unit = corpus.package.STEP_UNIT
    n_steps = cached.derived(snapshots.step_count, corpus, dialog_id, round_number)
    if n_steps <= 0:
        st.info(f"This dialog of {md_escape(corpus.title)} has no steps to replay.")
        return
    step = stepper(n_steps, query_param("turn"), key=f"{name}_turn_{dialog_id}_{round_number}", label=unit.capitalize())
    st.image(cached.derived(snapshot_png, corpus, dialog_id, step, round_number), width="stretch", output_format="PNG")
    prefetch_neighbours(corpus, dialog_id, step, n_steps, snapshot_png, round_number, with_round=True)
    lines = cached.derived(snapshots.step_messages, corpus, dialog_id, 10**9, round_number, True)
    show_all = st.toggle("Show the whole dialog", key=f"{name}_show_all")
    transcript(lines, step, show_all, unit=unit, key=f"{name}_transcript")
