"""AppTest runs of the analysis pages on the demo corpora: no exception, the charts present, each with
its caption; the split filter follows the URL; a selection lists dialogs with replay links."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from .conftest import APP, open_page, run_function


def captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


def chart_titles(at: AppTest) -> list[str]:
    """Axis titles of every plotly chart on the page (to tell the charts apart)."""
    titles = []
    for chart in at.get("plotly_chart"):
        layout = json.loads(chart.proto.spec)["layout"]
        titles.append(" | ".join(str(layout.get(axis, {}).get("title", {}).get("text", ""))
                                 for axis in ("xaxis", "yaxis")))
    return titles


def test_codraw_scores_page_shows_score_and_peek_charts():
    at = open_page("codraw_scores")
    assert not at.error
    assert len(at.get("plotly_chart")) == 9  # + score by CR presence (published layer)
    text = captions(at)
    for expected in ("Score of the final drawing per split under both metrics", "Mean score (paper metric) of the drawing after each round",
                     "stored scores reproduced exactly", "Final score (paper metric) against dialog length",
                     "Change from the last drawing before the peek to the final drawing",
                     "Mean score gain from the peek", "Rounds spent after the peek",
                     "Final score of dialogs with and without a peek"):
        assert expected in text
    assert [m.label for m in at.metric] == ["Score before the peek", "Final score", "Mean change (95% CI)"]


def test_codraw_split_filter_follows_the_url():
    at = open_page("codraw_scores", split="test")
    assert at.multiselect[0].value == ["test"]
    assert "paper metric: test " in captions(at)
    assert "train " not in captions(at).split("paper metric:")[1].split(")")[0]
    at.multiselect[0].set_value(["train", "val"]).run()
    assert at.query_params["split"] == "train,val"
    assert "paper metric: train " in captions(at)
    at.multiselect[0].set_value(["train", "val", "test"]).run()
    assert "split" not in at.query_params  # all splits: a clean URL


def test_durations_page_covers_the_three_corpora():
    at = open_page("durations")
    text = captions(at)
    assert "Round duration by round number" in text
    assert "Mean time (95% CI) until each successive rank" in text
    assert "Interaction length, first to last event" in text
    assert "Minecraft game durations by split" in text
    assert "s per utterance overall" in text
    assert "CoDraw session durations" in text  # the demo CoDraw file has a stat section (the next test: without)
    assert not any("no session durations" in i.value for i in at.info)
    assert len(at.get("plotly_chart")) == 6


def test_durations_page_says_so_when_the_codraw_source_has_no_stat(tmp_path, monkeypatch):
    from data_access.corpora import demo_path

    corpus = json.loads(demo_path("codraw").read_text(encoding="utf-8"))
    corpus["stat"] = {}  # like the mirrored copy in ../shared
    without_stat = tmp_path / "CoDraw_1_0.json"
    without_stat.write_text(json.dumps(corpus), encoding="utf-8")
    monkeypatch.setenv("CODRAW_DATA", str(without_stat))
    at = open_page("durations")
    assert any("no session durations" in info.value for info in at.info)
    assert "CoDraw session durations" not in captions(at)
    assert "Round duration by round number" in captions(at)


def test_gos_outcomes_page():
    at = open_page("gos_outcomes")
    text = captions(at)
    for expected in ("Mismatches and manual unlocks per round", "Agreement between the independent rankings",
                     "Rank sums per image", "name the image the pair ranks next", "Post-game survey"):
        assert expected in text
    assert len(at.get("plotly_chart")) == 6  # + mentions per round (published layer)


def test_minecraft_outcomes_page():
    at = open_page("minecraft_outcomes")
    text = captions(at)
    for expected in ("Builder actions per utterance", "Placements against removals per game",
                     "Mean block F1 to the target", "Outcome by split"):
        assert expected in text
    assert len(at.get("plotly_chart")) == 4


def test_overview_is_the_home_page_and_compares_the_corpora():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    assert at.title[0].value == "Visually grounded dialogue dashboard"
    table = at.dataframe[0].value
    assert set(table["corpus"]) == {"CoDraw", "A Game Of Sorts", "Minecraft Collaborative Building"}
    assert (table["vocabulary"] > 0).all()
    assert len(at.get("plotly_chart")) == 5
    assert "Vocabulary size (lower-cased word types)" in captions(at)


def test_overview_corpus_filter_from_the_url():
    at = open_page("overview", corpora="gos")
    assert list(at.dataframe[0].value["corpus"]) == ["A Game Of Sorts"]


def test_a_corpus_that_fails_to_load_shows_an_error_and_the_rest_still_renders(monkeypatch, tmp_path):
    monkeypatch.setenv("MINECRAFT_DATA", str(tmp_path / "missing"))
    at = open_page("overview")
    assert any("Minecraft" in e.value for e in at.error)
    assert set(at.dataframe[0].value["corpus"]) == {"CoDraw", "A Game Of Sorts"}
    at = open_page("minecraft_outcomes")
    assert at.error and not at.get("plotly_chart")


def _selection_app():
    """A chart whose plotly selection event is faked (AppTest cannot drag in a plot)."""
    import pandas as pd
    import plotly.graph_objects as go
    import streamlit as st

    import ui.charts as charts
    from data_access.figures.charts import Chart, row_positions

    data = pd.DataFrame({"dialog_id": ["i1", "i2", "i3"], "round": [1, 2, 3], "duration_s": [10.0, 20.0, 30.0]})
    figure = go.Figure(go.Histogram(x=data["duration_s"], customdata=row_positions(data)))
    event = {"selection": {"points": [{"curve_number": 0, "point_numbers": [2, 0]}], "box": [], "lasso": []}}
    from unittest import mock

    # Patched only for this call: AppTest runs in the test process, so a plain assignment would leak
    # the fake into every later test.
    with mock.patch.object(st, "plotly_chart", lambda *args, **kwargs: event):
        charts.show(Chart("fake", figure, data, "Three rounds.", selectable=True), "gos")


def test_a_selection_lists_its_rounds_with_replay_links():
    at = run_function(_selection_app)
    assert "2 rounds selected" in at.markdown[0].value
    table = at.dataframe[0].value
    assert table["dialog_id"].tolist() == ["i3", "i1"]
    assert table["replay"].tolist() == ["/replay?corpus=gos&dialog=i3&round=3", "/replay?corpus=gos&dialog=i1&round=1"]
    assert at.caption[0].value.startswith("Three rounds.")


def test_overview_filters_round_trip_through_the_url():
    at = open_page("overview", corpora="codraw,minecraft", split="train")
    assert list(at.dataframe[0].value["corpus"]) == ["CoDraw", "Minecraft Collaborative Building"]
    assert at.multiselect(key="url_multiselect__split").value == ["train"]
    at.multiselect(key="url_multiselect__corpora").unselect("minecraft").run()
    assert at.query_params["corpora"] == "codraw" and at.query_params["split"] == "train"
    at.multiselect(key="url_multiselect__split").select("val").run()
    assert at.query_params["split"] == "train,val"


def test_overview_length_distribution_uses_a_readable_log_axis():
    at = open_page("overview")
    figure = json.loads(at.get("plotly_chart")[4].proto.spec)
    axis = figure["layout"]["yaxis"]
    assert axis["type"] == "log" and all(t.replace(",", "").isdigit() for t in axis["ticktext"])
