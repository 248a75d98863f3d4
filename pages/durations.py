"""Durations: CoDraw session durations (when the source's stat section has them), A Game Of Sorts round
durations, time to each rank and interaction lengths, and Minecraft game durations."""
import streamlit as st

from data_access.figures import codraw, gos, minecraft
from ui import charts
from ui.router import ensure_routed

ensure_routed()

st.title("Durations")
st.caption("How long the dialogues took, per corpus. Click a bar or point to list its dialogs.")

st.header("CoDraw")
available = charts.corpus_splits("codraw")
if available is not None:
    splits = charts.split_filter(available, param="codraw_split", label="CoDraw splits")
    if charts.build(codraw.has_durations, "codraw"):
        charts.show(charts.build(codraw.duration_chart, "codraw", splits), "codraw")
    else:
        st.info("This CoDraw source has no session durations: its `stat` section is empty (as in copies assembled "
                "from the per-dialog files). The official CoDraw_1_0.json has them.")

st.header("A Game Of Sorts")
if charts.corpus_splits("gos") is not None:
    charts.show(charts.build(gos.round_duration_chart, "gos"), "gos")
    left, right = st.columns(2)
    with left:
        charts.show(charts.build(gos.rank_time_chart, "gos"), "gos")
    with right:
        charts.show(charts.build(gos.interaction_length_chart, "gos"), "gos")

st.header("Minecraft")
available = charts.corpus_splits("minecraft")
if available is not None:
    splits = charts.split_filter(available, param="minecraft_split", label="Minecraft splits")
    left, right = st.columns(2)
    with left:
        charts.show(charts.build(minecraft.duration_chart, "minecraft", splits), "minecraft")
    with right:
        charts.show(charts.build(minecraft.seconds_per_utterance_chart, "minecraft", splits), "minecraft")
