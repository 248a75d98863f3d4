"""Compare: two dialogs of one corpus side by side, stepping together or separately — e.g. two pairs
playing the same Game Of Sorts board, or two CoDraw dialogs of similar score. Everything is in the URL:
``/compare?corpus=codraw&left=<id>&right=<id>&step=3`` (``lround``/``rround`` for A Game Of Sorts rounds,
``together=0&lstep=..&rstep=..`` to step apart). With a step slice (``slice=steps(…)``) each side offers the slice's
moments, opening at a moment's step in its round, and says which moment it shows."""
import streamlit as st

from ui import cached
from ui.replay.picker import dialog_picker
from ui.replay.state import dialog_lines, offers_same_board_plays, show_state, snapshots, step_unit
from ui.replay.step_player import player_step, snapshot_player
from ui.share.downloads import compare_download
from ui.shell.corpus_edge import corpus_selector
from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.shell.url_state import query_param, set_url
from ui.slices.current import compare_moments
from ui.slices.moments import moment_said

ensure_routed()

st.title("Compare two dialogs")
corpus = corpus_selector("compare_corpus")
if not cached.corpus_ready(corpus):
    stop_run()
controls = st.columns(2)
moments = compare_moments(corpus, controls)  # a step slice: its moments on each side (None: no step slice)
left = dialog_picker(corpus, "compare_left", "Left dialog", param="left", round_param="lround",
                     step_params=("step", "lstep"), container=controls[0])
with controls[1]:
    boards = offers_same_board_plays(corpus)
    same_board = boards and st.toggle("Only plays of the same board", value=query_param("board") != "any",
                                             key="compare_same_board")
    if boards:
        set_url(board=None if same_board else "any")
plays = cached.derived(snapshots.same_board_plays, corpus, *left) if same_board and left[0] else None
right = dialog_picker(corpus, "compare_right", "Right dialog", param="right", round_param="rround",
                      step_params=("step", "rstep"), default_index=1, plays=plays, container=controls[1])
if left[0] is None or right[0] is None:
    stop_run()

counts = [cached.derived(snapshots.step_count, corpus, dialog, round_) for dialog, round_ in (left, right)]
together = st.toggle("Step together", value=query_param("together") != "0", key="compare_together",
                     help="One slider for both; the shorter dialog stays on its last step")
set_url(together=None if together else "0")
if together:
    set_url(lstep=None, rstep=None)
    step_key = f"compare_step_{left}_{right}"
    step = player_step(max(counts), query_param("step"), key=step_key, label="Step", param="step")
    steps = [min(step, n) for n in counts]
    step_keys = [step_key, step_key]
    sides = st.columns(2)
else:
    set_url(step=None)
    sides = st.columns(2)
    steps, step_keys = [], []
    for column, count, side in zip(sides, counts, ("left", "right")):
        with column:
            step_keys.append(f"compare_{side}_{left}_{right}")
            steps.append(player_step(count, query_param(f"{side[0]}step"), key=step_keys[-1], label=f"Step ({side})",
                                     param=f"{side[0]}step"))
longer = 0 if counts[0] >= counts[1] else 1  # stepping together, the longer dialog's player takes the keys
for index, (column, (dialog, round_), step, count, side) in enumerate(zip(sides, (left, right), steps, counts, ("left", "right"))):
    with column:
        if count:
            snapshot_player(f"player_compare_{side}", step_keys[index], corpus, dialog, round_, step, count,
                            dialog_lines(corpus, dialog, step, round_), step_unit(corpus), layout="narrow",
                            keys=together and index == longer, group="compare" if together else None)
            if moments is not None:
                st.caption(moment_said(moments, dialog, round_, step))
            show_state(corpus, dialog, step, round_, count, key=f"compare_transcript_{side}", with_picture=False)
        else:
            st.info("This dialog has no steps to show.")
compare_download(corpus, [left, right])
