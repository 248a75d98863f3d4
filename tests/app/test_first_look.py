"""Rough edges a new researcher meets on a first look (issue 45): the Overview says when the corpora are the
generated demo ones; the corpus filter is one control with one meaning on Overview, Search and Words; Words shows
the top 1,000 a link asks for; the concordance says how its count of lines differs from the search's count of
messages; a slice of one corpus's features says in one line which corpora it cannot be used on (and none of those
the sub-corpus leaves out)."""
from __future__ import annotations

import re

import pytest

from data_access.corpora import demo_path
from tests.app.test_words_page import _table, _words

from .conftest import open_page


def _shown(at, kind: str) -> list[str]:
    return [re.sub(r"\\(.)", r"\1", element.value) for element in getattr(at, kind)]


def test_the_overview_says_the_corpora_are_the_generated_demo_ones():
    info = " ".join(_shown(open_page("overview"), "info"))
    assert "these are the small demo corpora the app generates itself" in info
    assert all(variable in info for variable in ("CODRAW_DATA", "GAME_OF_SORTS_DATA", "MINECRAFT_DATA"))


def test_the_overview_names_only_the_corpora_left_at_their_demo(monkeypatch, tmp_path):
    monkeypatch.setenv("CODRAW_DATA", str(demo_path("codraw", tmp_path)))  # a copy of one's own, as far as it knows
    info = " ".join(_shown(open_page("overview"), "info"))
    assert "configured for A Game Of Sorts and Minecraft Collaborative Building" in info
    assert "CODRAW_DATA" not in info and "GAME_OF_SORTS_DATA" in info


@pytest.mark.parametrize("page, key, param, params", [
    ("overview", "url_filter__corpora", "corpora", {}),
    ("search", "search_in", "in", {"q": "the"}),
    ("words", "words_in", "in", {}),
])
def test_the_corpus_filter_starts_with_none_on_and_a_click_keeps_only_that_corpus(page, key, param, params):
    at = open_page(page, **params)
    pills = at.button_group(key=key)
    assert pills.value == [] and param not in at.query_params  # none on: every corpus
    pills.set_value(["gos"]).run()
    assert at.query_params[param] == "gos"
    if page == "search":  # only A Game Of Sorts is searched
        assert [m.label for m in at.metric] == ["A Game Of Sorts"]


def test_words_shows_the_top_1000_a_link_asks_for_and_says_when_a_number_is_not_offered():
    distinct = len(_words())
    assert 100 < distinct < 1000
    at = open_page("words", top="1000")
    assert at.selectbox(key="words_top").value == "1000" and len(_table(at, "frequency")) == distinct
    at = open_page("words", top="300")
    assert any("The link asks for the top 300; the list shows the top 100" in c for c in _shown(at, "caption"))
    assert len(_table(at, "frequency")) == 100


def test_the_concordance_says_how_its_lines_differ_from_the_search_s_messages():
    at = open_page("search", q="the")
    said = " ".join(_shown(at, "caption"))
    messages = int(re.search(r"([\d,]+) matching utterances", said).group(1).replace(",", ""))
    found = re.search(r"([\d,]+) lines, one per occurrence, in ([\d,]+) messages \(([\d,]+) more lines than "
                      r"messages: a message with the words twice has two\)", said)
    assert found, said
    lines, in_messages, more = (int(g.replace(",", "")) for g in found.groups())
    assert in_messages == messages and lines - messages == more > 0


def test_a_slice_of_codraw_features_on_keyness_says_nothing_of_the_corpora_left_out():
    slices = {"slice": "peek_gain > 0", "b_slice": "peek_gain <= 0"}
    at = open_page("words", view="Keyness", **{"in": "codraw", "b_in": "codraw"}, **slices)
    captions = _shown(at, "caption")
    assert sum(c.startswith("CoDraw · peek gain") for c in captions) == 2
    assert not any("A Game Of Sorts" in c or "Minecraft" in c for c in captions), captions
    at = open_page("words", view="Keyness", **slices)  # every corpus: one short line each for A and B
    notes = [c for c in at.caption if c.value.startswith("CoDraw · peek gain")]
    assert len(notes) == 2
    for note in notes:
        shown = re.sub(r"\\(.)", r"\1", note.value)
        assert shown.endswith("it cannot be used on A Game Of Sorts and Minecraft Collaborative Building, so their "
                              "messages are left out (the ? beside this line says why)") and len(shown) < 200
        assert "no feature “peek_gain”" in note.help.replace("\\", "")
