"""A lab deployment as docs/deployment.md gives it: two app servers behind nginx (``deploy/nginx.conf``, Debian's
nginx) on one PostgreSQL store. A browser keeps to one server (its route cookie); when one server is killed its
visitors' pages reconnect through the proxy to the other; coders on both servers (2 x 8 x 200 annotations, one
server killed half way and started again) lose nothing and duplicate nothing; ten sessions on one server hold no
more connections than its pool."""
from __future__ import annotations

import os
import re
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from scripts.system_packages import nginx_path
from tests.system import require

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
NGINX = nginx_path()


_UNVERIFIED = ssl._create_unverified_context()  # a test's self-signed certificate


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Proxy:
    """nginx with the project's own configuration, its placeholders filled in for these servers."""

    def __init__(self, prefix: Path, upstreams: list[int], tls: tuple[Path, Path] | None = None,
                 port: int | None = None):
        self.prefix = prefix
        self.port = port or _free_port()
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        listen = f"127.0.0.1:{self.port}"
        if tls:  # the certificate lines docs/deployment.md has a lab add after "listen 443 ssl"
            listen += f" ssl;\n        ssl_certificate {tls[0]};\n        ssl_certificate_key {tls[1]}"
        for folder in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (prefix / folder).mkdir(parents=True, exist_ok=True)
        servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=30s;" for port in upstreams)
        text = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8").format(
            user_line="user root;" if os.geteuid() == 0 else "", prefix=prefix, servers=servers, listen=listen)
        # which server answered each request, for the test to see where a browser went
        text = text.replace(f"access_log {prefix}/access.log;",
                            "log_format routed '$upstream_addr|$request_uri';\n"
                            f"    access_log {prefix}/access.log routed;")
        conf = prefix / "nginx.conf"
        conf.write_text(text, encoding="utf-8")
        check = subprocess.run([NGINX, "-t", "-p", str(prefix), "-c", str(conf)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        self.process = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2, context=_UNVERIFIED):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start: {(prefix / 'error.log').read_text(errors='replace')}") from None
                time.sleep(0.2)

    @staticmethod
    def reserve_port() -> int:
        """A free port for a proxy whose address must be known before it starts (a sign-in's redirect)."""
        return _free_port()

    def upstreams_used(self) -> list[int]:
        """The port of the server that answered each request logged so far, in order (nginx lists every
        server it tried, the one that answered last)."""
        text = (self.prefix / "access.log").read_text(encoding="utf-8", errors="replace")
        tried = [line.split("|", 1)[0].split(", ")[-1] for line in text.splitlines()]
        return [int(match.group(1)) for address in tried if (match := re.fullmatch(r"127\.0\.0\.1:(\d+)", address))]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory, postgres_cluster):
    if NGINX is None:
        require("nginx")
    store = postgres_cluster.new_database()
    base = tmp_path_factory.mktemp("deployment")
    cache = base / "cache"  # one cache folder for both, as on one machine
    servers = [AppServer(base / name, {"DIALOGUE_NOTES_DB": store, "DIALOGUE_CACHE_DIR": str(cache)}, ready=False)
               for name in ("a", "b") if (base / name).mkdir() or True]
    servers = [server.wait_ready() for server in servers]  # started together, waited for together
    proxy = Proxy(base / "nginx", [server.port for server in servers])
    yield {"servers": servers, "proxy": proxy, "store": store}
    proxy.stop()
    for server in servers:
        server.stop()


def _server_of(proxy: Proxy, seen_before: int) -> int:
    """The one server that answered every request logged after the first ``seen_before``."""
    used = set(proxy.upstreams_used()[seen_before:])
    assert len(used) == 1, f"one browser reached several servers: {sorted(used)}"
    return used.pop()


def test_a_browser_keeps_to_one_server_and_visitors_are_spread(deployment, browser):
    proxy = deployment["proxy"]
    reached = set()
    for _ in range(12):  # a new visitor's route is random: a dozen reach both servers but with odds of 1 in 2,048
        context = browser.new_context()
        page = context.new_page()
        before = len(proxy.upstreams_used())
        page.goto(f"{proxy.url}/replay?corpus=codraw")
        wait_for_app(page)
        page.get_by_role("button", name="Next").first.click()
        wait_for_app(page)
        reached.add(_server_of(proxy, before))
        context.close()
        if len(reached) == 2:
            break
    assert reached == {server.port for server in deployment["servers"]}


# Notes when the page has seen its connection go (Streamlit's connection state leaves CONNECTED).
WATCH_CONNECTION = """() => { const app = document.querySelector('[data-testid="stApp"]');
  new MutationObserver(() => { if (app.dataset.testConnectionState !== 'CONNECTED') window.__lostConnection = true; })
    .observe(app, {attributes: true, attributeFilter: ['data-test-connection-state']}); }"""


def test_killing_a_server_sends_its_visitors_to_the_other(deployment, browser, tmp_path):
    proxy, servers = deployment["proxy"], deployment["servers"]
    context = browser.new_context()
    page = context.new_page()
    before = len(proxy.upstreams_used())
    page.goto(f"{proxy.url}/replay?corpus=gos")
    wait_for_app(page)
    first = _server_of(proxy, before)
    page.evaluate(WATCH_CONNECTION)
    victim = next(server for server in servers if server.port == first)
    victim.process.kill()  # in the middle of the visit, without a goodbye
    victim.process.wait(timeout=10)
    # Streamlit's page notices, reconnects by itself and lands on the surviving server
    page.wait_for_function("() => window.__lostConnection && document.querySelector('[data-testid=\"stApp\"]')"
                           ".dataset.testConnectionState === 'CONNECTED'", timeout=60_000)
    # nginx logs a request when it ends: the killed server's connection is logged by now, the new one when it closes
    reconnected = len(proxy.upstreams_used())
    page.get_by_role("button", name="Next step").click()  # the step player's
    # the step reaches the surviving server, which had never run this page (its address bar follows)
    page.wait_for_function("() => new URLSearchParams(location.search).get('turn') === '2'", timeout=60_000)
    page.wait_for_selector("[data-step-player][data-step='2']")
    wait_for_app(page)
    assert "gos" in page.url
    context.close()
    deadline = time.monotonic() + 20
    while not proxy.upstreams_used()[reconnected:] and time.monotonic() < deadline:
        time.sleep(0.1)  # the interval between reads of nginx's log, whose line for the closed connection comes
    survivors = set(proxy.upstreams_used()[reconnected:])
    assert survivors and first not in survivors


SERVERS, CODERS, EACH = ("a", "b"), 8, 200


def _writers(store: str, server: str, folder: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.e2e.store_writers", store, server, str(CODERS), str(EACH),
                             str(folder)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _committed(folder: Path) -> list[str]:
    return [uid for log in sorted(folder.glob("*.log")) for uid in log.read_text(encoding="utf-8").split()]


def test_coders_on_both_servers_lose_nothing_and_duplicate_nothing_when_one_is_killed(deployment, tmp_path):
    """2 servers x 8 coders x 200 annotations on the deployment's one PostgreSQL store; server a is killed in the
    middle (SIGKILL, mid-transaction) and started again, its coders pressing Save again where they were."""
    from data_access.coding import codebook as cb
    from data_access.store import Store

    store = deployment["store"]
    setup = Store(store)
    setup.coding.save_codebook(cb.Codebook("deployment-test", (cb.Label("CR", scope="turn"),)))
    logs = tmp_path / "logs"
    logs.mkdir()
    running = {server: _writers(store, server, logs) for server in SERVERS}
    deadline = time.monotonic() + 300
    while len(_committed(logs)) < 400:  # well into the work of both
        assert time.monotonic() < deadline and running["a"].poll() is None, "server a's coders stopped early"
        time.sleep(0.05)
    running["a"].kill()
    running["a"].wait(timeout=30)
    committed_before_restart = set(_committed(logs))
    running["a"] = _writers(store, "a", logs)  # the server comes back; its coders go on
    for process in running.values():
        _, errors = process.communicate(timeout=600)
        assert process.returncode == 0, errors.decode()
    frame = setup.coding.annotations()
    expected = {f"{server}-{coder}-{n}" for server in SERVERS for coder in range(CODERS) for n in range(EACH)}
    assert len(frame) == len(expected) == 3200  # nothing lost, nothing twice
    assert set(_committed(logs)) == expected and committed_before_restart <= expected
    by_coder = frame.groupby("coder").size()
    assert by_coder.to_dict() == {f"{server}-coder{coder}": EACH for server in SERVERS for coder in range(CODERS)}
    setup.close()


def test_ten_sessions_on_one_server_hold_no_more_connections_than_its_pool(tmp_path_factory, postgres_cluster, browser):
    import psycopg

    from data_access.store import pool_size

    store = postgres_cluster.new_database()
    server = AppServer(tmp_path_factory.mktemp("pooled"), {"DIALOGUE_NOTES_DB": store, "DIALOGUE_STORE_POOL_SIZE": "3"})
    # Ten tabs of one profile are ten sessions of the server as ten readers' browsers are (a session is a page's
    # connection; nothing here signs in or keeps a cookie), drawn by one renderer process, not ten new ones.
    context = browser.new_context()
    try:
        pages = []
        for _ in range(10):  # ten readers at once, each with the Notes page (which reads the store) open
            pages.append(context.new_page())
            pages[-1].goto(f"{server.url}/notes", wait_until="commit")
        for page in pages:  # the ten load together, as ten readers' pages would, not one after another
            wait_for_app(page)
            assert "Notes" in page.inner_text("body")
        database = store.rsplit("/", 1)[1]
        with psycopg.connect(postgres_cluster.url(), autocommit=True) as admin:
            held = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = "
                                 "'dialogue-dashboard'", (database,)).fetchone()[0]
        assert 1 <= held <= 3, f"{held} connections for a pool of 3"
        assert pool_size() >= 1
    finally:
        context.close()
        server.stop()
