"""The one database behind notes, codebooks and annotations: SQLite for one person, PostgreSQL for a team.

``open_database(target)`` takes what ``DIALOGUE_NOTES_DB`` holds: a file path → SQLite (WAL, ``synchronous=FULL``,
``BEGIN IMMEDIATE`` writes), a ``postgresql://`` (or ``postgres://``) URL → a PostgreSQL server through
psycopg 3 and its connection pool (``psycopg_pool``: at most ``DIALOGUE_STORE_POOL_SIZE`` connections per
process, shared by every thread; ``READ COMMITTED`` transactions, row locks where a write reads first).

Both speak the same small SQL: statements are written with ``?`` placeholders and the few dialect-specific
pieces come from the ``Database`` (``id_column``, ``is_``, ``json_check``). The schema is one list of
migrations (``MIGRATIONS`` in ``data_access.store.schema``), applied in one transaction under a lock, so any
number of processes may create or upgrade a fresh database at once.

Every error leaves as a ``StoreError`` whose message names the database with its password hidden
(``redaction.redact``); a server that cannot be reached is a ``StoreUnavailable``, and the next use after one
tries the server again first, so the store recovers by itself when the server is back. A pool whose every
connection stayed in use for the timeout is a ``StoreBusy``: the server answers, and the pool is kept. The pool
never holds more than its size, the connection that checks the server after an outage included.
"""
from __future__ import annotations

import logging
import os
import random
import re
import sqlite3
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union

from .redaction import RedactingFilter, redact, url_secrets

BUSY_TIMEOUT_S = 30.0
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
POOL_SIZE_VARIABLE = "DIALOGUE_STORE_POOL_SIZE"
POOL_TIMEOUT_VARIABLE = "DIALOGUE_STORE_TIMEOUT_S"
DEFAULT_POOL_SIZE = 4
DEFAULT_POOL_TIMEOUT_S = 10.0
CONNECT_TIMEOUT_S = 5
POOL_CLOSE_TIMEOUT_S = 1.0
_KEYWORD_STRING = re.compile(r"^\s*(host|hostaddr|port|dbname|user|password|service)\s*=", re.IGNORECASE)
_MIGRATION_LOCK_KEY = 74_117_001  # pg_advisory_xact_lock key: one migrating process at a time


class StoreError(Exception):
    """The database cannot be opened or used (not a database, made by a newer app, server down, disk problem)."""


class StoreUnavailable(StoreError):
    """The database server cannot be reached (stopped, unreachable, no connection could be opened in time)."""


class StoreBusy(StoreError):
    """The server answers, but every connection this process may open (``DIALOGUE_STORE_POOL_SIZE``) stayed in use
    by other calls for the whole timeout; nothing was written, and the next call may well succeed."""


def is_postgres_url(target: Union[str, Path, None]) -> bool:
    return isinstance(target, str) and target.strip().lower().startswith(POSTGRES_SCHEMES)


def pool_size() -> int:
    """Connections per process to a PostgreSQL store (``DIALOGUE_STORE_POOL_SIZE``, default 4, at least 1)."""
    return max(1, _int_setting(POOL_SIZE_VARIABLE, DEFAULT_POOL_SIZE))


def pool_timeout_s() -> float:
    """How long a store call waits for a connection (``DIALOGUE_STORE_TIMEOUT_S``, default 10 s)."""
    try:
        value = float(os.environ.get(POOL_TIMEOUT_VARIABLE, "") or DEFAULT_POOL_TIMEOUT_S)
    except ValueError:
        return DEFAULT_POOL_TIMEOUT_S
    return value if value > 0 else DEFAULT_POOL_TIMEOUT_S


def _int_setting(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, "") or default)
    except ValueError:
        return default


class Database:
    """Common interface; see ``SQLiteDatabase`` and ``PostgresDatabase``."""

    kind: str
    id_column: str
    json_check: str  # a CHECK clause template with {col}

    def describe(self) -> str:
        raise NotImplementedError

    def is_(self) -> str:
        """The null-safe equality operator (``IS`` / ``IS NOT DISTINCT FROM``)."""
        raise NotImplementedError

    @contextmanager
    def read(self) -> Iterator["Cursor"]:
        raise NotImplementedError
        yield

    @contextmanager
    def write(self) -> Iterator["Cursor"]:
        raise NotImplementedError
        yield

    def schema_version(self) -> int:
        raise NotImplementedError

    def migrate(self, migrations: Sequence[Callable[["Database"], list[str]]]) -> None:
        raise NotImplementedError


class Cursor:
    """A thin wrapper: ``execute(sql with ?, params)``, ``insert(...) -> id`` (via RETURNING id)."""

    def __init__(self, raw, placeholder: str):
        self.raw = raw
        self._placeholder = placeholder
        # appended to a SELECT that a write transaction reads before it changes the row
        self.lock_clause = "" if placeholder == "?" else " FOR UPDATE"
        self.null_safe_equals = "IS" if placeholder == "?" else "IS NOT DISTINCT FROM"

    def _sql(self, sql: str) -> str:
        return sql if self._placeholder == "?" else sql.replace("?", self._placeholder)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> "Cursor":
        self.raw.execute(self._sql(sql), tuple(params))
        return self

    def fetchone(self):
        return self.raw.fetchone()

    def fetchall(self) -> list:
        return self.raw.fetchall()

    def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        """An INSERT statement; returns the new row's id."""
        self.raw.execute(self._sql(sql + " RETURNING id"), tuple(params))
        return int(self.raw.fetchone()[0])

    def serialize(self, key: str) -> None:
        """Make every other write transaction that serializes on ``key`` wait until this one ends (PostgreSQL: a
        transaction advisory lock; SQLite's writes are one at a time already, ``BEGIN IMMEDIATE``)."""
        if self._placeholder != "?":
            self.raw.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))

    @property
    def rowcount(self) -> int:
        """How many rows the last UPDATE or DELETE changed."""
        return int(self.raw.rowcount)

    def insert_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
        """Insert every row of ``rows`` (values in ``columns`` order, taken one at a time, never all held) in
        bulk: one prepared statement for SQLite, COPY for PostgreSQL (a statement per row was 30 µs a row).
        Returns how many were inserted. An exception raised by ``rows`` leaves the transaction to roll back."""
        count = 0

        def counted() -> Iterator[Sequence[Any]]:
            nonlocal count
            for row in rows:
                count += 1
                yield row

        if self._placeholder == "?":
            self.raw.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
                                 f"({', '.join('?' * len(columns))})", counted())
        else:
            with self.raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in counted():
                    copy.write_row(row)
        return count


# -- SQLite --------------------------------------------------------------------------------------------------

class SQLiteDatabase(Database):
    kind = "sqlite"
    id_column = "id INTEGER PRIMARY KEY AUTOINCREMENT"
    json_check = "CHECK (json_valid({col}))"

    def __init__(self, path: Union[str, Path], *, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only  # opened with SQLite's mode=ro: no statement can write, no file is made
        if read_only:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot create its folder ({exc})") from exc

    def describe(self) -> str:
        return redact(self.path)  # a keyword/value string set by mistake would be a "path" holding a password

    def is_(self) -> str:
        return "IS"

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            where = f"{self.path.resolve().as_uri()}?mode=ro" if self.read_only else self.path
            conn = sqlite3.connect(where, timeout=BUSY_TIMEOUT_S, isolation_level=None, uri=self.read_only)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the notes database ({exc})") from exc
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            # FULL: the WAL is fsynced at every commit, so a saved note also survives a power cut.
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            yield conn
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: {exc}") from exc
        finally:
            conn.close()

    @contextmanager
    def read(self) -> Iterator[Cursor]:
        with self._connect() as conn:
            yield Cursor(conn.cursor(), "?")

    @contextmanager
    def write(self) -> Iterator[Cursor]:
        """One short write transaction; the write lock is taken up front so it never has to be upgraded."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield Cursor(conn.cursor(), "?")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def schema_version(self) -> int:
        with self._connect() as conn:
            return conn.execute("PRAGMA user_version").fetchone()[0]

    def _set_wal(self) -> None:
        """Switch to WAL once per file. Changing the journal mode needs the file to itself and does not wait
        on the busy handler, so when several processes open a fresh database at once it is retried."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                with self._connect() as conn:
                    if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
                        return
                    conn.execute("PRAGMA journal_mode = WAL")
                    return
            except StoreError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(random.uniform(0.005, 0.05))

    def migrate(self, migrations) -> None:
        self._set_wal()
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")  # waits (busy_timeout) for any other migrating process
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                _check_version(self, version, len(migrations))
                for step in range(version, len(migrations)):
                    for statement in migrations[step](self):
                        conn.execute(statement)
                if version != len(migrations):
                    conn.execute(f"PRAGMA user_version = {len(migrations)}")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")


# -- PostgreSQL ----------------------------------------------------------------------------------------------

class PostgresDatabase(Database):
    kind = "postgresql"
    id_column = "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
    json_check = "CHECK (({col})::jsonb IS NOT NULL)"

    def __init__(self, url: str, *, size: Optional[int] = None, timeout_s: Optional[float] = None,
                 read_only: bool = False):
        self.url = url.strip()
        self.read_only = read_only  # every transaction READ ONLY (the server refuses a write)
        if self.url.lower().startswith("postgres://"):
            self.url = "postgresql://" + self.url[len("postgres://"):]
        self._secrets = url_secrets(self.url)
        try:
            import psycopg
            from psycopg.conninfo import conninfo_to_dict
        except ImportError as exc:  # pragma: no cover - psycopg is pinned in requirements.txt
            raise StoreError(f"{self.describe()}: PostgreSQL needs the psycopg package ({exc})") from None
        try:
            conninfo_to_dict(self.url)  # libpq's own parser: a malformed URL is refused here, not in a pool thread
        except psycopg.Error as exc:
            raise StoreError(f"{self.describe()}: not a valid PostgreSQL URL ({self._message(exc)})") from None
        self.size = size or pool_size()
        self.timeout_s = timeout_s or pool_timeout_s()
        self._lock = threading.Lock()
        self._pool: Any = None  # a psycopg_pool.ConnectionPool once opened (imported only for PostgreSQL)
        self._verify = True  # before the first use, and after a failure: try one direct connection first
        self._borrowed = 0  # calls holding or waiting for a connection of the pool
        self._holding = 0  # of those, the calls holding one
        self._closing: Optional[threading.Thread] = None  # the old pool's close, until its connections are closed
        _LOG_FILTER.secrets = tuple(dict.fromkeys([*_LOG_FILTER.secrets, *self._secrets]))

    def describe(self) -> str:
        return redact(self.url, self._secrets)

    def redact(self, text: object) -> str:
        """``text`` without this database's password, whatever form it takes there."""
        return redact(text, self._secrets)

    def _message(self, exc: BaseException) -> str:
        return self.redact(_first_line(exc))

    def is_(self) -> str:
        return "IS NOT DISTINCT FROM"

    def _connect_kwargs(self) -> dict:
        read_only = {"options": "-c default_transaction_read_only=on"} if self.read_only else {}
        return {"connect_timeout": CONNECT_TIMEOUT_S, "autocommit": False, "application_name": "dialogue-dashboard",
                **read_only}

    def _checked_pool(self):
        """The pool, made on first use. After the server was found unreachable, one direct connection first says
        quickly whether it is back (a pool would wait its whole timeout), and a fresh pool replaces the old one;
        that happens only once every connection of the old pool is back and closed, so the process never holds
        more than ``size`` connections, the direct one included. Until then calls fail at once."""
        import psycopg
        from psycopg_pool import ConnectionPool

        with self._lock:
            if self._verify:
                if self._borrowed:
                    raise StoreUnavailable(f"{self.describe()}: unreachable (a moment ago; "
                                           f"{self._borrowed} call(s) still finishing on it)")
                self._close_pool()
                if self._closing is not None:
                    # its idle connections are closed once its workers stop (a second at most)
                    self._closing.join(POOL_CLOSE_TIMEOUT_S + CONNECT_TIMEOUT_S)
                    self._closing = None
                try:
                    psycopg.connect(self.url, **self._connect_kwargs()).close()
                except psycopg.Error as exc:
                    raise StoreUnavailable(f"{self.describe()}: cannot connect ({self._message(exc)})") from None
                self._verify = False
            if self._pool is None:
                self._pool = ConnectionPool(
                    self.url, min_size=1, max_size=self.size, timeout=self.timeout_s, open=False,
                    kwargs=self._connect_kwargs(), check=ConnectionPool.check_connection, name="dialogue-store")
                self._pool.open(wait=False)
            self._borrowed += 1  # counted before the wait, handed back in _returned
            return self._pool

    def _hold(self) -> bool:
        with self._lock:
            self._holding += 1
        return True

    def _returned(self, held: bool) -> None:
        with self._lock:
            self._borrowed -= 1
            self._holding -= int(held)
            if self._verify and not self._borrowed:
                self._close_pool()  # the server went away and the last call on this pool is over

    def _failed(self) -> None:
        """The server went away: the next use tries it directly, and the pool is closed (its reconnection
        attempts would only fill the log) once no call holds one of its connections."""
        with self._lock:
            self._verify = True

    def _timed_out(self) -> StoreError:
        """No connection came within the timeout: busy when every connection this process may open is in use
        by other calls (the server answers; the pool is kept), unreachable when the pool could not open one."""
        with self._lock:
            holding, waiting = self._holding, self._borrowed - self._holding - 1
        if holding >= self.size:
            return StoreBusy(f"{self.describe()}: busy (all {self.size} connection(s) of this process stayed in use "
                             f"for {self.timeout_s:g} s, {waiting} other call(s) waiting too; try again)")
        self._failed()
        return StoreUnavailable(f"{self.describe()}: unreachable (no connection within {self.timeout_s:g} s)")

    @contextmanager
    def _transaction(self) -> Iterator[Cursor]:
        import psycopg
        from psycopg_pool import PoolTimeout

        pool = self._checked_pool()
        held = False
        try:
            with pool.connection() as conn:  # commits when the block ends, rolls back when it raises
                held = self._hold()
                try:
                    with conn.cursor() as raw:
                        yield Cursor(raw, "%s")
                except psycopg.Error as exc:
                    if conn.broken or conn.closed:
                        raise _Broken(exc) from None
                    raise StoreError(f"{self.describe()}: {self._message(exc)}") from None
        except PoolTimeout:
            raise self._timed_out() from None
        except _Broken as broken:
            self._failed()
            raise StoreUnavailable(f"{self.describe()}: unreachable ({self._message(broken.cause)})") from None
        except psycopg.Error as exc:  # committing, or handing the connection back
            self._failed()
            raise StoreUnavailable(f"{self.describe()}: unreachable ({self._message(exc)})") from None
        finally:
            self._returned(held)  # after the commit and the connection's return to the pool

    read = _transaction
    write = _transaction

    def schema_version(self) -> int:
        with self.read() as cur:
            cur.execute("SELECT to_regclass('store_meta') IS NOT NULL")
            if not cur.fetchone()[0]:
                return 0
            row = cur.execute("SELECT value FROM store_meta WHERE key = 'schema_version'").fetchone()
            return int(row[0]) if row else 0

    def migrate(self, migrations) -> None:
        with self.write() as cur:
            # DDL is transactional in PostgreSQL: the lock makes concurrent first starts wait, then see the
            # finished schema.
            cur.execute(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK_KEY})")
            cur.execute("CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            row = cur.execute("SELECT value FROM store_meta WHERE key = 'schema_version'").fetchone()
            version = int(row[0]) if row else 0
            _check_version(self, version, len(migrations))
            for step in range(version, len(migrations)):
                for statement in migrations[step](self):
                    cur.execute(statement)
            if version != len(migrations):
                cur.execute("INSERT INTO store_meta (key, value) VALUES ('schema_version', ?) "
                            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [str(len(migrations))])

    def _close_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            # in the background: a pool whose server is gone takes its timeout to close
            self._closing = threading.Thread(target=pool.close, kwargs={"timeout": POOL_CLOSE_TIMEOUT_S}, daemon=True)
            self._closing.start()

    def __del__(self) -> None:
        # A pool dropped without close() stops its workers from whichever thread drops it last, which may be
        # one of them (and then fails to join itself): close it here instead. Not while the interpreter exits:
        # a thread started then never runs, and the process hung on it (the system closes the sockets anyway).
        if getattr(self, "_pool", None) is not None and not sys.is_finalizing():
            self._close_pool()

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            self._verify = True
        if pool is not None:
            pool.close()


# psycopg and its pool log connection failures (from the pool's own threads): their records are redacted with
# the secrets of every database this process opened. A logger's filter sees only records logged to it.
_LOG_FILTER = RedactingFilter()
for _name in ("psycopg", "psycopg.pool"):
    logging.getLogger(_name).addFilter(_LOG_FILTER)


class _Broken(Exception):
    """A psycopg error that broke its connection (carried out of the pool's block, which then discards it)."""

    def __init__(self, cause: BaseException):
        super().__init__(str(cause))
        self.cause = cause


def _check_version(db: Database, version: int, known: int) -> None:
    if version > known:
        raise StoreError(
            f"{db.describe()}: written by a newer version of the app (notes schema {version}, "
            f"this app knows up to {known}); update the app to use it")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def open_database(target: Union[str, Path], *, pool_size: Optional[int] = None, read_only: bool = False) -> Database:
    """SQLite for a path, PostgreSQL for a ``postgresql://`` URL (with ``pool_size`` connections at most);
    ``read_only``: nothing can be written through it (nor a SQLite file or folder made)."""
    if is_postgres_url(target):
        return PostgresDatabase(str(target), size=pool_size, read_only=read_only)
    if isinstance(target, str) and re.match(r"^[a-z][a-z0-9+.-]*://", target.strip(), re.I):
        raise StoreError(f"{redact(target)}: only file paths (SQLite) and postgresql:// URLs are supported")
    if _KEYWORD_STRING.match(str(target)):
        raise StoreError(f"{redact(target)}: a keyword/value connection string; write it as a postgresql:// URL "
                         "(postgresql://user:password@host:port/database)")
    return SQLiteDatabase(target, read_only=read_only)

