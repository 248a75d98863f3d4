"""Present: a dialog for a demo — autoplay through its steps at a chosen speed, the picture as large as
the screen allows with the transcript beside it (the current line always in view), and the replay as
an animated GIF or a PNG strip for slides. Deep link: /present?corpus=...&dialog=...&turn=...&mode=present"""
import streamlit as st

from ui import cached
from ui.replay.picker import dialog_picker
from ui.replay.presentation import play_next, presentation_asked, presentation_mode
from ui.replay.state import dialog_lines, prefetch_state, snapshots, step_caption, step_unit
from ui.replay.step_player import player_step, snapshot_player
from ui.shell.corpus_edge import corpus_selector
from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.shell.url_state import one_history_entry_per_click, query_param, set_url
from ui.slices.current import next_in_slice
from ui.widgets import md_escape

ensure_routed()

MAX_GIF_STEPS = 60
SPEEDS = [0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0]

presenting = st.session_state.get("present_mode", query_param("mode") == "present")
# Nobody chose the mode (no mode= in the link, no switch moved): the player asks for presentation mode when the
# window is 1280x720 or smaller, where the settings would push the picture below the fold.
layout_unchosen = "present_mode" not in st.session_state and query_param("mode") is None
presentation_mode(presenting)
st.title("Present")  # hidden in presentation mode
with st.expander("Dialog, speed and presentation mode", expanded=not presenting):
    corpus = corpus_selector("present_corpus")
    if not cached.corpus_ready(corpus):
        stop_run()
    picker, speed_column, mode_column = st.columns([4, 2, 2], vertical_alignment="bottom")
    dialog, round_ = dialog_picker(corpus, "present", "Dialog", container=picker)
    speed_text = (query_param("speed") or "").strip()  # ASCII only: "²" is a digit to isdigit() but not to float()
    requested_speed = float(speed_text) if speed_text.isascii() and speed_text.replace(".", "", 1).isdigit() else 2.0
    seconds = speed_column.select_slider("Seconds per step", SPEEDS, key="present_speed",
                                         value=requested_speed if requested_speed in SPEEDS else 2.0)
    presenting = mode_column.toggle("Presentation mode", key="present_mode", value=presenting,
                                    help="Large picture, sidebar and page controls out of the way")
set_url(speed=None if seconds == 2.0 else seconds, mode="present" if presenting else None)
if dialog is None:
    stop_run()
n_steps = cached.derived(snapshots.step_count, corpus, dialog, round_)
if n_steps == 0:
    st.info("This dialog has no steps to show.")
    stop_run()
step_key = f"present_step_{dialog}_{round_}"
playing = st.toggle("▶ Autoplay", key="present_playing", value=query_param("play") == "1")
set_url(play=playing)


# The step player plays by itself in the browser (at ``seconds`` per step while autoplay is on) and reports
# each step, which goes into the URL replacing its entry (no click made it: history.js); the caption follows.
step = player_step(n_steps, query_param("turn"), key=step_key, label="Step")
following = next_in_slice(corpus, dialog)  # with a slice=: autoplay goes on to its next dialog, like a playlist
snapshot_player("player_present", step_key, corpus, dialog, round_, step, n_steps, dialog_lines(corpus, dialog, step, round_),
                step_unit(corpus), autoplay=playing, speed=seconds, layout="present" if presenting else None,
                continues=following is not None, on_round=lambda delta: play_next(following, round_, delta),
                autoLayout=layout_unchosen, on_layout=presentation_asked)
prefetch_state(corpus, dialog, step, round_, n_steps)
step_caption(corpus, dialog, step, round_, n_steps)
one_history_entry_per_click()  # each step replaces the URL's entry, under a plain `streamlit run` too
if playing and step >= n_steps:
    st.caption("End of the dialog." + (f" Next in the slice: {md_escape(following)}." if following else ""))

with st.expander("Export for slides"):
    all_steps = list(range(1, n_steps + 1))
    chosen = st.multiselect("Steps for the PNG strip", all_steps, default=all_steps[: min(4, n_steps)], max_selections=12)
    columns = st.slider("Pictures per row", 1, 6, min(4, max(1, len(chosen))), key="present_strip_columns")  # keyed: kept when the steps change
    left, right = st.columns(2)
    if chosen and left.button("Build PNG strip"):
        strip = snapshots.replay_png_strip(cached.loaded_corpus(corpus), dialog, sorted(chosen), round_, columns)
        left.download_button("⬇ PNG strip", strip, f"{dialog}-strip.png", "image/png", on_click="ignore")
    gif_steps = all_steps[:MAX_GIF_STEPS]
    if right.button(f"Build animated GIF ({len(gif_steps)} steps)"):
        gif = snapshots.replay_gif(cached.loaded_corpus(corpus), dialog, gif_steps, round_, seconds)
        right.download_button("⬇ Animated GIF", gif, f"{dialog}.gif", "image/gif", on_click="ignore")
