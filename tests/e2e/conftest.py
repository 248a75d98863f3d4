"""Real-browser fixtures: the app served by ``streamlit run`` on a free local port, driven by Playwright
in Debian's Chromium (``/usr/bin/chromium``; a browser is never downloaded). A failing test leaves a
screenshot in ``test-artifacts/``."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.system import require

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
# Without these Chromium keeps trying to reach Google's services, which this closed network refuses.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.e2e

# Each fresh tab of a new renderer process compiles Streamlit's scripts anew: about 3 s of Chromium's CPU a tab, the
# run's largest single cost. The tests' profile (``reader_profile``) keeps one tab open for the whole run on this
# address of the tests' own site (127.0.0.1; a site has no port, so every test server's pages are of it), answered
# by Playwright itself, and Chromium puts a site's tabs in one renderer process (``--process-per-site``): the test's
# tabs reuse that process, its compiled scripts too. Measured, 12 fresh tabs on the demo's pages: 35 -> 23 CPU-s of
# Chromium (a kept tab alone 26, the flag alone 36: a site's process ends with its last tab); test_browser.py,
# test_present_and_links.py, test_search_browser.py, test_runs_browser.py and test_table_downloads.py together:
# Chromium 119 -> 81 CPU-s, their tests' time 260 -> 132 s. The pages are as separate as before (a document and a
# session each); what differs is only which process draws them. The kept tab is never closed by ``page``.
RENDERER_KEEPER = "http://127.0.0.1:9/renderer-keeper"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class AppServer:
    """One ``streamlit run server.py`` process (the app as ``make run`` serves it) with its own environment, ready
    to answer when the constructor returns. ``ready=False`` returns as soon as the process is started, and
    ``wait_ready()`` waits for it: a test that needs several servers, or has other work to do meanwhile, starts
    them all first (each spends about 2 s of CPU and more of waiting importing Streamlit and the app's libraries),
    and waits for them together."""

    def __init__(self, workdir: Path, extra_env: dict[str, str | None] | None = None, app_file: str = "server.py",
                 port: int | None = None, ready: bool = True):
        self.port = port or _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
        env.update({
            "STREAMLIT_SERVER_PORT": str(self.port),
            "STREAMLIT_SERVER_HEADLESS": "true",
            "STREAMLIT_SERVER_ADDRESS": "127.0.0.1",
            "DIALOGUE_CACHE_DIR": str(workdir / "cache"),
            "DIALOGUE_NOTES_DB": str(workdir / "notes.sqlite3"),
        })
        env.update(extra_env or {})
        env = {k: v for k, v in env.items() if v is not None}  # None: the variable left unset
        self.notes_db = Path(env["DIALOGUE_NOTES_DB"])
        base = env.get("STREAMLIT_SERVER_BASE_URL_PATH", "").strip("/")
        self._health = f"{self.url}/{base + '/' if base else ''}_stcore/health"  # served under server.baseUrlPath
        self._log_path = workdir / "streamlit.log"
        self.log = open(self._log_path, "wb")
        self.process = subprocess.Popen([sys.executable, "-m", "streamlit", "run", app_file], cwd=ROOT, env=env,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        if ready:
            self.wait_ready()

    def wait_ready(self) -> "AppServer":
        """Return once the server answers its health check (within 60 s of now); stop it and fail otherwise."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self._health, timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)  # the interval between polls of a server still starting, not a wait for an outcome
            if self.process.poll() is not None:
                break
        self.stop()
        raise RuntimeError(f"streamlit did not start; see {self._log_path}")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


@pytest.fixture(scope="session")
def browser():
    require("chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=[*CHROMIUM_ARGS, "--process-per-site"])  # see RENDERER_KEEPER
        yield instance
        instance.close()


@pytest.fixture(scope="session")
def demo_app(tmp_path_factory):
    server = AppServer(tmp_path_factory.mktemp("demo-app"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def demo_corpus(tmp_path_factory):
    """``demo_corpus(name)``: the demo corpus ``name`` as the served app generates it (the generator is
    deterministic), loaded once a worker and shared by the tests that look up a dialog or a figure of it (a load
    of the demo's CoDraw is about 0.7 s of CPU; the tests asked for one some fifteen times a run). Shared: a test
    reads it and never changes it."""
    from data_access.corpora import demo_path, load_path

    folder = tmp_path_factory.mktemp("demo-corpora")
    loaded: dict = {}

    def load(name: str):
        if name not in loaded:
            loaded[name] = load_path(name, demo_path(name, folder), cache_root=folder / "cache")
        return loaded[name]

    return load


# Servers in the demo's set-ups that several test files share (one per pytest worker, for the whole run): under
# a base path (/lab), and the plain `streamlit run app.py` without server.py's scripts.
@pytest.fixture(scope="session")
def lab_app(tmp_path_factory, reader_profile):
    """The app served under /lab, warmed up by one visit of its home page (a deep link as the very first
    request of a fresh server under a base path once showed Streamlit's "Page not found" box; see the notes), in
    the tests' profile (its renderer process and HTTP cache, not a new profile's)."""
    server = AppServer(tmp_path_factory.mktemp("lab-app"), {"STREAMLIT_SERVER_BASE_URL_PATH": "lab"})
    warm = reader_profile.new_page()
    warm.goto(f"{server.url}/lab/")
    wait_for_app(warm)
    warm.close()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def plain_app(tmp_path_factory):
    """The demo app as a plain ``streamlit run app.py`` serves it: Streamlit's page, without server.py's scripts."""
    server = AppServer(tmp_path_factory.mktemp("plain-app"), app_file="app.py")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def reader_profile(browser):
    """The browser profile the tests' tabs open in (one per pytest worker), as one reader's browser would be: its
    HTTP cache holds Streamlit's scripts after the first page, so a test's fresh tab loads in about a third of the
    time a new profile takes (about 0.3 s against 1 s). Each tab is a session of its own on the server; what a
    test leaves in the profile (its tabs, its cookies, e.g. a sign-in) is cleared after it (``page``). The profile
    asks for reduced motion, as a reader may: Streamlit's running animations and smooth scrolling are off, the
    content the same, and Chromium, the run's largest user of CPU, spends about a seventh less (test_browser.py:
    98 -> 84 CPU-s). One tab of it stays open on ``RENDERER_KEEPER`` for the whole run (see there)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, reduced_motion="reduce")
    keeper = context.new_page()  # see RENDERER_KEEPER
    keeper.route(RENDERER_KEEPER, lambda route: route.fulfill(body="", content_type="text/plain"))
    keeper.goto(RENDERER_KEEPER)
    yield context
    context.close()


@pytest.fixture(scope="session")
def _second_profile(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, reduced_motion="reduce")
    keeper = context.new_page()  # see RENDERER_KEEPER: this profile's tabs reuse one renderer process too
    keeper.route(RENDERER_KEEPER, lambda route: route.fulfill(body="", content_type="text/plain"))
    keeper.goto(RENDERER_KEEPER)
    yield context
    context.close()


@pytest.fixture
def second_profile(_second_profile):
    """Another person's browser profile, beside the tests' (``page``): cookies of its own (a second person signed
    in, a copied cookie), for the whole run (one per pytest worker), so that its tabs reuse one renderer process
    (a new profile starts a renderer of its own and compiles Streamlit's scripts anew, about 3 s of CPU). What a
    test leaves in it (its tabs, its cookies) is cleared after it, as ``page`` clears the tests' profile."""
    yield _second_profile
    _cleared(_second_profile)


def _cleared(profile) -> None:
    for tab in profile.pages:  # the test's tabs, the ones it opened itself too
        if tab.url != RENDERER_KEEPER:
            tab.close()
    profile.clear_cookies()
    profile.clear_permissions()


@pytest.fixture
def page(reader_profile, request):
    """A fresh tab, a new session on the server. A test that needs a second person's profile beside it (two people
    at once, a copied cookie) takes ``second_profile``; one that needs a profile new to the browser opens one with
    ``browser.new_context()``."""
    page = reader_profile.new_page()
    page.set_default_timeout(30_000)
    yield page
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
        trace = page.evaluate("() => [...document.querySelectorAll('[data-step-player], [data-coding-panel]')]"
                              ".map(r => r.__trace || [])")
        if any(trace):  # what each step player and coding column did, for a test that came late
            (ARTIFACTS / f"{request.node.name}.player.json").write_text(json.dumps(trace, indent=0))
    _cleared(reader_profile)


# A browser test drives two processes (the server, Chromium) on a shared two-core machine, where a run or a
# frame can come late enough to miss a wait; such a test is run again, at most twice, and each rerun is printed
# ("R" in the progress line, "rerun" in the summary). A test that fails three times fails. docs/tooling.md.
# DIALOGUE_BROWSER_RERUNS=0 runs each once (to find what makes a test come late).
BROWSER_RERUNS = int(os.environ.get("DIALOGUE_BROWSER_RERUNS") or 2)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("e2e") and not item.get_closest_marker("flaky"):
            item.add_marker(pytest.mark.flaky(reruns=BROWSER_RERUNS))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


# app.py ends every finished run of a browser session with <style data-app-run="S-N"> (S names the session, N counts
# its runs; ui/shell/run_mark.py); a run cut short (st.rerun, st.switch_page) writes no such mark, at most one saying
# "rerun" (Streamlit says "not running" in between, and may drop that mark). A run is over when the page's last mark
# is a run's (not "rerun") and the app says it is not running; it is on screen when no element still waits for its
# code (Streamlit shows an stSkeleton until then) and none is left from the run before (Streamlit removes those a
# moment after it says the run is over). The watch, put into each page (each document) by wait_for_app,
# notes the mark shown at each of the reader's own actions (a click, a key, typing, a file chosen, Back / Forward;
# events the page makes itself are not trusted and do not count, nor a text field's "change" as it loses focus,
# which can come after the run that its typing started), so that the wait knows which run came before the action,
# even one made with no wait after it. With no action since the last wait (a page just loaded, a reconnect), the
# page need only be idle.
_RUN_OVER = """() => {
  const shown = () => {
    const marks = document.querySelectorAll('style[data-app-run]');  // the event container, in run order
    return marks.length ? marks[marks.length - 1].dataset.appRun : null;
  };
  if (!window.__appRuns) {
    window.__appRuns = {atAction: undefined};
    for (const type of ["pointerdown", "keydown", "input", "change", "popstate"]) {
      window.addEventListener(type, (event) => {
        // a text field's "change" comes when it loses focus, which can be after the run its typing started
        // has ended: its "input" events were the action
        const t = event.target;
        const typedField = type === 'change' && t && (t.tagName === 'TEXTAREA' || (t.tagName === 'INPUT'
          && ['text', 'search', 'number', 'email', 'url', 'tel', 'password'].includes(t.type)));
        if (event.isTrusted && !typedField) window.__appRuns.atAction = shown();
      }, true);
    }
  }
  const runs = window.__appRuns, app = document.querySelector('[data-testid="stApp"]'), now = shown();
  if (!(app && app.dataset.testConnectionState === 'CONNECTED' && app.dataset.testScriptState === 'notRunning'
        && now !== null && now !== 'rerun' && now !== runs.atAction && document.querySelector('h1')
        && !document.querySelector('[data-testid="stSkeleton"]')  // every element's code is loaded
        && !document.querySelector('[data-stale="true"]'))) return false;  // the run before's elements are gone
  runs.atAction = undefined;
  return true;
}"""


def wait_for_app(page) -> None:
    """Wait until the script run that follows the last action (or the page's load) is over and its output is on
    the page: app.py's run mark has changed since that action (if there was one since the last wait), the app is
    connected and says it is not running, no element waits for its code or is left from the run before, and it
    shows its title. What the page
    does not show then, that run will not show: it is over."""
    # every 100 ms, not every frame: the check reads the whole page, and 60 of them a second slowed the page it
    # waits for (test_browser.py: 123 -> 96 s)
    page.wait_for_function(_RUN_OVER, timeout=60_000, polling=100)
