"""Showing analysis charts: the figure, its one-line caption, its data as CSV and — where points or bars
stand for dialogs — the selected dialogs with links into the replay; plus the split filter every
analysis page shares (kept in the URL, so a filtered view is a link)."""
from __future__ import annotations

from typing import Optional, Sequence

import streamlit as st

from data_access.analysis.charts import Chart, available_splits, selected_rows, selection_table
from data_access.common import CORPUS_TITLES
from ui.cached import derived, loaded_corpus
from ui.share import chart_downloads

SELECTION_LIMIT = 500  # rows listed under a chart; a lasso over 9,000 points should not flood the page


def corpus_splits(corpus: str) -> Optional[tuple[str, ...]]:
    """The corpus's splits, or None after showing its load error (without unpickling the whole corpus)."""
    with st.spinner(f"Loading {CORPUS_TITLES.get(corpus, corpus)}…"):
        splits = derived(available_splits, corpus)
    if splits is None:
        loaded_corpus(corpus)  # shows the error box naming the file
    return splits


def build(builder, corpus: str, *args) -> Optional[Chart]:
    """``builder(loaded, *args)`` computed once per source and arguments (a spinner shows on a miss)."""
    with st.spinner(f"Computing {CORPUS_TITLES.get(corpus, corpus)} statistics…"):
        return derived(builder, corpus, *args)


def url_multiselect(label: str, options: Sequence[str], param: str, format_func=str) -> tuple[str, ...]:
    """A multiselect seeded from and written back to the URL's ``param`` (comma-separated; absent = all).

    Returns the chosen options in ``options`` order, all of them when nothing is chosen."""
    options = list(options)
    key = f"url_multiselect__{param}"
    if key not in st.session_state:
        requested = st.query_params.get(param)
        wanted = [o for o in (requested or "").split(",") if o in options]
        st.session_state[key] = wanted or options
    chosen = st.multiselect(label, options, key=key, format_func=format_func, placeholder="All")
    chosen = [o for o in options if o in chosen]
    if not chosen or len(chosen) == len(options):
        if param in st.query_params:
            del st.query_params[param]
        return tuple(options)
    st.query_params[param] = ",".join(chosen)
    return tuple(chosen)


def split_filter(available: Sequence[str], param: str = "split", label: str = "Splits") -> tuple[str, ...]:
    """The split filter of an analysis page, kept in the URL; nothing is shown for a single split."""
    if len(available) <= 1:
        return tuple(available)
    return url_multiselect(label, available, param)


def show(chart: Optional[Chart], corpus: Optional[str] = None) -> None:
    """The figure, its caption and CSV download; with ``corpus`` and a selectable chart, selecting
    points or bars lists their dialogs with replay links below the chart."""
    if chart is None:  # the corpus failed to load; its error box is already on the page
        return
    if chart.empty:
        st.info(chart.caption)
        return
    selectable = chart.selectable and corpus is not None
    event = st.plotly_chart(chart.figure, key=f"chart__{chart.key}", on_select="rerun" if selectable else "ignore",
                            selection_mode=("points", "box", "lasso"), config={"displaylogo": False})
    st.caption(chart.caption + (" Select points or bars to list them with replay links." if selectable else ""))
    with st.container(horizontal=True, gap="small"):
        st.download_button("Download the data (CSV)", data=lambda: chart.data.to_csv(index=False), file_name=f"{chart.key}.csv",
                           mime="text/csv", key=f"csv__{chart.key}", icon=":material/download:", type="tertiary",
                           on_click="ignore")
        chart_downloads(chart)
    if not selectable:
        return
    selection = event.get("selection") if isinstance(event, dict) else getattr(event, "selection", None)
    rows = selected_rows(chart.figure, selection)
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
