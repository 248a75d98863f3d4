"""Replay section of a corpus without a section of its own (a plugin's, or one registered with
``corpora.register``): the step player over what the corpus contract gives for every corpus, as the built-in
corpora have it. Pick a dialog (and round); the player steps, scrubs and plays in the browser (←/→, Home/End,
Space), its timeline marking each step, beside the transcript; the coding column beside it on the workbench.

What a step shows is the views' ``step_view`` (a ``PlayerStep``: pictures, facts, event; by default the
contract's ``snapshot`` of the state after the step, with who spoke) and the timeline the views'
``step_timeline`` (by default the words said at each step). A picture is shown at its own size or smaller, never
blown up. Deep link: /replay?corpus=<name>&dialog=...&turn=k."""
from __future__ import annotations

from typing import Optional

import streamlit as st

from data_access import snapshots
from data_access.corpus import Corpus
from data_access.player import Picture, PlayerDialog, PlayerStep, TimelineEntry, transcript_lines
from ui import cached
from ui.replay.picker import dialog_picker
from ui.replay.state import snapshot_png
from ui.replay.step_player import player_step, show_player
from ui.replay.transcript import LEADING_ROLES
from ui.shell.corpus_views import views_of
from ui.widgets import md_escape, query_param


def snapshot_step(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]) -> Optional[PlayerStep]:
    """A step as the contract gives it for every corpus: the snapshot of the state after it and who spoke."""
    lines = cached.derived(snapshots.step_messages, corpus, dialog_id, step, round_number)
    if lines is None:
        return None
    unit = corpus.package.STEP_UNIT
    png = cached.derived(snapshot_png, corpus, dialog_id, step, round_number)
    speakers = ", ".join(dict.fromkeys(str(s) for s in lines["speaker"])) if len(lines) else "nobody"
    return PlayerStep(step, (Picture(png, f"After {unit} {step}"),),
                      facts=(("Said by", speakers), ("Messages", str(len(lines)))))


def said_timeline(corpus: Corpus, dialog_id: str, round_number: Optional[int], n_steps: int) -> tuple[TimelineEntry, ...]:
    """Per step, the words said at it (a bar) and its first words (on hover)."""
    lines = cached.derived(snapshots.step_messages, corpus, dialog_id, 10**9, round_number, True)
    words: dict[int, int] = {}
    first: dict[int, str] = {}
    if lines is not None:
        for turn, text in zip(lines["turn"], lines["text"]):
            if turn is None or turn != turn:  # NaN: a line outside the steps
                continue
            words[int(turn)] = words.get(int(turn), 0) + len(str(text).split())
            first.setdefault(int(turn), str(text)[:80])
    return tuple(TimelineEntry(float(words.get(n, 0)), (), first.get(n, "")) for n in range(1, n_steps + 1))


def show(corpus: Corpus) -> None:
    if not cached.corpus_ready(corpus):
        return
    name = corpus.name  # its widgets' keys
    dialog_id, round_number = dialog_picker(corpus, key=f"{name}_dialog")
    if dialog_id is None:
        return
    unit = corpus.package.STEP_UNIT
    n_steps = cached.derived(snapshots.step_count, corpus, dialog_id, round_number)
    if not n_steps or n_steps <= 0:
        st.info(f"This dialog of {md_escape(corpus.title)} has no steps to replay.")
        return
    step_key = f"{name}_turn_{dialog_id}_{round_number}"
    step = player_step(n_steps, query_param("turn"), key=step_key, label=unit.capitalize())
    views = views_of(corpus)
    lines = cached.derived(snapshots.step_messages, corpus, dialog_id, 10**9, round_number, True)
    dialog = PlayerDialog(f"{name}|{dialog_id}|{round_number}", unit.capitalize(), n_steps,
                          transcript_lines(lines, LEADING_ROLES) if lines is not None else (),
                          views.step_timeline(corpus, dialog_id, round_number, n_steps),
                          legend=views.step_legend or f"Bars: words said at each {unit}")
    show_player("player_replay", step_key, dialog, step,
                lambda number: views.step_view(corpus, dialog_id, number, round_number), notesKey=True,
                panels=_nothing_under_the_player)


def _nothing_under_the_player(step: int) -> None:
    """A corpus without a section of its own shows everything of a step in the player: nothing follows under it."""
