"""Nothing leaves the machine: every page, opened in a fresh browser session, requests only its own server (a
lab's data and a demo offline must not depend on, or tell, any other host). Streamlit's own defaults asked
fonts.gstatic.com for a ``:material/...:`` favicon on every page."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from .conftest import wait_for_app

pytestmark = pytest.mark.e2e

APP = Path(__file__).resolve().parents[2] / "app.py"
PAGE_PATHS = re.findall(r'url_path="([a-z_]+)"', APP.read_text(encoding="utf-8"))
# the replay of each corpus besides its default (Minecraft draws plotly's 3D charts, A Game Of Sorts its boards)
CORPUS_PAGES = ["replay?corpus=gos", "replay?corpus=minecraft"]


def test_the_app_lists_its_pages():
    assert {"overview", "browse", "replay", "data"} <= set(PAGE_PATHS)


def test_every_page_requests_only_its_own_server(demo_app, browser):
    own = urlsplit(demo_app.url).netloc
    asked: dict[str, list[str]] = {}
    for path in PAGE_PATHS + CORPUS_PAGES:
        # a fresh session for each page: nothing it loads comes from an earlier page's cache
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        requested: list[str] = []
        page.on("request", lambda r, requested=requested: requested.append(r.url))
        try:
            page.goto(f"{demo_app.url}/{path}")
            wait_for_app(page)
            page.wait_for_load_state("networkidle")
        finally:
            context.close()
        assert requested, f"{path} made no request at all"
        asked[path] = sorted({u for u in requested if urlsplit(u).scheme in ("http", "https", "ws", "wss")
                              and urlsplit(u).netloc != own})
    assert not {path: urls for path, urls in asked.items() if urls}, "pages asked other hosts"
