"""Replay: step through one dialog of any corpus. Deep link: /replay?corpus=...&dialog=...&turn=...
(and round=... for A Game Of Sorts)."""
import streamlit as st

from data_access.common import CORPUS_NAMES, CORPUS_TITLES
from ui import replay_codraw, replay_gos, replay_minecraft
from ui.widgets import query_param

SECTIONS = {"codraw": replay_codraw, "gos": replay_gos, "minecraft": replay_minecraft}

st.title("Replay")
requested = query_param("corpus")
if requested is not None and requested not in CORPUS_NAMES:
    st.warning(f"The link names an unknown corpus “{requested}”; choose one below.")
    requested = None
corpus = st.segmented_control("Corpus", CORPUS_NAMES, default=requested or "codraw",
                              format_func=CORPUS_TITLES.get, key="replay_corpus") or "codraw"
if corpus != st.query_params.get("corpus"):
    st.query_params.clear()
    st.query_params["corpus"] = corpus
SECTIONS[corpus].show(corpus)
