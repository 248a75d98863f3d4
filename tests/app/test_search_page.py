"""The Search page: whole words by default (substrings as an option, in the URL), counts per corpus and a
paged list of hits in every corpus (not the first 500 in corpus order), hostile regular expressions
answered at once with a message, and reruns that copy no corpus out of the cache."""
from __future__ import annotations

import time

import pandas as pd
import pytest

from data_access.common import CORPUS_NAMES, LoadedCorpus
from data_access.corpora import load_configured

from .conftest import open_page


def _count(corpus: str, word: str, whole: bool) -> int:
    text = load_configured(corpus).utterances["text"].astype(str)
    pattern = rf"(?<![^\W_])(?:{word})(?![^\W_])" if whole else word
    return int(text.str.contains(pattern, case=False, regex=True).sum())


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_words_are_whole_by_default_and_substrings_on_request():
    whole = open_page("search", q="block")
    assert _metrics(whole)["Minecraft Collaborative Building"] == str(_count("minecraft", "block", True))
    assert "whole" not in whole.query_params
    substring = open_page("search", q="block", whole="0")
    assert _metrics(substring)["Minecraft Collaborative Building"] == str(_count("minecraft", "block", False))
    assert _count("minecraft", "block", False) > _count("minecraft", "block", True)
    assert substring.query_params["whole"] == "0"
    assert substring.button_group(key="search_flags_words").value == []


def test_every_corpus_has_its_own_tab_and_pages_through_all_its_hits():
    at = open_page("search", q="the")
    expected = {corpus: _count(corpus, "the", True) for corpus in CORPUS_NAMES}
    assert all(n > 0 for n in expected.values())
    labels = [tab.label for tab in at.tabs]
    assert len(labels) == 3 and all(f"({n:,})" in label for label, n in zip(labels, expected.values()))
    tables = [frame.value for frame in at.dataframe][:3]  # (the published-layer mentions may follow)
    assert all("left" in table.columns for table in tables)
    for table, corpus in zip(tables, CORPUS_NAMES):
        assert len(table) == min(50, expected[corpus])
        assert table["link"].str.startswith(f"/replay?corpus={corpus}&").all()
        assert table["link"].str.contains("hl=").all()
    # the last page of Game Of Sorts (the second corpus) holds its last hits
    n_pages = -(-expected["gos"] // 50)
    pager = next(n for n in at.number_input if n.key.startswith("search_page_gos_"))
    pager.set_value(n_pages).run()
    assert not at.exception
    last = at.dataframe[1].value
    assert len(last) == expected["gos"] - 50 * (n_pages - 1)
    assert any(c.value == f"Hits {50 * (n_pages - 1) + 1:,}–{expected['gos']:,} of {expected['gos']:,}" for c in at.caption)


def test_a_hostile_regular_expression_answers_at_once_with_a_message():
    started = time.monotonic()
    at = open_page("search", q=r"^(?!zzz)(\w+\s?)*$", mode="regex")
    assert time.monotonic() - started < 60
    message = at.warning[0].value.replace("\\", "")
    assert message.startswith("Look-ahead ((?=…) or (?!…)) is not supported")
    assert not at.dataframe


def test_a_rerun_copies_no_corpus_out_of_the_cache(monkeypatch):
    copies: list[str] = []

    def counting_setstate(self, state):
        copies.append(state.get("corpus", "?") if isinstance(state, dict) else "?")
        self.__dict__.update(state)

    at = open_page("search", q="the")
    monkeypatch.setattr(LoadedCorpus, "__setstate__", counting_setstate, raising=False)
    pager = next(n for n in at.number_input if n.key.startswith("search_page_codraw_"))
    pager.set_value(2).run()
    assert not at.exception
    at.button_group(key="search_flags_words").unselect("Whole words").run()  # another search, same page
    assert not at.exception
    assert copies == []
    assert isinstance(at.dataframe[0].value, pd.DataFrame) and len(at.dataframe[0].value) > 0


@pytest.mark.parametrize("query, start", [("(unclosed", "This is not a valid regular expression: missing )"),
                                          ("a{2,1}", "This is not a valid regular expression: invalid repetition size"),
                                          ("(a)\\1", "Back-references (\\1, (?P=name)) are not supported")])
def test_malformed_or_unsupported_patterns_explain_themselves(query, start):
    at = open_page("search", q=query, mode="regex")
    assert at.warning[0].value.replace("\\", "").startswith(start.replace("\\", ""))
