"""A read-only SQL console over one corpus (issue 37): DuckDB in process, over the corpus's frames (read from
the Parquet cache) under the names the app uses, with the per-dialog slice features, the loaded runs, the
published layers and the store's codes beside them.

It reads nothing else and writes nothing:
- the database is in memory and DuckDB's own guards are set before any query and then locked
  (``enable_external_access=false``: no file, no network, no ATTACH / COPY / INSTALL / LOAD;
  ``lock_configuration=true``: no SET undoes it; no extension is installed or loaded automatically; Python
  replacement scans off, so a query sees only the tables registered here; no temporary files);
- only one statement, and only a query (SELECT, WITH … SELECT, FROM …, SUMMARIZE, DESCRIBE, EXPLAIN) is run:
  CREATE, INSERT, COPY, ATTACH, SET, PRAGMA, … are refused before DuckDB sees them;
- each query is bounded: ``timeout_s`` (a watchdog thread calls ``interrupt()``), ``MAX_ROWS`` rows returned
  (the rest are counted up to ``COUNT_LIMIT``, never held), ``MEMORY_LIMIT`` and ``THREADS`` for the whole
  database; ``RunningQuery.cancel()`` stops it from elsewhere (the page's Cancel).

What is refused or stopped raises ``SqlRefused`` with one line for the user (``python -m data_access sql``
prints it on stderr and exits 2).
"""
from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

import pandas as pd

MAX_ROWS = 10_000  # rows a result returns (the console's grid and the command's JSON)
COUNT_LIMIT = 1_000_000  # rows a result is counted up to; past it row_count_complete is false
MAX_QUERY_CHARS = 20_000
TIMEOUT_S = 10.0
MEMORY_LIMIT = "1GB"
THREADS = 1  # two cores are shared by every session; a query does not take both
_BATCH_ROWS = 8_192

# Statement types a query may be (duckdb.StatementType names): reading only.
_READING = {"SELECT", "EXPLAIN"}
# SUMMARIZE and DESCRIBE of a table are SELECTs in DuckDB; so is "FROM t".

_LOCKED_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "python_enable_replacements": False,
    "python_scan_all_frames": False,
    "temp_directory": "",
    "max_temp_directory_size": "0B",
    "threads": THREADS,
    "memory_limit": MEMORY_LIMIT,
}


class SqlRefused(ValueError):
    """The query was refused (not a single read-only query, too long, a DuckDB error) or stopped (time, cancel);
    the message is one line for the user."""


@dataclass
class SqlResult:
    columns: list[str]
    rows: list[list[Any]]  # at most MAX_ROWS, JSON-ready values
    row_count: int  # rows of the whole result, counted up to COUNT_LIMIT
    row_count_complete: bool
    seconds: float
    dialog_ids: Optional[list[str]] = None  # distinct dialog_id values of the whole result, when it has the column

    @property
    def truncated(self) -> bool:
        return self.row_count > len(self.rows)

    def as_json(self) -> dict:
        return {"columns": self.columns, "rows": self.rows, "row_count": self.row_count,
                "row_count_complete": self.row_count_complete, "truncated": self.truncated,
                "seconds": round(self.seconds, 3)}

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=_unique(self.columns))


def _unique(columns: list[str]) -> list[str]:
    """Column names a frame can hold (``SELECT a, a`` gives two ``a``)."""
    seen: dict[str, int] = {}
    names = []
    for name in columns:
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return names


def _one_line(text: object) -> str:
    first = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return "".join(c if c.isprintable() else " " for c in first)


def _plain(value: Any) -> Any:
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
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def _arrow(frame: pd.DataFrame):
    """The frame as an Arrow table; a column Arrow cannot type (mixed objects) as its text."""
    import pyarrow as pa

    try:
        return pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
        fixed = frame.copy()
        for column in fixed.columns:
            try:
                pa.array(fixed[column], from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
                fixed[column] = fixed[column].map(lambda v: None if v is None else str(v))
        return pa.Table.from_pandas(fixed, preserve_index=False)


def _reading_only(query: str) -> None:
    import duckdb

    if not isinstance(query, str) or not query.strip():
        raise SqlRefused("Type a query, e.g. SELECT dialog_id FROM dialogs LIMIT 10.")
    if len(query) > MAX_QUERY_CHARS:
        raise SqlRefused(f"The query is {len(query):,} characters long; at most {MAX_QUERY_CHARS:,} are run.")
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise SqlRefused(f"Not a query: {_one_line(exc)}") from None
    if len(statements) != 1:
        raise SqlRefused(f"One query at a time: this text holds {len(statements)} statements.")
    if statements[0].type.name not in _READING:
        word = (query.split() or ["?"])[0].upper()[:20]
        raise SqlRefused(f"Only queries are run here (SELECT …); “{word} …” is refused: the console reads the "
                         "corpus and writes nothing.")


class RunningQuery:
    """One query running in its own thread; ``wait`` for its result, ``cancel`` to stop it."""

    def __init__(self, cursor, query: str, max_rows: int, timeout_s: float):
        self._cursor = cursor
        self._query = query
        self._max_rows = max_rows
        self._timeout_s = timeout_s
        self._stopped: Optional[str] = None
        self._result: Optional[SqlResult] = None
        self._error: Optional[BaseException] = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sql-console", daemon=True)
        self._watchdog = threading.Timer(timeout_s, self._stop, args=(
            f"The query ran past the time limit of {timeout_s:g} s and was stopped.",))
        self._watchdog.daemon = True
        self._thread.start()
        self._watchdog.start()

    def _stop(self, reason: str) -> None:
        if not self._done.is_set():
            self._stopped = reason
            try:
                self._cursor.interrupt()
            except Exception:  # noqa: BLE001 - the query may have ended meanwhile; nothing to stop then
                pass

    def cancel(self) -> None:
        self._stop("The query was cancelled.")

    def done(self) -> bool:
        return self._done.is_set()

    def _run(self) -> None:
        import duckdb

        started = time.perf_counter()
        try:
            reader = self._cursor.sql(self._query).to_arrow_reader(_BATCH_ROWS)
            columns = list(reader.schema.names)
            id_column = columns.index("dialog_id") if "dialog_id" in columns else None
            ids: dict[str, None] = {}
            rows: list[list[Any]] = []
            count = 0
            for batch in reader:
                if self._stopped:
                    break
                if len(rows) < self._max_rows:
                    taken = batch.slice(0, self._max_rows - len(rows))
                    values = [taken.column(i).to_pylist() for i in range(taken.num_columns)]
                    rows.extend([_plain(v) for v in row] for row in zip(*values))
                if id_column is not None:
                    ids.update(dict.fromkeys(str(v) for v in batch.column(id_column).to_pylist() if v is not None))
                count += batch.num_rows
                if count >= COUNT_LIMIT:
                    break
            if self._stopped:
                raise SqlRefused(self._stopped)
            self._result = SqlResult(columns, rows, min(count, COUNT_LIMIT), count < COUNT_LIMIT,
                                     time.perf_counter() - started, list(ids) if id_column is not None else None)
        except SqlRefused as exc:
            self._error = exc
        except duckdb.InterruptException:
            self._error = SqlRefused(self._stopped or "The query was stopped.")
        except duckdb.OutOfMemoryException:
            self._error = SqlRefused(f"The query needs more memory than the console's {MEMORY_LIMIT}; "
                                     "narrow it (WHERE, LIMIT, fewer joined rows).")
        except duckdb.Error as exc:
            self._error = SqlRefused(self._stopped or _one_line(exc))
        except MemoryError:
            self._error = SqlRefused("The query ran out of memory; narrow it (WHERE, LIMIT).")
        except Exception as exc:  # noqa: BLE001 - the contract is one line for the user, never a traceback
            self._error = SqlRefused(f"The query failed: {type(exc).__name__}: {_one_line(exc)}")
        finally:
            self._watchdog.cancel()
            try:
                self._cursor.close()
            except Exception:  # noqa: BLE001 - closing a cursor DuckDB already closed
                pass
            # Done only once DuckDB is left: a process that ends while this daemon thread is still inside
            # DuckDB aborts ("terminate called …") instead of exiting.
            self._done.set()

    def wait(self, timeout: Optional[float] = None) -> Optional[SqlResult]:
        """The result once the query ends (None while it runs past ``timeout``); ``SqlRefused`` if it failed."""
        if not self._done.wait(timeout):
            return None
        if self._error is not None:
            raise self._error
        return self._result


@dataclass(eq=False)
class SqlConsole:
    """A locked in-memory DuckDB database holding ``tables`` (name -> frame); share it between sessions, each
    query runs on its own cursor."""

    tables: Mapping[str, pd.DataFrame]
    _db: Any = field(default=None, repr=False)
    _lock: Any = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        import duckdb

        self._db = duckdb.connect(":memory:", config=dict(_LOCKED_CONFIG))
        for name, frame in self.tables.items():
            # A registered frame is seen by its own connection only; each query runs on a cursor of its own
            # (another connection to the same database), so the frames become tables of the database.
            self._db.register("_incoming", _arrow(frame))
            self._db.execute(f'CREATE TABLE "{name}" AS SELECT * FROM _incoming')
            self._db.unregister("_incoming")
        # Last: from here on no statement can change a setting, external access included.
        self._db.execute("SET lock_configuration = true")

    def replace_table(self, name: str, frame: pd.DataFrame) -> None:
        """Put ``frame`` in place of table ``name`` (the store's codes, which change while the console lives);
        queries already running keep reading the table they started on."""
        with self._lock:
            self._db.register("_incoming", _arrow(frame))
            self._db.execute(f'CREATE OR REPLACE TABLE "{name}" AS SELECT * FROM _incoming')
            self._db.unregister("_incoming")
            self.tables = {**self.tables, name: frame}

    def table_names(self) -> list[str]:
        return list(self.tables)

    def schema(self) -> pd.DataFrame:
        """Table, column and type of everything a query can read (the console's reference)."""
        rows = [(name, column, str(dtype)) for name, frame in self.tables.items()
                for column, dtype in frame.dtypes.items()]
        return pd.DataFrame(rows, columns=["table", "column", "type"])

    def start(self, query: str, *, max_rows: int = MAX_ROWS, timeout_s: float = TIMEOUT_S) -> RunningQuery:
        """Check ``query`` (``SqlRefused`` at once when it is not one read-only query) and start it."""
        _reading_only(query)
        return RunningQuery(self._db.cursor(), query, max(0, int(max_rows)), float(timeout_s))

    def run(self, query: str, *, max_rows: int = MAX_ROWS, timeout_s: float = TIMEOUT_S) -> SqlResult:
        result = self.start(query, max_rows=max_rows, timeout_s=timeout_s).wait()
        assert result is not None
        return result

    def close(self) -> None:
        self._db.close()


def console_tables(loaded, *, layers: Optional[Mapping[str, Any]] = None, runs: Optional[Mapping[str, Any]] = None,
                   codes: Optional[pd.DataFrame] = None, features: Optional[pd.DataFrame] = None
                   ) -> dict[str, pd.DataFrame]:
    """The tables of one corpus's console (docs/slices.md, "The SQL console"): every frame of the loaded corpus
    under its own name (dialogs, utterances, rounds, …), ``features`` (the dialog table with the slice features),
    ``runs`` (per loaded run and dialog: score, humans, gap), one ``layer_<name>`` per published layer (its
    common annotation form) and ``codes`` (the store's annotations of this corpus)."""
    from .contract import scoring_of

    tables: dict[str, pd.DataFrame] = {name: loaded.frames[name] for name in loaded.frames}
    if features is not None:
        tables["features"] = features
    if runs:
        parts = []
        for name, run in runs.items():
            scores = scoring_of(run).dialog_scores(run)
            parts.append(pd.DataFrame({"run": name, "dialog_id": scores["dialog_id"].astype(str),
                                       "units": scores["units"], "score": scores["score"].astype(float),
                                       "humans": scores["humans"].astype(float),
                                       "gap": scores["score"].astype(float) - scores["humans"].astype(float)}))
        tables["runs"] = pd.concat(parts, ignore_index=True)
    for name, layer in (layers or {}).items():
        annotations = layer.annotations.copy()
        if "referents" in annotations.columns:
            annotations["referents"] = annotations["referents"].map(
                lambda r: [str(v) for v in r] if hasattr(r, "__iter__") and not isinstance(r, str) else [])
        tables["layer_" + name.replace("-", "_")] = annotations
    if codes is not None:
        frame = codes[codes["corpus"] == loaded.corpus] if "corpus" in codes.columns else codes
        tables["codes"] = frame.reset_index(drop=True)
    return tables


def check_query(query: str) -> None:
    """``SqlRefused`` (one line) unless ``query`` is one read-only query the console would run: what a slice defined
    by SQL is checked with when it is saved or linked (data_access.slices.definitions)."""
    _reading_only(query)
