"""Showing analysis charts: the figure, its one-line caption, its data as CSV and — where points or bars
stand for dialogs — the selected dialogs with links into the replay; plus the split filter every
analysis page shares (kept in the URL, so a filtered view is a link)."""
from __future__ import annotations

from typing import Optional, Sequence

import pandas as pd
import streamlit as st

from data_access.analysis.charts import Chart, selected_rows
from data_access.links import replay_link

SELECTION_LIMIT = 500  # rows listed under a chart; a lasso over 9,000 points should not flood the page


def split_filter(available: Sequence[str], param: str = "split", label: str = "Splits") -> tuple[str, ...]:
    """A multiselect over ``available`` splits, seeded from and written back to the URL's ``param``.

    Returns the chosen splits in ``available`` order (all of them when nothing is chosen). Nothing is
    shown when there is only one split."""
    available = list(available)
    if len(available) <= 1:
        return tuple(available)
    key = f"split_filter__{param}"
    if key not in st.session_state:
        requested = st.query_params.get(param)
        wanted = [s for s in (requested or "").split(",") if s in available]
        st.session_state[key] = wanted or available
    chosen = st.multiselect(label, available, key=key, placeholder="All splits")
    chosen = [s for s in available if s in chosen]
    if not chosen or len(chosen) == len(available):
        if param in st.query_params:
            del st.query_params[param]
        return tuple(available)
    st.query_params[param] = ",".join(chosen)
    return tuple(chosen)


def selection_table(chart: Chart, rows: list[int], corpus: str) -> pd.DataFrame:
    """The selected rows of the chart's data with a replay link per dialog (and round, where there is one)."""
    table = chart.data.iloc[[r for r in rows if 0 <= r < len(chart.data)]].copy()
    rounds = table["round"] if "round" in table else [None] * len(table)
    table.insert(0, "replay", [replay_link(corpus, str(d), round=None if r is None or pd.isna(r) else int(r))
                               for d, r in zip(table["dialog_id"], rounds)])
    return table


def show(chart: Chart, corpus: Optional[str] = None) -> None:
    """The figure, its caption and CSV download; with ``corpus`` and a selectable chart, selecting
    points or bars lists their dialogs with replay links below the chart."""
    if chart.empty:
        st.info(chart.caption)
        return
    selectable = chart.selectable and corpus is not None
    event = st.plotly_chart(chart.figure, key=f"chart__{chart.key}", on_select="rerun" if selectable else "ignore",
                            selection_mode=("points", "box", "lasso"), config={"displaylogo": False})
    caption_col, download_col = st.columns([6, 1], vertical_alignment="center")
    caption_col.caption(chart.caption + (" Select points or bars to list their dialogs." if selectable else ""))
    download_col.download_button("CSV", data=lambda: chart.data.to_csv(index=False), file_name=f"{chart.key}.csv",
                                 mime="text/csv", key=f"csv__{chart.key}", icon=":material/download:",
                                 help="Download the numbers behind this chart", on_click="ignore")
    if not selectable:
        return
    rows = selected_rows(chart.figure, getattr(event, "selection", None) or (event or {}).get("selection"))
    if not rows:
        return
    table = selection_table(chart, rows[:SELECTION_LIMIT], corpus)
    more = f" (the first {SELECTION_LIMIT:,} of {len(rows):,})" if len(rows) > SELECTION_LIMIT else ""
    st.markdown(f"**{len(table):,} selected{more}** — open one in the replay:")
    st.dataframe(table, hide_index=True, key=f"selection__{chart.key}",
                 column_config={"replay": st.column_config.LinkColumn("Replay", display_text="▶ open")})


def show_all(charts: Sequence[Chart], corpus: Optional[str] = None, columns: int = 1) -> None:
    """Several charts, ``columns`` side by side."""
    if columns <= 1:
        for chart in charts:
            show(chart, corpus)
        return
    for start in range(0, len(charts), columns):
        for column, chart in zip(st.columns(columns), charts[start:start + columns]):
            with column:
                show(chart, corpus)
