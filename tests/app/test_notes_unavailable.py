"""Saving a note while the notes store cannot be opened keeps the typed text and says why in the form, in words
(it used to show Python's AttributeError text about a None store)."""
from __future__ import annotations

from tests.app.conftest import run_function


def test_saving_a_note_while_the_store_is_unavailable_keeps_the_text_and_says_why(monkeypatch):
    import ui.coding.notes

    monkeypatch.setattr(ui.coding.notes, "store", lambda: None)

    def script():
        import streamlit as st

        from ui.coding import notes
        from ui.shell.corpus_edge import resolve

        st.query_params.update(corpus="codraw", dialog="d1", turn="1")
        st.session_state["form_text"] = "keep me"
        notes._save("form", resolve("codraw"))

    at = run_function(script)
    kind, message = at.session_state["form_message"]
    assert kind == "error" and "notes store is unavailable" in message and "NoneType" not in message
    assert at.session_state["form_text"] == "keep me"
