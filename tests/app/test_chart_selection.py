"""Chart selection (issue 11, item 4): a click selects (no drag mode that turns clicks into hovers), every
selected dialog is listed page by page with its replay link (no cut at 500), and the Game Of Sorts
outcome charts of aggregates drill through to the rounds behind a bar."""
from __future__ import annotations

from corpora.codraw.data import figures as codraw
from corpora.gos.data import figures as gos
from corpora.gos.data.view import image_short_labels
from data_access.analysis.charts import selected_rows, selection_table
from data_access.corpora import demo_path, load_path

from .conftest import run_function


def _many_selected_app():
    """1,234 points, all selected (the browser would send them after a box or lasso)."""
    from unittest import mock

    import pandas as pd  # AppTest runs this body as its own script: imports stay inside
    import plotly.graph_objects as go
    import streamlit as st

    import ui.analysis.charts as charts
    from data_access.analysis.charts import Chart, row_positions
    from ui.shell.corpus_edge import resolve

    data = pd.DataFrame({"dialog_id": [f"train_{i:05d}" for i in range(1234)], "score": range(1234)})
    figure = go.Figure(go.Scatter(x=data["score"], y=data["score"], mode="markers", customdata=row_positions(data)))
    event = {"selection": {"points": [{"curve_number": 0, "point_index": i, "customdata": [i]} for i in range(1234)]}}
    with mock.patch.object(st, "plotly_chart", lambda *args, **kwargs: event):
        charts.show(Chart("many", figure, data, "Many dialogs.", selectable=True), resolve("codraw"))


def test_every_selected_dialog_is_listed_page_by_page():
    at = run_function(_many_selected_app)
    assert "1,234 dialogs selected" in at.markdown[0].value and "1 to 50 listed" in at.markdown[0].value
    pager = at.number_input(key="selection_page__many")
    assert pager.max == 25
    pager.set_value(25).run()
    table = at.dataframe[0].value
    assert table["dialog_id"].tolist() == [f"train_{i:05d}" for i in range(1200, 1234)]
    assert table["replay"].iloc[-1] == "/replay?corpus=codraw&dialog=train_01233"
    assert "Click a bar or point" in at.caption[0].value


def test_charts_let_a_click_select():
    loaded = load_path("codraw", demo_path("codraw"))
    chart = codraw.score_vs_length_chart(loaded, ())
    assert chart.selectable and chart.figure.layout.dragmode is None  # "select" made Streamlit ignore clicks


def test_gos_outcome_bars_drill_through_to_their_rounds():
    loaded = load_path("gos", demo_path("gos"))
    rounds = loaded.frames["rounds"]
    chart = gos.lock_outcome_chart(loaded)
    assert chart.selectable
    # a click on the "round 2" bar of the mismatches trace
    rows = selected_rows(chart.figure, {"points": [{"curve_number": 0, "point_index": 1, "customdata": [2]}]})
    table = selection_table(chart, rows, "gos")
    assert sorted(table["dialog_id"]) == sorted(rounds.loc[rounds["round"] == 2, "interaction_id"])
    assert set(table["round"]) == {2} and table["replay"].str.contains("&round=2").all()

    chart = gos.next_rank_reference_chart(loaded)
    rows = selected_rows(chart.figure, {"points": [{"curve_number": 0, "point_index": 0, "customdata": [0, 99]}]})
    table = selection_table(chart, rows, "gos")  # the "all" bar: every round with a referring message
    assert len(table) > 4 and table["messages"].sum() == int(chart.data.iloc[0]["messages"])

    chart = gos.board_agreement_chart(loaded)
    if not chart.empty:
        rows = selected_rows(chart.figure, {"points": [{"curve_number": 1, "point_index": 0, "customdata": [0]}]})
        table = selection_table(chart, rows, "gos")
        assert set(table["board_id"]) == {chart.data.iloc[0]["board_id"]} and len(table) == chart.data.iloc[0]["rankings"]


def test_a_rank_sum_cell_drills_through_to_the_rounds_that_ranked_its_image():
    loaded = load_path("gos", demo_path("gos"))
    ranks = loaded.frames["ranks"]
    chart = gos.rank_sum_chart(loaded)
    assert chart.selectable and chart.figure.data[1].type == "scatter"  # the heatmap's selectable cells
    cells = chart.figure.data[1]
    # a click on the third cell (as the browser reports a point: its customdata)
    rows = selected_rows(chart.figure, {"points": [{"curve_number": 1, "point_index": 2, "customdata": list(cells.customdata[2])}]})
    table = selection_table(chart, rows, "gos")
    image = cells.text[2]
    board = table["board_id"].iloc[0]
    labels = image_short_labels(loaded)  # the tiles' labels, which the cells show
    (image_id,) = {i for i in ranks.loc[ranks["board_id"] == board, "image_id"] if labels.get(i, i) == image}
    expected = ranks[(ranks["board_id"] == board) & (ranks["image_id"] == image_id)]
    assert len(table) == len(expected) > 1 and set(table["image"]) == {image}
    assert table["rank"].sum() == cells.customdata[2][1]  # the cell's rank sum, from the rounds listed
    assert table["replay"].str.contains("&round=").all()


def test_a_chart_selection_is_one_click_from_its_slice():
    from data_access.slices import parse

    def app():
        from tests.app.test_chart_selection import _selected_body

        _selected_body(30)

    at = run_function(app)
    button = next(b for b in at.button if b.label.startswith("Make a slice"))
    assert button.label == "Make a slice of these 30 dialogs"
    button.click().run()
    page, params = at.session_state["opened"]
    assert page == "pages/slices.py" and params["corpus"] == "codraw"
    assert parse(params["slice"]).values == tuple(f"train_{i:05d}" for i in range(30))

    def too_many():
        from tests.app.test_chart_selection import _selected_body

        _selected_body(2500)

    at = run_function(too_many)
    assert not [b for b in at.button if b.label.startswith("Make a slice")]
    assert any("too many for a slice" in c.value for c in at.caption)


def _selected_body(count: int) -> None:
    """A selectable chart of ``count`` dialogs, all selected (as a box or lasso sends them)."""
    from unittest import mock

    import pandas as pd
    import plotly.graph_objects as go
    import streamlit as st

    import ui.analysis.charts as charts
    import ui.shell.url_state as url_state
    from data_access.analysis.charts import Chart, row_positions
    from ui.shell.corpus_edge import resolve

    data = pd.DataFrame({"dialog_id": [f"train_{i:05d}" for i in range(count)], "score": range(count)})
    figure = go.Figure(go.Scatter(x=data["score"], y=data["score"], mode="markers", customdata=row_positions(data)))
    event = {"selection": {"points": [{"curve_number": 0, "point_index": i, "customdata": [i]} for i in range(count)]}}

    def opened(page, **params):  # this test's app has no Slices page to switch to: the click is written down
        st.session_state["opened"] = (page, params)

    with mock.patch.object(st, "plotly_chart", lambda *args, **kwargs: event), \
            mock.patch.object(url_state, "open_page", opened):
        charts.show(Chart("chosen", figure, data, "Chosen dialogs.", selectable=True), resolve("codraw"))
