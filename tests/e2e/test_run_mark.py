"""The run mark the browser tests wait on (app.py, ``mark_run``): each run of a browser session shows a new run
number, invisibly, in Streamlit's event container; the wait after a click returns after that click's run."""
from __future__ import annotations

import re

import pytest

from .conftest import wait_for_app
from .test_browser import _demo_dialog

pytestmark = pytest.mark.e2e

MARKS = "() => [...document.querySelectorAll('style[data-app-run]')].map((mark) => mark.dataset.appRun)"


def test_each_run_shows_a_new_invisible_run_number(demo_app, page, demo_corpus):
    dialog = _demo_dialog("codraw", demo_corpus)
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog={dialog}&turn=2")
    wait_for_app(page)
    first = page.evaluate(MARKS)
    assert len(first) == 1 and re.fullmatch(r"[0-9a-f]{8}-\d+", first[0])
    takes = "() => document.querySelector('style[data-app-run]').parentElement.getBoundingClientRect().height"
    assert page.evaluate(takes) == 0  # no space on the page
    assert page.locator('[data-testid="stMain"] style[data-app-run]').count() == 0  # not among the page's elements
    page.get_by_role("button", name=re.compile("Next")).click()
    wait_for_app(page)
    assert "turn=3" in page.url  # the wait returned after the click's run, not before it
    second = page.evaluate(MARKS)
    (session, run), (session_after, run_after) = first[0].split("-"), second[0].split("-")
    assert len(second) == 1 and session_after == session and int(run_after) > int(run)  # the same session, later


# Every mark the page shows (the last one, on each change of the page), with the path shown at that moment.
WATCH_MARKS = """() => {
  window.__marksSeen = [];
  const last = () => [...document.querySelectorAll('style[data-app-run]')].map((m) => m.dataset.appRun).pop();
  new MutationObserver(() => {
    const mark = last(), seen = window.__marksSeen;
    if (mark && (!seen.length || seen[seen.length - 1][0] !== mark)) seen.push([mark, location.pathname]);
  }).observe(document.documentElement, {childList: true, subtree: true, attributes: true});
}"""


def test_a_run_cut_short_by_a_page_switch_shows_no_finished_mark(demo_app, page):
    """Browse's "Make a slice" button opens Slices (st.switch_page): its own run is cut short. Were it marked as
    finished, a wait could return on Browse before Slices is shown (the slice task's test once did)."""
    page.goto(f"{demo_app.url}/browse?corpus=codraw&q=00")
    wait_for_app(page)
    before = page.evaluate(MARKS)[-1]
    page.evaluate(WATCH_MARKS)
    page.get_by_role("button", name=re.compile(r"Make a slice of these [\d,]+ dialogs")).click()
    wait_for_app(page)
    assert "/slices" in page.url
    finished = [(mark, path) for mark, path in page.evaluate("() => window.__marksSeen") if mark not in (before, "rerun")]
    assert finished and all(path.endswith("/slices") for _, path in finished), finished
