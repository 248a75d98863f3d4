"""server.py in a real browser: a deep link into the app as ``make run`` serves it finds the server at once (no
404 for ``<page>/_stcore/health`` first), at the root and under a base path; behind a proxy that strips a path
prefix the hint stands aside and Streamlit's own search still finds the server; ``streamlit run app.py`` without
the hint still works (and probes, which is what the hint saves)."""
from __future__ import annotations

import re

import pytest

from .conftest import wait_for_app
from .test_browser import assert_no_error

pytestmark = pytest.mark.e2e

PROBE = re.compile(r"/(replay|agreement)/_stcore/(health|host-config)$")


def _open(browser, url: str, setup=None):
    """Open ``url`` in a fresh session; (page, context, every URL the page requested)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url.split("?")[0]))
    if setup:
        setup(page)
    page.goto(url)
    wait_for_app(page)
    return page, context, requested


def test_a_deep_link_finds_the_server_at_once(demo_app, browser):
    page, context, requested = _open(browser, f"{demo_app.url}/agreement")
    try:
        assert not [u for u in requested if PROBE.search(u)]
        assert f"{demo_app.url}/_stcore/health" in requested
        assert page.evaluate("() => window.__streamlit && window.__streamlit.BACKEND_BASE_URL") == f"{demo_app.url}/"
        assert_no_error(page)
    finally:
        context.close()


def test_the_overview_at_its_own_path_is_the_overview_not_page_not_found(demo_app, browser):
    page, context, _ = _open(browser, f"{demo_app.url}/overview?corpus=gos")
    try:
        assert page.url == f"{demo_app.url}/?corpus=gos"
        # Streamlit's "Page not found" dialog is sent during the first run, which _open waited for to end
        assert page.get_by_text("Page not found").count() == 0
        assert_no_error(page)
    finally:
        context.close()


def test_under_a_base_path_the_hint_names_it(browser, lab_app):
    page, context, requested = _open(browser, f"{lab_app.url}/lab/replay?corpus=gos")
    assert not [u for u in requested if PROBE.search(u)] and f"{lab_app.url}/lab/_stcore/health" in requested
    assert page.get_by_role("button", name="Next step").first.is_visible()  # the step player, drawn
    assert_no_error(page)
    context.close()


def test_behind_a_proxy_that_strips_a_prefix_the_hint_stands_aside(demo_app, browser):
    """The browser is at /proxy/8501/agreement and the server gets /agreement: Playwright plays the proxy for
    HTTP (not for the WebSocket, so the test ends when Streamlit has found the server's health check)."""
    prefix = f"{demo_app.url}/proxy/8501"
    context = browser.new_context()
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.route(f"{prefix}/**", lambda route: route.continue_(url=route.request.url.replace(prefix, demo_app.url, 1)))
    try:
        with page.expect_request(f"{prefix}/_stcore/health", timeout=60_000):
            page.goto(f"{prefix}/agreement")
        assert page.evaluate("() => window.__streamlit === undefined")  # the served path was not the browser's
        probes = [u for u in requested if u.endswith("/_stcore/health")]
        assert probes[:2] == [f"{prefix}/agreement/_stcore/health", f"{prefix}/_stcore/health"]  # Streamlit's own search
    finally:
        context.close()


def test_the_app_without_the_hint_still_works_and_probes_first(browser, plain_app):
    page, context, requested = _open(browser, f"{plain_app.url}/agreement")
    assert [u for u in requested if PROBE.search(u)]  # the 404 and 100 ms that server.py saves
    assert page.evaluate("() => window.__streamlit === undefined")
    assert_no_error(page)
    context.close()
