"""A replay step in a real browser while the steps beside it are computed in the background
(``ui.replay.prefetch``): each click shows its own step's pictures and what follows the step (the link, the notes) follows it; a step shown
again keeps its image's URL (the bytes and their key are the same, so the browser reuses the image)."""
from __future__ import annotations

import re

import pytest

from .conftest import wait_for_app
from .test_browser import _canvas_caption, _demo_dialog, _wait_turn, assert_no_error

pytestmark = pytest.mark.e2e

IMAGES = "() => [...document.querySelectorAll('[data-step-player] .sp-slot img')].map((img) => img.getAttribute('src'))"


def test_next_and_previous_show_each_steps_own_pictures_and_notes(demo_app, page, demo_corpus):
    dialog = _demo_dialog("codraw", demo_corpus)
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog={dialog}&turn=1")
    wait_for_app(page)
    page.wait_for_selector("[data-step-player][data-step='1']")  # the player has drawn its step
    first = page.evaluate(IMAGES)
    seen = {1: first}
    for turn in (2, 3, 4):  # each one prefetched by the click before it
        page.get_by_role("button", name="Next step").click()  # the step player's
        _wait_turn(page, turn)
        page.wait_for_selector(f"[data-step-player][data-step='{turn}']")
        assert _canvas_caption(page) == f"Drawer's canvas after round {turn}"
        link = page.locator('[data-testid="stMarkdown"]', has_text="Link to exactly this state").first.inner_text()
        assert re.search(f"[?&]turn={turn}(&|$|\\s)", link)  # what follows the step (link, notes) follows it
        seen[turn] = page.evaluate(IMAGES)
        assert seen[turn][1] != seen[turn - 1][1]  # the canvas of this round, not the last one's
    for turn in (3, 2, 1):
        page.get_by_role("button", name="Previous step").click()
        _wait_turn(page, turn)
        assert _canvas_caption(page) == f"Drawer's canvas after round {turn}"
        assert page.evaluate(IMAGES) == seen[turn]  # the same URLs as before: the browser has them
    assert_no_error(page)
