"""No markup from user-supplied names, in a real browser (issue 26, item 8): a run named
``![t](x.png) **bold** :red[red]``, a codebook whose label and description hold images and a bare URL, and a
coder named with markdown. The Replay (its Share panel and the label buttons, their tooltips opened) and the
Runs page (the slice finder's caption) are opened while every request the page makes is recorded: none may
fetch a planted image (``x.png`` from the app's host, or anything from the planted host), and no planted link
or image may be in the page."""
from __future__ import annotations

import shutil
from urllib.parse import quote, urlparse

import pytest

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

RUN_NAME = "![t](x.png) **bold** :red[red]"
LABEL_NAME = "![l](http://evil.example/l.png) **bold**"
LABEL_DESCRIPTION = "![d](http://evil.example/d.png) see http://evil.example/u1.png"
CODER = "**coder** ![c](http://evil.example/c.png)"


@pytest.fixture(scope="module")
def planted_app(tmp_path_factory, demo_corpus):
    from data_access.coding import codebook as cb
    from data_access.runs.demo import demo_runs
    from data_access.store import CodingStore

    work = tmp_path_factory.mktemp("planted-app")
    runs = work / "runs" / "codraw"
    runs.mkdir(parents=True)
    baseline = demo_runs("codraw", work / "cache")["baseline"]
    shutil.copy(baseline, runs / f"{RUN_NAME}{''.join(baseline.suffixes)}")
    CodingStore(work / "notes.sqlite3").save_codebook(cb.Codebook("book", (
        cb.Label(LABEL_NAME, scope="turn", description=LABEL_DESCRIPTION),)))
    dialog = str(demo_corpus("codraw").dialogs["dialog_id"].iloc[0])
    server = AppServer(work, {"DIALOGUE_RUNS_DIR": str(work / "runs")})
    yield server, dialog
    server.stop()


def _recorded(page, server) -> list[str]:
    own = urlparse(server.url).netloc
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    return requests, own


def _assert_inert(page, requests, own):
    # (Streamlit itself fetches icons from fonts.gstatic.com; what matters is that nothing planted is fetched)
    strays = [url for url in requests if "evil.example" in urlparse(url).netloc + urlparse(url).path
              or urlparse(url).path.endswith("/x.png")]
    assert not strays, strays
    assert page.locator('img[src$="x.png"], img[src*="evil.example"], a[href*="evil.example"]').count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0


# A planted fetch would come from an element on the page (an image, a frame): once every image and frame has
# finished loading or failing, the requests it made are recorded.
_LOADS_SETTLED = """() => [...document.images].every((image) => image.complete)
  && [...document.querySelectorAll('iframe')].every((frame) => {
       try { return frame.contentDocument === null || frame.contentDocument.readyState === 'complete'; }
       catch (error) { return true; } })"""


def _settled(page) -> None:
    page.wait_for_function(_LOADS_SETTLED)


def test_the_replay_and_runs_pages_fetch_nothing_planted(planted_app, page):
    server, dialog = planted_app
    requests, own = _recorded(page, server)
    page.goto(f"{server.url}/replay?corpus=codraw&dialog={dialog}&turn=2&run={quote(RUN_NAME)}&coder={quote(CODER)}")
    wait_for_app(page)
    page.get_by_text("Share: HTML replay, LaTeX transcript").click()
    page.get_by_text("HTML replay with the model run").wait_for()
    assert RUN_NAME in page.inner_text("body")  # shown as the characters it is
    label = page.locator("[data-coding-panel] .dc-put").filter(has_text="evil.example/l.png) **bold**")
    label.first.hover()  # its tooltip: the description, as the characters it is (a title, never markup)
    assert "evil.example/u1.png" in label.first.get_attribute("title")
    _settled(page)
    _assert_inert(page, requests, own)

    page.goto(f"{server.url}/runs?corpus=codraw")
    wait_for_app(page)
    for view in ("Runs × metrics", "Compare two runs", "Worst cases first", "Slice finder"):  # each names the run
        page.get_by_role("tab", name=view).click()
        wait_for_app(page)
    page.get_by_text("Open a slice's dialogs").wait_for()
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Compared with").locator("input").click()
    page.keyboard.type("bold")
    page.keyboard.press("Enter")
    page.get_by_text(f"(difference baseline − {RUN_NAME})").wait_for()  # the slice finder's caption, as text
    _settled(page)
    _assert_inert(page, requests, own)
