"""A SQL console query's process, from the server's side (``data_access.sql_console``; the process itself is
``data_access.sql_worker``): starting one (isolated Python, none of the server's environment), sending it the query
once it is ready, reading its reply a line at a time within the byte budget into a ``SqlResult``, and killing it at
the time limit or on cancel, which ends its work at once. Also the console's private folder, which holds its tables
and the spare process that waits for the next query.
"""
from __future__ import annotations

import collections
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from .budgets import SQL_CELL_CHARS, SQL_RESULT_BYTES, MiB
from .sql_check import SqlRefused
from .sql_worker import REPLY_BYTES, cut_mark, one_line

if TYPE_CHECKING:
    import pandas as pd

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
    rows: list[list[Any]]  # at most max_rows, and SQL_RESULT_BYTES as JSON; JSON-ready values
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

    def frame(self) -> "pd.DataFrame":
        import pandas as pd

        return pd.DataFrame(self.rows, columns=_unique(self.columns))


def _unique(columns: list[str]) -> list[str]:
    """Column names a frame can hold (``SELECT a, a`` gives two ``a``)."""
    seen: dict[str, int] = {}
    names = []
    for name in columns:
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return names


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
                try:
                    pid, status, usage = os.wait4(self._process.pid, os.WNOHANG)
                    if pid == 0 and time.monotonic() >= deadline:
                        self._kill()
                        pid, status, usage = os.wait4(self._process.pid, 0)
                except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored): gone, its status unknown
                    self._reaped = True
                    self._process.returncode = 0
                    return 0
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


class ConsoleFolder:
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
        env = {name: value for name, value in os.environ.items() if name in _WORKER_ENV}  # passed on, not read
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


def private_folder(parent: Optional[Path]) -> Path:
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


