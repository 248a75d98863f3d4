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

import hashlib
import select
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional

import pandas as pd

from .budgets import SQL_COUNT_LIMIT, SQL_MAX_QUERY_CHARS, SQL_MAX_ROWS, SQL_MEMORY_LIMIT, SQL_TIMEOUT_S
from .sql_check import SqlRefused, reading_only
from .sql_process import ConsoleFolder, RunningQuery, SqlResult, private_folder
from .sql_worker import THREADS

MAX_ROWS = SQL_MAX_ROWS
COUNT_LIMIT = SQL_COUNT_LIMIT
MAX_QUERY_CHARS = SQL_MAX_QUERY_CHARS
TIMEOUT_S = SQL_TIMEOUT_S
MEMORY_LIMIT = SQL_MEMORY_LIMIT


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
        self._files = ConsoleFolder(private_folder(self.folder))
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


# The columns other than dialog_id by which a frame names its dialog (A Game Of Sorts' interaction_id, Minecraft's
# game): the console gives such a table a dialog_id column first, the old name kept beside it for one release.
DIALOG_ALIASES = ("interaction_id", "game")
SAVED_COLUMNS = ["id", "name", "description", "slice", "corpus", "owner", "shared", "level", "members_listed"]
MEMBER_COLUMNS = ["slice_id", "dialog_id", "round", "turn"]


def _named_dialogs(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a ``dialog_id`` column first where it names its dialogs by an alias (``game``)."""
    if "dialog_id" in frame.columns:
        return frame
    alias = next((c for c in DIALOG_ALIASES if c in frame.columns), None)
    if alias is None:
        return frame
    named = frame.copy(deep=False)
    named.insert(0, "dialog_id", frame[alias].to_numpy())
    return named


def no_saved_slices() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``saved_slices`` and ``saved_slice_members`` tables before the store's are read (empty)."""
    saved = pd.DataFrame({c: pd.Series(dtype="int64" if c == "id" else "bool" if c in ("shared", "members_listed")
                                       else "str") for c in SAVED_COLUMNS})
    members = pd.DataFrame({"slice_id": pd.Series(dtype="int64"), "dialog_id": pd.Series(dtype="str"),
                            "round": pd.Series(dtype="Int64"), "turn": pd.Series(dtype="Int64")})
    return saved, members


def console_tables(loaded, *, layers: Optional[Mapping[str, Any]] = None, runs: Optional[Mapping[str, Any]] = None,
                   codes: Optional[pd.DataFrame] = None, features: Optional[pd.DataFrame] = None,
                   steps: Optional[pd.DataFrame] = None) -> dict[str, pd.DataFrame]:
    """The tables of one corpus's console (docs/slices.md, "The SQL console"): every frame of the loaded corpus
    under its own name (dialogs, utterances, rounds, …; each with a ``dialog_id`` column, a frame that names its
    dialogs ``game`` or ``interaction_id`` keeping that name beside it), ``features`` (the dialog table with the
    slice features), ``step_features`` (the replay steps with their step features, ``steps``), ``runs`` (per loaded
    run and dialog: score, humans, gap), one ``layer_<name>`` per published layer (its common annotation form),
    ``codes`` (the store's annotations of this corpus), and ``saved_slices`` / ``saved_slice_members`` (empty until
    the app puts the store's in: ``SqlConsole.replace_table``)."""
    from .contract import scoring_of

    tables: dict[str, pd.DataFrame] = {name: _named_dialogs(loaded.frames[name]) for name in loaded.frames}
    if features is not None:
        tables["features"] = features
    if steps is not None:
        tables["step_features"] = steps
    tables["saved_slices"], tables["saved_slice_members"] = no_saved_slices()
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

