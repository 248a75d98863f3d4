"""Which statements the SQL console runs (``data_access.sql_console``): one statement, and one that reads.

A query is checked before any process runs it: it must be one statement (``duckdb.extract_statements``) of a type
that reads (SELECT, which DuckDB's SUMMARIZE, DESCRIBE and ``FROM t`` are too, or EXPLAIN), and an EXPLAIN must
explain one SELECT: EXPLAIN ANALYZE runs the statement it explains, so ``EXPLAIN ANALYZE DELETE FROM dialogs``
deleted every dialog (issue 45) while its type said EXPLAIN. The query's process opens the tables read-only as
well, so a statement that slipped through could still change nothing another query sees.
"""
from __future__ import annotations

from .budgets import SQL_MAX_QUERY_CHARS as MAX_QUERY_CHARS
from .sql_worker import one_line

# Statement types a query may be (duckdb.StatementType names): reading only.
_READING = {"SELECT", "EXPLAIN"}
_ANALYZE = {"ANALYZE", "ANALYSE"}


class SqlRefused(ValueError):
    """The query was refused (not a single read-only query, too long, a DuckDB error) or stopped (time, cancel);
    the message is one line for the user."""


def reading_only(query: str) -> None:
    """Refuse (``SqlRefused``, one line) what is not one statement that reads."""
    import duckdb

    if not isinstance(query, str) or not query.strip():
        raise SqlRefused("Type a query, e.g. SELECT dialog_id FROM dialogs LIMIT 10.")
    if len(query) > MAX_QUERY_CHARS:
        raise SqlRefused(f"The query is {len(query):,} characters long; at most {MAX_QUERY_CHARS:,} are run.")
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise SqlRefused(f"Not a query: {one_line(exc)}") from None
    if len(statements) != 1:
        raise SqlRefused(f"One query at a time: this text holds {len(statements)} statements.")
    if statements[0].type.name not in _READING:
        word = (query.split() or ["?"])[0].upper()[:20]
        raise SqlRefused(f"Only queries are run here (SELECT …); “{word} …” is refused: the console reads the "
                         "corpus and writes nothing.")
    if statements[0].type.name == "EXPLAIN":
        _explains_a_query(query)


def _explains_a_query(query: str) -> None:
    """Refuse an EXPLAIN of anything but one query: EXPLAIN ANALYZE runs the statement it explains (a DELETE
    too), and a plain EXPLAIN of a statement that writes has no use here either."""
    import duckdb

    raw = duckdb.tokenize(query)
    ends = [start for start, _ in raw[1:]] + [len(query)]
    tokens = [(start, query[start:end].strip().upper()) for (start, kind), end in zip(raw, ends)
              if kind.name != "comment"]  # tokens[0] is EXPLAIN
    at = 1
    if at < len(tokens) and tokens[at][1] in _ANALYZE:
        at += 1
    elif at < len(tokens) and tokens[at][1] == "(":  # EXPLAIN (ANALYZE, FORMAT json) …: skip the option list
        depth = 0
        while at < len(tokens):
            depth += {"(": 1, ")": -1}.get(tokens[at][1], 0)
            at += 1
            if depth == 0:
                break
    inner = query[tokens[at][0]:] if at < len(tokens) else ""
    try:
        explained = duckdb.extract_statements(inner) if inner.strip() else []
    except duckdb.Error:
        explained = []
    if len(explained) != 1 or explained[0].type.name != "SELECT":
        word = (inner.split() or ["nothing"])[0].upper()[:20]
        raise SqlRefused(f"EXPLAIN is run for a query only (EXPLAIN SELECT …); “EXPLAIN … {word} …” is refused: "
                         "the console reads the corpus and writes nothing.")
