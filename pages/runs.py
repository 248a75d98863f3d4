"""Runs: model outputs scored with each corpus's own metric, compared with each other and with the humans,
sliced by the corpus's domain features, and ranked in a leaderboard. Deep link: /runs?corpus=codraw, one view
of it: &view=Slice+finder."""
import streamlit as st

from ui import cached
from ui.runs.leaderboard import leaderboard_section, problems_section
from ui.runs.picker import loaded_runs
from ui.runs.sections import (
    collisions_box,
    comparison_section,
    keep_view_choices,
    metrics_section,
    slice_section,
    upload_box,
    uploads_box,
)
from ui.runs.worst_cases import worst_cases_section
from ui.shell.corpus_edge import corpus_selector
from ui.shell.router import ensure_routed
from ui.slices.charts import said_selection
from ui.widgets import views

ensure_routed()

st.title("Model runs")
corpus = corpus_selector("runs_corpus")
if cached.corpus_ready(corpus):
    upload_box(corpus)
    uploads_box(corpus)
    collisions_box(corpus)
    runs = loaded_runs(corpus)
    if not runs:
        st.info(f"No runs of {corpus.title} yet: upload one above or set DIALOGUE_RUNS_DIR.")
    else:
        keep_view_choices(corpus)
        chosen = said_selection(corpus)  # with a slice= in the URL: every view on its dialogs only
        views({
            "Leaderboard": lambda: leaderboard_section(corpus, runs, chosen),
            "Runs × metrics": lambda: metrics_section(corpus, runs, chosen),
            "Compare two runs": lambda: comparison_section(corpus, runs, chosen),
            "Slice finder": lambda: slice_section(corpus, runs, chosen),
            "Worst cases first": lambda: worst_cases_section(corpus, runs, chosen),
        })
        problems_section(corpus, runs)
