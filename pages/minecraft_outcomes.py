"""Minecraft outcomes: Builder actions per utterance, placements vs removals, block F1 to the target over
the course of a game, and the outcome by split."""
import streamlit as st

from data_access.figures import minecraft
from ui import charts
from ui.router import ensure_routed

ensure_routed()

CORPUS = "minecraft"

st.title("Minecraft outcomes")
st.caption("Builds are compared with their target after aligning them (rotation about the vertical axis and an "
           "x/z shift), as the corpus's diff.py does. Click a bar or point to list its games.")

available = charts.corpus_splits(CORPUS)
if available is None:
    st.stop()
splits = charts.split_filter(available)

left, right = st.columns(2)
with left:
    charts.show(charts.build(minecraft.actions_per_utterance_chart, CORPUS, splits), CORPUS)
with right:
    charts.show(charts.build(minecraft.placements_removals_chart, CORPUS, splits), CORPUS)
charts.show(charts.build(minecraft.f1_progress_chart, CORPUS, splits), CORPUS)
charts.show(charts.build(minecraft.outcome_chart, CORPUS, splits), CORPUS)
