"""Filters kept in the URL (Search's query, mode and corpora, the Notes filters, Browse's id filter and CR
toggle): every change the reader makes takes effect, and a URL that says something new (Back, a link) leads.

Each of these widgets once took its value from the URL without a key, so it changed identity with every
change: the second query typed was dropped and the box showed the first again (``url_state.follow_url``)."""
from __future__ import annotations

import pytest

from data_access.sources import notes_db_path
from data_access.store import NotesStore

from .conftest import open_page


def _labelled(widgets, label: str):
    return next(widget for widget in widgets if widget.label == label)


@pytest.mark.parametrize("page, label, param, values", [
    ("search", "Search for", "q", ["left", "red", "the"]),
    ("browse", "Dialog id contains", "q", ["00", "0066", "1"]),
])
def test_every_text_typed_in_a_row_takes_effect(page, label, param, values):
    at = open_page(page, corpus="codraw")
    for value in values:
        _labelled(at.text_input, label).input(value).run()
        assert not at.exception
        assert _labelled(at.text_input, label).value == value and at.query_params[param] == value


def test_the_search_mode_and_corpora_follow_each_click_and_the_url():
    at = open_page("search", q="the")
    for mode in ("regex", "words", "regex"):
        at.segmented_control(key="search_mode").set_value(mode).run()
        assert at.query_params.get("mode") == (None if mode == "words" else mode)
    for corpora in (["gos"], ["codraw", "gos"], ["minecraft"]):
        at.button_group(key="search_in").set_value(corpora).run()
        assert at.query_params["in"] == ",".join(corpora)
    at.query_params.clear()
    at.query_params.update({"q": "red"})  # Back to a plain search: every corpus, words
    at.run()
    assert _labelled(at.text_input, "Search for").value == "red"
    assert at.segmented_control(key="search_mode").value == "words" and "in" not in at.query_params
    assert at.button_group(key="search_in").value == []  # none on: every corpus (the corpus filter's one meaning)


def test_the_notes_filters_follow_each_change_and_the_url():
    store = NotesStore(notes_db_path())
    store.add_note("codraw", "train_00001", "drawer asks about size", turn=3, tags=["clarification"])
    store.add_note("gos", "61bcbb1fe90a3cc04fda05de", "which pastry first", round=2, turn=5, tags=["ranking"])
    at = open_page("notes")
    for words, dialogs in (("size", ["train_00001"]), ("pastry", ["61bcbb1fe90a3cc04fda05de"]), ("size", ["train_00001"])):
        _labelled(at.text_input, "Text contains").input(words).run()
        assert at.query_params["text"] == words and list(at.data_editor[0].value["dialog_id"]) == dialogs
    at.query_params.clear()
    at.query_params.update({"corpus": "gos", "tag": "ranking"})  # Back, or a link, to another view
    at.run()
    assert _labelled(at.text_input, "Text contains").value == ""
    assert at.selectbox(key="notes_corpus").value == "gos" and at.selectbox(key="notes_tag").value == "ranking"
    assert list(at.data_editor[0].value["dialog_id"]) == ["61bcbb1fe90a3cc04fda05de"]
    at.selectbox(key="notes_corpus").set_value("codraw").run()  # that tag is not used in CoDraw: any tag
    assert at.selectbox(key="notes_tag").value == "any" and "tag" not in at.query_params


def test_a_range_slider_follows_the_url_it_is_taken_back_to():
    at = open_page("browse", corpus="codraw")
    slider = at.slider(key="browse_range_codraw_n_steps")
    full = (int(slider.min), int(slider.max))
    slider.set_value((full[0], full[0] + 2)).run()
    assert at.query_params["n_steps"] == f"..{full[0] + 2}"
    del at.query_params["n_steps"]  # Back to the view before the slider moved
    at.run()
    assert at.slider(key="browse_range_codraw_n_steps").value == full and "n_steps" not in at.query_params
    at.query_params["n_steps"] = f"{full[0] + 1}.."  # a link to another range
    at.run()
    assert at.slider(key="browse_range_codraw_n_steps").value == (full[0] + 1, full[1])
