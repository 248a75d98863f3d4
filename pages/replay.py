"""Replay: step through one dialog of any corpus. Deep link: /replay?corpus=...&dialog=...&turn=...
(and round=... for A Game Of Sorts; code=1 opens the coding column beside the step)."""
import streamlit as st

from ui.coding.notes import note_form, notes_panel
from ui.coding.panel import coding_open, coding_panel
from ui.coding.queue_flow import queue_flow
from ui.play.page import play_link
from ui.replay.picker import dialog_picker_in
from ui.replay.step_parts import step_part, step_place
from ui.replay.step_player import report_lightly, under_player
from ui.runs.picker import replay_panel, run_link, runs_beside_steps
from ui.runs.worst_cases import case_stepper
from ui.share.downloads import follow_step, replay_downloads
from ui.shell.corpus_edge import corpus_selector
from ui.shell.corpus_views import replays_in_rounds, views_of
from ui.shell.router import ensure_routed
from ui.shell.url_state import served
from ui.slices.current import slice_navigation
from ui.widgets import md_code, query_param
from ui.words.concordance import next_hit_control

ensure_routed()

# One compact row: the title, the corpus and the dialog (the section's picker draws into it): the step keeps the screen
title, picker, finder = st.columns([1.1, 3.0, 4.9], vertical_alignment="center", gap="small")
with title:
    st.title("Replay")
corpus = corpus_selector("replay_corpus", container=picker, compact=True)
dialog_picker_in(finder)
next_hit_control()  # opened from a concordance line: walk its hit list (previous / next hit)
case_stepper(corpus)  # opened from "Worst cases first": walk its cases (previous / next case, Enter)
queue_flow()  # opened from the Coding queue: item k of N, "Done, next" (Enter)
in_slice = st.container()  # filled once the section has put the dialog it shows into the URL
workbench_open = coding_open()  # a coder at work: the coding column beside the step (the workbench), else under it
under_player(beside_next=workbench_open)
runs_beside_steps(corpus)  # a model run's pictures beside the humans' in the player (&run=<name>)
report_lightly()  # a step costs the server the player's run; the page follows when the reader rests on a step
views_of(corpus).replay_section(corpus)
workbench = under_player()  # beside or right under the step player: coding while stepping, no scrolling
with in_slice:
    slice_navigation(corpus, query_param("dialog"))  # with a slice=: where this dialog is in it, previous / next


# The parts that follow the step the section has put into the URL: the coding panel, a run's panels, the shareable
# link and the notes there (a settle of the player runs them alone: ui/replay/step_parts.py).
@step_part("replay_step_tail")
def step_tail(corpus) -> None:
    replay_panel(corpus)  # a model run beside the humans, when one is chosen (&run=<name>)
    place = step_place(corpus)
    if place is None:
        return
    dialog, turn, place_round = place
    link = served(run_link(corpus, dialog, turn, place_round, query_param("run")))  # &run= when one is shown
    if query_param("view3d") == "1":  # the 3D view is part of the state shown
        link += "&view3d=1"
    st.markdown(f":material/link: [Link to exactly this state]({link}): {md_code(link)}")
    notes_panel(corpus, dialog, turn, place_round, turn_label="step" if replays_in_rounds(corpus) else "turn")
    follow_step(corpus, dialog, place_round, turn)  # the HTML replay below opens at this step


place = step_place(corpus)
if place is not None:
    with workbench if workbench is not None else st.container():
        coding_panel(corpus, *place, workbench=workbench_open and workbench is not None)
step_tail(corpus)
if place is not None:  # what does not follow each step: a note is saved where the page is as it is sent
    note_form(corpus)
    replay_downloads(corpus, place[0], place[2], step=place[1])
    play_link(corpus, place[0])  # try the dialog's task yourself (the Play page)
