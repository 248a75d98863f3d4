"""Present: a dialog for a demo — autoplay through its steps at a chosen speed, a large picture with the
transcript beside it, and the replay as an animated GIF or a PNG strip for slides."""
import streamlit as st

from data_access import replay
from ui import cached
from ui.replay_state import dialog_and_round
from ui.router import ensure_routed
from ui.widgets import corpus_selector, md_escape, stepper

ensure_routed()

MAX_GIF_STEPS = 60

st.title("Present")
name = corpus_selector("present_corpus")
if not cached.corpus_ready(name):
    st.stop()
choices = cached.derived(replay.dialog_choices, name)
picker, speed_column, play_column = st.columns([4, 2, 1], vertical_alignment="bottom")
with picker:
    dialog, round_ = dialog_and_round(name, "present", "Dialog", choices)
if dialog is None:
    st.stop()
seconds = speed_column.select_slider("Seconds per step", [0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0], value=2.0)
playing = play_column.toggle("▶ Autoplay", key="present_playing")
n_steps = cached.derived(replay.step_count, name, dialog, round_)
step_key = f"present_step_{dialog}_{round_}"
if n_steps == 0:
    st.info("This dialog has no steps to show.")
    st.stop()


@st.fragment(run_every=seconds if playing else None)
def stage() -> None:
    """Redrawn on its own every ``seconds`` while autoplay is on, moving one step forward each time."""
    if playing and step_key in st.session_state and st.session_state[step_key] < n_steps:
        st.session_state[step_key] += 1
    step = stepper(n_steps, None, key=step_key, label="Step", sync_url=False)
    picture, words = st.columns([7, 3])
    with picture:
        st.image(cached.derived(replay.snapshot, name, dialog, step, round_), width="stretch")
    with words, st.container(height=560):
        said_so_far = cached.derived(replay.step_messages, name, dialog, step, round_, True)
        for row in said_so_far.itertuples(index=False):
            st.caption(f"{md_escape(row.speaker)} · {'round ' + str(round_) + ', ' if round_ else ''}step {row.turn}")
            st.text(row.text)
    if playing and step >= n_steps:
        st.caption("End of the dialog.")


stage()

with st.expander("Export for slides"):
    all_steps = list(range(1, n_steps + 1))
    chosen = st.multiselect("Steps for the PNG strip", all_steps, default=all_steps[: min(4, n_steps)], max_selections=12)
    columns = st.slider("Pictures per row", 1, 6, min(4, max(1, len(chosen))))
    left, right = st.columns(2)
    if chosen and left.button("Build PNG strip"):
        strip = replay.replay_png_strip(cached.loaded_corpus(name), dialog, sorted(chosen), round_, columns)
        left.download_button("⬇ PNG strip", strip, f"{dialog}-strip.png", "image/png")
    gif_steps = all_steps[:MAX_GIF_STEPS]
    if right.button(f"Build animated GIF ({len(gif_steps)} steps)"):
        gif = replay.replay_gif(cached.loaded_corpus(name), dialog, gif_steps, round_, seconds)
        right.download_button("⬇ Animated GIF", gif, f"{dialog}.gif", "image/gif")
