"""Compare: two dialogs of one corpus side by side, stepping together or separately — e.g. two pairs
playing the same Game Of Sorts board, or two CoDraw dialogs of similar score."""
import streamlit as st

from data_access import replay
from ui import cached
from ui.replay_state import dialog_and_round, show_state
from ui.router import ensure_routed
from ui.share import compare_download
from ui.widgets import corpus_selector, stepper

ensure_routed()

st.title("Compare two dialogs")
name = corpus_selector("compare_corpus")
if not cached.corpus_ready(name):
    st.stop()
choices = cached.derived(replay.dialog_choices, name)
controls = st.columns(2)
with controls[0]:
    left = dialog_and_round(name, "compare_left", "Left dialog", choices)
with controls[1]:
    same_board = name == "gos" and st.toggle("Only plays of the same board", value=True)
    plays = cached.derived(replay.same_board_plays, name, *left) if same_board and left[0] else None
    right = dialog_and_round(name, "compare_right", "Right dialog", choices, default_index=1, only=plays)
if left[0] is None or right[0] is None:
    st.stop()

counts = [cached.derived(replay.step_count, name, dialog, round_) for dialog, round_ in (left, right)]
together = st.toggle("Step together", value=True, help="One slider for both; the shorter dialog stays on its last step")
if together:
    step = stepper(max(counts), None, key=f"compare_step_{left}_{right}", label="Step", sync_url=False)
    steps = [min(step, n) for n in counts]
    sides = st.columns(2)
else:
    sides = st.columns(2)
    steps = []
    for column, count, side in zip(sides, counts, ("left", "right")):
        with column:
            steps.append(stepper(count, None, key=f"compare_{side}_{left}_{right}", label=f"Step ({side})",
                                 keyboard=False, sync_url=False))
for column, (dialog, round_), step, count in zip(sides, (left, right), steps, counts):
    with column:
        if count:
            show_state(name, dialog, step, round_, count)
        else:
            st.info("This dialog has no steps to show.")
compare_download(name, [left, right])
