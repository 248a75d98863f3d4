"""A throw-away PostgreSQL cluster for the store tests, and the ``store_target`` fixture that runs a test
against both backends (a fresh SQLite file, a fresh PostgreSQL database).

The server binaries are looked up in ``DIALOGUE_PG_BIN``, then ``/usr/lib/postgresql/<version>/bin`` (Debian's
``postgresql`` package), then ``PATH``. When they are missing the PostgreSQL cases skip with that reason, unless
``DIALOGUE_REQUIRE_POSTGRES=1`` or ``DIALOGUE_REQUIRE_ALL=1`` (set by ``.ci/run``), where they fail: CI must run
them (``tests/system.py``).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from scripts.system_packages import postgres_bin_dir
from tests.system import require

BACKENDS = ["sqlite", "postgresql"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    def __init__(self, bin_dir: Path):
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="dialogue-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # initdb refuses to run as root: run the server as the postgres user
            import pwd

            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                subprocess.run(["useradd", "--system", "--no-create-home", "postgres"], check=True)
                user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        result = subprocess.run([*self.as_user, *args], capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {result.stderr.strip() or result.stdout.strip()}")

    def start(self) -> None:
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "-E", "UTF8", "--no-locale", "--no-sync")
        self.start_server()

    def start_server(self) -> None:
        """Start the server on the cluster's data (again, after ``stop_server``)."""
        # fsync off: the tests kill clients, or stop the server cleanly, so what a client committed is kept.
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=on -c max_connections=200 -c shared_buffers=32MB")
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "log"),
                  "-o", options, "-w", "-t", "60", "start")

    def stop_server(self) -> None:
        """Stop the server and keep its data (a server stopped while the app runs); ``start_server`` again."""
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def stop(self) -> None:
        try:
            self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:16]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            # FILE_COPY: the template's few files copied as they are, about 0.03 s a database; PostgreSQL 15's
            # default (WAL_LOG) writes them through the log, 0.24 s and 10 MB of WAL each, hundreds of times a run
            strategy = " STRATEGY FILE_COPY" if conn.info.server_version >= 150000 else ""  # 14: always a copy
            conn.execute(f"CREATE DATABASE {name}{strategy}")
        return self.url(name)


def _server_binaries() -> Path:
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        require("postgres")
        raise AssertionError("postgres_bin_dir found no binaries where the requirement did")
    return bin_dir


@pytest.fixture(scope="session")
def postgres_cluster():
    cluster = Cluster(_server_binaries())
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def own_postgres_cluster():
    """A cluster of the test's own, which the test may stop and start again (the shared one must stay up)."""
    cluster = Cluster(_server_binaries())
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=BACKENDS)
def store_target(request, tmp_path):
    """A fresh, empty store location: a SQLite path, or a PostgreSQL URL of a new database."""
    if request.param == "sqlite":
        return tmp_path / "store" / "notes.sqlite3"
    return request.getfixturevalue("postgres_cluster").new_database()
