"""The app in a real browser: every page opens and asks nothing of another host, the replay steps with buttons
and arrow keys, deep links of each corpus open the right state, and script in the data never runs."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from .conftest import wait_for_app

pytestmark = pytest.mark.e2e

APP = Path(__file__).resolve().parents[2] / "app.py"
APP_PAGES = re.findall(r'url_path="([a-z_]+)"', APP.read_text(encoding="utf-8"))
# every page of the app (its url_path) -> what its title says; "" is the home page, served at the root
PAGES = {
    "": "dialogue dashboard", "overview": "dialogue dashboard", "browse": "Browse", "replay": "Replay",
    "search": "Search", "words": "Words", "compare": "Compare", "present": "Present", "play": "Play", "slices": "Slices",
    "codraw_scores": "CoDraw", "durations": "Durations", "gos_outcomes": "Game Of Sorts",
    "minecraft_outcomes": "Minecraft", "runs": "Model runs", "notes": "Notes", "data": "Data",
    "codebooks": "Codebooks", "agreement": "Agreement", "coding_queue": "Coding queue",
}
CORPUS_PAGES = {"replay?corpus=gos": "Replay", "replay?corpus=minecraft": "Replay"}


def assert_no_error(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    body = page.inner_text("body")
    assert "Traceback" not in body and "Page not found" not in body


def test_every_page_of_the_app_is_opened_below():
    assert set(APP_PAGES) == set(PAGES) - {""}


@pytest.mark.parametrize("path", sorted({**PAGES, **CORPUS_PAGES}))
def test_every_page_opens_and_asks_only_its_own_server(demo_app, page, path):
    """Each page, in a fresh browser session, shows its title and no error, and requests only its own server:
    nothing leaves the machine (a lab's data and a demo offline must not depend on, or tell, any other host;
    Streamlit's own defaults asked fonts.gstatic.com for a ``:material/...:`` favicon on every page)."""
    own = urlsplit(demo_app.url).netloc
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{demo_app.url}/{path}")
    wait_for_app(page)
    page.wait_for_load_state("networkidle")
    assert_no_error(page)
    heading = page.locator("h1").first.inner_text()
    assert re.search({**PAGES, **CORPUS_PAGES}[path], heading, re.IGNORECASE), heading
    assert requested, f"{path} made no request at all"
    elsewhere = sorted({url for url in requested if urlsplit(url).scheme in ("http", "https", "ws", "wss")
                        and urlsplit(url).netloc != own})
    assert not elsewhere, f"{path} asked other hosts"


def _demo_dialog(corpus: str, demo_corpus, min_steps: int = 5):
    """A dialog of the demo corpus the served app also generates (the generator is deterministic)."""
    dialogs = demo_corpus(corpus).dialogs
    return dialogs[dialogs["n_steps"] >= min_steps].iloc[0]["dialog_id"]


def _turn_in_url(page) -> str:
    return re.search(r"[?&]turn=(\d+)", page.url).group(1)


def _wait_turn(page, turn: int) -> None:
    page.wait_for_function(f"() => /[?&]turn={turn}(&|$)/.test(window.location.search)", timeout=30_000)
    wait_for_app(page)


def test_replay_steps_with_buttons_and_arrow_keys(demo_app, page, demo_corpus):
    dialog = _demo_dialog("codraw", demo_corpus)
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog={dialog}&turn=2")
    wait_for_app(page)
    assert _turn_in_url(page) == "2"
    page.get_by_role("button", name="Next step").click()  # the step player's buttons
    _wait_turn(page, 3)
    page.locator("h1").first.click()  # focus the page, not a widget, so the arrows reach the player
    page.keyboard.press("ArrowRight")
    _wait_turn(page, 4)
    page.keyboard.press("ArrowLeft")
    _wait_turn(page, 3)
    page.get_by_role("button", name="Previous step").click()
    _wait_turn(page, 2)
    assert_no_error(page)


CANVAS_CAPTION = "() => document.querySelectorAll('[data-step-player] figcaption')[1]?.textContent"


# The player has drawn the step the URL names: its pictures are decoded, which can be after the run is over.
STEP_OF_URL_DRAWN = """() => { const root = document.querySelector('[data-step-player]');
  const turn = new URLSearchParams(location.search).get('turn');
  return root && turn && root.dataset.step === turn && !root.hasAttribute('data-waiting'); }"""


def _canvas_caption(page) -> str:
    """The caption of the Drawer's canvas, once the step in the URL is drawn."""
    page.wait_for_function(STEP_OF_URL_DRAWN, timeout=30_000)
    return page.evaluate(CANVAS_CAPTION)


def test_the_browsers_back_and_forward_step_the_replay(demo_app, page, demo_corpus):
    """Each step is a history entry: Back shows the step before (picture and slider, not only the URL)."""
    dialog = _demo_dialog("codraw", demo_corpus)
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog={dialog}&turn=1")
    wait_for_app(page)
    for turn in (2, 3):
        page.get_by_role("button", name="Next step").click()
        _wait_turn(page, turn)
    assert _canvas_caption(page) == "Drawer's canvas after round 3"
    page.go_back()
    _wait_turn(page, 2)
    page.wait_for_function(f"() => ({CANVAS_CAPTION})() === \"Drawer's canvas after round 2\"", timeout=30_000)
    assert page.get_attribute("[data-step-player]", "data-step") == "2"
    assert page.get_attribute("[data-step-player] .sp-timeline", "aria-valuenow") == "2"
    page.go_forward()
    _wait_turn(page, 3)
    page.wait_for_function(f"() => ({CANVAS_CAPTION})() === \"Drawer's canvas after round 3\"", timeout=30_000)
    assert_no_error(page)


def _dialog_shown(page) -> str:
    return page.get_by_role("combobox", name="Dialog").input_value()


def _back_to(page, query: str) -> None:
    """Back once; the page must then be at ``query`` and stay there (its rerun, over now, must not move on)."""
    page.go_back()
    page.wait_for_function(f"() => window.location.search === {query!r}", timeout=30_000)
    wait_for_app(page)
    assert page.evaluate("window.location.search") == query


def test_back_undoes_one_click_at_a_time(demo_app, page):
    """Streamlit pushes a history entry per URL change, several per click; server.py keeps one per click
    (ui/server/server_hint.HISTORY_SCRIPT), and the replay follows the URL it is taken back to, corpus included."""
    page.goto(f"{demo_app.url}/agreement")
    wait_for_app(page)
    page.locator('[data-testid="stSidebarNavLink"]', has_text="Replay").click()
    page.wait_for_function("() => /[?&]turn=1(&|$)/.test(window.location.search)", timeout=30_000)
    wait_for_app(page)
    opened = page.evaluate("window.location.search")
    page.get_by_role("button", name="Next step").click()  # the step player's
    _wait_turn(page, 2)
    stepped = page.evaluate("window.location.search")
    first_dialog = _dialog_shown(page)
    page.locator('[data-testid="stSelectbox"]').first.click()
    page.get_by_role("option").nth(2).click()
    page.wait_for_function(f"() => window.location.search !== {stepped!r} && /[?&]turn=1(&|$)/.test(window.location.search)",
                           timeout=30_000)
    wait_for_app(page)
    switched = page.evaluate("window.location.search")
    page.get_by_role("radio", name="Game Of Sorts", exact=True).click()  # the Replay's header: short titles
    page.wait_for_function("() => window.location.search.includes('corpus=gos')", timeout=30_000)
    wait_for_app(page)

    _back_to(page, switched)  # one Back per click: the corpus switch
    assert _dialog_shown(page) != first_dialog
    _back_to(page, stepped)  # the dialog switch: the first dialog again, at the step it was left at
    assert _dialog_shown(page) == first_dialog
    assert _canvas_caption(page) == "Drawer's canvas after round 2"
    _back_to(page, opened)  # the step
    page.go_back()  # and the page that was open before the Replay
    page.wait_for_function("() => window.location.pathname.endsWith('/agreement')", timeout=30_000)
    wait_for_app(page)
    assert_no_error(page)


@pytest.mark.parametrize("corpus, extra, selector", [
    ("codraw", "&turn=3", "[data-step-player] .sp-slot img"),
    ("gos", "&round=2&turn=4", "[data-step-player] .sp-slot img"),
    ("minecraft", "&turn=3", "[data-step-player] .sp-slot img"),  # the pictures drawn on the server
    ("minecraft", "&turn=3&view3d=1", ".js-plotly-plot"),  # the interactive 3-D view
])
def test_deep_link_opens_that_state(demo_app, page, demo_corpus, corpus, extra, selector):
    dialog = _demo_dialog(corpus, demo_corpus, min_steps=4)
    page.goto(f"{demo_app.url}/replay?corpus={corpus}&dialog={dialog}{extra}")
    wait_for_app(page)
    # A replay shows the target beside the current scene (two images) or one 3-D plot; images stream in one
    # by one, so wait for the count rather than the first match.
    expected = 1 if corpus == "minecraft" else 2
    page.wait_for_function(f"() => document.querySelectorAll({selector!r}).length >= {expected}", timeout=30_000)
    assert f"dialog={dialog}" in page.url
    for part in extra.strip("&").split("&"):
        assert part in page.url
    assert_no_error(page)


def test_bad_deep_link_is_explained_not_crashed(demo_app, page):
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog=../../etc/passwd&turn=abc")
    wait_for_app(page)
    assert "not in the loaded corpus" in page.inner_text("body")
    assert_no_error(page)


@pytest.mark.parametrize("path", ["gos_outcomes", "replay?corpus=gos"])
def test_deep_link_in_a_fresh_session_has_no_page_not_found_box(demo_app, browser, path):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{demo_app.url}/{path}")
    wait_for_app(page)
    assert "Page not found" not in page.inner_text("body")
    context.close()


def test_first_visit_of_a_fresh_server_is_routed(page, tmp_path):
    """Before st.navigation has run once, Streamlit would run pages/*.py without app.py's router. What must be fresh
    is the server (the page is a new session of it in the tests' profile, as any test's)."""
    from .conftest import AppServer

    server = AppServer(tmp_path)
    try:
        page.goto(f"{server.url}/durations")
        wait_for_app(page)
        sidebar = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Explore" in sidebar and "Analyse" in sidebar  # the router's sections, not a file listing
        assert "durations" not in sidebar  # the legacy list names pages by file
    finally:
        server.stop()


def test_selecting_a_browse_row_opens_its_replay(demo_app, page):
    page.goto(f"{demo_app.url}/browse?corpus=gos")
    wait_for_app(page)
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.wait_for()
    box = grid.bounding_box()
    # The table is drawn on a canvas: click the selection cell of the first row (below the 35 px header).
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)
    page.wait_for_url(re.compile(r"/replay\?corpus=gos&dialog=[0-9a-f]{24}"), timeout=30_000)
    wait_for_app(page)
    assert page.locator("h1").first.inner_text() == "Replay"
    assert_no_error(page)
