"""Downloads that take a view out of the app: a self-contained HTML replay (Replay, Compare), a LaTeX
transcript (.zip), every chart as SVG / PDF with its caption and source line, and summary tables as
LaTeX booktabs tables. Files are built only when their button is clicked (deferred download data)."""
from __future__ import annotations

from functools import partial
from typing import Optional, Sequence

import pandas as pd
import streamlit as st

from data_access import exports, snapshots
from data_access.corpus import Corpus
from data_access.exports import FigureExportError, corpora_of_chart, figure_bytes, source_line
from ui import cached
from ui.widgets import md_escape, query_param


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in str(name))


def _dialog_name(corpus: Corpus, dialog: str, round_: Optional[int]) -> str:
    return _safe(f"{corpus.name}-{dialog}" + (f"-round{round_}" if round_ is not None else ""))


def _opening(key: str, name: str) -> dict:
    """The step the HTML replay of ``name`` opens at, read as the file is asked for (after the run that drew the
    button: the reader may have stepped on since, ``follow_step``)."""
    return st.session_state.setdefault(f"{key}_opening_{name}", {"step": 1})


def follow_step(corpus: Corpus, dialog: str, round_: Optional[int], step: int, key: str = "share") -> None:
    """The HTML replay (``replay_downloads``) opens at ``step`` from now on: a part of the page that follows the step
    calls this, the downloads themselves are drawn by the page's runs only."""
    _opening(key, _dialog_name(corpus, dialog, round_))["step"] = step


def replay_downloads(corpus: Corpus, dialog: str, round_: Optional[int], key: str = "share", step: int = 1) -> None:
    """The HTML replay of a dialog (opening at ``step``, the one being viewed, or the one ``follow_step`` names since)
    and its transcript as LaTeX (a range of steps, thumbnails optional)."""
    n_steps = cached.derived(snapshots.step_count, corpus, dialog, round_)
    if not n_steps:
        return
    name = _dialog_name(corpus, dialog, round_)
    opening = _opening(key, name)
    opening["step"] = step
    unit = corpus.package.STEP_UNIT
    with st.expander("Share: HTML replay, LaTeX transcript", key=f"{key}_open_{name}"):
        st.caption("The HTML file holds every step's picture and the transcript; it opens offline by "
                   "double-click and loads nothing from the network.")
        st.download_button("⬇ Self-contained HTML replay", key=f"{key}_html_{name}", file_name=f"{name}.html",
                           mime="text/html", on_click="ignore", icon=":material/html:",
                           data=lambda: cached.derived(exports.dialog_replay_html, corpus, dialog, round_, opening["step"]))
        run = query_param("run")
        run_key = cached.run_keys(corpus).get(run) if run else None
        if run is not None and run_key is not None:
            st.download_button(f"⬇ HTML replay with the model run “{md_escape(run)}” beside the humans",
                               key=f"{key}_runhtml_{name}", file_name=f"{name}-{_safe(run)}.html", mime="text/html",
                               on_click="ignore", icon=":material/html:",
                               data=lambda: cached.run_derived(exports.run_replay_html, corpus, run_key, dialog, round_)
                               or "The run could not be loaded.")
        if n_steps > 1:
            first, last = st.slider(f"Transcript {unit}s", 1, n_steps, (1, n_steps), key=f"{key}_range_{name}")
        else:
            first, last = 1, 1
        pictures = st.toggle("With a thumbnail of the state after each step", key=f"{key}_thumbs_{name}")
        from ui.shell.corpus_views import views_of  # here: the layers' figures are a page's to load, not every chart's

        marked = views_of(corpus).transcript_marks(corpus, dialog)
        st.download_button("⬇ LaTeX transcript (.zip: .tex + images)", key=f"{key}_latex_{name}",
                           file_name=f"{name}-transcript.zip", mime="application/zip", on_click="ignore",
                           icon=":material/description:",
                           data=lambda: cached.derived(exports.dialog_transcript_zip, corpus, dialog, round_,
                                                       first, last, pictures, marked))


def compare_download(corpus: Corpus, dialogs: Sequence[tuple[str, Optional[int]]], key: str = "share_compare") -> None:
    """Both dialogs of Compare, stepping together, as one self-contained HTML file."""
    dialogs = tuple((str(d), r) for d, r in dialogs)
    name = "-vs-".join(_dialog_name(corpus, d, r) for d, r in dialogs)
    st.download_button("⬇ Both as a self-contained HTML replay", key=f"{key}_{name}", file_name=f"{name}.html",
                       mime="text/html", on_click="ignore", icon=":material/html:",
                       data=lambda: cached.derived(exports.compare_replay_html, corpus, dialogs))


def latex_table_download(frame: pd.DataFrame, caption: str, key: str, label: Optional[str] = None,
                         button: str = "LaTeX table", **options) -> None:
    """A download of ``frame`` as a booktabs table (``exports.booktabs_table``; intervals as
    ``4.17 [4.10, 4.24]``). Reusable for any summary table."""
    st.download_button(button, key=f"latex__{key}", file_name=f"{_safe(key)}.tex", mime="application/x-tex",
                       on_click="ignore", icon=":material/table:", type="tertiary",
                       data=lambda: exports.booktabs_table(frame, caption=caption, label=label or f"tab:{_safe(key)}",
                                                                **options))


def _figure(chart, fmt: str) -> bytes:
    try:
        return figure_bytes(chart.figure, fmt, chart.caption, source_line(corpora_of_chart(chart.key)))
    except FigureExportError as exc:  # a download cannot show an error box: the file says what went wrong
        return f"Could not export the chart: {exc}".encode("utf-8")


def chart_downloads(chart) -> None:
    """SVG, PDF (caption and data-source line under the plot) and the chart's summary as a LaTeX table."""
    for fmt in ("svg", "pdf"):
        st.download_button(fmt.upper(), key=f"{fmt}__{chart.key}", file_name=f"{chart.key}.{fmt}",
                           mime={"svg": "image/svg+xml", "pdf": "application/pdf"}[fmt], on_click="ignore",
                           icon=":material/image:", type="tertiary", data=partial(_figure, chart, fmt))
    summary = exports.summary_frame(chart.data)
    if summary is not None:
        latex_table_download(summary, chart.caption, chart.key)
