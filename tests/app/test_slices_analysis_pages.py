"""Every analysis page honours ``slice=`` (issue 37): its figures are drawn on the slice's dialogs only (the
findings' counts change with it), and the slice is set against the rest of the corpus on the page's headline
per-dialog measure with a 95% bootstrap interval of the difference, checked here against pandas on the demo
corpora. A slice the corpus cannot use is said, and the page is the unsliced one."""
from __future__ import annotations

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from data_access.corpora import demo_path, load_path

from .conftest import open_page


def findings(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def metrics(at: AppTest) -> dict[str, tuple[str, str]]:
    return {m.label: (m.value, m.delta) for m in at.metric}


def _means(corpus: str, column: str, keep) -> tuple[float, float]:
    dialogs = load_path(corpus, demo_path(corpus)).dialogs
    mask = keep(dialogs)
    values = pd.to_numeric(dialogs[column], errors="coerce")
    return float(values[mask].dropna().mean()), float(values[~mask].dropna().mean())


def _assert_contrast(at: AppTest, label: str, expected: tuple[float, float], digits: int = 2) -> None:
    shown = metrics(at)
    inside, rest = expected
    assert shown[f"{label}: the slice"][0] == f"{inside:.{digits}f}"
    assert shown[f"{label}: the rest"][0] == f"{rest:.{digits}f}"
    difference, interval = shown["Slice − rest (95% CI)"]
    assert difference == f"{inside - rest:+.{digits}f}"
    low, high = (float(v) for v in interval.split(" to "))
    assert low <= inside - rest + 10 ** -digits and high >= inside - rest - 10 ** -digits


def test_codraw_scores_figures_and_contrast_follow_the_slice():
    whole = open_page("codraw_scores")
    assert "over 40 dialogs" in findings(whole) and not whole.metric
    at = open_page("codraw_scores", slice="n_rounds >= 8")
    assert "rounds ≥ 8 · 36 dialogs" in at.info[0].value
    assert "over 36 dialogs" in findings(at) and "over 40 dialogs" not in findings(at)
    _assert_contrast(at, "Final score", _means("codraw", "final_score", lambda d: d["n_rounds"] >= 8))


def test_durations_figures_and_contrast_follow_the_slice_per_corpus():
    at = open_page("durations", slice="split = train")
    said = [i.value for i in at.info]
    assert any("CoDraw · split \\= train · 28 dialogs" in s for s in said)
    assert "(mean: train 90 s) over 3 games" in findings(at)  # Minecraft's durations on its 3 train games
    assert "(mean: train 90 s, val 62 s" in findings(open_page("durations"))
    inside, rest = _means("minecraft", "duration_s", lambda d: d["split"] == "train")
    shown = [m for m in at.metric if m.label == "Duration (s): the slice"]
    assert f"{inside:.0f}" in [m.value for m in shown]
    assert f"{rest:.0f}" in [m.value for m in at.metric if m.label == "Duration (s): the rest"]


def test_gos_outcomes_figures_and_contrast_follow_the_slice():
    at = open_page("gos_outcomes", slice="mismatches >= 6")
    assert "mismatched locks ≥ 6 · 3 dialogs" in at.info[0].value
    assert "of 3 interactions" in findings(at) and "of 6 interactions" in findings(open_page("gos_outcomes"))
    _assert_contrast(at, "Mismatched locks per interaction", _means("gos", "mismatches", lambda d: d["mismatches"] >= 6))


def test_minecraft_outcomes_figures_and_contrast_follow_the_slice():
    at = open_page("minecraft_outcomes", slice="split = train")
    assert "over 3 games" in findings(at) and "over 8 games" in findings(open_page("minecraft_outcomes"))
    _assert_contrast(at, "Block F1 to the target", _means("minecraft", "outcome_f1", lambda d: d["split"] == "train"))


def test_overview_profiles_follow_the_slice():
    whole = open_page("overview", corpora="minecraft")
    at = open_page("overview", corpora="minecraft", slice="split = train")
    assert "8 dialogs" in whole.caption[0].value or "8 dialogs" in " ".join(c.value for c in whole.caption)
    assert "3 dialogs" in " ".join(c.value for c in at.caption)
    _assert_contrast(at, "Messages per dialog", _means("minecraft", "n_utterances", lambda d: d["split"] == "train"))


@pytest.mark.parametrize("page", ["codraw_scores", "minecraft_outcomes"])
def test_a_slice_the_corpus_cannot_use_leaves_the_page_whole(page):
    at = open_page(page, slice="no_such_feature > 1")
    assert at.warning and "no feature “no\\_such\\_feature”" in at.warning[0].value
    assert not at.metric and findings(at) == findings(open_page(page))


def _peek_bars_selected() -> None:
    """The peek chart of the demo CoDraw with every bar left of 1 selected (as a box over them sends it; the demo
    has no negative gain)."""
    from unittest import mock

    import streamlit as st

    import ui.analysis.charts as charts
    import ui.shell.url_state as url_state
    from corpora.codraw.data import figures as codraw
    from data_access.corpora import demo_path, load_path
    from ui.shell.corpus_edge import resolve

    chart = codraw.peek_gain_chart(load_path("codraw", demo_path("codraw")))
    rows = [i for i, gain in enumerate(chart.data["gain"]) if gain < 1]
    event = {"selection": {"points": [{"curve_number": 0, "point_numbers": rows}]}}  # the bars' samples

    def opened(page, **params):
        st.session_state["opened"] = (page, params)

    with mock.patch.object(st, "plotly_chart", lambda *args, **kwargs: event), \
            mock.patch.object(url_state, "open_page", opened):
        charts.show(chart, resolve("codraw"))


def test_selected_histogram_bars_become_a_range_of_their_feature():
    from corpora.codraw.data.figures import peek_table
    from data_access.slices import evaluate, slice_data

    from .conftest import run_function

    at = run_function(_peek_bars_selected)
    button = next(b for b in at.button if b.label.startswith("Make a slice"))
    button.click().run()
    text = at.session_state["opened"][1]["slice"]
    loaded = load_path("codraw", demo_path("codraw"))
    gains = peek_table(loaded.dialogs)["gain"]
    assert text == "peek_gain >= 0 and peek_gain < 1", text
    assert int(evaluate(text, slice_data(loaded)).sum()) == int((gains < 1).sum()) > 0


def _trace_counts(at: AppTest) -> int:
    """The dialogs the published layer's chart counts (its traces are named "<group> (n = N)")."""
    import json
    import re

    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return sum(int(re.search(r"n = ([\d,]+)", t["name"]).group(1).replace(",", "")) for t in spec["data"])


def test_the_published_layers_charts_follow_the_slice_too():
    whole = open_page("codraw_scores", view="Clarification requests")
    at = open_page("codraw_scores", view="Clarification requests", slice="split = train")
    dialogs = load_path("codraw", demo_path("codraw")).dialogs
    train = dialogs[(dialogs["split"] == "train") & dialogs["final_score"].notna()]
    assert _trace_counts(whole) == int(dialogs["final_score"].notna().sum())
    assert _trace_counts(at) == len(train) < _trace_counts(whole)
