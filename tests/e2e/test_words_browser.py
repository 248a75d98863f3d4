"""Words in a real browser: a word of the frequency list opens its concordance, and a concordance line (the
whole line, not only its text) opens the replay at its step in the same tab, with the match marked and the
Replay's "next hit" walking the list."""
from __future__ import annotations

import pytest

from .conftest import wait_for_app

pytestmark = pytest.mark.e2e


def test_a_word_to_its_concordance_and_a_line_to_the_replay_in_the_same_tab(demo_app, page):
    page.goto(f"{demo_app.url}/words?role=Drawer")
    wait_for_app(page)
    word = page.locator('table[data-table="frequency"] a[data-word]').first
    word.wait_for()
    clicked = word.get_attribute("data-word")
    pages_before = len(page.context.pages)
    word.click()
    page.wait_for_function(f"() => new URLSearchParams(window.location.search).get('w') === {clicked!r}", timeout=30_000)
    wait_for_app(page)
    assert "role=Drawer" in page.url
    line = page.locator("a.vgd-kwic-line").first
    line.wait_for()
    match = line.locator(".vgd-match").inner_text()
    assert match.lower() == clicked
    box = line.bounding_box()
    page.mouse.click(box["x"] + 5, box["y"] + box["height"] / 2)  # the line's left edge: where, not the word
    page.wait_for_url("**/replay?**", timeout=30_000)
    wait_for_app(page)
    assert len(page.context.pages) == pages_before  # the same tab
    page.locator("mark").first.wait_for()
    assert page.locator("mark").first.inner_text().lower() == clicked
    nav = page.locator(".vgd-hit-nav")
    nav.wait_for()
    assert "hit 1 of" in nav.inner_text()
    page.locator('.vgd-hit-nav a[data-nav="next"]').click()
    page.wait_for_function("() => new URLSearchParams(window.location.search).get('hit') === '2'", timeout=30_000)
    wait_for_app(page)
    page.locator(".vgd-hit-nav").wait_for()
    assert "hit 2 of" in page.locator(".vgd-hit-nav").inner_text()
