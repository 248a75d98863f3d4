"""AppTests of a signed-in viewer, coder, adjudicator and admin (issue 28, sign-in and roles): each page shows
the write controls the role may use, read only with a caption saying why otherwise, writes as the signed-in
coder (no free-text name), and a write the store refuses is said in words with what was typed kept.

AppTest cannot go through an OpenID Connect provider, so ``ui.shell.auth``'s two sign-in look-ups are patched; the
real sign-in is tested in tests/e2e/test_sign_in.py."""
from __future__ import annotations

import re

import pytest

from data_access.access import Identity, Role
from data_access.coding import codebook as cb
from data_access.corpora import demo_path, load_path
from data_access.store import Store
from ui.shell import auth
from ui.shell import sign_in as sign_in_module

from .conftest import open_page

BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn"), cb.Label("not-CR", scope="turn")))


@pytest.fixture
def sign_in(monkeypatch):
    """``sign_in(role, coder)``: the session is signed in as ``coder``@lab.example with ``role`` from now on."""
    monkeypatch.setattr(sign_in_module, "configured", lambda: True)

    def as_(role: Role, coder: str = "alice") -> Identity:
        person = Identity(coder=coder, role=role, email=f"{coder}@lab.example", subject=f"sub-{coder}",
                          signed_in=True)
        monkeypatch.setattr(auth, "signed_in_identity", lambda: person)
        return person

    return as_


def _local() -> Store:
    """The app's store, written to directly as the local user (the test's setup)."""
    return Store()


def _codraw_dialog() -> str:
    return str(load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].iloc[0])


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


def _unescaped(text: str) -> str:
    """Text as shown: markdown escapes and the invisible word joiners that keep addresses unlinked removed."""
    return re.sub(r"\\(.)", r"\1", text).replace("\u2060", "")


def _captions(at) -> str:
    """Every caption's text as shown (markdown escapes removed)."""
    return " | ".join(_unescaped(c.value) for c in at.caption)


def test_a_viewer_sees_the_replay_notes_read_only(sign_in):
    sign_in(Role.VIEWER, "bob")
    at = open_page("pages/replay.py", corpus="codraw", dialog=_codraw_dialog(), turn="1")
    assert _button(at, "Save note").disabled
    assert "Read only: adding notes needs the coder role, and bob@lab.example is a viewer." in _captions(at)


def test_a_coder_adds_a_note_as_themselves_and_a_refused_save_keeps_the_text(sign_in):
    sign_in(Role.CODER, "alice")
    dialog = _codraw_dialog()
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="1")
    assert "Notes are saved as **alice**." in _captions(at)
    next(t for t in at.text_area if t.label == "New note").input("drawer hesitates")
    _button(at, "Save note").click().run()
    assert not at.exception
    notes = _local().notes.notes()
    assert notes[["dialog_id", "author", "text"]].values.tolist() == [[dialog, "alice", "drawer hesitates"]]

    # Her role is taken away while she types: the store refuses, the page says why, the text stays.
    next(t for t in at.text_area if t.label == "New note").input("a second thought")
    sign_in(Role.VIEWER, "alice")
    _button(at, "Save note").click().run()
    assert not at.exception
    assert any("Not allowed: adding a note (it needs the coder role; alice@lab.example is a viewer)" in e
               for e in map(lambda e: _unescaped(e.value), at.error))
    assert next(t for t in at.text_area if t.label == "New note").value == "a second thought"
    assert len(_local().notes.notes()) == 1


def test_notes_page_viewer_read_only_and_coder_refused_on_another_coders_note(sign_in):
    store = _local()
    bobs = store.notes.add_note("codraw", "train_00001", "bob's note", author="bob")
    sign_in(Role.VIEWER, "bob")
    at = open_page("notes")
    assert _button(at, "Save changes").disabled
    assert "Read only: editing notes needs the coder role" in _captions(at)

    sign_in(Role.CODER, "alice")
    at = open_page("notes")
    assert not _button(at, "Save changes").disabled
    assert "Editing as **alice**: only your own notes can be changed." in _captions(at)
    at.session_state["notes_editor"] = {"edited_rows": {0: {"text": "alice was here"}}, "added_rows": [],
                                        "deleted_rows": []}
    _button(at, "Save changes").click().run()
    assert not at.exception
    assert any("belongs to coder 'bob'" in w and "alice was here" in w for w in map(lambda w: _unescaped(w.value), at.warning))
    assert store.notes.get_note(bobs)["text"] == "bob's note"


def test_codebooks_are_edited_by_admins_only(sign_in):
    sign_in(Role.ADJUDICATOR, "alice")
    at = open_page("pages/codebooks.py")
    assert _button(at, "Create codebook").disabled
    assert not any(t.label == "Coder (your name)" for t in at.text_input)
    assert "Coding as **alice**" in _captions(at)
    assert "Read only: editing and importing codebooks needs the admin role" in _captions(at)
    assert not any(e.label == "Import a codebook (JSON or YAML)" for e in at.expander)

    store = _local()
    store.coding.save_codebook(BOOK, created_by="ann")
    sign_in(Role.ADMIN, "carol")
    at = open_page("pages/codebooks.py")
    assert not _button(at, "Create codebook").disabled
    assert any(e.label == "Import a codebook (JSON or YAML)" for e in at.expander)
    at.selectbox[0].select("clarification").run()
    next(t for t in at.text_area if t.label == "Description").input("carol's version").run()
    _button(at, "Save as new version").click().run()
    assert not at.exception
    saved = store.coding.codebook("clarification")
    assert (saved.version, saved.created_by, saved.description) == (2, "carol", "carol's version")


def test_coding_queues_are_created_by_admins_and_ticked_by_their_coder(sign_in):
    store = _local()
    store.coding.create_queue("pilot", [("codraw", "d1", None, 1), ("codraw", "d1", None, 2)], ["alice", "bob"])
    sign_in(Role.CODER, "alice")
    at = open_page("pages/coding_queue.py")
    assert not any(b.label == "Create / extend queue" for b in at.button)
    assert "Read only: creating coding queues needs the admin role" in _captions(at)
    mine = at.data_editor(key="queue_editor_pilot").value
    assert len(mine) == 2  # alice's own items: the coder is the signed-in one, not a typed name
    at.session_state["queue_editor_pilot"] = {"edited_rows": {0: {"done": True}}, "added_rows": [],
                                              "deleted_rows": []}
    at.run()
    assert not at.exception
    assert store.coding.queues().values.tolist() == [["pilot", "alice", 2, 1], ["pilot", "bob", 2, 0]]

    sign_in(Role.ADMIN, "carol")
    at = open_page("pages/coding_queue.py")
    assert any(b.label == "Create / extend queue" for b in at.button)


def _seed_disagreement(store: Store) -> None:
    book = store.coding.save_codebook(BOOK)
    for coder, label in (("ann", "CR"), ("bo", "not-CR")):
        store.coding.add_annotation("codraw", "d1", codebook=book, label=label, coder=coder, turn=1)


def test_adjudication_is_offered_to_adjudicators_only(sign_in):
    store = _local()
    _seed_disagreement(store)
    sign_in(Role.CODER, "alice")
    at = open_page("pages/agreement.py")
    assert not any(b.label == "Save to gold" for b in at.button)
    assert "Read only: adjudicating into gold needs the adjudicator role" in _captions(at)

    sign_in(Role.ADJUDICATOR, "alice")
    at = open_page("pages/agreement.py")
    next(m for m in at.multiselect if m.label == "Gold label(s)").select("CR").run()
    _button(at, "Save to gold").click().run()
    assert not at.exception
    gold = store.coding.annotations(layer="gold")
    assert gold[["turn", "label", "coder"]].values.tolist() == [[1, "CR", "alice"]]
    with store.db.read() as cur:
        assert cur.execute("SELECT changed_by FROM gold_decisions").fetchall() == [("alice@lab.example as alice",)]


def test_replay_coding_is_read_only_for_a_viewer_and_written_as_the_signed_in_coder(sign_in):
    store = _local()
    book = store.coding.save_codebook(BOOK)
    dialog = _codraw_dialog()
    sign_in(Role.VIEWER, "bob")
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="1")
    assert "Read only: coding needs the coder role, and bob@lab.example is a viewer." in _captions(at)
    assert not any(b.label == "CR" for b in at.button)
    assert not [e for e in at.get("bidi_component") if '"labels"' in (e.proto.json or "")]  # no coding column

    # Bob's earlier work (made before sign-in, under his name) is his alone.
    bobs = store.coding.add_annotation("codraw", dialog, codebook=book, label="not-CR", coder="bob", turn=1)
    sign_in(Role.CODER, "alice")
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="1", coder="bob")
    assert not any(t.label == "Coder (your name)" for t in at.text_input)  # ?coder=bob in the URL changes nothing
    assert "Coding as **alice**" in _captions(at)
    _button(at, "CR").click().run()
    assert not at.exception
    frame = store.coding.annotations()
    assert sorted(zip(frame["coder"], frame["label"])) == [("alice", "CR"), ("bob", "not-CR")]
    assert store.coding.get_annotation(bobs)["deleted_at"] is None
