"""The Browse page's range filters: one range slider per numeric column, each kept in the URL as
``<column>=low..high`` (either end may be open); a slider at its full range filters nothing."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from data_access.browse import COLUMN_HELP, column_bounds, format_range, numeric_columns, parse_range
from data_access.links import parse_positive_int
from ui.url_state import drop_params, query_param, set_url

ROW_HEIGHT = 35
MAX_VISIBLE_ROWS = 20


def table_height(n_rows: int) -> int:
    """Room for up to 20 rows (the default shows 10) plus the header."""
    return (min(max(n_rows, 1), MAX_VISIBLE_ROWS) + 1) * ROW_HEIGHT + 3


def _requested(column: str):
    wanted = parse_range(query_param(column))
    if wanted is None and column == "n_turns":  # the older min_turns / max_turns links
        low, high = parse_positive_int(query_param("min_turns")), parse_positive_int(query_param("max_turns"))
        if low or high:
            wanted = (low, high)
        drop_params("min_turns", "max_turns")
    return wanted


def range_filters(table: pd.DataFrame, corpus: str) -> tuple[tuple[str, float | None, float | None], ...]:
    """Sliders for every numeric column of ``table``; returns the active ranges (column, low, high)."""
    columns = [c for c in numeric_columns(table) if c != "notes"]
    active = [c for c in columns if query_param(c) or (c == "n_turns" and (query_param("min_turns") or query_param("max_turns")))]
    ranges = []
    with st.expander(f"Range filters ({len(active)} active)" if active else "Range filters", expanded=bool(active)):
        grid = st.columns(3)
        for index, column in enumerate(columns):
            low, high, integral = column_bounds(table[column])
            if low == high:
                continue
            key = f"browse_range_{corpus}_{column}"
            if key not in st.session_state:
                wanted = _requested(column) or (None, None)
                start = low if wanted[0] is None else min(max(wanted[0], low), high)
                end = high if wanted[1] is None else min(max(wanted[1], low), high)
                st.session_state[key] = (int(start), int(end)) if integral else (float(start), float(end))
            bounds = (int(low), int(high)) if integral else (low, high)
            chosen = grid[index % 3].slider(column, *bounds, key=key, step=1 if integral else 0.01,
                                            help=COLUMN_HELP.get(column))
            full = (float(chosen[0]) <= low and float(chosen[1]) >= high)
            if full:
                set_url(**{column: None})
                continue
            lo = None if float(chosen[0]) <= low else float(chosen[0])
            hi = None if float(chosen[1]) >= high else float(chosen[1])
            set_url(**{column: format_range(lo, hi)})
            ranges.append((column, lo, hi))
        hidden = table[columns].isna().any()
        if hidden.any():
            st.caption("A range on a column excludes the dialogs without a value in it: "
                       + ", ".join(c for c in columns if hidden[c]) + ".")
    return tuple(ranges)
