"""Codebooks, annotations and queues in the store, against both backends (SQLite and PostgreSQL), and the
durability of annotations under contention: two processes x 8 writers x 200 annotations, a killed writer."""
from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
from pathlib import Path

import pandas as pd
import pytest

from data_access.coding import codebook as cb
from data_access.layers import ANNOTATION_COLUMNS
from data_access.store import AnnotationConflict, AnnotationNotFound, CodingStore, to_common_form

BOOK = cb.Codebook("clarification", (
    cb.Label("CR", scope="turn", description="asks for clarification", colour="#d62728", key="c"),
    cb.Label("refers-to", scope="span", links_referents=True, key="r"),
    cb.Label("success", scope="dialog"),
), description="clarification requests")


@pytest.fixture
def store(store_target) -> CodingStore:
    return CodingStore(store_target)


def test_codebooks_are_versioned_and_old_codes_keep_their_version(store):
    v1 = store.save_codebook(BOOK, created_by="ann")
    assert v1.version == 1 and store.save_codebook(BOOK).version == 1  # unchanged: no new version
    first = store.add_annotation("codraw", "d1", codebook=v1, label="CR", coder="ann", turn=2)
    edited = BOOK.with_labels([*BOOK.labels, cb.Label("repair", scope="turn")])
    v2 = store.save_codebook(edited, created_by="bo")
    assert v2.version == 2 and [label.name for label in store.codebook("clarification").labels][-1] == "repair"
    assert [label.name for label in store.codebook("clarification", 1).labels] == ["CR", "refers-to", "success"]
    store.add_annotation("codraw", "d1", codebook=v2, label="repair", coder="ann", turn=3)
    frame = store.annotations()
    assert frame["codebook_version"].tolist() == [1, 2]
    assert store.get_annotation(first)["codebook_version"] == 1
    listing = store.codebooks()
    assert listing[["name", "version", "n_labels"]].values.tolist() == [["clarification", 2, 4]]
    with pytest.raises(KeyError):
        store.add_annotation("codraw", "d1", codebook=v1, label="repair", coder="ann", turn=3)  # not in v1


def test_annotation_scopes_spans_referents_and_validation(store):
    book = store.save_codebook(BOOK)
    span = store.add_annotation("gos", "g1", codebook=book, label="refers-to", coder=" Ann  Lee ", round=2, turn=4,
                                utterance=0, start=4, end=13, span_text="the husky",
                                referents=["img-7", "img-3", "img-7", ""])
    dialog = store.add_annotation("gos", "g1", codebook=book, label="success", coder="bo", turn=9)
    note_id = store.notes_store.add_note("gos", "g1", "a note", round=2, turn=4, tags=["x"], author="ann")
    frame = store.annotations(include_notes=True)
    assert frame["kind"].tolist() == ["label", "label", "note"]
    first = frame.iloc[0]
    assert (first["scope"], first["start"], first["end"], first["span_text"], first["coder"]) == \
        ("span", 4, 13, "the husky", "Ann Lee")
    assert first["referents"] == ["img-3", "img-7"]
    assert first["link"] == "/replay?corpus=gos&dialog=g1&round=2&turn=4"
    assert frame.iloc[1]["turn"] is pd.NA and frame.iloc[1]["scope"] == "dialog"  # dialog labels drop the turn
    assert frame.iloc[2]["id"] == note_id and frame.iloc[2]["comment"] == "a note"
    assert list(store.annotations().columns) == list(frame.columns)
    with pytest.raises(ValueError, match="coder"):
        store.add_annotation("gos", "g1", codebook=book, label="CR", coder=" ", turn=1)
    with pytest.raises(ValueError, match="span"):
        store.add_annotation("gos", "g1", codebook=book, label="refers-to", coder="a", turn=1)
    with pytest.raises(ValueError, match="start < end"):
        store.add_annotation("gos", "g1", codebook=book, label="refers-to", coder="a", turn=1, utterance=0,
                             start=5, end=5)
    with pytest.raises(ValueError, match="needs a turn"):
        store.add_annotation("gos", "g1", codebook=book, label="CR", coder="a")
    with pytest.raises(ValueError, match="saved"):
        store.add_annotation("gos", "g1", codebook=BOOK, label="CR", coder="a", turn=1)
    assert span > 0 and dialog > span


def test_same_uid_never_duplicates(store):
    book = store.save_codebook(BOOK)
    a = store.add_annotation("codraw", "d", codebook=book, label="CR", coder="a", turn=1, uid="fixed")
    b = store.add_annotation("codraw", "d", codebook=book, label="CR", coder="a", turn=1, uid="fixed")
    assert a == b and len(store.annotations()) == 1


def test_annotation_history_conflict_and_soft_delete(store):
    book = store.save_codebook(BOOK)
    a = store.add_annotation("gos", "g", codebook=book, label="refers-to", coder="a", round=1, turn=1, utterance=0,
                             start=0, end=3, span_text="the", referents=["i1"])
    seen = store.get_annotation(a)["updated_at"]
    store.update_annotation(a, referents=["i1", "i2"], start=0, end=8, span_text="the pug!")
    with pytest.raises(AnnotationConflict):
        store.update_annotation(a, comment="stale", expected_updated_at=seen)
    with pytest.raises(ValueError, match="is a turn label"):
        store.update_annotation(a, label="CR")
    store.delete_annotation(a)
    assert store.annotations().empty and len(store.annotations(include_deleted=True)) == 1
    with pytest.raises(AnnotationNotFound):
        store.update_annotation(a, comment="on a deleted one")
    store.restore_annotation(a)
    history = store.annotation_history(a)
    assert history["action"].tolist() == ["update", "delete", "restore", "current"]
    assert history["referents"].tolist()[0] == ["i1"] and history["end"].tolist()[-1] == 8


def test_queue_assigns_resumes_and_reports_progress(store):
    items = [("codraw", "d1", None, None), ("codraw", "d2", None, None), ("gos", "g", 2, 5)]
    assert store.create_queue("pilot", items, ["ann", "bo"]) == 6
    assert store.create_queue("pilot", items[:1], ["ann"]) == 0  # already assigned
    mine = store.queue_items("pilot", coder="ann")
    assert mine["dialog_id"].tolist() == ["d1", "d2", "g"]
    assert mine["link"].tolist()[-1] == "/replay?corpus=gos&dialog=g&round=2&turn=5"
    store.set_done(int(mine["id"].iloc[0]))
    todo = CodingStore(store.db.describe() if store.path is None else store.path).queue_items("pilot", "ann", "todo")
    assert todo["dialog_id"].tolist() == ["d2", "g"]  # resumed in a new session
    progress = store.queues()
    assert progress.values.tolist() == [["pilot", "ann", 3, 1], ["pilot", "bo", 3, 0]]
    store.set_done(int(mine["id"].iloc[0]), done=False)
    assert store.queues()["done"].tolist() == [0, 0]


def test_common_form_matches_the_published_layers(store):
    book = store.save_codebook(BOOK)
    store.add_annotation("gos", "g", codebook=book, label="refers-to", coder="ann", round=1, turn=2, utterance=0,
                         start=0, end=3, span_text="pug", referents=["i9"])
    store.add_annotation("codraw", "d", codebook=book, label="CR", coder="bo", turn=2, layer="gold")
    common = to_common_form(store.annotations(include_notes=True))
    assert list(common.columns) == ANNOTATION_COLUMNS
    assert common[["corpus", "label", "source"]].values.tolist() == [["gos", "refers-to", "ann"],
                                                                    ["codraw", "CR", "gold"]]
    assert common.loc[0, "start"] == 0 and common.loc[0, "end"] == 3 and common.loc[0, "referents"] == ["i9"]


# -- durability ----------------------------------------------------------------------------------------------

def _context():
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["data_access.store", "psycopg"])
    return context


@pytest.fixture
def contended_target(store_target):
    if isinstance(store_target, str) or not Path("/dev/shm").is_dir():
        yield str(store_target)
        return
    folder = tempfile.mkdtemp(prefix="dialogue-coding-", dir="/dev/shm")
    try:
        yield str(Path(folder) / "store.sqlite3")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _code_many(target: str, process: int, threads: int, count: int) -> None:
    store = CodingStore(target)
    book = store.codebook("clarification")

    def writer(thread: int) -> None:
        for i in range(count):
            store.add_annotation("codraw", f"p{process}", codebook=book, label="CR", coder=f"coder-{thread}",
                                 turn=i + 1, uid=f"{process}-{thread}-{i}")

    pool = [threading.Thread(target=writer, args=(t,)) for t in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()


def test_two_processes_of_eight_writers_lose_and_duplicate_nothing(contended_target):
    store = CodingStore(contended_target)
    store.save_codebook(BOOK)
    context = _context()
    workers = [context.Process(target=_code_many, args=(contended_target, p, 8, 200)) for p in range(2)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=120)
    assert [p.exitcode for p in workers] == [0, 0]
    frame = CodingStore(contended_target).annotations()
    assert len(frame) == 2 * 8 * 200 and frame["id"].is_unique
    per_writer = frame.groupby(["dialog_id", "coder"])["turn"].apply(lambda t: sorted(t.tolist()))
    assert len(per_writer) == 16 and all(turns == list(range(1, 201)) for turns in per_writer)


def _code_then_hang(target: str, ready) -> None:
    store = CodingStore(target)
    book = store.codebook("clarification")
    for i in range(5):
        store.add_annotation("codraw", "committed", codebook=book, label="CR", coder="a", turn=i + 1)
    with store.db.write() as cur:
        for i in range(200):
            cur.execute("INSERT INTO annotations (uid, corpus, dialog_id, turn, scope, codebook, codebook_version, "
                        "label, coder, created_at, updated_at) VALUES (?, 'codraw', 'uncommitted', ?, 'turn', "
                        "'clarification', 1, 'CR', 'a', 'now', 'now')", [f"u{i}", i + 1])
        ready.put(True)
        signal.pause()  # killed here, inside the open transaction


def test_killed_writer_loses_nothing_committed(store_target):
    target = str(store_target)
    store = CodingStore(target)
    store.save_codebook(BOOK)
    context = _context()
    ready = context.Queue()
    writer = context.Process(target=_code_then_hang, args=(target, ready))
    writer.start()
    assert ready.get(timeout=60)
    os.kill(writer.pid, signal.SIGKILL)
    writer.join(timeout=30)
    after = CodingStore(target)
    frame = after.annotations()
    assert frame["dialog_id"].unique().tolist() == ["committed"] and frame["turn"].tolist() == [1, 2, 3, 4, 5]
    after.add_annotation("codraw", "after", codebook=after.codebook("clarification"), label="CR", coder="a", turn=1)
    assert len(after.annotations()) == 6
