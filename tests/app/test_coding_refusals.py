"""AppTests: a refused coding action is an error, never a green box (the kind is decided where the action runs,
not by the message's wording), and a coding-queue sample that matches nothing says so and creates nothing."""
from __future__ import annotations

import re

from data_access.coding import codebook as cb
from data_access.corpora import demo_path, load_path
from data_access.store import CodingStore

from .conftest import open_page


def _shown(elements) -> list[str]:
    """The text of message boxes as the user reads it (md_escape's backslashes removed)."""
    return [re.sub(r"\\(.)", r"\1", e.value) for e in elements]

BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn", key="c"), cb.Label("refers-to", scope="span")))


def test_a_span_outside_the_utterance_is_an_error_and_the_form_keeps_its_values():
    store = CodingStore()
    store.save_codebook(BOOK)
    loaded = load_path("codraw", demo_path("codraw"))
    dialog = loaded.dialogs["dialog_id"].iloc[0]
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="2", coder="ann")
    next(n for n in at.number_input if n.label.startswith("Start")).set_value(50)
    next(n for n in at.number_input if n.label.startswith("End")).set_value(9999)
    next(b for b in at.button if b.label == "Save span").click().run()
    assert not at.exception
    errors = _shown(at.error)
    assert any(e.startswith("Not saved: the selection 50..9999 is outside the utterance") for e in errors), errors
    assert not at.success
    assert store.annotations().empty
    assert next(n for n in at.number_input if n.label.startswith("Start")).value == 50
    assert next(n for n in at.number_input if n.label.startswith("End")).value == 9999

    next(b for b in at.button if b.label == "CR [c]").click().run()  # a saved action stays a success
    assert _shown(at.success) == ["Saved CR."] and not at.error


def test_a_queue_sample_that_matches_nothing_is_a_warning_and_creates_nothing():
    store = CodingStore()
    at = open_page("pages/coding_queue.py", coder="ann")
    filter_box = next(t for t in at.text_input if t.label.startswith("Only dialogs with an utterance containing"))
    filter_box.input("zzzzqqqxx")
    next(t for t in at.text_input if t.label == "Queue name").input("my queue")
    next(b for b in at.button if b.label == "Create / extend queue").click().run()
    assert not at.exception
    warnings = _shown(at.warning)
    assert any(w.startswith("Nothing matched: no dialog in this corpus has an utterance containing “zzzzqqqxx”")
               and "No queue was created" in w for w in warnings), warnings
    assert not at.success
    assert store.queues().empty
    assert any("No queue yet" in i.value for i in at.info)
    # the form keeps what was typed
    assert next(t for t in at.text_input if t.label.startswith("Only dialogs")).value == "zzzzqqqxx"
    assert next(t for t in at.text_input if t.label == "Queue name").value == "my queue"
