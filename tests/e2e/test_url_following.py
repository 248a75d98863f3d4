"""In a real browser, the URL follows what is shown (issue 26): during Present's autoplay the address bar holds
the step on screen, each step replacing the last (Back is not flooded); and a dialog picker over a corpus
larger than it lists finds a dialog whose id is typed into it, not only through its separate Find box."""
from __future__ import annotations

import json
import re

import pytest

from .conftest import AppServer, wait_for_app
from .test_browser import assert_no_error

pytestmark = pytest.mark.e2e

LARGE_CORPUS_DIALOGS = 1200  # more than ui.replay.picker.PICKER_SIZE lists at once

SHOWN_AND_LINKED = """() => {
  const player = document.querySelector('[data-step-player]');
  const turn = new URLSearchParams(window.location.search).get('turn');
  return {shown: player && player.dataset.step ? Number(player.dataset.step) : null, linked: turn === null ? null : Number(turn),
          history: window.history.length};
}"""


def _played_to(page, step: int) -> dict:
    """Wait until autoplay has shown ``step`` (or later) with the URL at the step shown; what SHOWN_AND_LINKED
    reads then. The URL is written as the step is drawn: both are read until they agree (a step may fall
    between the reads)."""
    page.wait_for_function(f"() => ({SHOWN_AND_LINKED})().shown >= {step}", timeout=60_000)
    page.wait_for_function(f"() => {{ const s = ({SHOWN_AND_LINKED})(); return s.shown >= {step} && s.linked === s.shown; }}",
                           timeout=10_000)
    return page.evaluate(SHOWN_AND_LINKED)


def test_autoplay_keeps_the_url_at_the_step_shown_without_a_history_entry_per_step(demo_app, page):
    page.goto(f"{demo_app.url}/present?corpus=gos&speed=0.5&play=1")
    wait_for_app(page)
    entries = page.evaluate("window.history.length")
    state = _played_to(page, 5)
    assert state["history"] == entries, state  # each step replaced the entry of the one before
    assert_no_error(page)


@pytest.fixture(scope="module")
def large_app(tmp_path_factory):
    """The app over a CoDraw file of 1,200 dialogs (the demo's dialogs under new ids)."""
    from corpora.codraw.data.demo import demo_source, write_demo

    folder = tmp_path_factory.mktemp("large-codraw")
    write_demo(folder)
    corpus = json.loads(demo_source(folder).read_text())
    demo = list(corpus["data"].values())
    corpus["data"] = {f"train_{i:05d}": demo[i % len(demo)] for i in range(LARGE_CORPUS_DIALOGS)}
    corpus["count"] = LARGE_CORPUS_DIALOGS
    path = folder / "large" / "CoDraw_1_0.json"
    path.parent.mkdir()
    path.write_text(json.dumps(corpus))
    server = AppServer(folder, {"CODRAW_DATA": str(path)})
    yield server
    server.stop()


def test_an_id_typed_into_a_large_dialog_picker_opens_that_dialog(large_app, page):
    page.goto(f"{large_app.url}/replay?corpus=codraw&dialog=train_00010&turn=2")
    wait_for_app(page)
    assert page.get_by_role("combobox", name="Dialog").input_value().startswith("train_00010")
    # train_01150 is not among the 1,000 dialogs listed around train_00010
    picker = page.get_by_role("combobox", name="Dialog")
    picker.click()
    picker.fill("train_01150")
    picker.press("Enter")
    page.wait_for_function("() => new URLSearchParams(window.location.search).get('dialog') === 'train_01150'",
                           timeout=20_000)
    wait_for_app(page)
    assert page.get_by_role("combobox", name="Dialog").input_value().startswith("train_01150")
    assert re.search(r"[?&]turn=1(&|$)", page.evaluate("window.location.search"))  # the new dialog from its start
    assert_no_error(page)


def test_autoplay_keeps_the_url_at_the_step_shown_under_a_plain_streamlit_run(plain_app, page):
    page.goto(f"{plain_app.url}/present?corpus=gos&speed=0.5")
    wait_for_app(page)
    page.get_by_text("Autoplay").click()  # the reader's click: one history entry for it, none per step
    wait_for_app(page)
    entries = page.evaluate("window.history.length")
    state = _played_to(page, 6)
    assert state["history"] == entries, state  # each step replaced the entry of the one before
    assert "play=1" in page.evaluate("window.location.search")
    assert_no_error(page)
