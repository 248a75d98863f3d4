"""Durations: CoDraw session durations (when the source's stat section has them), A Game Of Sorts round
durations, time to each rank and interaction lengths, and Minecraft game durations. The page opens on a
summary (each chart's finding); each corpus's charts are a tab."""
import streamlit as st

from ui import charts
from ui.charts import codraw_figures as codraw
from ui.charts import gos_figures as gos
from ui.charts import minecraft_figures as minecraft
from ui.corpus_edge import drawn_by
from ui.router import ensure_routed

ensure_routed()

CODRAW, GOS, MINECRAFT = drawn_by(codraw), drawn_by(gos), drawn_by(minecraft)  # each resolved once

st.title("Durations")
st.caption("How long the dialogues took, per corpus. Click a bar or point to list its dialogs.")

codraw_splits, minecraft_splits = charts.corpus_splits(CODRAW), charts.corpus_splits(MINECRAFT)
gos_loaded = charts.corpus_splits(GOS) is not None
filters = st.columns(2)
with filters[0]:
    if codraw_splits is not None:
        codraw_splits = charts.split_filter(codraw_splits, param="codraw_split", label="CoDraw splits")
with filters[1]:
    if minecraft_splits is not None:
        minecraft_splits = charts.split_filter(minecraft_splits, param="minecraft_split", label="Minecraft splits")
for corpus, splits in ((CODRAW, codraw_splits), (GOS, ()), (MINECRAFT, minecraft_splits)):
    if splits is not None and (corpus != GOS or gos_loaded):  # with a slice= in the URL
        charts.slice_against_rest(corpus, "duration_s", "Duration (s)", splits=splits, digits=0, heading=True)
NO_STAT = ("This CoDraw source has no session durations: its `stat` section is empty (as in copies assembled from "
           "the per-dialog files). The official CoDraw_1_0.json has them.")


def codraw_charts() -> list:
    if codraw_splits is None or not charts.build(codraw.has_durations, CODRAW):
        return []
    return [charts.build(codraw.duration_chart, CODRAW, codraw_splits)]


def gos_charts() -> list:
    if not gos_loaded:
        return []
    return [charts.build(builder, GOS) for builder in
            (gos.round_duration_chart, gos.rank_time_chart, gos.interaction_length_chart)]


def minecraft_charts() -> list:
    if minecraft_splits is None:
        return []
    return [charts.build(builder, MINECRAFT, minecraft_splits) for builder in
            (minecraft.duration_chart, minecraft.seconds_per_utterance_chart)]


def no_codraw_durations(built: list) -> None:
    if codraw_splits is not None and not built:
        st.info(NO_STAT)


def summary_view() -> None:
    built = codraw_charts()
    charts.findings({"CoDraw": built, "A Game Of Sorts": gos_charts(), "Minecraft": minecraft_charts()})
    no_codraw_durations(built)


def codraw_view() -> None:
    built = codraw_charts()
    no_codraw_durations(built)
    charts.show_all(built, CODRAW)


def gos_view() -> None:
    rounds, *others = gos_charts() or [None]
    charts.show(rounds, GOS)
    charts.show_all(others, GOS, columns=2)


charts.views({charts.SUMMARY_VIEW: summary_view, "CoDraw": codraw_view, "A Game Of Sorts": gos_view,
              "Minecraft": lambda: charts.show_all(minecraft_charts(), MINECRAFT, columns=2)})
