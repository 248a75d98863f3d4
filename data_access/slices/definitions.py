"""A slice's definition, of any size (docs/slices.md, "Slices of any size"): the grammar's text, a SQL query
(``sql:SELECT …``) whose rows name the dialogs (and steps) it keeps, or a saved slice by its id (``@12``, a link's
form). A definition is kept and linked as it is and evaluated again wherever it is used, so a slice of 5,000
dialogs or 50,000 rounds never travels as the list of its members.

A SQL query's rows name ``dialog_id``: with a ``turn`` column each row is a step (with ``round`` too where the
corpus replays in rounds), with ``round`` only it is every step of that round (a CoDraw round is one step, its
``round`` its ``turn``), with neither it is a dialog. The query runs in the SQL console (read only, in a process
of its own, its time limit) wrapped as ``SELECT DISTINCT`` of those columns, read in pages in key order (a result
is bounded in bytes) up to the console's ``COUNT_LIMIT`` keys; a query that returns more is refused (narrow it),
never cut.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from .data import SliceData
from .evaluate import Kept
from .grammar import DIALOG, MAX_CHARS, STEP, SliceError
from .steps import NO_ROUND

SQL_PREFIX = "sql:"
SAVED_PREFIX = "@"
PAGE_ROWS = 250_000  # keys read by one query of a SQL slice (and fewer when they pass the console's byte budget)


def is_sql(text: str) -> bool:
    return isinstance(text, str) and text.lstrip()[:len(SQL_PREFIX)].lower() == SQL_PREFIX


def sql_query(text: str) -> str:
    """The query of a ``sql:`` definition."""
    return text.lstrip()[len(SQL_PREFIX):].strip()


def saved_id(text: str) -> Optional[int]:
    """The saved slice's id of an ``@ID`` definition, None for any other text."""
    if not isinstance(text, str) or not text.startswith(SAVED_PREFIX):
        return None
    digits = text[len(SAVED_PREFIX):]
    return int(digits) if digits.isdigit() and len(digits) <= 12 else None


def check_sql(text: str) -> str:
    """A ``sql:`` definition as it is kept (its query stripped), ``SliceError`` when it is no single read-only query
    or longer than a query the console runs."""
    from ..budgets import SQL_MAX_QUERY_CHARS as MAX_QUERY_CHARS
    from ..sql_check import SqlRefused
    from ..sql_check import reading_only as check_query

    query = sql_query(text)
    if len(query) > min(MAX_QUERY_CHARS, MAX_CHARS):
        raise SliceError(f"the query is {len(query):,} characters long; a slice's query has at most "
                         f"{min(MAX_QUERY_CHARS, MAX_CHARS):,}")
    try:
        check_query(query)
    except SqlRefused as exc:
        raise SliceError(str(exc)) from None
    return SQL_PREFIX + query


def canonical_definition(text: str) -> str:
    """A definition as links carry it: the grammar's canonical text, a checked ``sql:`` query, or ``@ID``;
    ``SliceError`` for anything else."""
    from .grammar import canonical

    stripped = text.strip() if isinstance(text, str) else text
    if isinstance(stripped, str) and saved_id(stripped) is not None:
        return stripped
    if isinstance(stripped, str) and is_sql(stripped):
        return check_sql(stripped)
    return canonical(text)


def wrapped(query: str, columns: list[str]) -> tuple[str, list[str]]:
    """The query that reads the keys of ``query``'s rows (whose columns are ``columns``), and those keys."""
    lowered = {c.lower(): c for c in columns}
    if "dialog_id" not in lowered:
        raise SliceError("the query's rows name no dialog_id, so they are no slice (select dialog_id, and turn or "
                         "round for a step slice)")
    keys = ["dialog_id"] + [k for k in ("round", "turn") if k in lowered]
    casts = {"dialog_id": "CAST({} AS VARCHAR)", "round": "TRY_CAST({} AS BIGINT)", "turn": "TRY_CAST({} AS BIGINT)"}
    select = ", ".join(f'{casts[k].format(chr(34) + lowered[k] + chr(34))} AS {k}' for k in keys)
    return f"SELECT DISTINCT {select} FROM ({query}) AS slice_rows WHERE \"{lowered['dialog_id']}\" IS NOT NULL", keys


def kept_of_rows(rows: pd.DataFrame, data: SliceData) -> Kept:
    """What the keys ``rows`` (dialog_id, and round and / or turn) select on ``data``: dialogs, or steps."""
    ids = rows["dialog_id"].astype(str)
    if "turn" not in rows.columns and "round" not in rows.columns:
        return Kept(DIALOG, data.dialogs["dialog_id"].astype(str).isin(set(ids)).to_numpy(dtype=bool))
    table = data.steps
    if "turn" in rows.columns:
        turns = rows["turn"]
        rounds = rows["round"] if "round" in rows.columns else pd.array([pd.NA] * len(rows), dtype="Int64")
        if table.has_rounds and "round" not in rows.columns:
            raise SliceError(f"{data.title} numbers its steps within rounds: the query's rows need round beside turn")
        found = table.rows_of(ids, rounds, turns)
        steps = np.zeros(len(table), dtype=bool)
        steps[found[found >= 0]] = True
    elif table.has_rounds:  # a round of a corpus that has them: every step of it
        wanted = pd.MultiIndex.from_arrays([ids.to_numpy(dtype=object),
                                            pd.to_numeric(rows["round"], errors="coerce").fillna(-2).to_numpy(dtype=np.int64)])
        mine = pd.MultiIndex.from_arrays([table.frame["dialog_id"].to_numpy(dtype=object),
                                          table.frame["round"].fillna(NO_ROUND).to_numpy(dtype=np.int64)])
        steps = mine.isin(wanted)
    else:  # a corpus whose step is a round (CoDraw): the round is the step's turn
        found = table.rows_of(ids, pd.array([pd.NA] * len(rows), dtype="Int64"), rows["round"])
        steps = np.zeros(len(table), dtype=bool)
        steps[found[found >= 0]] = True
    return Kept(STEP, table.lift(steps, len(data.dialogs)), steps)


def run_sql_slice(console, text: str, data: SliceData, *, timeout_s: Optional[float] = None) -> Kept:
    """Evaluate a ``sql:`` definition in ``console`` (a ``sql_console.SqlConsole`` over the same corpus) on ``data``;
    ``SliceError`` for a refused or stopped query, a result without ``dialog_id`` or one of more than the console's
    ``COUNT_LIMIT`` distinct keys. The keys are read in pages (a result is at most ``SQL_RESULT_BYTES`` of JSON), in
    key order, each page a query of its own within ``timeout_s``."""
    from ..budgets import SQL_COUNT_LIMIT, SQL_TIMEOUT_S
    from ..sql_check import SqlRefused

    query = sql_query(check_sql(text))
    seconds = SQL_TIMEOUT_S if timeout_s is None else timeout_s
    rows: list[list] = []
    try:
        columns = console.run(f"SELECT * FROM ({query}) AS slice_rows LIMIT 0", max_rows=0, timeout_s=seconds).columns
        keyed, keys = wrapped(query, columns)
        ordered = f"{keyed} ORDER BY {', '.join(keys)}"
        while True:
            page = console.run(f"{ordered} LIMIT {PAGE_ROWS} OFFSET {len(rows)}", max_rows=PAGE_ROWS, timeout_s=seconds)
            rows.extend(page.rows)
            if not page.rows or (len(page.rows) < PAGE_ROWS and not page.bytes_cut):
                break
            if len(rows) >= SQL_COUNT_LIMIT:
                raise SliceError(f"the query returns more than {SQL_COUNT_LIMIT:,} rows: narrow it to make a slice of it")
    except SqlRefused as exc:
        raise SliceError(f"the query: {exc}") from None
    return kept_of_rows(pd.DataFrame(rows, columns=keys), data)


__all__ = ["SAVED_PREFIX", "SQL_PREFIX", "canonical_definition", "check_sql", "is_sql", "kept_of_rows", "run_sql_slice", "saved_id", "sql_query",
           "wrapped"]
