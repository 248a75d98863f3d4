"""Showing analysis charts: the figure, its one-line caption, its data as CSV and — where points or bars
stand for dialogs — the selected dialogs with links into the replay; plus the split filter every
analysis page shares (kept in the URL, so a filtered view is a link).

The Overview's chart builders (``overview_figures``) and the helpers the chart pages write beside them are
handed to the pages from here, so that pages import no data_access module; the builders are imported when the page
first asks for them. A corpus's own charts are drawn by its views (its analysis page, its part of Durations)."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

import streamlit as st

from data_access.analysis.charts import Chart, selected_rows, selection_table
from data_access.analysis.charts import count_phrase as count_phrase
from data_access.analysis.splits import available_splits
from data_access.analysis.splits import ordered_splits as ordered_splits
from data_access.corpus import Corpus
from ui.cached import derived, loaded_corpus, shared
from ui.share.downloads import chart_downloads
from ui.shell.url_state import query_param, served_links
from ui.widgets import views as views  # the analysis pages' tabs (a chart view is a link)

if TYPE_CHECKING:
    from data_access.figures import overview as overview_figures  # noqa: F401

# The Overview page's charts over every corpus; a corpus's own charts are its views' (its analysis page).
FIGURE_MODULES = {"overview_figures": "data_access.figures.overview"}


def __getattr__(name: str):
    """The Overview's chart builders (``FIGURE_MODULES``), imported at the first ``from ui.analysis.charts import …``."""
    if name in FIGURE_MODULES:
        module = importlib.import_module(FIGURE_MODULES[name])
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


PAGE_SIZE = 50  # selected dialogs listed per page under a chart (all of them, page by page)
SELECT_HINT = (" Click a bar or point to list its dialogs with replay links (shift-click adds more; the "
               "toolbar's box and lasso select many; double-click clears).")


def corpus_splits(corpus: Corpus) -> Optional[tuple[str, ...]]:
    """The corpus's splits, or None after showing its load error (without unpickling the whole corpus)."""
    with st.spinner(f"Loading {corpus.title}…"):
        splits = derived(available_splits, corpus)
    if splits is None:
        loaded_corpus(corpus)  # shows the error box naming the file
    return splits


def build(builder, corpus: Corpus, *args) -> Any:
    """``builder(loaded, *args)`` (a ``Chart``, or what the builder returns) computed once per source and arguments (a spinner shows on a miss). A chart
    is never modified once built, so every session shares the one object instead of unpickling a copy of
    its figure on each rerun. With a ``slice=`` in the URL that the corpus can use, on the slice's dialogs."""
    with st.spinner(f"Computing {corpus.title} statistics…"):
        if query_param("slice") is None:
            return shared(builder, corpus, *args)
        from ui.slices import charts as slice_charts  # the URL's slice: the figure on its dialogs

        return slice_charts.build(builder, corpus, *args)


def layer_build(builder, layer: str, *args):
    """``builder(loaded_layer, loaded_corpus, *args)`` of a published layer's chart or table (``cached.layer_derived``),
    on the URL's slice when the layer's corpus can use it."""
    from ui.cached import layer_derived

    if query_param("slice") is None:
        return layer_derived(builder, layer, *args)
    from ui.slices import charts as slice_charts

    return slice_charts.layer_build(builder, layer, *args)


def slice_against_rest(corpus: Corpus, column: str, label: str, **options):
    """With a ``slice=`` in the URL: the slice in words and ``label`` on the slice against the rest with its
    interval (``ui.slices.charts.slice_against_rest``); nothing without one."""
    if query_param("slice") is None:
        return None
    from ui.slices import charts as slice_charts

    return slice_charts.slice_against_rest(corpus, column, label, **options)


def url_filter(label: str, options: Sequence[str], param: str, format_func=str) -> tuple[str, ...]:
    """A multiple-choice filter kept in the URL (see ``ui.shell.url_state.url_filter``)."""
    from ui.shell.url_state import url_filter as choice

    return choice(label, options, param, format_func=format_func)


def split_filter(available: Sequence[str], param: str = "split", label: str = "Splits") -> tuple[str, ...]:
    """The split filter of an analysis page, kept in the URL; nothing is shown for a single split."""
    if len(available) <= 1:
        return tuple(available)
    return url_filter(label, available, param)


def show(chart: Optional[Chart], corpus: Optional[Corpus] = None) -> None:
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
    st.caption(chart.caption + (SELECT_HINT if selectable else ""))
    with st.container(horizontal=True, gap="small"):
        st.download_button("Download the data (CSV)", data=lambda: chart.data.to_csv(index=False), file_name=f"{chart.key}.csv",
                           mime="text/csv", key=f"csv__{chart.key}", icon=":material/download:", type="tertiary",
                           on_click="ignore")
        chart_downloads(chart)
    if not selectable or corpus is None:  # a selectable chart has a corpus; the test says so to the type checker
        return
    selection = event.get("selection") if isinstance(event, dict) else getattr(event, "selection", None)
    rows = selected_rows(chart.figure, selection)
    if not rows:
        return
    selection_list(chart, selection_table(chart, rows, corpus.name), corpus)


def selection_list(chart: Chart, table, corpus: Optional[Corpus] = None) -> None:
    """Every selected dialog (or round), page by page, each with its replay link; with ``corpus``, one click
    makes them a slice."""
    if table.empty:
        return
    if corpus is not None:
        from ui.slices.current import make_slice_button

        bars = chart.bars
        make_slice_button(corpus, table["dialog_id"], key=f"selection_slice__{chart.key}",
                          bars=None if bars is None or bars[1] not in table.columns else
                          (bars[0], table[bars[1]].tolist(), bars[2], bars[3], chart.data[bars[1]].tolist()))
    pages = (len(table) + PAGE_SIZE - 1) // PAGE_SIZE
    unit = "rounds" if "round" in table.columns else "dialogs"
    header, pager = st.columns([3, 1], vertical_alignment="bottom")
    page = pager.number_input(f"Page (of {pages})", 1, pages, 1, key=f"selection_page__{chart.key}") if pages > 1 else 1
    start = (int(page) - 1) * PAGE_SIZE
    shown = table.iloc[start:start + PAGE_SIZE]
    header.markdown(f"**{len(table):,} {unit} selected** — {start + 1:,} to {start + len(shown):,} listed; "
                    "open one in the replay:")
    st.dataframe(served_links(shown, "replay"), hide_index=True, key=f"selection__{chart.key}",
                 height=(len(shown) + 1) * 35 + 3,
                 column_config={"replay": st.column_config.LinkColumn("Replay", display_text="▶ open")})


def show_all(charts: Sequence[Chart], corpus: Optional[Corpus] = None, columns: int = 1) -> None:
    """Several charts, ``columns`` side by side."""
    if columns <= 1:
        for chart in charts:
            show(chart, corpus)
        return
    for start in range(0, len(charts), columns):
        for column, chart in zip(st.columns(columns), charts[start:start + columns]):
            with column:
                show(chart, corpus)


SUMMARY_VIEW = "Summary"


def findings(charts_by_view: Mapping[str, Sequence[Optional[Chart]]]) -> None:
    """Each chart's one-line finding (its caption), under the name of the view that draws it."""
    for label, view_charts in charts_by_view.items():
        lines = [f"- {chart.caption}" for chart in view_charts if chart is not None]
        if lines:
            st.markdown(f"**{label}**\n" + "\n".join(lines))
