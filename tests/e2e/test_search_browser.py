"""Search in a real browser: a shared regex link with a catastrophic pattern answers at once with a
message; whole words by default; each corpus's hits in its own tab; a hit's "open ▶" link lands on the
replay with the matched text marked."""
from __future__ import annotations

import time
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from .conftest import wait_for_app

pytestmark = pytest.mark.e2e
HOSTILE = quote(r"^(?!zzz)(\w+\s?)*$")


def test_a_hostile_shared_regex_link_answers_at_once(demo_app, page):
    started = time.monotonic()
    page.goto(f"{demo_app.url}/search?q={HOSTILE}&mode=regex")
    wait_for_app(page)
    assert time.monotonic() - started < 30
    assert "Look-ahead" in page.locator('[data-testid="stAlert"]').first.inner_text()
    # the server is still answering
    page.goto(f"{demo_app.url}/search?q=left")
    wait_for_app(page)
    assert page.get_by_role("tab").count() == 3


def test_a_hit_opens_its_replay_with_the_match_marked(demo_app, page):
    from data_access.corpora import load_configured
    from data_access.search import SearchIndex

    # the served app generates the same deterministic demo corpora
    index = SearchIndex.build([load_configured(c).utterances for c in ("codraw", "gos", "minecraft")])
    result = index.search("red", limit=0)
    page.goto(f"{demo_app.url}/search?q=red")
    wait_for_app(page)
    tabs = page.get_by_role("tab")
    labels = [tabs.nth(i).inner_text() for i in range(tabs.count())]
    assert labels == [f"CoDraw ({result.n_hits('codraw'):,})", f"A Game Of Sorts ({result.n_hits('gos'):,})",
                      f"Minecraft Collaborative Building ({result.n_hits('minecraft'):,})"]
    tabs.nth(1).click()
    page.get_by_text(f"Hits 1–{min(50, result.n_hits('gos'))} of {result.n_hits('gos')}").wait_for()
    hit = index.page(result, "gos", 1).iloc[0]  # the first row of that tab, and its "open ▶" link
    page.goto(demo_app.url + hit["link"])
    wait_for_app(page)
    marks = page.locator("mark")
    marks.first.wait_for()
    assert marks.first.inner_text() == hit["match"]


def _search(page, words: str) -> None:
    box = page.get_by_label("Search for")
    box.fill(words)
    box.press("Enter")
    page.wait_for_function(f"() => new URLSearchParams(window.location.search).get('q') === {words!r}", timeout=30_000)
    wait_for_app(page)


def test_every_query_typed_is_searched_and_back_brings_the_one_before(demo_app, page):
    """The box took its value from the URL without a key, so it changed identity with every query: every
    second query typed was dropped and the box showed the one before."""
    page.goto(f"{demo_app.url}/search?corpus=codraw")
    wait_for_app(page)
    for words in ("left", "red", "the"):
        _search(page, words)
        assert page.get_by_label("Search for").input_value() == words
        assert f'matching utterances for "{words}"' in page.get_by_text("matching utterances").first.inner_text()
    page.go_back()
    page.wait_for_function("() => new URLSearchParams(window.location.search).get('q') === 'red'", timeout=30_000)
    wait_for_app(page)  # the rerun Back made is over: it could not write the later query back after this
    # the box follows once React has drawn that run (on a loaded machine a moment after the run mark)
    expect(page.get_by_label("Search for")).to_have_value("red", timeout=30_000)
    wait_for_app(page)
    assert 'matching utterances for "red"' in page.get_by_text("matching utterances").first.inner_text()
    assert "q=red" in page.url  # and the page's rerun did not write the later query back
