"""The dashboard as a new user installs it: the wheel built from this checkout, installed into a fresh virtual
environment outside the checkout, serves the demo with its own command from an unrelated folder, and a page
opened in the browser shows the corpus and asks no other host; the same command runs the data tools."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.unit.test_packaging import pinned_requirements

from .conftest import wait_for_app
from .test_browser import assert_no_error

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The ``dialogue-dashboard`` command of a fresh virtual environment outside the checkout holding the built wheel.

    The wheel goes in with the installer, as a user's would; its pinned dependencies come from the test run's own
    environment (one ``.pth`` line) rather than being resolved and unpacked again, which took most of this test's
    time. So what is checked here is the wheel: its files, its command, its dependency list, and no checkout on the
    path. That the list installs is `make`'s first step; that it equals requirements.txt, tests/unit/test_packaging.py.
    """
    base = tmp_path_factory.mktemp("installed")
    dist = base / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(ROOT)],
                   check=True, cwd=base, timeout=600)
    wheels = list(dist.glob("dialogue_dashboard-*.whl"))
    assert len(wheels) == 1, wheels
    assert _declared_requirements(wheels[0]) == {pin.lower() for pin in pinned_requirements()}
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    where = "import sysconfig; print(sysconfig.get_path('purelib'))"
    fresh_site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", where], capture_output=True, text=True,
                                     check=True, timeout=60).stdout.strip())
    ours = sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})
    (fresh_site / "dependencies.pth").write_text("\n".join(ours) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
                    "--no-deps", str(wheels[0])], check=True, cwd=base, timeout=300)
    return venv / "bin" / "dialogue-dashboard"


def _declared_requirements(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        lines = archive.read(metadata).decode().splitlines()
    return {line.removeprefix("Requires-Dist: ").replace(" ", "").lower() for line in lines
            if line.startswith("Requires-Dist: ")}


def _environment(workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STREAMLIT_", "PYTHON"))}
    env.update({"DIALOGUE_CACHE_DIR": str(workdir / "cache"), "DIALOGUE_NOTES_DB": str(workdir / "notes.sqlite3")})
    return env


def test_the_installed_command_serves_the_demo_from_any_folder(installed, browser, tmp_path):
    elsewhere = tmp_path / "somewhere-else"
    elsewhere.mkdir()
    port = _free_port()
    log = open(tmp_path / "serve.log", "wb")
    server = subprocess.Popen([str(installed), "serve", "--port", str(port), "--host", "127.0.0.1"],
                              cwd=elsewhere, env=_environment(tmp_path), stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
                time.sleep(0.3)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        requested: list[str] = []
        page.on("request", lambda r: requested.append(r.url))
        page.goto(f"{url}/replay?corpus=gos")
        wait_for_app(page)
        assert "Game Of Sorts" in page.inner_text("body")  # the Replay names a corpus by its short title
        assert_no_error(page)
        context.close()
        # a blob: URL names memory of the page itself (the step player's module), not a request to anyone
        assert not {u for u in requested if urlsplit(u.removeprefix("blob:")).netloc != f"127.0.0.1:{port}"}
    finally:
        server.terminate()
        server.wait(timeout=15)
        log.close()


def test_the_installed_command_runs_the_data_tools(installed, tmp_path):
    env = _environment(tmp_path)
    missing = subprocess.run([str(installed), "summary", "codraw", str(tmp_path / "absent.json")],
                             capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "absent.json" in missing.stderr
    help_text = subprocess.run([str(installed), "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert help_text.returncode == 0 and "serve" in help_text.stdout and "leaderboard" in help_text.stdout
    demo = tmp_path / "demo"
    written = subprocess.run([str(installed.parent / "python"), "-c",
                              "import sys; from corpora.codraw.data import write_demo, demo_source; "
                              "write_demo(__import__('pathlib').Path(sys.argv[1])); "
                              "print(demo_source(__import__('pathlib').Path(sys.argv[1])))", str(demo)],
                             capture_output=True, text=True, env=env, timeout=120)
    assert written.returncode == 0, written.stderr
    summary = subprocess.run([str(installed), "summary", "codraw", written.stdout.strip(), "--compact"],
                             capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert summary.returncode == 0, summary.stderr
    assert json.loads(summary.stdout)["dialogs"] > 0
