"""Browse: a hostile range in a link (audit: nan.. crashed the page, final_score=nan..nan and 30..3 silently showed
no dialog) gives a warning, never a traceback, and the dialogs the valid part of the link allows."""
from __future__ import annotations

import re

import pytest

from .conftest import open_page


def _warnings(at) -> list[str]:
    """The page's warnings as plain text (their markdown escapes removed)."""
    return [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]


@pytest.fixture(scope="module")
def everything() -> int:
    return len(open_page("browse", corpus="codraw").dataframe[0].value)


@pytest.mark.parametrize("param, value", [
    ("n_steps", "nan..5"), ("n_steps", "3..nan"), ("final_score", "nan..nan"), ("n_steps", "inf.."),
    ("n_steps", "-inf..5"), ("n_steps", ".."), ("n_steps", "²..5"), ("n_steps", "٣..5"), ("n_steps", "1e999.."),
    ("n_steps", "9" * 400 + ".."), ("n_steps", "100000..200000"), ("final_score", "-9..-1"), ("n_steps", "*x*..5"),
])
def test_a_range_link_that_cannot_be_used_is_ignored_with_a_warning(everything, param, value):
    at = open_page("browse", corpus="codraw", **{param: value})  # open_page asserts that nothing was raised
    assert any(f"{param}={value}"[:80] in w and "ignored" in w for w in _warnings(at)), _warnings(at)
    assert len(at.dataframe[0].value) == everything  # ignored: the whole table, not an empty one
    assert param not in at.query_params  # the URL no longer claims a filter that is not applied
    assert not any("active" in e.label for e in at.expander)
    at.run()  # the next run keeps the page as it is, without repeating the warning
    assert not at.exception and len(at.dataframe[0].value) == everything and not _warnings(at)


def test_the_warning_is_text_not_markdown():
    at = open_page("browse", corpus="codraw", n_steps="**bold**..[x](javascript:alert(1))")
    raw = next(w.value for w in at.warning if "n\\_steps" in w.value)
    assert "\\*\\*bold\\*\\*" in raw and "\\[x\\]\\(" in raw


def test_a_malformed_range_leaves_the_rest_of_the_filter_working():
    at = open_page("browse", corpus="codraw", split="test", n_steps="nan..5")
    assert any("n_steps=nan..5" in w for w in _warnings(at))
    table = at.dataframe[0].value
    assert len(table) > 0 and set(table["split"]) == {"test"}


def test_a_reversed_range_is_swapped_with_a_warning():
    steps = open_page("browse", corpus="codraw").dataframe[0].value["n_steps"]
    low, high = int(steps.quantile(0.25)), int(steps.quantile(0.75))
    assert steps.min() < low < high < steps.max()
    at = open_page("browse", corpus="codraw", n_steps=f"{high}..{low}")
    assert any("reversed" in w and f"{low}..{high}" in w for w in _warnings(at)), _warnings(at)
    table = at.dataframe[0].value
    assert 0 < len(table) < len(steps) and table["n_steps"].between(low, high).all()
    assert at.slider(key="browse_range_codraw_n_steps").value == (low, high)
    assert at.query_params["n_steps"] == f"{low}..{high}"
    assert any(e.label == "Range filters (1 active)" for e in at.expander)


@pytest.mark.parametrize("value", ["..1e999", "-5..1e999", "3..999999"])
def test_an_end_past_the_values_is_opened_with_a_warning(value):
    full = open_page("browse", corpus="codraw").dataframe[0].value["n_steps"]
    at = open_page("browse", corpus="codraw", n_steps=value)
    assert any("reaches past" in w for w in _warnings(at)), _warnings(at)
    low = float(value.split("..")[0] or "-inf")
    assert len(at.dataframe[0].value) == int((full >= low).sum()) > 0


def test_the_older_min_max_turns_links_say_when_they_are_malformed_or_reversed():
    at = open_page("browse", corpus="codraw", min_turns="²")
    assert any("min_turns=²" in w and "ignored" in w for w in _warnings(at))
    assert "min_turns" not in at.query_params and "n_steps" not in at.query_params
    steps = open_page("browse", corpus="codraw").dataframe[0].value["n_steps"]
    low, high = int(steps.min()) + 1, int(steps.max()) - 1
    at = open_page("browse", corpus="codraw", min_turns=str(high), max_turns=str(low))
    assert any("reversed" in w and f"{low}..{high}" in w for w in _warnings(at)), _warnings(at)
    table = at.dataframe[0].value
    assert at.query_params["n_steps"] == f"{low}..{high}" and len(table) > 0 and table["n_steps"].between(low, high).all()
