"""The Notes page lists what was written, filters it, and saves edits and deletions without losing text."""
from data_access.notes import NotesStore
from data_access.sources import notes_db_path

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


def test_table_edits_name_each_changed_note_by_id():
    import pandas as pd

    from ui.notes import table_edits

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

    from data_access.notes import NotesStore
    from ui.notes import note_editor_frame

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
