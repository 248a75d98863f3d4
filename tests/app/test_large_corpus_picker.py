"""Over a corpus with more dialogs than a picker lists at once, the picker shows a window around the linked
dialog and a search box that finds any other; the choice still lives in the URL."""
from __future__ import annotations

from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1.element_tree import Selectbox

from ui import cached

from .conftest import run_function

CHOICES = {f"train_{i:05d}": f"train_{i:05d} · train · {i % 9 + 1} rounds" for i in range(5000)}


def picker_script():
    import streamlit as st

    from ui.replay.picker import dialog_picker
    from ui.shell.corpus_edge import resolve

    dialog, _ = dialog_picker(resolve("codraw"), "pick", param="dialog")
    st.markdown(f"picked={dialog}")


def test_a_large_corpus_gets_a_window_and_a_search_box(monkeypatch):
    monkeypatch.setattr(cached, "shared", lambda function, name, *args: CHOICES)
    at = run_function(picker_script, dialog="train_04321")
    box = at.selectbox(key="pick")
    assert box.value == "train_04321" and len(box.options) == 1000
    assert box.options[0] == "train_03821 · train · 6 rounds" and "train_00000 · train · 1 rounds" not in box.options
    assert at.markdown[-1].value == "picked=train_04321"
    assert any("1,000 of 5,000 dialogs listed" in c.value for c in at.caption)
    at.text_input(key="pick_find").input("train_0001").run()  # ten ids match
    box = at.selectbox(key="pick")
    assert len(box.options) == 11 and box.options[0].startswith("train_04321")
    box.select("train_00017").run()
    assert at.markdown[-1].value == "picked=train_00017" and at.query_params["dialog"] == "train_00017"


class _Typed(Selectbox):
    """A selectbox into which ``typed`` was entered as a new option: the browser sends the text itself."""

    typed = ""

    @property
    def _widget_state(self) -> WidgetState:
        return WidgetState(id=self.id, string_value=self.typed)


def type_into(box: Selectbox, text: str) -> None:
    box.__class__, box.typed = _Typed, text


def test_what_is_typed_into_the_list_is_looked_up_among_all_dialogs(monkeypatch):
    """The list accepts typed text (a new option, as the browser sends it): an id it does not list opens that
    dialog; text that several dialogs hold goes to the Find box, the current dialog kept."""
    monkeypatch.setattr(cached, "shared", lambda function, name, *args: CHOICES)
    at = run_function(picker_script, dialog="train_00010")
    assert at.selectbox(key="pick").proto.accept_new_options
    type_into(at.selectbox(key="pick"), "train_04321")  # not among the 1,000 listed around train_00010
    at.run()
    assert at.selectbox(key="pick").value == "train_04321" and at.query_params["dialog"] == "train_04321"
    assert at.markdown[-1].value == "picked=train_04321"
    type_into(at.selectbox(key="pick"), "train_0001")
    at.run()
    assert at.text_input(key="pick_find").value == "train_0001"
    box = at.selectbox(key="pick")
    assert box.value == "train_04321" and len(box.options) == 11 and at.query_params["dialog"] == "train_04321"


def test_a_find_that_names_one_dialog_opens_it(monkeypatch):
    """Issue 38: the Find box said "1 of 5,000 dialogs match" and kept showing the old dialog."""
    monkeypatch.setattr(cached, "shared", lambda function, name, *args: CHOICES)
    at = run_function(picker_script, dialog="train_04321", turn="3")
    at.text_input(key="pick_find").input("train_01234").run()  # exactly one dialog holds it
    assert at.selectbox(key="pick").value == "train_01234"
    assert at.markdown[-1].value == "picked=train_01234" and at.query_params["dialog"] == "train_01234"
    assert "turn" not in at.query_params  # the old dialog's step does not carry over
    at.text_input(key="pick_find").input("train_0001").run()  # ten match: the list narrows, the dialog stays
    assert at.selectbox(key="pick").value == "train_01234"
