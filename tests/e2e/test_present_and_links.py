"""In a real browser (issue 11, items 1, 4, 8 and the base path): Present keeps the current line in view
while it plays and really presents; a click on a chart bar lists its dialogs; Browse shows more than ten
rows; deep links work when the app is served under ``server.baseUrlPath``."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import wait_for_app
from .test_browser import assert_no_error

pytestmark = pytest.mark.e2e

CURRENT_IN_VIEW = """() => {
  const root = document.querySelector('[data-step-player]');
  const box = root && root.querySelector('.sp-transcript');
  const current = box && box.querySelector('.sp-current');
  if (!current || !root.dataset.step) return null;
  const b = box.getBoundingClientRect(), c = current.getBoundingClientRect();
  return {step: Number(root.dataset.step), overflowing: box.scrollHeight > box.clientHeight + 20,
          inView: c.top >= b.top - 1 && c.bottom <= b.bottom + 1, scrolled: box.scrollTop > 0};
}"""


def test_present_autoplay_keeps_the_current_line_in_view_and_marked(demo_app, page):
    page.goto(f"{demo_app.url}/present?corpus=gos&speed=0.5&play=1")
    wait_for_app(page)
    page.wait_for_function(f"() => {{ const s = ({CURRENT_IN_VIEW})(); return s && s.step >= 14; }}", timeout=90_000)
    for _ in range(4):  # at several steps while it plays on
        # a step with no line of its own (a Game Of Sorts lock) has no current line: the next one with a line
        state = page.wait_for_function(CURRENT_IN_VIEW, timeout=90_000).json_value()
        assert state["overflowing"], "the transcript should be longer than its box for this test to mean anything"
        # The player plays in the browser; it scrolls the transcript right after drawing a step: the look waits
        # for that step's line in view (or fails after the timeout), then for the player's next step.
        page.wait_for_function(f"() => {{ const s = ({CURRENT_IN_VIEW})(); return s && s.step >= {state['step']} "
                               f"&& s.inView && s.scrolled; }}", timeout=90_000)
        page.wait_for_function(f"() => {{ const s = ({CURRENT_IN_VIEW})(); return s && s.step > {state['step']}; }}",
                               timeout=90_000)
    assert "turn=" in page.url  # the steps played are reported: the address bar follows


def test_presentation_mode_gives_the_picture_the_screen(demo_app, page, demo_corpus):
    dialog = demo_corpus("codraw").dialogs["dialog_id"].iloc[0]
    page.goto(f"{demo_app.url}/present?corpus=codraw&dialog={dialog}&turn=2&mode=present")
    wait_for_app(page)
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.count() == 1 and not sidebar.is_visible()  # the navigation's sidebar is there, hidden
    page.wait_for_selector("[data-step-player][data-step]")
    image = page.locator("[data-step-player] .sp-slot img").first.bounding_box()
    transcript = page.locator("[data-step-player] .sp-transcript").bounding_box()
    viewport = page.viewport_size
    assert image["width"] >= 0.6 * viewport["width"], image  # the picture takes the screen's width
    assert transcript["x"] >= image["x"] + image["width"] - 5  # the transcript beside it, not below
    assert transcript["y"] < image["y"] + image["height"]
    page.wait_for_function(f"() => {{ const s = ({CURRENT_IN_VIEW})(); return s && s.step === 2 && s.inView; }}")


@pytest.mark.parametrize("width, height, presenting", [(1280, 720, True), (1400, 900, False)])
def test_present_opens_in_presentation_mode_in_a_small_window(demo_app, page, width, height, presenting):
    """Issue 47: with no mode chosen, Present in a window of 1280x720 or smaller opens in presentation mode, its
    settings folded away and the picture on the screen; a larger window keeps the page as it is."""
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{demo_app.url}/present?corpus=codraw")
    page.wait_for_selector("[data-step-player][data-step]")
    wait_for_app(page)
    if presenting:
        page.wait_for_function("() => document.querySelector('[data-step-player]').classList.contains('sp-present')")
        wait_for_app(page)
    # the run that switched the mode may still be drawing its last elements: each state is awaited (5 s at most)
    sidebar = page.locator('[data-testid="stSidebar"]')
    (expect(sidebar).to_be_hidden if presenting else expect(sidebar).to_be_visible)()
    settings = page.locator("details").filter(has_text="Dialog, speed and presentation mode").first
    (expect(settings).not_to_have_attribute if presenting else expect(settings).to_have_attribute)("open", "")
    image = page.locator("[data-step-player] .sp-slot img").first
    if presenting:  # folded away when presenting, the picture on the screen
        page.wait_for_function(IMAGE_ON_SCREEN, arg=[height, 0.5 * width], timeout=5_000)
        box = image.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= height and box["width"] >= 0.5 * width, box


IMAGE_ON_SCREEN = """([height, width]) => { const img = document.querySelector('[data-step-player] .sp-slot img');
  const b = img && img.getBoundingClientRect(); return b && b.top >= 0 && b.bottom <= height && b.width >= width; }"""


def test_an_analysis_page_opens_on_its_summary_and_draws_a_view_on_request(demo_app, page):
    page.goto(f"{demo_app.url}/codraw_scores")
    wait_for_app(page)
    assert "Score of the final drawing per split" in page.inner_text("body")
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 0
    page.get_by_role("tab", name="Peek effects").click()
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=30_000)
    wait_for_app(page)
    assert "view=Peek+effects" in page.url or "view=Peek%20effects" in page.url
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 4


def test_a_click_on_a_bar_lists_the_rounds_behind_it(demo_app, page):
    page.goto(f"{demo_app.url}/gos_outcomes?view=Locks")
    wait_for_app(page)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.scroll_into_view_if_needed()
    bars = chart.locator("g.point path")
    bars.first.wait_for()
    bars.nth(1).click(force=True)  # one click, no drag
    page.get_by_text(re.compile(r"\d+ rounds? selected")).first.wait_for(timeout=30_000)
    wait_for_app(page)
    assert "Click a bar or point" in page.inner_text("body")


def test_browse_shows_more_than_ten_rows(demo_app, page):
    page.goto(f"{demo_app.url}/browse?corpus=codraw")
    wait_for_app(page)
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.wait_for()
    assert grid.bounding_box()["height"] > 12 * 35


def _dialogs_shown(page) -> tuple[int, int]:
    caption = page.get_by_text(re.compile(r"of [\d,]+ dialogs")).first.inner_text()
    shown, total = re.search(r"([\d,]+) of ([\d,]+) dialogs", caption).groups()
    return int(shown.replace(",", "")), int(total.replace(",", ""))


def test_browses_id_filter_belongs_to_its_corpus_and_comes_back_with_it(demo_app, page):
    page.goto(f"{demo_app.url}/browse?corpus=codraw")
    wait_for_app(page)
    box = page.get_by_label("Dialog id contains")
    box.fill("0066")
    box.press("Enter")
    page.wait_for_function("() => window.location.search.includes('q=0066')", timeout=30_000)
    wait_for_app(page)
    filtered = _dialogs_shown(page)
    assert 0 < filtered[0] < filtered[1]
    page.get_by_role("radio", name="Minecraft Collaborative Building").click()
    page.wait_for_function("() => window.location.search.includes('corpus=minecraft')", timeout=30_000)
    wait_for_app(page)
    assert page.get_by_label("Dialog id contains").input_value() == ""  # it said "0066" here, and hid every game
    shown, total = _dialogs_shown(page)
    assert shown == total > 0 and "q=" not in page.url
    page.get_by_role("radio", name="CoDraw").click()
    page.wait_for_function("() => window.location.search.includes('corpus=codraw')", timeout=30_000)
    wait_for_app(page)
    assert page.get_by_label("Dialog id contains").input_value() == "0066" and _dialogs_shown(page) == filtered
    assert_no_error(page)


def test_deep_links_work_under_a_base_path(lab_app, page, demo_corpus):
    dialogs = demo_corpus("codraw").dialogs["dialog_id"].tolist()
    page.goto(f"{lab_app.url}/lab/replay?corpus=codraw&dialog={dialogs[0]}&turn=3")
    wait_for_app(page)
    page.wait_for_selector("[data-step-player][data-step='3']")  # its captions are drawn with its pictures
    body = page.inner_text("body")
    assert "Page not found" not in body and "Drawer's canvas after round 3" in body
    link = page.get_by_role("link", name="Link to exactly this state")
    link.wait_for()
    assert link.get_attribute("href") == f"/lab/replay?corpus=codraw&dialog={dialogs[0]}&turn=3"  # the shareable link
    page.goto(f"{lab_app.url}/lab/compare?corpus=codraw&left={dialogs[1]}&right={dialogs[2]}&step=2")
    wait_for_app(page)
    link = page.get_by_role("link", name="open in Replay").first
    assert link.get_attribute("href") == f"/lab/replay?corpus=codraw&dialog={dialogs[1]}&turn=2"
    page.goto(lab_app.url + link.get_attribute("href"))  # markdown links open a new tab; follow it here
    wait_for_app(page)
    page.get_by_text("Drawer's canvas after round 2").first.wait_for(timeout=30_000)
    assert "Page not found" not in page.inner_text("body")


def test_switching_the_corpus_and_back_brings_back_the_dialog_and_turn(demo_app, page, demo_corpus):
    dialog = demo_corpus("codraw").dialogs["dialog_id"].iloc[3]
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog={dialog}&turn=3")
    wait_for_app(page)
    page.get_by_role("radio", name="Game Of Sorts", exact=True).click()  # the Replay's header: short titles
    page.wait_for_url(re.compile(r"corpus=gos"))
    wait_for_app(page)
    assert f"dialog={dialog}" not in page.url
    page.get_by_role("radio", name="CoDraw", exact=True).click()
    page.wait_for_url(re.compile(r"corpus=codraw"))
    wait_for_app(page)
    page.wait_for_function(f"() => location.search.includes('dialog={dialog}') && location.search.includes('turn=3')",
                           timeout=15_000)


def test_present_autoplay_plays_on_through_a_slice(demo_app, page, demo_corpus):
    """Issue 37: on a slice, Present's autoplay goes from the end of a dialog to the slice's next one, playing."""
    dialogs = list(demo_corpus("codraw").frames["dialogs"]["dialog_id"])
    first, then = dialogs[0], dialogs[2]
    chosen = f"dialog_id in ({first}, {then})"
    page.goto(f"{demo_app.url}/present?corpus=codraw&speed=0.5&play=1&dialog={first}&turn=99&slice={chosen}")
    wait_for_app(page)
    page.wait_for_url(re.compile(rf"dialog={then}\b"), timeout=60_000)
    wait_for_app(page)
    # the next dialog plays on from its first step
    page.wait_for_function("() => Number(document.querySelector('[data-step-player]')?.dataset.step) >= 2", timeout=60_000)
    assert "slice=" in page.url
