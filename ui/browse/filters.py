"""The Browse page's range filters: one range slider per numeric column, each kept in the URL as
``<column>=low..high`` (either end may be open); a slider at its full range filters nothing.

The Browse page's table and its filter (``browse_table``, ``DialogFilter``, ``apply_filter``) are handed
to the page from here, so that pages import no data_access module."""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from data_access.browse import (
    COLUMN_HELP,
    column_bounds,
    fit_range,
    format_range,
    numeric_columns,
    parse_range,
    sort_table,
)
from data_access.browse import COMMON_COLUMNS as COMMON_COLUMNS
from data_access.browse import DialogFilter as DialogFilter
from data_access.browse import apply_filter as apply_filter
from data_access.browse import browse_table as browse_table
from data_access.browse import with_note_counts as with_note_counts
from data_access.common import COLUMN_LABELS
from data_access.corpus import Corpus
from data_access.links import parse_positive_int
from ui.shell.url_state import drop_params, linked, publish, query_param, set_url, url_choice, url_toggle
from ui.widgets import md_escape

ROW_HEIGHT = 35
MAX_VISIBLE_ROWS = 20


def table_height(n_rows: int) -> int:
    """Room for up to 20 rows (the default shows 10) plus the header."""
    return (min(max(n_rows, 1), MAX_VISIBLE_ROWS) + 1) * ROW_HEIGHT + 3


def _requested(column: str) -> tuple[Optional[tuple[Optional[float], Optional[float]]], Optional[str]]:
    """The link's range on ``column``: (parsed range or None when malformed, the link's text or None when absent)."""
    text = query_param(column)
    if text is not None or column != "n_steps":
        return parse_range(text), None if text is None else f"{column}={text}"
    # the older min_turns / max_turns links
    given = {name: query_param(name) for name in ("min_turns", "max_turns") if query_param(name) is not None}
    drop_params("min_turns", "max_turns")
    if not given:
        return None, None
    low, high = (parse_positive_int(given.get(name)) for name in ("min_turns", "max_turns"))
    link = "&".join(f"{name}={value}" for name, value in given.items())
    if any(parse_positive_int(value) is None for value in given.values()):
        return None, link  # one malformed end: the whole range is ignored (with a warning), not half of it
    return (low, high), link


def range_filters(table: pd.DataFrame, corpus: Corpus, column_help: Optional[dict[str, str]] = None
                  ) -> tuple[tuple[str, float | None, float | None], ...]:
    """Sliders for every numeric column of ``table``; returns the active ranges (column, low, high).
    ``column_help``: the help of columns the corpus does not name (a run's columns), already escaped; such a
    column's name (user-supplied: a run's) is escaped for its slider's label.

    A slider takes the link's range when it is first shown and whenever the URL's range is not the one it last
    wrote (Back, a link); a range the link states badly (malformed, reversed, past the column's values …) is
    swapped, opened or ignored as ``fit_range`` says, with a warning above."""
    columns = [c for c in numeric_columns(table) if c != "notes"]
    sliders = {}  # column → (low, high, integral) of each column with a slider (more than one value)
    for column in columns:
        low, high, integral = column_bounds(table[column])
        key = f"browse_range_{corpus.name}_{column}"
        if key in st.session_state and linked(key) == query_param(column):
            sliders[column] = (low, high, integral)
            continue
        fitted = fit_range(*_requested(column), COLUMN_LABELS.get(column, column), low, high, integral)
        if fitted.warning:
            st.warning(md_escape(fitted.warning), icon="⚠️")
        if low == high:  # one value, no slider: a range either keeps every dialog (no filter) or none (ignored)
            set_url(**{column: None})
            continue
        start, end = fitted.value or (low, high)
        st.session_state[key] = (int(start), int(end)) if integral else (float(start), float(end))
        sliders[column] = (low, high, integral)
    active = [c for c, (low, high, _) in sliders.items()
              if not _full(st.session_state[f"browse_range_{corpus.name}_{c}"], low, high)]
    ranges = []
    with st.expander(f"Range filters ({len(active)} active)" if active else "Range filters", expanded=bool(active)):
        grid = st.columns(3)
        for index, (column, (low, high, integral)) in enumerate(sliders.items()):
            bounds = (int(low), int(high)) if integral else (low, high)
            key = f"browse_range_{corpus.name}_{column}"
            label = COLUMN_LABELS.get(column) or (column if column in COLUMN_HELP else md_escape(column))
            chosen = grid[index % 3].slider(label, *bounds, key=key,  # type: ignore[call-overload]
                                            step=1 if integral else 0.01,
                                            help=COLUMN_HELP.get(column) or (column_help or {}).get(column))
            if _full(chosen, low, high):
                publish(key, column, None)
                continue
            lo = None if float(chosen[0]) <= low else float(chosen[0])
            hi = None if float(chosen[1]) >= high else float(chosen[1])
            publish(key, column, format_range(lo, hi))
            ranges.append((column, lo, hi))
        hidden = table[columns].isna().any()
        if hidden.any():
            st.caption("A range on a column excludes the dialogs without a value in it: "
                       + ", ".join(md_escape(c) for c in columns if hidden[c]) + ".")
    return tuple(ranges)


def _full(chosen, low: float, high: float) -> bool:
    """Whether a slider's (start, end) spans its whole column: no filter."""
    return float(chosen[0]) <= low and float(chosen[1]) >= high


NATURAL_ORDER = ""


def sort_control(table: pd.DataFrame, corpus: Corpus) -> tuple[pd.DataFrame, str]:
    """"Sort by" a column (``sort=<column>``, ``desc=1``), kept in the URL so that Back and a shared link show
    the table in the order it had; returns the sorted table and the order in words for the caption."""
    columns = [c for c in table.columns if c not in ("replay",)]
    row = st.columns([3, 1, 4], vertical_alignment="bottom")
    column = url_choice("selectbox", "Sort by", [NATURAL_ORDER, *columns], "sort", key=f"browse_sort_{corpus.name}",
                        default=NATURAL_ORDER, container=row[0],
                        format_func=lambda c: "split, then id" if c == NATURAL_ORDER else COLUMN_LABELS.get(c, c))
    descending = url_toggle("Descending", "desc", key=f"browse_desc_{corpus.name}", container=row[1],
                            disabled=column == NATURAL_ORDER)
    if column == NATURAL_ORDER:
        return table, "by split and then id"
    label = COLUMN_LABELS.get(column, column)
    return sort_table(table, column, descending), f"by {md_escape(label)}{', descending' if descending else ''}"
