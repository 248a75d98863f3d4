"""Real-browser fixtures: the app served by ``streamlit run`` on a free local port, driven by Playwright
in Debian's Chromium (``/usr/bin/chromium``; a browser is never downloaded). A failing test leaves a
screenshot in ``test-artifacts/``."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
# Without these Chromium keeps trying to reach Google's services, which this closed network refuses.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class AppServer:
    """One ``streamlit run server.py`` process (the app as ``make run`` serves it) with its own environment."""

    def __init__(self, workdir: Path, extra_env: dict[str, str] | None = None, app_file: str = "server.py",
                 port: int | None = None):
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
        self.notes_db = Path(env["DIALOGUE_NOTES_DB"])
        base = env.get("STREAMLIT_SERVER_BASE_URL_PATH", "").strip("/")
        prefix = f"/{base}" if base else ""  # served under server.baseUrlPath
        self.log = open(workdir / "streamlit.log", "wb")
        self.process = subprocess.Popen([sys.executable, "-m", "streamlit", "run", app_file], cwd=ROOT, env=env,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}{prefix}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
            if self.process.poll() is not None:
                break
        self.stop()
        raise RuntimeError(f"streamlit did not start; see {workdir / 'streamlit.log'}")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (.ci/run installs it with apt)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture(scope="session")
def demo_app(tmp_path_factory):
    server = AppServer(tmp_path_factory.mktemp("demo-app"))
    yield server
    server.stop()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


def wait_for_app(page) -> None:
    """Wait until the page's script run has finished and its output is on screen: the app is connected,
    says it is not running, shows its title, and stays so for a moment (a rerun may follow a widget)."""
    ready = ("() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
             " return app && app.dataset.testConnectionState === 'CONNECTED'"
             " && app.dataset.testScriptState === 'notRunning' && !!document.querySelector('h1'); }")
    for _ in range(2):
        page.wait_for_function(ready, timeout=60_000)
        page.wait_for_timeout(400)
    page.wait_for_function(ready, timeout=60_000)
