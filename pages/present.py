"""Present: a dialog for a demo — autoplay through its steps at a chosen speed, the picture as large as
the screen allows with the transcript beside it (the current line always in view), and the replay as
an animated GIF or a PNG strip for slides. Deep link: /present?corpus=...&dialog=...&turn=...&mode=present"""
import streamlit as st

from ui import cached
from ui.picker import dialog_picker
from ui.presentation import presentation_mode
from ui.replay_state import UNITS, dialog_lines, prefetch_state, snapshot, snapshots, step_caption
from ui.router import ensure_routed
from ui.transcript import transcript
from ui.url_state import one_history_entry_per_click, publish, query_param, set_url
from ui.widgets import corpus_selector, stepper

ensure_routed()

MAX_GIF_STEPS = 60
SPEEDS = [0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0]

presenting = st.session_state.get("present_mode", query_param("mode") == "present")
presentation_mode(presenting)
st.title("Present")  # hidden in presentation mode
with st.expander("Dialog, speed and presentation mode", expanded=not presenting):
    name = corpus_selector("present_corpus")
    if not cached.corpus_ready(name):
        st.stop()
    picker, speed_column, mode_column = st.columns([4, 2, 2], vertical_alignment="bottom")
    dialog, round_ = dialog_picker(name, "present", "Dialog", container=picker)
    speed_text = (query_param("speed") or "").strip()  # ASCII only: "²" is a digit to isdigit() but not to float()
    requested_speed = float(speed_text) if speed_text.isascii() and speed_text.replace(".", "", 1).isdigit() else 2.0
    seconds = speed_column.select_slider("Seconds per step", SPEEDS, key="present_speed",
                                         value=requested_speed if requested_speed in SPEEDS else 2.0)
    presenting = mode_column.toggle("Presentation mode", key="present_mode", value=presenting,
                                    help="Large picture, sidebar and page controls out of the way")
set_url(speed=None if seconds == 2.0 else seconds, mode="present" if presenting else None)
if dialog is None:
    st.stop()
n_steps = cached.derived(snapshots.step_count, name, dialog, round_)
if n_steps == 0:
    st.info("This dialog has no steps to show.")
    st.stop()
step_key = f"present_step_{dialog}_{round_}"
playing = st.toggle("▶ Autoplay", key="present_playing", value=query_param("play") == "1")
set_url(play=playing)


@st.fragment(run_every=seconds if playing else None)
def stage() -> None:
    """Redrawn on its own every ``seconds`` while autoplay is on, moving one step forward each time."""
    if playing and step_key in st.session_state and st.session_state[step_key] < n_steps:
        st.session_state[step_key] += 1
        publish(step_key, "turn", st.session_state[step_key])
    step = stepper(n_steps, query_param("turn"), key=step_key, label="Step")
    picture, words = st.columns([7, 3] if presenting else [3, 2])
    with picture:
        snapshot(name, dialog, step, round_)
        prefetch_state(name, dialog, step, round_, n_steps)
        step_caption(name, dialog, step, round_, n_steps)
        one_history_entry_per_click()  # each step replaces the URL's entry, under a plain `streamlit run` too
    with words:
        transcript(dialog_lines(name, dialog, step, round_), step, height=640 if presenting else 480,
                   unit=UNITS.get(name, "step"), key="present_transcript", font_size="1.15rem" if presenting else None)
    if playing and step >= n_steps:
        st.caption("End of the dialog.")


stage()

with st.expander("Export for slides"):
    all_steps = list(range(1, n_steps + 1))
    chosen = st.multiselect("Steps for the PNG strip", all_steps, default=all_steps[: min(4, n_steps)], max_selections=12)
    columns = st.slider("Pictures per row", 1, 6, min(4, max(1, len(chosen))), key="present_strip_columns")  # keyed: kept when the steps change
    left, right = st.columns(2)
    if chosen and left.button("Build PNG strip"):
        strip = snapshots.replay_png_strip(cached.loaded_corpus(name), dialog, sorted(chosen), round_, columns)
        left.download_button("⬇ PNG strip", strip, f"{dialog}-strip.png", "image/png", on_click="ignore")
    gif_steps = all_steps[:MAX_GIF_STEPS]
    if right.button(f"Build animated GIF ({len(gif_steps)} steps)"):
        gif = snapshots.replay_gif(cached.loaded_corpus(name), dialog, gif_steps, round_, seconds)
        right.download_button("⬇ Animated GIF", gif, f"{dialog}.gif", "image/gif", on_click="ignore")
