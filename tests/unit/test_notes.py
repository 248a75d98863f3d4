"""Notes store, against both backends (SQLite file and PostgreSQL server, see tests/postgres.py): CRUD,
filters, history and soft delete, exports, schema versioning, and durability — concurrent writer processes
lose nothing, a writer killed mid-transaction leaves only committed notes, concurrent creation is safe."""
from __future__ import annotations

import io
import json
import multiprocessing
import os
import shutil
import signal
import sqlite3
import tempfile
import threading
from pathlib import Path

import pandas as pd
import pytest

from data_access.store import (
    NOTE_COLUMNS,
    SCHEMA_VERSION,
    Cursor,
    NoteConflict,
    NoteNotFound,
    NotesStore,
    apply_edits,
    insert_note_row,
    new_note_row,
    normalize_tags,
    open_database,
    schema,
)
from data_access.store import StoreError as NotesStoreError


@pytest.fixture
def store(store_target) -> NotesStore:
    return NotesStore(store_target)


def test_default_path_comes_from_environment(isolated_environment):
    store = NotesStore()
    assert store.path == isolated_environment / "notes.sqlite3"
    assert store.path.is_file()


def test_tags_are_normalised():
    assert normalize_tags(["  Repair ", "repair", "SPATIAL", "", "two  words"]) == ["repair", "spatial", "two words"]
    assert normalize_tags("Repair, spatial,,repair") == ["repair", "spatial"]
    assert normalize_tags(None) == []


def test_add_and_read_back_verbatim(store):
    text = "  <b>bold?</b> 'quotes' \"double\" ; DROP TABLE notes; -- \n second line  "
    note_id = store.add_note("codraw", "train_00001", text, turn=3, tags=["Repair", " spatial "], author="ann")
    note = store.get_note(note_id)
    assert note["text"] == text
    assert note["tags"] == ["repair", "spatial"]
    assert (note["corpus"], note["dialog_id"], note["round"], note["turn"], note["author"]) == \
        ("codraw", "train_00001", None, 3, "ann")
    assert note["link"] == "/replay?corpus=codraw&dialog=train_00001&turn=3"
    frame = store.notes()
    assert list(frame.columns) == NOTE_COLUMNS
    assert frame["turn"].dtype == "Int64" and frame.loc[0, "tags"] == ["repair", "spatial"]
    assert str(frame["created_at"].dt.tz) == "UTC"


def test_validation(store):
    with pytest.raises(ValueError):
        store.add_note("codraw", "d", "   ")  # neither text nor tags
    with pytest.raises(ValueError):
        store.add_note("codraw", "d", "x", turn=0)
    with pytest.raises(ValueError):
        store.add_note("", "d", "x")
    assert store.add_note("codraw", "d", "", tags="only-a-tag") > 0


def test_filters(store):
    store.add_note("codraw", "d1", "Sun placed wrongly", turn=2, tags=["error"])
    store.add_note("codraw", "d1", "whole dialog: good teamwork", tags=["Teamwork"])
    store.add_note("gos", "g1", "Über-clear description", round=2, turn=1, tags=["clarity", "error"], author="bo")
    store.add_note("minecraft", "m1", "builder ignores instruction", turn=5)
    assert len(store.notes()) == 4
    assert store.notes(corpus="codraw")["dialog_id"].tolist() == ["d1", "d1"]
    assert sorted(store.notes(tag="ERROR ")["corpus"]) == ["codraw", "gos"]
    assert store.notes(text="SUN")["turn"].tolist() == [2]
    assert store.notes(text="über")["corpus"].tolist() == ["gos"]  # case-insensitive beyond ASCII
    assert store.notes(author="bo")["round"].tolist() == [2]
    assert store.notes(corpus="codraw", tag="error", text="nothing").empty
    assert store.notes_for_turn("gos", "g1", 2, 1)["text"].tolist() == ["Über-clear description"]
    assert store.notes_for_turn("gos", "g1", 1, 1).empty
    assert store.notes_for_turn("codraw", "d1", None, None)["tags"].tolist() == [["teamwork"]]
    assert store.notes_for_turn("codraw", "d1", None, 2)["tags"].tolist() == [["error"]]
    counts = store.tag_counts()
    assert counts.values.tolist() == [["error", 2], ["clarity", 1], ["teamwork", 1]]
    assert store.tag_counts(corpus="gos")["tag"].tolist() == ["clarity", "error"]


def test_update_keeps_history(store):
    note_id = store.add_note("codraw", "d1", "first draft", turn=1, tags=["a"])
    store.update_note(store.notes()["id"].iloc[0], text="second draft")
    store.update_note(note_id, tags=["B", "a"], author="carol")
    note = store.get_note(note_id)
    assert (note["text"], note["tags"], note["author"]) == ("second draft", ["b", "a"], "carol")
    assert note["updated_at"] > note["created_at"]
    history = store.note_history(note_id)
    assert history["text"].tolist() == ["first draft", "second draft", "second draft"]
    assert history["action"].tolist() == ["update", "update", "current"]
    assert history["version"].tolist() == [1, 2, 3]
    store.update_note(note_id, text="second draft")  # no change, no new version
    assert len(store.note_history(note_id)) == 3


def test_update_conflict_detected(store):
    note_id = store.add_note("codraw", "d1", "v1")
    seen = store.notes().loc[0, "updated_at"]
    store.update_note(note_id, text="edit from another session")
    with pytest.raises(NoteConflict):
        store.update_note(note_id, text="stale edit", expected_updated_at=seen)
    assert store.get_note(note_id)["text"] == "edit from another session"
    fresh = store.notes().loc[0, "updated_at"]
    store.update_note(note_id, text="fresh edit", expected_updated_at=fresh)
    assert store.get_note(note_id)["text"] == "fresh edit"


def test_a_store_is_empty_until_a_note_is_written_and_stays_so_only_then(store):
    assert store.is_empty()
    only = store.add_note("codraw", "d1", "soon deleted")
    store.delete_note(only)
    assert not store.is_empty()  # a deleted note can be brought back: the Notes page must offer it


def test_delete_is_recoverable(store):
    keep = store.add_note("codraw", "d1", "keep")
    gone = store.add_note("codraw", "d1", "delete me", tags=["x"])
    store.delete_note(gone)
    assert store.notes()["id"].tolist() == [keep]
    assert store.tag_counts().empty
    with pytest.raises(NoteNotFound):
        store.update_note(gone, text="edit a deleted note")
    with pytest.raises(NoteNotFound):
        store.delete_note(gone)
    everything = store.notes(include_deleted=True)
    assert everything["id"].tolist() == [keep, gone] and everything["deleted_at"].notna().tolist() == [False, True]
    store.restore_note(everything["id"].iloc[1])  # ids straight from the frame are numpy integers
    assert store.notes()["text"].tolist() == ["keep", "delete me"]
    assert store.note_history(gone)["action"].tolist() == ["delete", "restore", "current"]
    with pytest.raises(NoteNotFound):
        store.get_note(999)


def test_exports_carry_links(store, tmp_path):
    store.add_note("gos", "g1", 'text with "quotes", commas\nand a newline', round=3, turn=2, tags=["a", "b"])
    store.add_note("codraw", "d1", "dialog note")
    back = pd.read_csv(io.BytesIO(store.export_csv()))
    assert back["link"].tolist() == ["/replay?corpus=gos&dialog=g1&round=3&turn=2", "/replay?corpus=codraw&dialog=d1"]
    assert json.loads(back.loc[0, "tags"]) == ["a", "b"]
    assert back.loc[0, "text"] == 'text with "quotes", commas\nand a newline'
    path = tmp_path / "notes.jsonl"
    store.export_jsonl(path, corpus="gos")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 1 and rows[0]["tags"] == ["a", "b"] and rows[0]["turn"] == 2
    assert rows[0]["link"].endswith("round=3&turn=2")
    text_buffer = io.StringIO()
    store.export_csv(text_buffer)
    assert text_buffer.getvalue().startswith("id,corpus,dialog_id")


def test_reopening_sees_everything_and_schema_is_versioned(store_target):
    store = NotesStore(store_target)
    ids = [store.add_note("codraw", f"d{i}", f"note {i}") for i in range(5)]
    reopened = NotesStore(store_target)  # a "restart": new object, nothing kept in memory
    assert reopened.notes()["id"].tolist() == ids
    assert reopened.schema_version == SCHEMA_VERSION
    if store.path is not None:
        with sqlite3.connect(store.path) as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_sqlite_file_of_the_first_release_is_upgraded_with_its_notes(tmp_path):
    path = tmp_path / "v1.sqlite3"
    with sqlite3.connect(path) as conn:  # exactly what the first release created
        for statement in schema.MIGRATIONS[0](open_database(path)):
            conn.execute(statement)
        conn.execute("INSERT INTO notes (corpus, dialog_id, turn, tags, text, created_at, updated_at) VALUES "
                     "('codraw', 'd1', 2, '[\"old\"]', 'written by v1', '2026-01-01T00:00:00+00:00', "
                     "'2026-01-01T00:00:00+00:00')")
        conn.execute("PRAGMA user_version = 1")
    store = NotesStore(path)
    assert store.schema_version == SCHEMA_VERSION
    assert store.notes()[["text", "tags"]].values.tolist() == [["written by v1", ["old"]]]
    store.update_note(1, text="edited after the upgrade")
    assert store.note_history(1)["text"].tolist() == ["written by v1", "edited after the upgrade"]


def test_newer_schema_is_reported_on_postgres(postgres_cluster):
    url = postgres_cluster.new_database()
    NotesStore(url)
    import psycopg
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE store_meta SET value = %s WHERE key = 'schema_version'", [str(SCHEMA_VERSION + 1)])
    with pytest.raises(NotesStoreError, match="newer version"):
        NotesStore(url)


def test_unreachable_server_and_unknown_scheme_are_one_line_errors():
    with pytest.raises(NotesStoreError, match=r"postgresql://ann:\*\*\*@127.0.0.1:9/notes: cannot connect"):
        NotesStore("postgresql://ann:secret@127.0.0.1:9/notes")
    with pytest.raises(NotesStoreError, match="only file paths"):
        NotesStore("mysql://x@y/z")


def test_newer_schema_and_garbage_file_are_reported(tmp_path):
    newer = tmp_path / "newer.sqlite3"
    NotesStore(newer)
    with sqlite3.connect(newer) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(NotesStoreError, match="newer version"):
        NotesStore(newer)
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(NotesStoreError, match="garbage.sqlite3"):
        NotesStore(garbage)


# -- durability across processes ------------------------------------------------------------------------------
# Processes come from a forkserver that has already imported the store (a spawned child would spend seconds
# importing pandas). SQLite files for these tests live in memory-backed /dev/shm when there is one: every
# commit still goes through the same fsync calls, which tmpfs makes free, so contention rather than the disk
# is what is measured and the tests stay quick.

def _context():
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["data_access.store", "psycopg"])
    return context


@pytest.fixture
def contended_target(store_target):
    if isinstance(store_target, str) or not Path("/dev/shm").is_dir():
        yield str(store_target)
        return
    folder = tempfile.mkdtemp(prefix="dialogue-notes-", dir="/dev/shm")
    try:
        yield str(Path(folder) / "notes.sqlite3")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _write_many(target: str, process: int, threads: int, count: int) -> None:
    """One app process: ``threads`` writers (like Streamlit sessions) sharing one store object."""
    store = NotesStore(target)

    def writer(thread: int) -> None:
        for i in range(count):
            store.add_note("codraw", f"writer-{process}-{thread}", f"note {i}", turn=i + 1, tags=[f"p{process}"])

    pool = [threading.Thread(target=writer, args=(t,)) for t in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()


def _create_at_once(target: str, start, errors) -> None:
    start.wait()
    try:
        NotesStore(target).add_note("codraw", "d", "first")
    except Exception as exc:  # reported to the parent, which fails the test with the message
        errors.put(f"{type(exc).__name__}: {exc}")


@pytest.mark.parametrize("round_", range(3))
def test_eight_processes_create_a_fresh_database_at_once(contended_target, round_):
    """Issue 13 item 10: creation and migration are safe under concurrency (was "database is locked")."""
    target = contended_target
    context = _context()
    start, errors = context.Event(), context.Queue()
    workers = [context.Process(target=_create_at_once, args=(target, start, errors)) for _ in range(8)]
    for process in workers:
        process.start()
    start.set()
    for process in workers:
        process.join(timeout=120)
    messages = [errors.get() for _ in range(errors.qsize())] if not errors.empty() else []
    assert messages == [] and [p.exitcode for p in workers] == [0] * 8
    store = NotesStore(target)
    assert store.schema_version == SCHEMA_VERSION and len(store.notes()) == 8


def test_concurrent_writer_processes_lose_nothing(contended_target):
    """Two app processes x 8 writer threads x 200 notes: nothing lost, nothing duplicated."""
    target = contended_target
    NotesStore(target)
    context = _context()
    workers = [context.Process(target=_write_many, args=(target, p, 8, 200)) for p in range(2)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=120)
    assert [p.exitcode for p in workers] == [0] * 2
    frame = NotesStore(target).notes()
    assert len(frame) == 2 * 8 * 200
    assert frame["id"].is_unique
    per_writer = frame.groupby("dialog_id")["turn"].apply(lambda t: sorted(t.tolist()))
    assert len(per_writer) == 16
    assert all(turns == list(range(1, 201)) for turns in per_writer)


def _commit_some_then_hang_in_transaction(target: str, ready) -> None:
    store = NotesStore(target)
    for i in range(3):
        store.add_note("codraw", "committed", f"committed {i}", turn=i + 1)
    if store.path is None:  # PostgreSQL: an open transaction with 300 uncommitted rows on the server
        with store.db.write() as cur:
            for i in range(300):
                insert_note_row(cur, new_note_row("codraw", "uncommitted", "x" * 2000 + str(i),
                                                                None, None, None, None))
            ready.put(300)
            signal.pause()  # killed here, inside the open transaction
    wal = target + "-wal"
    conn = sqlite3.connect(target, isolation_level=None)
    conn.execute("PRAGMA cache_size = 5")  # tiny page cache: uncommitted pages spill into the WAL file
    conn.execute("BEGIN IMMEDIATE")
    wal_before = os.path.getsize(wal)
    for i in range(300):
        insert_note_row(Cursor(conn.cursor(), "?"), new_note_row(
            "codraw", "uncommitted", "x" * 2000 + str(i), None, None, None, None))
    ready.put(os.path.getsize(wal) - wal_before)
    signal.pause()  # killed here, inside the open transaction


def test_writer_killed_mid_transaction_leaves_only_committed_notes(store_target):
    target = str(store_target)
    store = NotesStore(target)
    before = store.add_note("gos", "g", "written before", round=1, turn=1)
    context = _context()
    ready = context.Queue()
    writer = context.Process(target=_commit_some_then_hang_in_transaction, args=(target, ready))
    writer.start()
    spilled = ready.get(timeout=60)
    assert spilled > 0  # the uncommitted rows really reached the WAL file / the server
    os.kill(writer.pid, signal.SIGKILL)
    writer.join(timeout=30)
    assert writer.exitcode == -signal.SIGKILL

    after_crash = NotesStore(target)
    frame = after_crash.notes()
    assert sorted(frame["dialog_id"].unique()) == ["committed", "g"]
    assert frame.loc[frame["dialog_id"] == "committed", "text"].tolist() == [f"committed {i}" for i in range(3)]
    assert after_crash.get_note(before)["text"] == "written before"
    if store.path is not None:
        with sqlite3.connect(target) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # and the store takes new writes (the dead writer's lock is gone; PostgreSQL ends its session)
    after_crash.add_note("codraw", "after", "still writable")
    assert len(NotesStore(target).notes()) == 5


# -- edits from the Notes table (issue 13 item 9) --------------------------------------------------------------

def test_table_edits_are_applied_by_id_and_conflicts_are_named(store):
    a = store.add_note("codraw", "d1", "first")
    b = store.add_note("codraw", "d2", "second")
    c = store.add_note("codraw", "d3", "third")
    shown = store.notes().set_index("id")["updated_at"]
    # meanwhile another session adds a note, deletes one and edits another
    store.add_note("codraw", "d0", "added elsewhere")
    store.delete_note(b)
    store.update_note(c, text="third, edited elsewhere")
    outcome = apply_edits(store, [
        {"id": a, "updated_at": shown[a], "text": "first, my edit", "tags": ["mine"]},
        {"id": b, "updated_at": shown[b], "text": "second, my edit"},
        {"id": c, "updated_at": shown[c], "text": "third, my edit"},
    ])
    assert outcome.saved == [a]
    assert store.get_note(a)["text"] == "first, my edit" and store.get_note(a)["tags"] == ["mine"]
    assert store.get_note(c)["text"] == "third, edited elsewhere"  # not overwritten
    message = outcome.message()
    assert message.startswith("Saved 1 change(s) (note 1).") and "Not saved (2)" in message
    assert f"note {b} was deleted in another session" in message and "'second, my edit'" in message
    assert f"note {c} was changed in another session" in message and "'third, my edit'" in message


def test_table_delete_and_restore_and_nothing_to_save(store):
    a = store.add_note("gos", "g", "x", round=1, turn=1)
    seen = store.get_note(a)["updated_at"]
    assert apply_edits(store, []).message() == "Nothing to save: no note was changed."
    assert apply_edits(store, [{"id": a, "updated_at": seen, "deleted": True}]).saved == [a]
    deleted_seen = store.get_note(a)["updated_at"]
    outcome = apply_edits(store, [{"id": a, "updated_at": deleted_seen, "deleted": False,
                                                "text": "restored and edited"}])
    assert outcome.saved == [a] and store.get_note(a)["text"] == "restored and edited"
    stale = apply_edits(store, [{"id": a, "updated_at": seen, "deleted": True}])
    assert stale.saved == [] and "changed in another session" in stale.message()


def test_an_empty_result_has_the_types_of_a_full_one_and_is_a_fresh_copy(store):
    store.add_note("codraw", "train_00001", "seen", turn=3)
    full = store.notes_for_turn("codraw", "train_00001", None, 3)
    empty = store.notes_for_turn("codraw", "train_00001", None, 4)
    assert len(full) == 1 and empty.empty
    assert list(empty.columns) == list(full.columns) and list(empty.dtypes) == list(full.dtypes)
    empty["text"] = "changed by a caller"
    assert store.notes_for_turn("codraw", "train_00001", None, 4)["text"].tolist() == []
