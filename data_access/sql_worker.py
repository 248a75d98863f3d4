"""The process one SQL console query runs in (``data_access.sql_process`` starts it; docs/slices.md, "The SQL console").

Started ahead of its query (the console keeps one spare), it imports DuckDB, opens the console's database file
READ-ONLY and says so in its first line (``{"ready": <CPU seconds so far>}``); then it waits for one request on
stdin: a JSON line with the query, the files of tables replaced since the database was written (attached read-only,
first on the search path) and the bounds. It locks DuckDB's configuration (no external access, no SET), runs the
query, writes the reply and exits: the rows, a line of them at a time (JSON lists of rows), then one JSON object with
the rest of the result, or ``{"error": line}``. So whatever a query does to its connection (a temporary table, a
macro, a setting, memory) ends with its process, and a query past its time limit, or stopped, is ended by killing
the process, which takes effect at once where DuckDB's interrupt waits for the end of a batch.

The result is bounded here, before it leaves the process: at most ``max_rows`` rows, and those only while their JSON
stays within ``SQL_RESULT_BYTES``; a value longer than ``SQL_CELL_CHARS`` characters is cut and ends in a marker
saying how long it was. The rest of the result is only counted (up to ``SQL_COUNT_LIMIT`` rows). The process also
bounds itself: its address space (``SQL_PROCESS_MEMORY``) and its CPU time (the time limit and 2 s), so it ends even
if the server that started it does not kill it.

Standard library, DuckDB and pyarrow only (no pandas): it starts in about half a second.
"""
from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import math
import os
import resource
import sys
import uuid
from typing import Any

from .budgets import (
    SQL_CELL_CHARS,
    SQL_COUNT_LIMIT,
    SQL_ID_CHARS,
    SQL_MAX_QUERY_CHARS,
    SQL_MEMORY_LIMIT,
    SQL_PROCESS_MEMORY,
    SQL_RESULT_BYTES,
)

THREADS = 1  # two cores are shared by every session; a query does not take both
BATCH_ROWS = 2_048  # rows DuckDB hands over at a time (a batch of long values is held whole while it is read)
LINE_BYTES = 1 << 20  # rows are sent in lines of about this much (the console holds one line beside its rows)
# One request line: the query, JSON-escaped (at most 12 bytes a character: a surrogate pair), and the file names.
REQUEST_BYTES = 12 * SQL_MAX_QUERY_CHARS + 64 * 1024
# A whole reply: the rows, the dialog ids (JSON-escaped, at most 6 bytes a character) and the few other fields.
REPLY_BYTES = SQL_RESULT_BYTES + 6 * SQL_ID_CHARS + 64 * 1024
CPU_SLACK_S = 2  # the process's own CPU limit is its time limit and this much (the server kills it at the limit)

# DuckDB's guards, set when the process opens the database. External access stays on until the replaced tables are
# attached, then ``lock`` turns it off and locks the configuration: no statement of the query can change a setting.
CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "python_enable_replacements": False,
    "python_scan_all_frames": False,
    "temp_directory": "",
    "max_temp_directory_size": "0B",
    "threads": THREADS,
    "memory_limit": SQL_MEMORY_LIMIT,
}
LOCK = ("SET enable_external_access = false", "SET lock_configuration = true")


def one_line(text: object) -> str:
    first = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return "".join(c if c.isprintable() else " " for c in first)


def cut_mark(length: int) -> str:
    """What ends a value cut at ``SQL_CELL_CHARS`` characters (``length``: the characters it had). ASCII: one
    character past Latin-1 would make Python hold every cut value in two bytes a character."""
    return f"... [cut: {length:,} characters]"


def plain(value: Any) -> Any:
    """A DuckDB / Arrow value as JSON: numbers, text, lists and objects; NaN and ±inf as null."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, decimal.Decimal):
        return float(value) if value.is_finite() else None
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return str(value)


class Collected:
    """The part of a result that is sent back: the first rows within the row and byte budgets (as JSON lines of
    rows, a batch to a line), the count of all rows, and the distinct dialog_id values while they fit
    ``SQL_ID_CHARS``."""

    def __init__(self, columns: list[str], max_rows: int):
        self.columns = columns
        self.max_rows = max_rows
        self.lines: list[str] = []  # each a JSON list of rows
        self.shown = 0  # rows in ``lines``
        self.bytes = 0  # their JSON, as the command prints it (", " between values): at most SQL_RESULT_BYTES
        self.bytes_cut = False  # rows were left out because the next one would pass SQL_RESULT_BYTES
        self.cells_cut = 0
        self.count = 0
        self.id_column = columns.index("dialog_id") if "dialog_id" in columns else None
        self.ids: dict[str, None] = {}
        self.id_chars = 0
        self.ids_complete = True

    def add(self, batch) -> None:
        if self.shown < self.max_rows and not self.bytes_cut:
            self._show(batch.slice(0, self.max_rows - self.shown))
        if self.id_column is not None and self.ids_complete:
            import pyarrow as pa
            import pyarrow.compute as pc

            column = batch.column(self.id_column)
            try:
                values = pc.unique(column).to_pylist()
            except pa.ArrowNotImplementedError:  # a type Arrow cannot hash (a list called dialog_id)
                values = column.to_pylist()
            for value in values:
                if value is None:
                    continue
                text = str(value)
                if text not in self.ids:
                    self.id_chars += len(text) + 1
                    if self.id_chars > SQL_ID_CHARS:
                        self.ids_complete = False
                        break
                    self.ids[text] = None
        self.count += batch.num_rows

    def _show(self, taken) -> None:
        """Keep the rows of ``taken`` that fit the byte budget: all of them as one line when it is short, else a row
        at a time (up to the first that does not fit) in lines of about ``LINE_BYTES``, so that the console never
        holds a long line beside the rows it has read."""
        columns = [self._values(taken.column(i)) for i in range(taken.num_columns)]
        rows = [list(row) for row in zip(*(values for values, _ in columns))]
        text = json.dumps(rows, ensure_ascii=True, allow_nan=False)
        if len(text) <= LINE_BYTES and self.bytes + len(text) <= SQL_RESULT_BYTES:
            self.bytes += len(text)
            self.lines.append(text)
            kept = len(rows)
        else:
            kept, line, line_bytes = 0, [], 0
            for row in rows:
                row_text = json.dumps(row, ensure_ascii=True, allow_nan=False)
                if self.bytes + len(row_text) + 2 > SQL_RESULT_BYTES:
                    self.bytes_cut = True
                    break
                self.bytes += len(row_text) + 2
                kept += 1
                line.append(row_text)
                line_bytes += len(row_text) + 2
                if line_bytes >= LINE_BYTES:
                    self.lines.append("[" + ", ".join(line) + "]")
                    line, line_bytes = [], 0
            if line:
                self.lines.append("[" + ", ".join(line) + "]")
        self.shown += kept
        self.cells_cut += sum(sum(1 for index in cut if index < kept) for _, cut in columns)

    @staticmethod
    def _values(column) -> tuple[list, set[int]]:
        """The column's values as JSON, each cut at SQL_CELL_CHARS characters (text and bytes before they leave
        Arrow, anything else, lists and structs, by the length of its JSON), and the rows whose value was cut."""
        import pyarrow as pa
        import pyarrow.compute as pc

        kind = column.type
        if pa.types.is_integer(kind) or pa.types.is_boolean(kind):
            return column.to_pylist(), set()
        if pa.types.is_floating(kind):
            return [v if v is None or math.isfinite(v) else None for v in column.to_pylist()], set()
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            lengths = pc.utf8_length(column)
            if (pc.max(lengths).as_py() or 0) <= SQL_CELL_CHARS:
                return column.to_pylist(), set()
            lengths = lengths.to_pylist()
            heads = pc.utf8_slice_codeunits(column, 0, SQL_CELL_CHARS).to_pylist()
        elif pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
            # base64 makes 4 characters of 3 bytes: the cut is counted in the characters shown
            lengths = [None if n is None else (n + 2) // 3 * 4 for n in pc.binary_length(column).to_pylist()]
            heads = [plain(head) for head in pc.binary_slice(column, 0, SQL_CELL_CHARS // 4 * 3).to_pylist()]
        else:
            heads, lengths = [], []
            for value in column.to_pylist():
                value = plain(value)
                text = json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict)) else value
                if isinstance(text, str) and len(text) > SQL_CELL_CHARS:
                    value = text[:SQL_CELL_CHARS]
                heads.append(value)
                lengths.append(len(text) if isinstance(text, str) else None)
        cut = {i for i, n in enumerate(lengths) if n is not None and n > SQL_CELL_CHARS}
        return [head + cut_mark(lengths[i]) if i in cut else head for i, head in enumerate(heads)], cut

    def reply(self) -> str:
        """The reply: the rows, a line of them at a time (JSON lists of rows, already encoded), then the rest of the
        result as one JSON object, so the console reads it a piece at a time."""
        fields = {"columns": self.columns, "row_count": min(self.count, SQL_COUNT_LIMIT),
                  "row_count_complete": self.count < SQL_COUNT_LIMIT, "cells_cut": self.cells_cut,
                  "bytes_cut": self.bytes_cut,
                  "dialog_ids": list(self.ids) if self.id_column is not None else None,
                  "dialog_ids_complete": self.ids_complete}
        return "".join(line + "\n" for line in self.lines) + json.dumps(fields, ensure_ascii=True) + "\n"


def answer(connection, request: dict) -> str:
    """The reply to one request: ``Collected.reply``, or one line ``{"error": …}``. The console checked the query
    already (one statement that reads)."""
    import duckdb

    try:
        for alias, path in request.get("attach", ()):
            quoted_path = str(path).replace("'", "''")
            connection.execute(f"ATTACH '{quoted_path}' AS \"{alias}\" (READ_ONLY)")
        if request.get("search_path"):
            connection.execute("SET search_path = '" + str(request["search_path"]).replace("'", "''") + "'")
        for statement in LOCK:
            connection.execute(statement)
    except duckdb.Error as exc:
        return _error(f"The console's tables could not be opened: {one_line(exc)}")
    try:
        reader = connection.sql(request["query"]).to_arrow_reader(BATCH_ROWS)
        collected = Collected(list(reader.schema.names), max(0, int(request.get("max_rows", 0))))
        for batch in reader:
            collected.add(batch)
            if collected.count >= SQL_COUNT_LIMIT:
                break
        return collected.reply()
    except duckdb.OutOfMemoryException:
        return _error(f"The query needs more memory than the console's {SQL_MEMORY_LIMIT}; narrow it (WHERE, "
                      "LIMIT, fewer joined rows).")
    except duckdb.Error as exc:
        return _error(one_line(exc))
    except MemoryError:
        return _error("The query ran out of memory; narrow it (WHERE, LIMIT).")
    except Exception as exc:  # noqa: BLE001 - the contract is one line for the user, never a traceback
        return _error(f"The query failed: {type(exc).__name__}: {one_line(exc)}")


def _error(text: str) -> str:
    return json.dumps({"error": text}, ensure_ascii=True) + "\n"


def _bound_cpu(seconds: float) -> None:
    """End this process (SIGXCPU, then SIGKILL) once it has used ``seconds`` more of CPU time."""
    limit = math.ceil(_cpu_seconds() + seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard == resource.RLIM_INFINITY or limit < hard:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1 if hard == resource.RLIM_INFINITY else hard))


def _cpu_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def _say(fd: int, line: str) -> None:
    data = line.encode("ascii")
    while data:
        data = data[os.write(fd, data):]


def main(argv: list[str]) -> None:
    """``python -c "…main(sys.argv[1:])" DATABASE``: get ready, answer one request (see the module's docstring), exit.

    The first line it writes is ``{"ready": <CPU seconds used so far>}`` once DuckDB is imported and the database
    open (the console counts the time limit from there), or ``{"error": line}``; then the reply to the request."""
    # The lines go out on a copy of stdout; stdout itself is /dev/null, so nothing else DuckDB or Python might
    # print there (a progress bar) can mix into them.
    out = os.dup(1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_AS, (SQL_PROCESS_MEMORY, SQL_PROCESS_MEMORY))
        import duckdb
        import pyarrow.compute  # noqa: F401 - imported while the process waits, not while its query runs

        connection = duckdb.connect(argv[0], read_only=True, config=dict(CONFIG))
        connection.execute("SET enable_progress_bar = false")
        # A first query reads the catalog and warms DuckDB's Arrow export: done now, not on the query's time.
        connection.sql("SELECT count(*) FROM duckdb_tables()").to_arrow_reader(BATCH_ROWS).read_all()
    except Exception as exc:  # noqa: BLE001 - the console says it in one line
        _say(out, _error(f"The console's database could not be opened: {one_line(exc)}"))
        os._exit(0)
    _say(out, json.dumps({"ready": _cpu_seconds()}) + "\n")
    line = sys.stdin.buffer.readline(REQUEST_BYTES)
    if not line.endswith(b"\n"):
        os._exit(0)  # the console closed (or sent no whole request): nothing to answer
    try:
        request = json.loads(line)
        _bound_cpu(float(request.get("timeout_s", 0)) + CPU_SLACK_S)
        reply = answer(connection, request)
    except Exception as exc:  # noqa: BLE001 - a request this module cannot read is the console's bug; said in one line
        reply = _error(f"The query's process failed: {type(exc).__name__}: {one_line(exc)}")
    _say(out, reply)
    # No interpreter shutdown: DuckDB's threads and buffers go with the process (as the CLI ends, data_access/__main__).
    os._exit(0)
