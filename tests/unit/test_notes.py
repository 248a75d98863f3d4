"""Notes store: CRUD, filters, history and soft delete, exports, schema versioning, and durability —
concurrent writer processes lose nothing, a writer killed mid-transaction leaves only committed notes."""
from __future__ import annotations

import io
import json
import multiprocessing
import os
import signal
import sqlite3

import pandas as pd
import pytest

from data_access import notes as notes_module
from data_access.notes import (NoteConflict, NoteNotFound, NotesStore, NotesStoreError, SCHEMA_VERSION,
                               insert_note_row, normalize_tags)


@pytest.fixture
def store(tmp_path) -> NotesStore:
    return NotesStore(tmp_path / "sub" / "dir" / "notes.sqlite3")


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
    assert list(frame.columns) == notes_module.NOTE_COLUMNS
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


def test_reopening_sees_everything_and_schema_is_versioned(store):
    ids = [store.add_note("codraw", f"d{i}", f"note {i}") for i in range(5)]
    reopened = NotesStore(store.path)  # a "restart": new object, nothing kept in memory
    assert reopened.notes()["id"].tolist() == ids
    assert reopened.schema_version == SCHEMA_VERSION
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


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

def _write_many(path: str, worker: int, count: int) -> None:
    store = NotesStore(path)
    for i in range(count):
        store.add_note("codraw", f"worker-{worker}", f"note {i} from {worker}", turn=i + 1, tags=[f"w{worker}"])


def test_concurrent_writer_processes_lose_nothing(tmp_path):
    path = str(tmp_path / "notes.sqlite3")
    NotesStore(path)
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_many, args=(path, w, 200)) for w in range(8)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=120)
    assert [p.exitcode for p in workers] == [0] * 8
    frame = NotesStore(path).notes()
    assert len(frame) == 1600
    assert frame["id"].is_unique
    per_worker = frame.groupby("dialog_id")["turn"].apply(lambda t: sorted(t.tolist()))
    assert all(turns == list(range(1, 201)) for turns in per_worker)
    assert len(per_worker) == 8


def _commit_some_then_hang_in_transaction(path: str, ready) -> None:
    store = NotesStore(path)
    for i in range(3):
        store.add_note("codraw", "committed", f"committed {i}", turn=i + 1)
    wal = path + "-wal"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA cache_size = 5")  # tiny page cache: uncommitted pages spill into the WAL file
    conn.execute("BEGIN IMMEDIATE")
    wal_before = os.path.getsize(wal)
    for i in range(300):
        insert_note_row(conn, notes_module._new_note_row("codraw", "uncommitted", "x" * 2000 + str(i),
                                                          None, None, None, None))
    ready.put(os.path.getsize(wal) - wal_before)
    signal.pause()  # killed here, inside the open transaction


def test_writer_killed_mid_transaction_leaves_only_committed_notes(tmp_path):
    path = str(tmp_path / "notes.sqlite3")
    store = NotesStore(path)
    before = store.add_note("gos", "g", "written before", round=1, turn=1)
    context = multiprocessing.get_context("spawn")
    ready = context.Queue()
    writer = context.Process(target=_commit_some_then_hang_in_transaction, args=(path, ready))
    writer.start()
    spilled = ready.get(timeout=60)
    assert spilled > 0  # the uncommitted rows really reached the WAL file, so recovery has work to do
    os.kill(writer.pid, signal.SIGKILL)
    writer.join(timeout=30)
    assert writer.exitcode == -signal.SIGKILL

    after_crash = NotesStore(path)
    frame = after_crash.notes()
    assert sorted(frame["dialog_id"].unique()) == ["committed", "g"]
    assert frame.loc[frame["dialog_id"] == "committed", "text"].tolist() == [f"committed {i}" for i in range(3)]
    assert after_crash.get_note(before)["text"] == "written before"
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # and the database takes new writes (the dead writer's lock is gone)
    after_crash.add_note("codraw", "after", "still writable")
    assert len(NotesStore(path).notes()) == 5
