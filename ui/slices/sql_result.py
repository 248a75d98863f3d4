"""The SQL console's saved slices and its result, page by page (docs/slices.md, "The SQL console", issue 46): the
saved slices this session may read as the tables ``saved_slices`` and ``saved_slice_members`` (put in for a query
that names them, each slice evaluated again on the corpus within one budget), and a result shown whole, a page of
``SQL_MAX_ROWS`` rows at a time (each page the query again with ``LIMIT`` / ``OFFSET``), with a row's full text on
demand."""
from __future__ import annotations

import time
from typing import Optional

import numpy as np
import pandas as pd
import streamlit as st

from data_access.budgets import SQL_CELL_CHARS, SQL_MAX_ROWS
from data_access.corpus import Corpus
from data_access.slices import STEP, tree
from data_access.slices.definitions import is_sql
from data_access.sql_console import MEMBER_COLUMNS, SqlConsole, SqlRefused, SqlResult, no_saved_slices
from ui.slices.base import slice_base
from ui.slices.console import run_sql
from ui.slices.current import evaluate
from ui.store import opened, remembered
from ui.widgets import md_escape

MEMBERS_SECONDS = 10.0  # the saved slices' members listed for one query, all together
SAVED_TABLES = ("saved_slices", "saved_slice_members")


def _level(text: str) -> str:
    if is_sql(text):
        return "query"
    try:
        from data_access import slices

        return tree.level(slices.parse(text))
    except ValueError:
        return "none"


def saved_tables(corpus: Corpus) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The saved slices this session may read (all corpora's), and the members on ``corpus`` of those made on it
    (or on none): dialogs (round and turn empty) or steps, each slice evaluated again; past ``MEMBERS_SECONDS`` the
    rest are listed with ``members_listed`` false."""
    from ui.shell import auth

    saved, members = no_saved_slices()
    store = opened("Saved slices")
    if store is None:
        return saved, members
    listed = remembered("saved slices", lambda: store.slices.list(viewer=auth.identity()), None, "Saved slices")
    if listed is None or listed.empty:
        return saved, members
    frame = listed[["id", "name", "description", "slice", "corpus", "owner", "shared"]].copy()
    frame["level"] = [_level(text) for text in frame["slice"]]
    stop, parts, done = time.monotonic() + MEMBERS_SECONDS, [], []
    base = slice_base(corpus)
    for slice_id, text, made_on in zip(frame["id"], frame["slice"], frame["corpus"]):
        if base is None or made_on not in (None, "", corpus.name) or time.monotonic() > stop:
            done.append(False)
            continue
        outcome = evaluate(corpus, text)
        if outcome.kept is None:
            done.append(False)
            continue
        if outcome.level == STEP and outcome.steps is not None:
            keys = base.steps.keys(outcome.steps)
            part = pd.DataFrame({"slice_id": int(slice_id), "dialog_id": keys["dialog_id"].astype(str),
                                 "round": keys["round"].astype("Int64"), "turn": keys["turn"].astype("Int64")})
        else:
            part = pd.DataFrame({"slice_id": int(slice_id), "dialog_id": outcome.kept.astype(str),
                                 "round": pd.array([pd.NA] * len(outcome.kept), dtype="Int64"),
                                 "turn": pd.array([pd.NA] * len(outcome.kept), dtype="Int64")})
        parts.append(part)
        done.append(True)
    frame["members_listed"] = np.asarray(done, dtype=bool)
    found = pd.concat(parts, ignore_index=True)[MEMBER_COLUMNS] if parts else members
    return frame.reset_index(drop=True), found


def refresh_saved(console: SqlConsole, corpus: Corpus, query: str) -> None:
    """Put this session's saved slices into the console before a query that names them."""
    if "saved_slice" in query.lower():
        saved, members = saved_tables(corpus)
        console.replace_table("saved_slices", saved)
        console.replace_table("saved_slice_members", members)


def page_of(console: SqlConsole, corpus: Corpus, query: str, first: SqlResult, page: int, status) -> SqlResult:
    """Page ``page`` (from 1) of ``query``'s result: the first run's rows for page 1, else the query again with
    ``LIMIT``/``OFFSET`` (a query that cannot be wrapped, e.g. DESCRIBE, has its first page only)."""
    if page <= 1:
        return first
    size = max(1, len(first.rows))
    wrapped = f"SELECT * FROM ({query}) AS console_page LIMIT {size} OFFSET {(page - 1) * size}"
    return run_sql(console, corpus, wrapped, status)


def pages_of(first: SqlResult) -> int:
    """How many pages of ``len(first.rows)`` rows the whole result (as counted) takes."""
    return max(1, -(-first.row_count // max(1, len(first.rows)))) if first.rows else 1


def full_row(frame: pd.DataFrame, row: int) -> None:
    """Every value of one row of a result in full (the grid shows a cell's beginning only)."""
    record = frame.iloc[row]
    st.markdown(f"**Row {row + 1:,}, in full**")
    for column in frame.columns:
        value = record[column]
        text = "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)
        st.caption(md_escape(str(column)))
        st.code(text, language=None, wrap_lines=True)
    if any(len(str(v)) >= SQL_CELL_CHARS for v in record.tolist()):
        st.caption(f"A value longer than {SQL_CELL_CHARS:,} characters is cut by the console, with a marker.")


def result_grid(console: SqlConsole, corpus: Corpus, query: str, first: SqlResult, status, key: str) -> Optional[int]:
    """The result page by page (a page number when it has more than one) in a tall grid, a selected row in full
    under it; the page shown."""
    pages = pages_of(first)
    page = 1
    if pages > 1:
        page = int(st.number_input(f"Page (of {pages:,}, {len(first.rows):,} rows each; ORDER BY keeps pages stable)",
                                   1, pages, 1, key=f"{key}_page"))
    try:
        shown = page_of(console, corpus, query, first, page, status)
    except SqlRefused as exc:
        st.error(f"Page {page:,} could not be read: {md_escape(exc)}", icon="⚠️")
        return None
    frame = shown.frame()
    chosen = st.dataframe(frame, hide_index=True, key=f"{key}_grid_{page}", height=min(38 + 35 * len(frame), 600),
                          on_select="rerun", selection_mode="single-row")
    if chosen.selection.rows:
        full_row(frame, chosen.selection.rows[0])
    else:
        st.caption("Select a row to read its values in full.")
    return page


__all__ = ["MEMBERS_SECONDS", "SAVED_TABLES", "SQL_MAX_ROWS", "full_row", "page_of", "pages_of", "refresh_saved",
           "result_grid", "saved_tables"]
