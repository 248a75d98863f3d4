"""PostgreSQL stopped while the app runs (issue 26 item 7): every store-backed panel (Codebooks, Agreement,
Coding queue, Notes, the Replay's notes and coding panels) says the store cannot be reached, with the URL's
password hidden, instead of Streamlit's error box; what the user typed stays; and each works again by itself
once the server is back, without reloading the page."""
from __future__ import annotations

import os
import re

import pytest

from data_access.coding import codebook as cb
from data_access.corpora import demo_path, load_path
from data_access.store import CodingStore, NotesStore
from tests.postgres import own_postgres_cluster  # noqa: F401  (a cluster this test may stop)

from .conftest import open_page, run_function

SECRET = "Zq7outage"
BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn"), cb.Label("success", scope="dialog")))


def _texts(at) -> str:
    return "\n".join(re.sub(r"\\(.)", r"\1", str(e.value)) for kind in ("error", "warning", "info", "success", "caption",
                                                                         "markdown") for e in getattr(at, kind))


def _unreachable(at) -> list[str]:
    return [re.sub(r"\\(.)", r"\1", e.value) for e in at.error if "cannot be reached" in e.value]


@pytest.fixture
def served_store(own_postgres_cluster, monkeypatch):  # noqa: F811
    url = own_postgres_cluster.new_database() + f"?password={SECRET}"  # trust auth: the password is never asked for
    monkeypatch.setenv("DIALOGUE_NOTES_DB", url)
    monkeypatch.setenv("DIALOGUE_STORE_TIMEOUT_S", "2")
    coding = CodingStore(url)
    book = coding.save_codebook(BOOK)
    dialog = str(load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].iloc[0])
    for coder, turns in (("ann", (1, 2)), ("bo", (2, 3))):
        for turn in turns:
            coding.add_annotation("codraw", dialog, codebook=book, label="CR", coder=coder, turn=turn)
    coding.create_queue("pilot", [("codraw", dialog, None, 1), ("codraw", dialog, None, 2)], ["ann"])
    NotesStore(url).add_note("codraw", dialog, "a note", turn=1)
    coding.db.close()
    return own_postgres_cluster, dialog


def test_every_store_panel_says_unreachable_keeps_input_and_recovers(served_store):
    cluster, dialog = served_store
    pages = {
        "codebooks": open_page("pages/codebooks.py", coder="ann"),
        "agreement": open_page("pages/agreement.py", coder="ann"),
        "queue": open_page("pages/coding_queue.py", coder="ann"),
        "notes": open_page("pages/notes.py"),
        "replay": open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="1", coder="ann"),
    }
    for name, at in pages.items():
        assert not _unreachable(at), name
    name_box = pages["codebooks"].text_input(key="codebook_name_➕ New codebook")
    name_box.input("typed-while-down").run()

    cluster.stop_server()
    try:
        for name, at in pages.items():
            at.run()
            assert not at.exception, (name, [e.value for e in at.exception])
            assert _unreachable(at), (name, [e.value for e in at.error])
            assert SECRET not in _texts(at), name
            assert "password=***" in _unreachable(at)[0], name
        codebooks = pages["codebooks"]
        assert codebooks.text_input(key="codebook_name_➕ New codebook").value == "typed-while-down"
        next(b for b in codebooks.button if b.label == "Create codebook").click().run()
        assert not codebooks.exception
        assert any(e.value.startswith("Not saved") for e in codebooks.error), [e.value for e in codebooks.error]
        assert codebooks.text_input(key="codebook_name_➕ New codebook").value == "typed-while-down"
        replay = pages["replay"]
        replay.text_area(key="note_form_codraw_text").input("typed into the note form")
        next(b for b in replay.button if b.label == "Save note").click().run()
        assert not replay.exception
        assert any(e.value.startswith("Not saved — your text is still in the form") for e in replay.error)
        assert SECRET not in _texts(replay)
        assert replay.text_area(key="note_form_codraw_text").value == "typed into the note form"
        agreement = pages["agreement"]
        assert any("clarification" in str(s.options) for s in agreement.selectbox)  # drawn from what was read
    finally:
        cluster.start_server()

    for name, at in pages.items():
        at.run()
        assert not at.exception, (name, [e.value for e in at.exception])
        assert not _unreachable(at), (name, [e.value for e in at.error])
    assert pages["codebooks"].text_input(key="codebook_name_➕ New codebook").value == "typed-while-down"
    replay = pages["replay"]
    assert replay.text_area(key="note_form_codraw_text").value == "typed into the note form"
    next(b for b in replay.button if b.label == "Save note").click().run()
    assert not replay.exception and any(s.value == "Note saved." for s in replay.success)
    assert "typed into the note form" in NotesStore(os.environ["DIALOGUE_NOTES_DB"]).notes()["text"].tolist()


def test_ui_notes_and_coding_use_one_cached_store():
    def script():
        import streamlit as st

        from ui.coding import notes
        from ui.coding import panel as coding
        from ui.store import shared_store

        st.text(str(notes.store() is shared_store().notes and coding.store() is shared_store().coding))

    assert run_function(script).text[0].value == "True"
