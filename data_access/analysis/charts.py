"""The chart bundle every analysis builder returns, and the pure helpers behind chart selections.

A ``Chart`` is a plotly figure plus the frame it was drawn from (offered as CSV) and its one-line
caption. When the figure's points or bars stand for dialogs (or rounds), each such trace carries, in
``customdata``, the row positions in ``Chart.data`` of the rows it draws; ``selected_rows`` turns a
Streamlit selection event back into those rows, whatever the trace type (scatter points carry one row,
histogram bars the rows of their bin).
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..links import replay_link

# Colours per split / group, shared so that a split looks the same on every page.
SPLIT_COLOURS = {"train": "#4C78A8", "val": "#F58518", "test": "#54A24B", "warmup": "#B279A2", "all": "#4C78A8"}
PALETTE = ["#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#EECA3B", "#9D755D"]
PLOT_HEIGHT = 360


@dataclass
class Chart:
    """One figure with what the page needs around it."""

    key: str  # stable identifier: widget keys and the CSV file name
    figure: go.Figure
    data: pd.DataFrame  # the numbers behind the figure
    caption: str  # one line: what it shows and on how many dialogs
    selectable: bool = False  # traces carry row positions of ``data`` in customdata; rows have dialog_id
    # For charts of aggregates (a bar = a mean over many rounds): the rows behind the bars, each with
    # dialog_id (and round) and the ``group`` of the bar it counts in; the traces' customdata then holds
    # each bar's group instead of a row position. Setting it makes the chart selectable.
    drill: Optional[pd.DataFrame] = None
    # For a histogram whose selected bars a slice says as ranges of a feature (``slices.builders.bars_node``): the
    # slice feature, its column in ``data``, the bars' width and an edge of a bar.
    bars: Optional[tuple[str, str, float, float]] = None

    def __post_init__(self):
        if self.drill is not None:
            self.selectable = True

    @property
    def empty(self) -> bool:
        return self.data.empty


def split_colour(split: str, index: int = 0) -> str:
    return SPLIT_COLOURS.get(split, PALETTE[index % len(PALETTE)])


def row_positions(frame: pd.DataFrame, mask: Optional[pd.Series] = None) -> np.ndarray:
    """customdata for a trace drawing ``frame[mask]``: each point's row position in ``frame``, as (n, 1)."""
    positions = np.arange(len(frame), dtype=np.int32)
    if mask is not None:
        positions = positions[np.asarray(mask, dtype=bool)]
    return positions.reshape(-1, 1)


def trace_rows(customdata: Any) -> np.ndarray:
    """The row positions a trace's customdata holds, one per point (empty when it holds none).

    A figure that went through pickle (as the cache hands it out) keeps numpy customdata as plotly's
    typed-array dict ({"dtype", "bdata", "shape"}), so that form is decoded too."""
    if customdata is None:
        return np.empty(0, dtype=np.int64)
    if isinstance(customdata, Mapping) and "bdata" in customdata:
        array = np.frombuffer(base64.b64decode(customdata["bdata"]), dtype=np.dtype(customdata["dtype"]))
    else:
        array = np.asarray(customdata)
    if array.ndim == 0 or array.size == 0 or not np.issubdtype(array.dtype, np.number):
        return np.empty(0, dtype=np.int64)
    points = len(customdata) if isinstance(customdata, (list, tuple, np.ndarray)) else None
    shape = customdata.get("shape") if isinstance(customdata, Mapping) else None
    if shape:
        points = int(str(shape).split(",")[0])
    columns = array.size // points if points else 1
    return array.reshape(-1, columns)[:, 0].astype(np.int64)


def ci_error_bars(mean, low, high, thickness: Optional[float] = None) -> dict:
    """Plotly ``error_y`` for a mean with its (asymmetric) 95% CI; no bar where the CI is undefined."""
    bars = {"type": "data", "symmetric": False, "array": (high - mean).fillna(0), "arrayminus": (mean - low).fillna(0)}
    if thickness is not None:
        bars["thickness"] = thickness
    return bars


def style(figure: go.Figure, title: str = "", x: str = "", y: str = "", height: int = PLOT_HEIGHT,
          legend: bool = True) -> go.Figure:
    """The look every analysis figure shares: compact margins, axis titles, legend on top."""
    figure.update_layout(
        title={"text": title} if title else None, height=height, margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        showlegend=legend, legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
    )  # no dragmode: Streamlit then lets a click select a point or bar (box and lasso stay in the toolbar)
    if x:
        figure.update_xaxes(title_text=x)
    if y:
        figure.update_yaxes(title_text=y)
    return figure


def log_ticks(low: float, high: float) -> list[float]:
    """1-2-5 tick values covering [low, high] (both > 0), for a log axis whose labels are whole numbers."""
    low, high = max(float(low), 1e-9), max(float(high), 1e-9)
    ticks: list = []
    exponent = int(np.floor(np.log10(low)))
    while True:
        for mantissa in (1, 2, 5):
            value = mantissa * 10.0 ** exponent
            if value > high * 1.5:
                return ticks or [low]
            if value >= low / 1.5:
                ticks.append(value)
        exponent += 1


def readable_log_axis(figure: go.Figure, values: Iterable[float], axis: str = "y") -> go.Figure:
    """A log ``axis`` labelled with plain numbers at 1-2-5 steps ("200", "1,000"), not plotly's bare
    mantissas ("2" meaning 200)."""
    positive = [float(v) for v in values if v is not None and not pd.isna(v) and float(v) > 0]
    if not positive:
        return figure
    ticks = log_ticks(min(positive), max(positive))
    labels = [f"{t:,.0f}" if t >= 1 else f"{t:g}" for t in ticks]
    update = figure.update_yaxes if axis == "y" else figure.update_xaxes
    update(type="log", tickmode="array", tickvals=ticks, ticktext=labels, minor={"showgrid": False})
    return figure


def empty_chart(key: str, caption: str) -> Chart:
    """A placeholder when the filtered data has nothing to draw (the page shows the caption as a note)."""
    return Chart(key, style(go.Figure()), pd.DataFrame(), caption)


def _as_index_list(value: Any) -> list[int]:
    if value is None:
        return []
    if isinstance(value, (list, tuple, np.ndarray)):
        return [int(v) for v in value if v is not None]
    return [int(value)]


def _point_row(custom: Any) -> Optional[int]:
    """The row position in one point's customdata as the browser reports it: [row], row or {"0": row}."""
    if isinstance(custom, Mapping):
        custom = custom.get("0", custom.get(0))
    if isinstance(custom, (list, tuple, np.ndarray)):
        custom = custom[0] if len(custom) else None
    try:
        return int(custom) if custom is not None else None
    except (TypeError, ValueError):
        return None


def selected_rows(figure: go.Figure, selection: Optional[Mapping]) -> list[int]:
    """Row positions (into ``Chart.data``) of the points a Streamlit plotly selection picked, in order, unique.

    Scatter points report their own customdata; histogram bars report the sample indices of their bin
    (``point_numbers``), looked up in the trace's customdata."""
    if not selection:
        return []
    points = selection.get("points") or []
    traces = figure.data
    rows: list[int] = []
    for point in points:
        curve = point.get("curve_number", point.get("curveNumber"))
        known = curve is not None and 0 <= int(curve) < len(traces)
        positions = trace_rows(traces[int(curve)].customdata) if known else np.empty(0, dtype=np.int64)
        if "point_numbers" in point or "pointNumbers" in point:
            # A histogram bar stands for its samples; the customdata the browser sends with a bar (even
            # an empty one) is just one sample's.
            samples = _as_index_list(point.get("point_numbers", point.get("pointNumbers")))
            rows += [int(positions[s]) for s in samples if 0 <= s < len(positions)]
            continue
        row = _point_row(point.get("customdata"))
        index = point.get("point_index", point.get("point_number", point.get("pointIndex")))
        if row is None and index is not None and 0 <= int(index) < len(positions):
            row = int(positions[int(index)])
        if row is not None:
            rows.append(row)
    return list(dict.fromkeys(rows))


def selection_table(chart: Chart, rows: Sequence[int], corpus: str) -> pd.DataFrame:
    """The selected rows of ``chart.data`` (or, for a chart of aggregates, the ``drill`` rows of the
    selected bars' groups) with a replay link first (to the round, where rows are rounds)."""
    if chart.drill is not None:
        wanted = set(int(r) for r in rows)
        table = chart.drill[chart.drill["group"].isin(wanted)].drop(columns=["group"]).copy()
        table = table.drop_duplicates().reset_index(drop=True)
    else:
        table = chart.data.iloc[[r for r in rows if 0 <= r < len(chart.data)]].copy()
    rounds = table["round"] if "round" in table else [None] * len(table)
    links = [replay_link(corpus, str(dialog), round=None if r is None or pd.isna(r) else int(r))
             for dialog, r in zip(table["dialog_id"], rounds)]
    table.insert(0, "replay", links)
    return table


def count_phrase(n: int, singular: str, plural: Optional[str] = None) -> str:
    """'1 dialog' / '9,151 dialogs'."""
    return f"{n:,} {singular if n == 1 else (plural or singular + 's')}"
