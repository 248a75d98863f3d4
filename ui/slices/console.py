"""The SQL console of the Slices page (docs/slices.md, "The SQL console"): one console per corpus source and set of
loaded runs (its tables in a read-only DuckDB file, each query in a process of its own), shared by every session,
with the store's codes read again for a query that names them; a query runs while the page stays live, so its Stop
button ends it (its process is killed). A slice defined by SQL (``sql:…``) is evaluated here, its result kept
server-wide for a few minutes by its text and the corpus's version."""
from __future__ import annotations

import time
from typing import Optional

import pandas as pd
import streamlit as st

from data_access.budgets import SQL_CELL_CHARS, SQL_COUNT_LIMIT, SQL_MAX_ROWS, SQL_RESULT_BYTES, SQL_TIMEOUT_S, MiB
from data_access.corpus import Corpus
from data_access.slices import Kept, SliceError
from data_access.slices.definitions import SQL_PREFIX, check_sql, run_sql_slice
from data_access.sql_console import SqlConsole, SqlRefused, SqlResult, console_tables
from ui import cached
from ui.slices.base import base_key, layers_of, slice_base
from ui.store import opened, remembered

SQL_SLICE_SECONDS = 300  # how long a SQL slice's result is kept (a query of the codes sees them change after it)
LIMITS = (f"Read only: one SELECT at a time, at most {SQL_MAX_ROWS:,} rows and {SQL_RESULT_BYTES / MiB:g} MB shown "
          f"(a value cut after {SQL_CELL_CHARS:,} characters), stopped after {SQL_TIMEOUT_S:g} s.")


# ``_corpus`` is not hashed (a leading underscore): ``key`` holds its source and its layers' files.
@st.cache_resource(show_spinner="Opening the SQL console…", max_entries=3)
def _console(key: tuple, _corpus: Corpus, run_keys: tuple) -> Optional[SqlConsole]:
    loaded = cached.corpus(_corpus)
    base = slice_base(_corpus)
    if not hasattr(loaded, "frames") or base is None:
        return None
    runs = {}
    for run_key in run_keys:
        run = cached.model_run(_corpus, run_key)
        if hasattr(run, "frames"):
            runs[run_key.run] = run
    return SqlConsole(console_tables(loaded, layers=layers_of(_corpus), runs=runs, features=base.dialogs,
                                     steps=base.steps.frame, codes=pd.DataFrame({"corpus": pd.Series(dtype="str")})))


def sql_console(corpus: Corpus) -> Optional[SqlConsole]:
    """The corpus's console (shared by every session; None when the corpus does not load)."""
    run_keys = tuple(sorted(cached.run_keys(corpus).values(), key=lambda k: k.run))
    return _console(base_key(corpus), corpus, run_keys)


def _codes_frame(corpus: Corpus) -> pd.DataFrame:
    store = opened("The SQL console's codes")
    if store is None:
        return pd.DataFrame({"corpus": pd.Series(dtype="str")})
    frame = remembered(f"sql codes {corpus.name}", lambda: store.coding.annotations(corpus=corpus.name), pd.DataFrame(),
                       "The SQL console's codes")
    if frame.empty:
        return pd.DataFrame({"corpus": pd.Series(dtype="str")})
    frame = frame.copy()
    for column in frame.columns:  # lists and timestamps as plain values DuckDB types at once
        if frame[column].dtype == object:
            frame[column] = frame[column].map(lambda v: v if v is None or isinstance(v, str) else str(v))
    return frame


def run_sql(console: SqlConsole, corpus: Corpus, query: str, status) -> SqlResult:
    """Run ``query`` while the page stays live: the script waits in short steps (each a Streamlit call), so a
    click anywhere on the page (the Stop button) ends this run and the ``finally`` kills the query's process."""
    if "codes" in query.lower():
        console.replace_table("codes", _codes_frame(corpus))
    running = console.start(query, timeout_s=SQL_TIMEOUT_S)  # the module's value, read now (a test shortens it)
    started = time.monotonic()
    try:
        while True:
            result = running.wait(0.1)
            if result is not None:
                return result
            status.caption(f"Running… {time.monotonic() - started:.1f} s (Stop ends it)")
    finally:
        if not running.done():
            running.cancel()


def result_slice(query: str, result: SqlResult) -> tuple[Optional[str], str]:
    """The slice a result becomes, of any size: its query itself (``sql:…``, evaluated again wherever the slice is
    used), a step slice when its rows name a turn or a round; or why there is none."""
    if result.dialog_ids is None:
        return None, "The result has no dialog_id column, so it is no set of dialogs."
    if not result.dialog_ids:
        return None, "The result holds no dialog."
    if not result.row_count_complete:
        return None, (f"The result has more than {SQL_COUNT_LIMIT:,} rows, more than a slice of its query can hold; "
                      "narrow it to make a slice of it.")
    try:
        return check_sql(SQL_PREFIX + query), ""
    except SliceError as exc:
        return None, f"This query cannot be a slice: {exc}."


def result_level(result: SqlResult) -> str:
    """What a result's slice selects: "steps" when its rows name a turn or a round, else "dialogs"."""
    return "steps" if {"turn", "round"} & {c.lower() for c in result.columns} else "dialogs"


@st.cache_data(show_spinner="Running the slice's query…", ttl=SQL_SLICE_SECONDS, max_entries=32)
def _sql_kept(key: tuple, text: str, _corpus: Corpus) -> tuple[Optional[Kept], Optional[str]]:
    console, base = sql_console(_corpus), slice_base(_corpus)
    if console is None or base is None:
        return None, f"{_corpus.title} could not be loaded"
    if "codes" in text.lower():
        console.replace_table("codes", _codes_frame(_corpus))
    try:
        return run_sql_slice(console, text, base), None
    except SliceError as exc:
        return None, str(exc)


def sql_kept(corpus: Corpus, text: str) -> tuple[Optional[Kept], Optional[str]]:
    """What the slice defined by SQL ``text`` keeps on ``corpus`` (kept server-wide for a few minutes), or why it
    cannot be used (a refused or stopped query, rows without dialog_id, a result too large to read whole)."""
    run_keys = tuple(sorted(cached.run_keys(corpus).values(), key=lambda k: k.run))
    return _sql_kept((base_key(corpus), run_keys), text, corpus)


__all__ = ["LIMITS", "SqlRefused", "result_level", "result_slice", "run_sql", "sql_console", "sql_kept"]
