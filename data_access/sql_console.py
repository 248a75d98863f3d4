"""A read-only SQL console over one corpus (issue 37): DuckDB, over the corpus's frames (read from the Parquet cache)
under the names the app uses, with the per-dialog slice features, the loaded runs, the published layers and the
store's codes beside them.

It reads nothing else, writes nothing, and no query changes what another query sees (issue 45):
- the tables are written once to a DuckDB file in a private folder of the cache folder (``DIALOGUE_CACHE_DIR``;
  a table replaced later, the store's codes, to a file of its own), and each query runs in a process of its own
  (``data_access.sql_worker``) that opens them READ-ONLY: whatever the query does to its connection (a temporary
  table or macro, a setting, memory) ends with that process;
- DuckDB's own guards are set before the query and then locked (``enable_external_access=false``: no file, no
  network, no ATTACH / COPY / INSTALL / LOAD; ``lock_configuration=true``: no SET undoes it; no extension is
  installed or loaded automatically; no temporary files); the process gets none of the server's environment
  variables (the store's URL and the sign-in secrets stay out of its reach);
- only one statement, and only a query (SELECT, WITH … SELECT, FROM …, SUMMARIZE, DESCRIBE, and EXPLAIN [ANALYZE]
  of one of those) is run: CREATE, INSERT, COPY, ATTACH, SET, PRAGMA, EXPLAIN ANALYZE DELETE, … are refused before
  DuckDB sees them;
- each query is bounded: ``timeout_s`` (its process is killed then, as on ``RunningQuery.cancel()``, the page's
  Stop: DuckDB's own interrupt waits for the end of a batch, which a slow function can make half a minute),
  ``MAX_ROWS`` rows and ``SQL_RESULT_BYTES`` of them returned, each value cut at ``SQL_CELL_CHARS`` characters
  with a marker (the rest are counted up to ``COUNT_LIMIT``, never held), ``MEMORY_LIMIT`` and one thread in its
  process. The budgets are in ``data_access.budgets`` (docs/hardening.md, "The SQL console").

A spare process is started ahead of each query (importing DuckDB takes half a second), so a query waits only for
its own work. What is refused or stopped raises ``SqlRefused`` with one line for the user (``python -m data_access
sql`` prints it on stderr and exits 2).
"""
from __future__ import annotations

import collections
import hashlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

import pandas as pd

from .budgets import (
    SQL_CELL_CHARS,
    SQL_COUNT_LIMIT,
    SQL_MAX_QUERY_CHARS,
    SQL_MAX_ROWS,
    SQL_MEMORY_LIMIT,
    SQL_RESULT_BYTES,
    SQL_TIMEOUT_S,
    MiB,
)
from .sql_check import SqlRefused, reading_only
from .sql_worker import REPLY_BYTES, THREADS, cut_mark, one_line

MAX_ROWS = SQL_MAX_ROWS
COUNT_LIMIT = SQL_COUNT_LIMIT
MAX_QUERY_CHARS = SQL_MAX_QUERY_CHARS
TIMEOUT_S = SQL_TIMEOUT_S
MEMORY_LIMIT = SQL_MEMORY_LIMIT
DATABASE = "console.duckdb"  # the tables, in the console's folder; its catalog is "console"
STARTUP_S = 30.0  # how long a query's process may take to import DuckDB and open the tables (0.5 s on an idle machine)
READY_BYTES = 64 * 1024  # its first line: ready, or why it could not open the tables
REAP_GRACE_S = 1.0  # how long a process that answered (or closed its output) is given to exit before it is killed

# The query's process: isolated Python (no PYTHON* variables, no user site-packages, no working folder on the path),
# with the folder data_access is in first on its path.
_WORKER = "import sys; sys.path.insert(0, sys.argv[1]); from data_access.sql_worker import main; main(sys.argv[2:])"
_WORKER_ENV = ("PATH", "TZ", "LANG", "LC_ALL")  # the only variables it inherits


@dataclass
class SqlResult:
    columns: list[str]
    rows: list[list[Any]]  # at most MAX_ROWS and SQL_RESULT_BYTES of compact JSON, JSON-ready values
    row_count: int  # rows of the whole result, counted up to COUNT_LIMIT
    row_count_complete: bool
    seconds: float
    dialog_ids: Optional[list[str]] = None  # distinct dialog_id values of the whole result, when it has the column
    cells_cut: int = 0  # values of ``rows`` cut at SQL_CELL_CHARS characters (each ends in ``cut_mark``)
    bytes_cut: bool = False  # rows were left out because the next would pass SQL_RESULT_BYTES
    dialog_ids_complete: bool = True  # false: more distinct dialog ids than SQL_ID_CHARS holds (no slice can)

    @property
    def truncated(self) -> bool:
        return self.row_count > len(self.rows)

    @property
    def note(self) -> str:
        """What of the result was cut to its byte budgets, and why, in one line ("" when nothing was)."""
        parts = []
        if self.bytes_cut:
            parts.append(f"only the first {len(self.rows):,} rows are returned, because a result returns at most "
                         f"{SQL_RESULT_BYTES / MiB:g} MB of rows and the next row would pass it")
        if self.cells_cut:
            parts.append(f"{self.cells_cut:,} values longer than {SQL_CELL_CHARS:,} characters were cut (each ends "
                         f"in “{cut_mark(0).replace('0', 'N')}”)")
        return f"The result was cut: {'; '.join(parts)}." if parts else ""

    def as_json(self) -> dict:
        return {"columns": self.columns, "rows": self.rows, "row_count": self.row_count,
                "row_count_complete": self.row_count_complete, "truncated": self.truncated,
                "seconds": round(self.seconds, 3), "cells_cut": self.cells_cut, "bytes_cut": self.bytes_cut,
                "note": self.note or None}

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




class RunningQuery:
    """One query running in its own process; ``wait`` for its result, ``cancel`` to stop it (the process is
    killed: its work ends at once, whatever DuckDB is doing)."""

    def __init__(self, process: subprocess.Popen, request: dict, timeout_s: float, release: Callable[[], None],
                 then: Callable[[], None] = lambda: None):
        self._process = process
        self._request = request
        self._release = release  # called once the process is gone, before the result is handed out
        self._then = then  # called after (the next spare's start is not the query's time)
        self._stopped: Optional[str] = None
        self._reaped = False
        self._lock = threading.Lock()  # a kill and the reaping of the process never cross
        self._result: Optional[SqlResult] = None
        self._error: Optional[BaseException] = None
        self._done = threading.Event()
        self.process_id = process.pid
        self.cpu_seconds: Optional[float] = None  # CPU time its process spent from the request on, once it ended
        self._started = time.perf_counter()  # then when its process was ready: a result's seconds are the query's
        self._timeout_s = timeout_s
        self._ready_cpu = 0.0
        self._watchdog = self._timer(STARTUP_S, f"The query's process did not start within {STARTUP_S:g} s; try again.")
        self._thread = threading.Thread(target=self._run, name="sql-console", daemon=True)
        self._thread.start()

    def _timer(self, seconds: float, reason: str) -> threading.Timer:
        timer = threading.Timer(seconds, self._stop, args=(reason,))
        timer.daemon = True
        timer.start()
        return timer

    def _stop(self, reason: str) -> None:
        with self._lock:
            if self._reaped or self._done.is_set():
                return
            self._stopped = self._stopped or reason
            self._kill()

    def _kill(self) -> None:
        try:
            os.kill(self._process.pid, signal.SIGKILL)
        except ProcessLookupError:  # ended meanwhile (not yet reaped, so the id is still its own)
            pass

    def cancel(self) -> None:
        self._stop("The query was cancelled.")

    def done(self) -> bool:
        return self._done.is_set()

    def _run(self) -> None:
        line = b""
        rows: list[list[Any]] = []
        try:
            try:
                assert self._process.stdin is not None and self._process.stdout is not None
                line = self._process.stdout.readline(READY_BYTES)
                ready = json.loads(line) if line.endswith(b"\n") else {}
                if "ready" in ready:  # DuckDB is imported and the tables open: the time limit starts now
                    self._ready_cpu = float(ready["ready"])
                    self._started = time.perf_counter()
                    self._watchdog.cancel()
                    self._watchdog = self._timer(self._timeout_s, f"The query ran past the time limit of "
                                                                  f"{self._timeout_s:g} s and was stopped.")
                    self._process.stdin.write(json.dumps(self._request).encode("ascii") + b"\n")
                    self._process.stdin.close()
                    line = self._read_rows(rows)
            except (BrokenPipeError, OSError, ValueError):
                line = b""  # the process ended (killed, or it failed to start): said from its exit below
            # one that answered has nothing left to do (killed at once); one that closed its output without an answer
            # is ending: given a moment to say how, then killed
            status = self._reap(0 if self._stopped or line.endswith(b"\n") else REAP_GRACE_S)
            if self._stopped:
                raise SqlRefused(self._stopped)
            if not line.endswith(b"\n"):
                raise SqlRefused(self._ended_without_answer(status))
            reply = json.loads(line)
            if "error" in reply:
                raise SqlRefused(reply["error"])
            self._result = SqlResult(reply["columns"], rows, reply["row_count"], reply["row_count_complete"],
                                     time.perf_counter() - self._started, reply["dialog_ids"], reply["cells_cut"],
                                     reply["bytes_cut"], reply["dialog_ids_complete"])
        except SqlRefused as exc:
            self._error = exc
        except MemoryError:
            self._error = SqlRefused("The query's result ran out of memory; narrow it (WHERE, LIMIT).")
        except Exception as exc:  # noqa: BLE001 - the contract is one line for the user, never a traceback
            self._error = SqlRefused(f"The query failed: {type(exc).__name__}: {one_line(exc)}")
        finally:
            self._watchdog.cancel()
            self._reap(0)
            for pipe in (self._process.stdin, self._process.stdout):
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:
                        pass
            self._release()
            self._done.set()
            self._then()

    def _read_rows(self, rows: list[list[Any]]) -> bytes:
        """Read the reply's rows into ``rows``, a line (a JSON list of rows) at a time, and return its last line (the
        rest of the result, or an error). Past ``REPLY_BYTES`` in all (more than the process may send), the process is killed."""
        assert self._process.stdout is not None
        left = REPLY_BYTES
        while True:
            line = self._process.stdout.readline(left + 1)
            left -= len(line)
            if left < 0:
                self._stop(f"The query's result passed {REPLY_BYTES / MiB:.0f} MB and was stopped; narrow it "
                           "(fewer columns, LIMIT).")
                return b""
            if not line.startswith(b"["):
                return line
            rows.extend(json.loads(line))

    def _reap(self, grace_s: float) -> int:
        """Wait for the process to end (killed after ``grace_s`` if it has not) and take its exit status and CPU
        time, once; returns the status as ``Popen.returncode`` has it (-N: ended by signal N)."""
        deadline = time.monotonic() + grace_s
        while True:
            with self._lock:
                if self._reaped:
                    return self._process.returncode
                pid, status, usage = os.wait4(self._process.pid, os.WNOHANG)
                if pid == 0 and time.monotonic() >= deadline:
                    self._kill()
                    pid, status, usage = os.wait4(self._process.pid, 0)
                if pid:
                    self._reaped = True
                    self._process.returncode = os.waitstatus_to_exitcode(status)
                    self.cpu_seconds = max(0.0, usage.ru_utime + usage.ru_stime - self._ready_cpu)
                    return self._process.returncode
            time.sleep(0.002)

    def _ended_without_answer(self, status: int) -> str:
        if status == -signal.SIGXCPU:  # its own CPU limit (the time limit and 2 s), should the kill not have come
            return f"The query ran past the time limit of {self._request['timeout_s']:g} s and was stopped."
        if status == -signal.SIGKILL:
            return ("The query's process was killed by the system, most likely for memory; narrow the query "
                    "(WHERE, LIMIT).")
        return f"The query's process ended without an answer (exit status {status}); narrow the query (WHERE, LIMIT)."

    def wait(self, timeout: Optional[float] = None) -> Optional[SqlResult]:
        """The result once the query ends (None while it runs past ``timeout``); ``SqlRefused`` if it failed."""
        if not self._done.wait(timeout):
            return None
        if self._error is not None:
            raise self._error
        return self._result


class _Folder:
    """The console's private folder and processes: what is left to end when the console is closed or dropped
    (``weakref.finalize`` holds this, never the console)."""

    def __init__(self, path: Path):
        self.path = path
        self.database = path / DATABASE
        self.spare: Optional[subprocess.Popen] = None
        self.replaced: dict[str, tuple[str, Path, Optional[str]]] = {}  # table -> (alias, file, fingerprint)
        self.users: collections.Counter[Path] = collections.Counter()  # replaced files in use by running queries
        self.retired: set[Path] = set()  # replaced files to delete once no running query uses them
        self.written = 0  # replaced files written so far (each gets a name of its own)
        self.closed = False

    def spawn(self) -> subprocess.Popen:
        root = str(Path(__file__).resolve().parents[1])
        env = {name: os.environ[name] for name in _WORKER_ENV if name in os.environ}
        env["HOME"] = str(self.path)
        try:
            return subprocess.Popen([sys.executable, "-I", "-c", _WORKER, root, str(self.database)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    cwd=self.path, env=env)
        except OSError as exc:
            raise SqlRefused(f"No process could be started for the query: {one_line(exc)}") from None

    def close(self) -> None:
        self.closed = True
        spare, self.spare = self.spare, None
        if spare is not None:
            spare.kill()
            spare.wait()
        shutil.rmtree(self.path, ignore_errors=True)


def _private_folder(parent: Optional[Path]) -> Path:
    """A new folder for one console: under ``parent`` (default: ``sql-console`` in the cache folder), else in
    the system's temporary folder. Folders left there by consoles of this machine whose process is gone (a server
    that was killed) are deleted first."""
    from .sources import cache_dir

    host = socket.gethostname().replace("-", "_")
    try:
        base = Path(parent) if parent is not None else cache_dir() / "sql-console"
        base.mkdir(parents=True, exist_ok=True)
        for left in base.glob(f"{host}-*-*"):
            pid = left.name.split("-")[1]
            if pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(left, ignore_errors=True)
        return Path(tempfile.mkdtemp(prefix=f"{host}-{os.getpid()}-", dir=base))
    except OSError:
        return Path(tempfile.mkdtemp(prefix=f"dialogue-sql-console-{os.getpid()}-"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write_tables(path: Path, tables: Mapping[str, pd.DataFrame]) -> None:
    import duckdb

    with duckdb.connect(str(path), config={"threads": THREADS, "autoload_known_extensions": False,
                                           "autoinstall_known_extensions": False}) as db:
        for name, frame in tables.items():
            db.register("_incoming", _arrow(frame))
            db.execute(f'CREATE TABLE "{name}" AS SELECT * FROM _incoming')
            db.unregister("_incoming")


def _fingerprint(frame: pd.DataFrame) -> Optional[str]:
    """A digest of the frame's columns, types and values (None when a value cannot be hashed)."""
    try:
        digest = hashlib.sha256(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
        digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
        return digest.hexdigest()
    except (TypeError, ValueError):
        return None


@dataclass(eq=False)
class SqlConsole:
    """The tables (name -> frame) written once to a DuckDB file that every query opens read-only, each in a
    process of its own; share it between sessions. ``folder``: where its private folder goes (default: the
    cache folder's ``sql-console``)."""

    tables: Mapping[str, pd.DataFrame]
    folder: Optional[Path] = None
    _files: Any = field(default=None, repr=False)
    _lock: Any = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self._files = _Folder(_private_folder(self.folder))
        weakref.finalize(self, self._files.close)
        try:
            _write_tables(self._files.database, self.tables)
        except BaseException:
            self._files.close()
            raise
        self._files.spare = self._files.spawn()  # imports DuckDB while the page is drawn

    def replace_table(self, name: str, frame: pd.DataFrame) -> None:
        """Put ``frame`` in place of table ``name`` (the store's codes, which change while the console lives): it is
        written to a file of its own, which queries started from now on read first; queries already running keep
        reading the table they started on. A frame equal to the one in place writes nothing."""
        fingerprint = _fingerprint(frame)
        with self._lock:
            files = self._files
            if fingerprint is not None and name in files.replaced and files.replaced[name][2] == fingerprint:
                self.tables = {**self.tables, name: frame}
                return
            files.written += 1
            alias = f"replaced_{files.written}"
            path = files.path / f"{alias}.duckdb"
            _write_tables(path, {name: frame})
            if name in files.replaced:
                files.retired.add(files.replaced[name][1])
            files.replaced[name] = (alias, path, fingerprint)
            self._drop_retired()
            self.tables = {**self.tables, name: frame}

    def _drop_retired(self) -> None:
        for path in [p for p in self._files.retired if not self._files.users[p]]:
            self._files.retired.discard(path)
            path.unlink(missing_ok=True)

    def spare_ready(self, timeout_s: float) -> bool:
        """Whether a spare process is ready (DuckDB imported, the tables open), waiting up to ``timeout_s`` (the
        next spare is started once the query before has ended): a query started then waits for nothing but its own
        work. For tests and benchmarks; the page does not wait for it."""
        deadline = time.monotonic() + timeout_s
        while True:
            spare = self._files.spare
            if spare is not None and spare.stdout is not None:
                return bool(select.select([spare.stdout], [], [], max(0.0, deadline - time.monotonic()))[0])
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def table_names(self) -> list[str]:
        return list(self.tables)

    def schema(self) -> pd.DataFrame:
        """Table, column and type of everything a query can read (the console's reference)."""
        rows = [(name, column, str(dtype)) for name, frame in self.tables.items()
                for column, dtype in frame.dtypes.items()]
        return pd.DataFrame(rows, columns=["table", "column", "type"])

    def start(self, query: str, *, max_rows: int = MAX_ROWS, timeout_s: float = TIMEOUT_S) -> RunningQuery:
        """Check ``query`` (``SqlRefused`` at once when it is not one read-only query) and start it in the spare
        process (a new one when there is none; the next spare is started when the query ends)."""
        reading_only(query)
        with self._lock:
            files = self._files
            if files.closed:
                raise SqlRefused("The console was closed; open the page again.")
            process, files.spare = files.spare, None
            if process is None or process.poll() is not None:
                process = files.spawn()
            attached = list(files.replaced.values())
            for _, path, _ in attached:
                files.users[path] += 1
        request = {"query": query, "max_rows": max(0, int(max_rows)), "timeout_s": float(timeout_s),
                   "attach": [[alias, str(path)] for alias, path, _ in attached],
                   "search_path": ",".join([f"{alias}.main" for alias, _, _ in attached] + ["console.main"])}

        def release() -> None:
            with self._lock:
                for _, path, _ in attached:
                    files.users[path] -= 1
                self._drop_retired()

        def next_spare() -> None:
            # Started once the query is over, not beside it: its imports would take the CPU the query runs on.
            with self._lock:
                if files.spare is None and not files.closed:
                    try:
                        files.spare = files.spawn()
                    except SqlRefused:
                        pass  # the next query starts its own process (and says why if it cannot either)

        return RunningQuery(process, request, float(timeout_s), release, next_spare)

    def run(self, query: str, *, max_rows: int = MAX_ROWS, timeout_s: float = TIMEOUT_S) -> SqlResult:
        result = self.start(query, max_rows=max_rows, timeout_s=timeout_s).wait()
        assert result is not None
        return result

    def close(self) -> None:
        with self._lock:
            self._files.close()



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
