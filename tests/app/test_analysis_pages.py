"""AppTest runs of the analysis pages on the demo corpora: no exception; each opens on a summary of its
charts' findings and draws no chart there; each view (a tab in the URL) has its charts, each with its
caption; the split filter follows the URL; a selection lists dialogs with replay links."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from .conftest import APP, markdown_table, open_page, run_function


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


CODRAW_SCORES = ("Score of the final drawing per split under both metrics", "Mean score (paper metric) of the drawing after each round",
                 "stored scores reproduced exactly", "Final score (paper metric) against dialog length")
CODRAW_PEEKS = ("Change from the last drawing before the peek to the final drawing", "Mean score gain from the peek",
                "Rounds spent after the peek", "Final score of dialogs with and without a peek")


def findings(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_codraw_scores_page_opens_on_a_summary_of_its_findings():
    at = open_page("codraw_scores")
    assert not at.error and not at.get("plotly_chart")
    assert [t.label for t in at.tabs] == ["Summary", "Scores", "Peek effects", "Clarification requests"]
    for expected in CODRAW_SCORES + CODRAW_PEEKS:
        assert expected in findings(at)


def test_codraw_scores_views_draw_score_and_peek_charts():
    at = open_page("codraw_scores", view="Scores")
    assert len(at.get("plotly_chart")) == 4
    assert all(expected in captions(at) for expected in CODRAW_SCORES)
    at = open_page("codraw_scores", view="Peek effects")
    assert len(at.get("plotly_chart")) == 4
    assert all(expected in captions(at) for expected in CODRAW_PEEKS)
    assert [m.label for m in at.metric] == ["Score before the peek", "Final score", "Mean change (95% CI)"]


def test_an_unknown_view_in_the_url_opens_the_summary():
    at = open_page("codraw_scores", view="<script>")
    assert not at.get("plotly_chart") and "Score of the final drawing" in findings(at)


def test_codraw_split_filter_follows_the_url():
    at = open_page("codraw_scores", split="test", view="Scores")
    split_filter = at.button_group(key="url_filter__split")
    assert split_filter.value == ["test"]
    assert "paper metric: test " in captions(at)
    assert "train " not in captions(at).split("paper metric:")[1].split(")")[0]
    split_filter.set_value(["train", "val"]).run()
    assert at.query_params["split"] == "train,val" and at.query_params["view"] == "Scores"
    assert "paper metric: train " in captions(at)
    at.button_group(key="url_filter__split").set_value(["train", "val", "test"]).run()
    assert "split" not in at.query_params  # all splits: a clean URL


DURATIONS = {"CoDraw": ("CoDraw session durations",),  # the demo CoDraw file has a stat section (the next test: without)
             "A Game Of Sorts": ("Round duration by round number", "Mean time (95% CI) until each successive rank",
                                 "Interaction length, first to last event"),
             "Minecraft": ("Minecraft game durations by split", "s per utterance overall")}


def test_durations_page_covers_the_three_corpora():
    at = open_page("durations")
    assert not at.get("plotly_chart")
    assert all(expected in findings(at) for found in DURATIONS.values() for expected in found)
    for view, expected in DURATIONS.items():
        at = open_page("durations", view=view)
        assert len(at.get("plotly_chart")) == len(expected)
        assert all(caption in captions(at) for caption in expected)
        assert not any("no session durations" in i.value for i in at.info)


def test_durations_page_says_so_when_the_codraw_source_has_no_stat(tmp_path, monkeypatch):
    from data_access.corpora import demo_path

    corpus = json.loads(demo_path("codraw").read_text(encoding="utf-8"))
    corpus["stat"] = {}  # like the mirrored copy in ../shared
    without_stat = tmp_path / "CoDraw_1_0.json"
    without_stat.write_text(json.dumps(corpus), encoding="utf-8")
    monkeypatch.setenv("CODRAW_DATA", str(without_stat))
    at = open_page("durations")
    assert any("no session durations" in info.value for info in at.info)
    assert "CoDraw session durations" not in findings(at)
    assert "Round duration by round number" in findings(at)
    at = open_page("durations", view="CoDraw")
    assert any("no session durations" in info.value for info in at.info) and not at.get("plotly_chart")


GOS_OUTCOMES = {"Locks": ("Mismatches and manual unlocks per round",),
                "Agreement between rankings": ("Agreement between the independent rankings", "Rank sums per image"),
                "Messages and rankings": ("name the image the pair ranks next", "Post-game survey"),
                "Mentions": ("Mentions of the published layer per round",)}


def test_gos_outcomes_page():
    at = open_page("gos_outcomes")
    assert not at.get("plotly_chart")
    assert all(expected in findings(at) for view, found in GOS_OUTCOMES.items() if view != "Mentions" for expected in found)
    for view, expected in GOS_OUTCOMES.items():
        at = open_page("gos_outcomes", view=view)
        assert len(at.get("plotly_chart")) == len(expected), view
        assert all(caption in captions(at) for caption in expected)


def test_minecraft_outcomes_page():
    expected = {"Builder actions": ("Builder actions per utterance", "Placements against removals per game"),
                "Outcomes": ("Mean block F1 to the target", "Outcome by split")}
    at = open_page("minecraft_outcomes")
    assert not at.get("plotly_chart")
    assert all(caption in findings(at) for found in expected.values() for caption in found)
    for view, found in expected.items():
        at = open_page("minecraft_outcomes", view=view)
        assert len(at.get("plotly_chart")) == 2 and all(caption in captions(at) for caption in found)


def test_overview_is_the_home_page_and_compares_the_corpora():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    assert at.title[0].value == "Visually grounded dialogue dashboard"
    table = markdown_table(at)
    assert set(table["Corpus"]) == {"CoDraw", "A Game Of Sorts", "Minecraft Collaborative Building"}
    assert (table["vocabulary"] > 0).all()
    assert not at.get("plotly_chart") and not at.dataframe  # the first screen: no chart, no data grid
    at = open_page("overview", view="Charts")
    assert len(at.get("plotly_chart")) == 5
    assert "Vocabulary size (lower-cased word types)" in captions(at)


def test_overview_table_names_and_explains_every_column():
    table = markdown_table(open_page("overview"))
    assert list(table.columns) == ["Corpus", "dialogs", "messages", "messages / dialog", "median messages / dialog",
                                   "tokens / message", "tokens", "vocabulary", "replay steps"]


def test_overview_corpus_filter_from_the_url():
    at = open_page("overview", corpora="gos")
    assert list(markdown_table(at)["Corpus"]) == ["A Game Of Sorts"]


def test_a_corpus_that_fails_to_load_shows_an_error_and_the_rest_still_renders(monkeypatch, tmp_path):
    monkeypatch.setenv("MINECRAFT_DATA", str(tmp_path / "missing"))
    at = open_page("overview")
    assert any("Minecraft" in e.value for e in at.error)
    assert set(markdown_table(at)["Corpus"]) == {"CoDraw", "A Game Of Sorts"}
    at = open_page("minecraft_outcomes")
    assert at.error and not at.get("plotly_chart")


def _selection_app():
    """A chart whose plotly selection event is faked (AppTest cannot drag in a plot)."""
    import pandas as pd
    import plotly.graph_objects as go
    import streamlit as st

    import ui.analysis.charts as charts
    from data_access.analysis.charts import Chart, row_positions
    from ui.shell.corpus_edge import resolve

    data = pd.DataFrame({"dialog_id": ["i1", "i2", "i3"], "round": [1, 2, 3], "duration_s": [10.0, 20.0, 30.0]})
    figure = go.Figure(go.Histogram(x=data["duration_s"], customdata=row_positions(data)))
    event = {"selection": {"points": [{"curve_number": 0, "point_numbers": [2, 0]}], "box": [], "lasso": []}}
    from unittest import mock

    # Patched only for this call: AppTest runs in the test process, so a plain assignment would leak
    # the fake into every later test.
    with mock.patch.object(st, "plotly_chart", lambda *args, **kwargs: event):
        charts.show(Chart("fake", figure, data, "Three rounds.", selectable=True), resolve("gos"))


def test_a_selection_lists_its_rounds_with_replay_links():
    at = run_function(_selection_app)
    assert "2 rounds selected" in at.markdown[0].value
    table = at.dataframe[0].value
    assert table["dialog_id"].tolist() == ["i3", "i1"]
    assert table["replay"].tolist() == ["/replay?corpus=gos&dialog=i3&round=3", "/replay?corpus=gos&dialog=i1&round=1"]
    assert at.caption[0].value.startswith("Three rounds.")


def test_overview_filters_round_trip_through_the_url():
    at = open_page("overview", corpora="codraw,minecraft", split="train")
    assert list(markdown_table(at)["Corpus"]) == ["CoDraw", "Minecraft Collaborative Building"]
    assert at.button_group(key="url_filter__split").value == ["train"]
    at.button_group(key="url_filter__corpora").unselect("minecraft").run()
    assert at.query_params["corpora"] == "codraw" and at.query_params["split"] == "train"
    at.button_group(key="url_filter__split").select("val").run()
    assert at.query_params["split"] == "train,val"


def test_overview_length_distribution_uses_a_readable_log_axis():
    at = open_page("overview", view="Charts")
    figure = json.loads(at.get("plotly_chart")[4].proto.spec)
    axis = figure["layout"]["yaxis"]
    assert axis["type"] == "log" and all(t.replace(",", "").isdigit() for t in axis["ticktext"])
