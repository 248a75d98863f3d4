"""The SQL console of the Slices page (docs/slices.md, "The SQL console"): one console per corpus source and set of
loaded runs (its tables in a read-only DuckDB file, each query in a process of its own), shared by every session,
with the store's codes read again for a query that names them; a query runs while the page stays live, so its Stop
button ends it (its process is killed)."""
from __future__ import annotations

import time
from typing import Optional

import pandas as pd
import streamlit as st

from data_access import slices
from data_access.budgets import SQL_CELL_CHARS, SQL_MAX_ROWS, SQL_RESULT_BYTES, SQL_TIMEOUT_S, MiB
from data_access.corpus import Corpus
from data_access.slices import SliceError
from data_access.sql_console import SqlConsole, SqlRefused, SqlResult, console_tables
from ui import cached
from ui.slices.current import base_key, layers_of, slice_base
from ui.store import opened, remembered

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
                                     codes=pd.DataFrame({"corpus": pd.Series(dtype="str")})))


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


def result_slice(result: SqlResult) -> tuple[Optional[str], str]:
    """The slice of a result's dialogs, or why there is none."""
    if result.dialog_ids is None:
        return None, "The result has no dialog_id column, so it is no set of dialogs."
    if not result.dialog_ids:
        return None, "The result holds no dialog."
    if not result.row_count_complete:
        return None, "The result was too large to be read to its end; narrow it to make a slice of it."
    if not result.dialog_ids_complete:
        return None, ("The result holds more dialogs than a slice of chosen dialogs can name; describe them with a "
                      "condition instead.")
    try:
        text = slices.ids_slice(result.dialog_ids)
        slices.parse(text)
    except SliceError as exc:
        return None, (f"{len(result.dialog_ids):,} dialogs are too many for a slice of chosen dialogs ({exc}); "
                      "describe them with a condition instead.")
    return text, ""


__all__ = ["LIMITS", "SqlRefused", "result_slice", "run_sql", "sql_console"]
