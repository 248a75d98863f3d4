"""The Notes page lists what was written, filters it, and saves edits and deletions without losing text."""
from data_access.sources import notes_db_path
from data_access.store import NotesStore

from .conftest import open_page, run_function


def test_lists_notes_with_deep_links_and_filters_by_tag():
    store = NotesStore(notes_db_path())
    store.add_note("codraw", "train_00001", "drawer asks about size", turn=3, tags=["clarification"])
    store.add_note("gos", "61bcbb1fe90a3cc04fda05de", "<script>alert(1)</script>", round=2, turn=5, tags=["odd"])
    at = open_page("notes")
    table = at.data_editor[0].value
    assert set(table["dialog_id"]) == {"train_00001", "61bcbb1fe90a3cc04fda05de"}
    assert "/replay?corpus=gos&dialog=61bcbb1fe90a3cc04fda05de&round=2&turn=5" in set(table["link"])
    assert "<script>alert(1)</script>" in set(table["text"])  # stored and shown verbatim, as data

    at = open_page("notes", tag="clarification")
    table = at.data_editor[0].value
    assert list(table["dialog_id"]) == ["train_00001"]


def test_empty_store_says_how_to_add_notes():
    at = open_page("notes")
    assert any("No notes yet" in info.value for info in at.info)


def test_filters_matching_nothing_say_so_and_point_at_deleted_notes():
    store = NotesStore(notes_db_path())
    store.delete_note(store.add_note("codraw", "train_00001", "deleted", tags=["gone"]))
    at = open_page("notes", text="no such words")
    assert [info.value for info in at.info] == [
        "No note matches these filters (deleted notes are hidden: toggle “Show deleted” to see them too)."]
    assert not at.exception


def test_table_edits_name_each_changed_note_by_id():
    import pandas as pd

    from ui.coding.notes import table_edits

    before = pd.DataFrame({"id": [4, 7, 9], "text": ["a", "b", "c"], "tags": ["x", "", "y"],
                           "deleted": [False, False, True], "updated_at": ["t4", "t7", "t9"]})
    after = before.assign(text=["a", "b2", "c"], tags=["x", "", "y, z"], deleted=[True, False, False])
    assert table_edits(before, after) == [
        {"id": 4, "updated_at": "t4", "deleted": True},
        {"id": 7, "updated_at": "t7", "text": "b2"},
        {"id": 9, "updated_at": "t9", "deleted": False, "tags": ["y", " z"]},
    ]


def _editor_script():
    import streamlit as st

    from data_access.store import NotesStore
    from ui.coding.notes import note_editor_frame

    shown, newer = note_editor_frame(NotesStore(), {}, False)
    st.write(f"shown={list(shown['text'])} newer={newer}")


def test_pending_edits_keep_the_rows_they_were_made_on():
    """Issue 13 item 9: while edits are pending, another session's added/deleted notes must not shift them."""
    store = NotesStore(notes_db_path())
    first = store.add_note("codraw", "d1", "first")
    store.add_note("codraw", "d2", "second")
    at = run_function(_editor_script)
    assert at.markdown[0].value == "shown=['first', 'second'] newer=0"
    store.delete_note(first)  # another session deletes the first note and adds one
    store.add_note("codraw", "d3", "third")
    at.session_state["notes_editor"] = {"edited_rows": {1: {"text": "second, edited"}}, "added_rows": [],
                                        "deleted_rows": []}
    at.run()
    assert at.markdown[0].value == "shown=['first', 'second'] newer=2"  # still the rows the edit refers to
    at.session_state["notes_editor"] = {"edited_rows": {}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert at.markdown[0].value == "shown=['second', 'third'] newer=0"  # no pending edit: the fresh notes


def _edit(at, changes: dict[int, dict]) -> None:
    """Type ``changes`` (row position → column → value) into the notes table, then press Save."""
    at.session_state["notes_editor"] = {"edited_rows": changes, "added_rows": [], "deleted_rows": []}
    next(b for b in at.button if b.label == "Save changes").click().run()
    assert not at.exception, [e.value for e in at.exception]


def _rows(at) -> dict[int, str]:
    """Note id → text of the rows the table shows."""
    table = at.data_editor(key="notes_editor").value
    return dict(zip(table["id"].astype(int), table["text"]))


def test_a_note_is_edited_saved_deleted_and_restored_in_the_page():
    store = NotesStore(notes_db_path())
    other = store.add_note("gos", "61bcbb1fe90a3cc04fda05de", "stays as it is", round=1, turn=2)
    note = store.add_note("codraw", "train_00050", "drawer misreads left", turn=3, tags=["spatial"])
    at = open_page("notes")
    assert _rows(at) == {other: "stays as it is", note: "drawer misreads left"}

    _edit(at, {1: {"text": "drawer misreads left and right"}})  # the note is the table's second row
    assert store.get_note(note)["text"] == "drawer misreads left and right"
    assert store.get_note(other)["text"] == "stays as it is"
    assert [s.value.replace("\\", "") for s in at.success] == [f"Saved 1 change(s) (note {note})."]
    assert _rows(at) == {other: "stays as it is", note: "drawer misreads left and right"}

    _edit(at, {1: {"deleted": True}})
    assert store.get_note(note)["deleted_at"] is not None
    assert note not in set(store.notes()["id"])
    assert _rows(at) == {other: "stays as it is"}  # gone from the list

    next(t for t in at.toggle if t.label == "Show deleted").set_value(True).run()
    assert not at.exception
    table = at.data_editor(key="notes_editor").value
    assert table.set_index("id").loc[note, "deleted"]  # listed again, as deleted
    row = table["id"].tolist().index(note)
    _edit(at, {row: {"deleted": False}})
    assert store.get_note(note)["deleted_at"] is None
    next(t for t in at.toggle if t.label == "Show deleted").set_value(False).run()
    assert not at.exception
    assert _rows(at) == {other: "stays as it is", note: "drawer misreads left and right"}  # back, text intact
    assert store.get_note(note)["tags"] == ["spatial"]
    assert store.note_history(note)["action"].tolist() == ["update", "delete", "restore", "current"]


def _panel_script():
    from ui.coding.notes import notes_panel
    from ui.shell.corpus_edge import resolve

    notes_panel(resolve("codraw"), "train_00001", 3)


def test_a_very_long_note_is_shown_cut_in_the_replay_panel_and_kept_whole():
    from ui.coding.notes import SHOWN_NOTE_CHARS

    store = NotesStore(notes_db_path())
    long_text = "x" * 1_000_000
    store.add_note("codraw", "train_00001", long_text, turn=3)
    at = run_function(_panel_script)
    [text] = at.text
    assert text.value == "x" * SHOWN_NOTE_CHARS + "…"
    assert any("of 1,000,000 characters" in caption.value for caption in at.caption)
    assert store.notes()["text"].tolist() == [long_text]
