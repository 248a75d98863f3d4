"""Chart selections map back to the rows (dialogs) they stand for; split helpers."""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from data_access.analysis.charts import (
    Chart,
    count_phrase,
    row_positions,
    selected_rows,
    selection_table,
    trace_rows,
)
from data_access.analysis.splits import filter_splits, ordered_splits

DATA = pd.DataFrame({"dialog_id": ["a", "b", "c", "d"], "split": ["train", "test", "train", "val"],
                     "score": [1.0, 2.0, 3.0, 4.0]})


def two_trace_histogram() -> go.Figure:
    figure = go.Figure()
    for split in ("train", "test"):
        mask = DATA["split"] == split
        figure.add_trace(go.Histogram(x=DATA.loc[mask, "score"], customdata=row_positions(DATA, mask)))
    return figure


def test_row_positions_are_positions_in_the_full_frame():
    assert row_positions(DATA, DATA["split"] == "train").ravel().tolist() == [0, 2]
    assert row_positions(DATA).shape == (4, 1)


def test_trace_rows_reads_numpy_lists_and_typed_array_dicts():
    assert trace_rows(np.array([[3], [1]])).tolist() == [3, 1]
    assert trace_rows([[4], [2]]).tolist() == [4, 2] and trace_rows([5, 6]).tolist() == [5, 6]
    figure = pickle.loads(pickle.dumps(go.Figure(go.Histogram(x=[1, 2, 3], customdata=np.array([[7], [8], [9]])))))
    assert isinstance(figure.data[0].customdata, dict)  # what the cache hands out
    assert trace_rows(figure.data[0].customdata).tolist() == [7, 8, 9]
    assert trace_rows(None).size == 0 and trace_rows(["a", "b"]).size == 0


def test_histogram_bins_select_their_samples_through_the_trace_customdata():
    figure = two_trace_histogram()
    selection = {"points": [{"curve_number": 0, "point_numbers": [1]}, {"curve_number": 1, "point_numbers": [0]}]}
    assert selected_rows(figure, selection) == [2, 1]


def test_an_empty_histogram_bar_selects_nothing_despite_its_customdata():
    # What the browser sends for a bar without samples: customdata of some other sample.
    selection = {"points": [{"curve_number": 0, "x": 2.4, "y": 0, "point_numbers": [], "customdata": [3]}]}
    assert selected_rows(two_trace_histogram(), selection) == []


def test_scatter_points_report_their_own_customdata_and_duplicates_collapse():
    figure = go.Figure(go.Scatter(x=DATA["score"], y=DATA["score"], customdata=row_positions(DATA)))
    selection = {"points": [{"curve_number": 0, "point_index": 3, "customdata": [3]},
                            {"curve_number": 0, "point_index": 1},  # no customdata: looked up by index
                            {"curve_number": 0, "point_index": 3, "customdata": [3]}]}
    assert selected_rows(figure, selection) == [3, 1]


def test_selection_ignores_unknown_curves_samples_and_empty_events():
    figure = two_trace_histogram()
    assert selected_rows(figure, {"points": [{"curve_number": 1, "point_numbers": [0, 7]}]}) == [1]
    assert selected_rows(figure, {"points": [{"curve_number": 9, "point_index": 0}]}) == []
    assert selected_rows(figure, None) == [] and selected_rows(figure, {"points": []}) == []


def test_filter_splits_and_order():
    assert filter_splits(DATA, ("train",))["dialog_id"].tolist() == ["a", "c"]
    assert len(filter_splits(DATA, ())) == 4
    assert ordered_splits(["test", "warmup", "extra", "train", "val"]) == ["train", "val", "test", "warmup", "extra"]


def test_count_phrase_and_empty_chart():
    assert count_phrase(1, "dialog") == "1 dialog" and count_phrase(9151, "dialog") == "9,151 dialogs"
    assert Chart("k", go.Figure(), pd.DataFrame(), "nothing").empty


def test_selection_table_links_each_selected_dialog_into_the_replay():
    chart = Chart("k", two_trace_histogram(), DATA, "caption", selectable=True)
    table = selection_table(chart, [2, 0, 99], "codraw")
    assert table["dialog_id"].tolist() == ["c", "a"]
    assert table["replay"].tolist() == ["/replay?corpus=codraw&dialog=c", "/replay?corpus=codraw&dialog=a"]


def test_selection_table_links_rounds_when_rows_are_rounds():
    rounds = pd.DataFrame({"dialog_id": ["i1", "i2"], "round": [3, 1], "duration_s": [10.0, 20.0]})
    chart = Chart("k", go.Figure(), rounds, "caption", selectable=True)
    assert selection_table(chart, [0], "gos")["replay"].tolist() == ["/replay?corpus=gos&dialog=i1&round=3"]


def test_selection_survives_the_cache_round_trip_and_the_browser_customdata_shape():
    from ui.cached import _as_on_a_hit

    chart = Chart("k", two_trace_histogram(), DATA, "caption", selectable=True)
    first = _as_on_a_hit(chart)  # what st.cache_data's miss hands out
    cached = pickle.loads(pickle.dumps(first))  # what each hit hands out
    # Streamlit keys the chart widget by its JSON: the first run's and later runs' chart must serialise alike.
    assert cached.figure.to_json() == first.figure.to_json()
    assert selected_rows(cached.figure, {"points": [{"curve_number": 1, "point_numbers": [0]}]}) == [1]
    scatter = Chart("s", go.Figure(go.Scatter(x=DATA["score"], y=DATA["score"], customdata=row_positions(DATA))), DATA, "c")
    cached = pickle.loads(pickle.dumps(scatter))
    assert selected_rows(cached.figure, {"points": [{"curve_number": 0, "point_index": 2, "customdata": {"0": 2}}]}) == [2]
    assert selected_rows(cached.figure, {"points": [{"curve_number": 0, "point_index": 3}]}) == [3]
