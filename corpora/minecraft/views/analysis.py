"""Minecraft's analysis page, "Minecraft outcomes" (``pages/minecraft_outcomes.py``): Builder actions per utterance,
placements vs removals, block F1 to the target over the course of a game, and the outcome by split. The page opens
on a summary (each chart's finding); the charts are a tab. Also its part of the Durations page (the charts and how its tab shows them)."""
from __future__ import annotations

from typing import Optional

import streamlit as st

from corpora.minecraft.data import figures as minecraft
from dialogue_dashboard.plugin.views import Corpus, charts, stop_run


def show(corpus: Corpus) -> None:
    """The page's body, on ``corpus`` (this corpus, resolved)."""
    st.title("Minecraft outcomes")
    st.caption("Builds are compared with their target after aligning them (rotation about the vertical axis and an "
               "x/z shift), as the corpus's diff.py does. Click a bar or point to list its games.")
    available = charts.corpus_splits(corpus)
    if available is None:
        stop_run()
    splits = charts.split_filter(available)
    charts.slice_against_rest(corpus, "outcome_f1", "Block F1 to the target", splits=splits)  # with a slice= in the URL

    def action_charts() -> list:
        return [charts.build(builder, corpus, splits) for builder in
                (minecraft.actions_per_utterance_chart, minecraft.placements_removals_chart)]

    def outcome_charts() -> list:
        return [charts.build(builder, corpus, splits) for builder in
                (minecraft.f1_progress_chart, minecraft.outcome_chart)]

    charts.views({
        charts.SUMMARY_VIEW: lambda: charts.findings({"Builder actions": action_charts(), "Outcomes": outcome_charts()}),
        "Builder actions": lambda: charts.show_all(action_charts(), corpus, columns=2),
        "Outcomes": lambda: charts.show_all(outcome_charts(), corpus),
    })


def duration_charts(corpus: Corpus, splits: Optional[tuple]) -> list:
    if splits is None:
        return []
    return [charts.build(builder, corpus, splits) for builder in
            (minecraft.duration_chart, minecraft.seconds_per_utterance_chart)]


def show_durations(corpus: Corpus, built: list, splits: Optional[tuple]) -> None:
    charts.show_all(built, corpus, columns=2)

