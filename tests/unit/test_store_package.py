"""The store package (issue 25 item 3): notes and coding composed over one database (not inherited), a public
API only (no private name imported across modules), one ``Place`` value shared by notes, coding and links, and
PostgreSQL through a connection pool of the configured size."""
from __future__ import annotations

import ast
import dataclasses
import threading
from pathlib import Path

import pytest

from data_access.links import Place
from data_access.store import CodingStore, NotesStore, Store, open_database

ROOT = Path(__file__).resolve().parents[2]


def test_coding_is_composed_with_the_notes_not_inherited(store_target):
    store = Store(store_target)
    assert not isinstance(store.coding, NotesStore) and not hasattr(store.coding, "add_note")
    assert store.coding.notes_store is store.notes and store.coding.db is store.notes.db is store.db
    store.notes.add_note("codraw", "d1", "a note", turn=2)
    listed = store.coding.annotations(include_notes=True)
    assert listed[["kind", "comment", "turn"]].values.tolist() == [["note", "a note", 2]]
    store.close()


def test_no_private_name_is_imported_across_modules():
    offenders = []
    for folder in ("data_access", "ui", "pages", "corpora"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] in (
                        "store", "notes", "coding", "database", "schema", "values", "redaction", "db"):
                    offenders += [f"{path.relative_to(ROOT)}: {a.name}" for a in node.names
                                  if a.name.startswith("_") and a.name != "__future__"]
    assert offenders == []


def test_a_place_is_one_frozen_validated_value_shared_by_notes_coding_and_links(store_target):
    place = Place("gos", "g1", 2, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        place.step = 6
    assert Place.of(("gos", "g1", 2.0, float("nan"))) == Place("gos", "g1", 2)
    assert place.link() == "/replay?corpus=gos&dialog=g1&round=2&turn=5"
    for bad in [("", "g1"), ("gos", None), ("gos", "g1", 0), ("gos", "g1", 1, 1.5), ("gos", "g1", True)]:
        with pytest.raises(ValueError):
            Place(*bad)
    store = Store(store_target)
    note = store.notes.add_note("gos", "g1", "here", round=2, turn=5)
    assert store.notes.notes_at(place)["id"].tolist() == [note]
    store.coding.create_queue("pilot", [place, ("gos", "g1", 2, 6)], ["ann"])
    assert store.coding.queue_items("pilot")["link"].tolist()[0] == place.link()
    store.close()


def test_the_postgres_pool_never_opens_more_connections_than_configured(postgres_cluster, monkeypatch):
    import psycopg

    monkeypatch.setenv("DIALOGUE_STORE_POOL_SIZE", "2")
    url = postgres_cluster.new_database()
    store = Store(url)
    assert store.db.size == 2
    name = url.rsplit("/", 1)[1]
    start, peak, lock = threading.Barrier(8), [], threading.Lock()

    def reader() -> None:
        start.wait()
        for _ in range(20):
            with store.db.read() as cur:
                cur.execute("SELECT pg_sleep(0.005)")
        with psycopg.connect(postgres_cluster.url(), autocommit=True) as conn:
            count = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = "
                                 "'dialogue-dashboard'", [name]).fetchone()[0]
        with lock:
            peak.append(count)

    threads = [threading.Thread(target=reader) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert max(peak) <= 2
    store.close()


def test_a_busy_pool_says_busy_keeps_its_connections_and_never_exceeds_its_size(postgres_cluster, monkeypatch):
    """With every connection in use past the timeout, the pool was replaced while its connections were still in use
    (4 connections held with a size of 2) and the busy server was reported as unreachable."""
    import psycopg

    from data_access.store import StoreError

    monkeypatch.setenv("DIALOGUE_STORE_POOL_SIZE", "2")
    monkeypatch.setenv("DIALOGUE_STORE_TIMEOUT_S", "0.3")
    url = postgres_cluster.new_database()
    store = Store(url)
    name = url.rsplit("/", 1)[1]

    def connections() -> int:
        with psycopg.connect(postgres_cluster.url(), autocommit=True) as conn:
            return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = "
                                "'dialogue-dashboard'", [name]).fetchone()[0]

    holding, release = threading.Barrier(3, timeout=60), threading.Event()

    def holder() -> None:
        with store.db.read() as cur:
            cur.execute("SELECT 1")
            holding.wait()
            release.wait(60)

    threads = [threading.Thread(target=holder) for _ in range(2)]
    for thread in threads:
        thread.start()
    holding.wait()  # both connections are in use
    counts, errors = [connections()], []
    try:
        for _ in range(3):
            try:
                with store.db.read() as cur:
                    cur.execute("SELECT 1")
            except StoreError as exc:
                errors.append(exc)
            counts.append(connections())
    finally:
        release.set()
        for thread in threads:
            thread.join()
    with store.db.read() as cur:  # the same pool serves again once its connections are back
        assert cur.execute("SELECT 1").fetchone()[0] == 1
    counts.append(connections())
    assert max(counts) <= 2, counts
    assert [type(e).__name__ for e in errors] == ["StoreBusy"] * 3, errors
    assert all("busy (all 2 connection(s) of this process stayed in use" in str(e) for e in errors)
    assert not any("unreachable" in str(e) for e in errors)
    store.close()


def test_sqlite_opens_no_pool_and_a_size_applies_to_postgres_only(tmp_path):
    assert open_database(tmp_path / "x.sqlite3", pool_size=3).kind == "sqlite"


def test_coding_store_still_opens_on_its_own(store_target):
    coding = CodingStore(store_target)
    assert coding.codebooks().empty and coding.notes_store.db is coding.db
