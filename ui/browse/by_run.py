"""Browse by run and by code: the Browse page's columns from every loaded model run (each run's score per
dialog and its gap to the humans, range-filtered like the corpus's own columns, in the URL as
``<run> · score=low..high``) and its filter "has label L" from the coding store (``label=``, ``coder=`` a
coder or ``gold``, ``book=`` a codebook), with a ``labels`` count column while it is set.

The per-dialog run columns are computed once per run file and corpus source (``cached.run_derived``), so a
rerun only joins them to the dialog table. Run, label, coder and codebook names are the user's: they reach
markdown only through ``md_escape`` (the data grid shows headers as plain text)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from data_access.coding.label_filter import GOLD, LabelFilter, label_counts, label_options
from data_access.corpus import Corpus
from data_access.runs.browse_columns import column_help, run_columns, with_run_columns
from ui import cached
from ui.runs.picker import loaded_runs
from ui.shell.url_state import drop_params, query_param, url_choice
from ui.store import opened, remembered
from ui.widgets import md_escape, md_link_value

LABEL_COLUMN = "labels"
ANY = ""


def with_runs(corpus: Corpus, table: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
    """``table`` with every loaded run's columns (a new frame), and their help text (escaped for markdown)."""
    frames, help_texts = [], {}
    for run, (key, _loaded) in loaded_runs(corpus).items():
        frame = cached.run_derived(run_columns, corpus, key)
        if frame is None:
            continue
        frames.append(frame)
        help_texts.update({column: md_escape(column_help(corpus.name, run, column)) for column in frame.columns})
    return with_run_columns(table, frames), help_texts


def run_column_config(help_texts: dict[str, str], shown: pd.DataFrame) -> dict:
    """The data grid's configuration of the run columns (three decimals, their help) and of the label count."""
    config = {column: st.column_config.NumberColumn(format="%.3f", help=text) for column, text in help_texts.items()}
    if LABEL_COLUMN in shown.columns:
        config[LABEL_COLUMN] = st.column_config.NumberColumn(
            help="How many annotations of the chosen label (by the chosen coder or the gold) the dialog has")
    return config


def _annotations(corpus: Corpus) -> pd.DataFrame:
    shared = opened("Coding")
    if shared is None:
        return pd.DataFrame()
    return remembered(f"browse annotations {corpus.name}", lambda: shared.coding.annotations(corpus=corpus.name),
                      pd.DataFrame(), "Coding")


def _warn_unknown(param: str, options, what: str) -> None:
    """A link naming a label / coder / codebook this corpus's annotations do not have: said, then ignored."""
    requested = query_param(param)
    if requested is not None and requested not in options:
        st.warning(f"The link's “{md_link_value(f'{param}={requested}')}” names no {what} of this corpus's "
                   "annotations; the label filter ignores it.", icon="⚠️")


def label_filter(corpus: Corpus, table: pd.DataFrame) -> pd.DataFrame:
    """The "has label L" filter (shown when the corpus has coded labels): ``table`` restricted to the dialogs
    labelled so, with their ``labels`` count before ``notes``; ``table`` as it is while no label is chosen."""
    annotations = _annotations(corpus)
    options = label_options(annotations, corpus.name)
    if not options.labels:
        _warn_unknown("label", (), "label")
        drop_params("label", "coder", "book")
        return table
    coders = [ANY, *([GOLD] if options.has_gold else []), *[c for c in options.coders if c != GOLD]]
    books = [ANY, *options.codebooks]
    for param, values, what in (("label", options.labels, "label"), ("coder", coders, "coder"),
                                ("book", books, "codebook")):
        _warn_unknown(param, values, what)
    row = st.columns(3)
    label = url_choice("selectbox", "Has label", [ANY, *options.labels], "label", key=f"browse_label_{corpus.name}",
                       default=ANY, container=row[0], format_func=lambda v: v or "any (no filter)",
                       help="Dialogs with this label anywhere: on the dialog, a turn or round, or a span.")
    coder = url_choice("selectbox", "Labelled by", coders, "coder", key=f"browse_coder_{corpus.name}", default=ANY,
                       container=row[1], disabled=not label,
                       format_func=lambda v: {ANY: "any coder", GOLD: "the gold (adjudicated)"}.get(v) or v)
    book = url_choice("selectbox", "In codebook", books, "book", key=f"browse_book_{corpus.name}", default=ANY,
                      container=row[2], disabled=not label,
                      format_func=lambda v: v or "any codebook")
    # The options are as they are: Streamlit shows a selectbox's options as plain text (escaping them would show
    # a coder "ann.smith" as "ann\.smith"); the label above them is markdown, and ours.
    if not label:
        return table
    counts = label_counts(annotations, corpus.name, LabelFilter(label, coder, book))
    shown = table[table["dialog_id"].astype(str).isin(counts.index)].copy()
    at = shown.columns.get_loc("notes") if "notes" in shown.columns else len(shown.columns)
    shown.insert(at, LABEL_COLUMN, shown["dialog_id"].astype(str).map(counts).astype("int64"))
    return shown
