"""What the browser benchmarks share: the app served on the real corpora with a warm cache, the server
process's CPU time and peak memory read from /proc, and a Playwright Chromium from Debian's package.

Every request goes to 127.0.0.1 only; every loop is bounded in count and time."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, AppServer  # noqa: E402  (one server harness)

# Resolves once the page's script run has finished and its output is on screen (as tests/e2e waits).
READY = ("() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
         " return app && app.dataset.testConnectionState === 'CONNECTED'"
         " && app.dataset.testScriptState === 'notRunning' && !!document.querySelector('h1'); }")


def real_corpora_env(shared: Path) -> dict[str, str]:
    if not (shared / "codraw" / "CoDraw_1_0.json.gz").is_file():
        raise SystemExit(f"no corpora in {shared}: pass --shared <the shared data folder>")
    return {
        "CODRAW_DATA": str(shared / "codraw" / "CoDraw_1_0.json.gz"),
        "CODRAW_CLIPART": str(shared / "codraw" / "clipart"),
        "GAME_OF_SORTS_DATA": str(shared / "game-of-sorts"),
        "MINECRAFT_DATA": str(shared / "minecraft"),
    }


class CheckoutServer:
    """``streamlit run <app_file>`` from the checkout ``root`` on a free loopback port, with its cache and notes
    in ``workdir`` (as tests/e2e's AppServer, for any checkout: ``--baseline-root`` serves another one)."""

    def __init__(self, root: Path, app_file: str, env: dict[str, str] | None, workdir: Path):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        full = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
        full.update({"STREAMLIT_SERVER_PORT": str(self.port), "STREAMLIT_SERVER_HEADLESS": "true",
                     "STREAMLIT_SERVER_ADDRESS": "127.0.0.1", "DIALOGUE_NOTES_DB": str(workdir / "notes.sqlite3"),
                     "DIALOGUE_CACHE_DIR": str(workdir / "cache"), **(env or {})})
        self.log = open(workdir / f"streamlit-{self.port}.log", "wb")
        self.process = subprocess.Popen([sys.executable, "-m", "streamlit", "run", app_file], cwd=root, env=full,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.1)  # the interval between polls of a server still starting
        self.stop()
        raise RuntimeError(f"{app_file} in {root} did not start; see {self.log.name}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def serve(app_file: str = "server.py", extra_env: dict[str, str] | None = None) -> AppServer:
    """``streamlit run app_file`` on a free loopback port with its own cache and notes folder."""
    workdir = Path(tempfile.mkdtemp(prefix="bench-server-"))
    return AppServer(workdir, extra_env, app_file=app_file)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of the process so far (threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


def launch_options() -> dict:
    if not CHROMIUM.exists():
        raise SystemExit("Debian's chromium is needed (apt-get install chromium)")
    return {"executable_path": str(CHROMIUM), "headless": True, "args": CHROMIUM_ARGS}


# The page is usable when its script run is over and nothing on it is a placeholder or stale any more.
USABLE = ("() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
          " return app && app.dataset.testConnectionState === 'CONNECTED'"
          " && app.dataset.testScriptState === 'notRunning' && !!document.querySelector('h1')"
          " && !document.querySelector('[data-testid=\"stSkeleton\"], [data-stale=\"true\"]'); }")


async def wait_usable(page, timeout: float = 60_000) -> None:
    """Wait until USABLE holds twice, 100 ms apart (a widget's rerun may follow the first run)."""
    for _ in range(2):
        await page.wait_for_function(USABLE, timeout=timeout)
        await page.wait_for_timeout(100)
    await page.wait_for_function(USABLE, timeout=timeout)
