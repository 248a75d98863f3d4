"""Replay: step through one dialog of any corpus. Deep link: /replay?corpus=...&dialog=...&turn=...
(and round=... for A Game Of Sorts)."""
import streamlit as st

from ui import replay_codraw, replay_gos, replay_minecraft
from ui.widgets import corpus_selector

SECTIONS = {"codraw": replay_codraw, "gos": replay_gos, "minecraft": replay_minecraft}

st.title("Replay")
corpus = corpus_selector("replay_corpus")
SECTIONS[corpus].show(corpus)
