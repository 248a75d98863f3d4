"""The one database behind notes, codebooks and annotations: SQLite for one person, PostgreSQL for a team.

``open_database(target)`` takes what ``DIALOGUE_NOTES_DB`` holds: a file path → SQLite (WAL, ``synchronous=FULL``,
``BEGIN IMMEDIATE`` writes), a ``postgresql://`` (or ``postgres://``) URL → a PostgreSQL server through
psycopg 3 (one connection per thread, ``READ COMMITTED`` transactions, row locks where a write reads first).

Both speak the same small SQL: statements are written with ``?`` placeholders and the few dialect-specific
pieces come from the ``Database`` (``id_column``, ``is_``, ``json_check``). The schema is one list of
migrations (``MIGRATIONS`` in ``data_access.schema``), applied in one transaction under a lock, so any number
of processes may create or upgrade a fresh database at once.
"""
from __future__ import annotations

import random
import re
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, Union
from urllib.parse import urlsplit, urlunsplit

BUSY_TIMEOUT_S = 30.0
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
_MIGRATION_LOCK_KEY = 74_117_001  # pg_advisory_xact_lock key: one migrating process at a time


class StoreError(Exception):
    """The database cannot be opened or used (not a database, made by a newer app, server down, disk problem)."""


def is_postgres_url(target: Union[str, Path, None]) -> bool:
    return isinstance(target, str) and target.strip().lower().startswith(POSTGRES_SCHEMES)


def redact(url: str) -> str:
    """The URL with its password replaced by ``***`` (for messages and the Data page)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


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


# -- SQLite --------------------------------------------------------------------------------------------------

class SQLiteDatabase(Database):
    kind = "sqlite"
    id_column = "id INTEGER PRIMARY KEY AUTOINCREMENT"
    json_check = "CHECK (json_valid({col}))"

    def __init__(self, path: Union[str, Path]):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot create its folder ({exc})") from exc

    def describe(self) -> str:
        return str(self.path)

    def is_(self) -> str:
        return "IS"

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
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

    def __init__(self, url: str):
        try:
            import psycopg  # noqa: F401  (imported lazily: SQLite users need no driver)
        except ImportError as exc:  # pragma: no cover - psycopg is pinned in requirements.txt
            raise StoreError(f"{redact(url)}: PostgreSQL needs the psycopg package ({exc})") from exc
        self.url = url.strip()
        if self.url.lower().startswith("postgres://"):
            self.url = "postgresql://" + self.url[len("postgres://"):]
        self._local = threading.local()

    def describe(self) -> str:
        return redact(self.url)

    def is_(self) -> str:
        return "IS NOT DISTINCT FROM"

    def _connection(self):
        import psycopg

        conn = getattr(self._local, "conn", None)
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        try:
            conn = psycopg.connect(self.url, connect_timeout=10, autocommit=False,
                                   application_name="dialogue-dashboard")
        except psycopg.Error as exc:
            raise StoreError(f"{self.describe()}: cannot connect ({_first_line(exc)})") from exc
        self._local.conn = conn
        return conn

    @contextmanager
    def _transaction(self) -> Iterator[Cursor]:
        import psycopg

        conn = self._connection()
        try:
            with conn.cursor() as raw:
                try:
                    yield Cursor(raw, "%s")
                except BaseException:
                    if not conn.closed:
                        conn.rollback()
                    raise
                conn.commit()
        except psycopg.Error as exc:
            if conn.broken or conn.closed:
                self._local.conn = None
            raise StoreError(f"{self.describe()}: {_first_line(exc)}") from exc

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

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _check_version(db: Database, version: int, known: int) -> None:
    if version > known:
        raise StoreError(
            f"{db.describe()}: written by a newer version of the app (notes schema {version}, "
            f"this app knows up to {known}); update the app to use it")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def open_database(target: Union[str, Path]) -> Database:
    """SQLite for a path, PostgreSQL for a ``postgresql://`` URL."""
    if is_postgres_url(target):
        return PostgresDatabase(str(target))
    if isinstance(target, str) and re.match(r"^[a-z][a-z0-9+.-]*://", target.strip(), re.I):
        raise StoreError(f"{redact(target)}: only file paths (SQLite) and postgresql:// URLs are supported")
    return SQLiteDatabase(target)

