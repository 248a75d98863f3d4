"""Minecraft outcomes: Builder actions per utterance, placements vs removals, block F1 to the target over
the course of a game, and the outcome by split. The page opens on a summary (each chart's finding); the
charts are a tab."""
import streamlit as st

from ui import charts
from ui.charts import minecraft_figures as minecraft
from ui.corpus_edge import drawn_by
from ui.router import ensure_routed
from ui.run_mark import stop_run

ensure_routed()

CORPUS = drawn_by(minecraft)  # this page's corpus, resolved once

st.title("Minecraft outcomes")
st.caption("Builds are compared with their target after aligning them (rotation about the vertical axis and an "
           "x/z shift), as the corpus's diff.py does. Click a bar or point to list its games.")

available = charts.corpus_splits(CORPUS)
if available is None:
    stop_run()
splits = charts.split_filter(available)
charts.slice_against_rest(CORPUS, "outcome_f1", "Block F1 to the target", splits=splits)  # with a slice= in the URL


def action_charts() -> list:
    return [charts.build(builder, CORPUS, splits) for builder in
            (minecraft.actions_per_utterance_chart, minecraft.placements_removals_chart)]


def outcome_charts() -> list:
    return [charts.build(builder, CORPUS, splits) for builder in (minecraft.f1_progress_chart, minecraft.outcome_chart)]


charts.views({
    charts.SUMMARY_VIEW: lambda: charts.findings({"Builder actions": action_charts(), "Outcomes": outcome_charts()}),
    "Builder actions": lambda: charts.show_all(action_charts(), CORPUS, columns=2),
    "Outcomes": lambda: charts.show_all(outcome_charts(), CORPUS),
})
