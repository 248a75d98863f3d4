"""Two people play live on the lab deployment (issue 50): two app servers behind nginx (``deploy/nginx.conf``) on one
PostgreSQL store, with sign-in, each person served by a different server (their route cookies chosen so). alice's
message reaches bob across the servers; bob's server is killed mid-game (SIGKILL); nginx sends bob to alice's
server, where his page resumes the game from the store and his next move arrives; they finish, and the export read
back with Minecraft's own reader holds every message and move in order, once."""
from __future__ import annotations

import urllib.request

import pytest

from .conftest import AppServer
from .test_live_browser import PEOPLE, ROLES, _create, _finish_and_download, _messages, _open, _say, _settled
from .test_sign_in import Provider, needs_provider, secrets_for, sign_in
from .test_two_servers import NGINX, Proxy

pytestmark = pytest.mark.e2e


def _route_to(proxy: Proxy, port: int) -> str:
    """A value of nginx's route cookie that sends a browser to the server on ``port`` (the route is hashed)."""
    for number in range(200):
        route = f"route-{number}"
        request = urllib.request.Request(f"{proxy.url}/_stcore/health", headers={"Cookie": f"dashboard_route={route}"})
        with urllib.request.urlopen(request, timeout=5):
            pass
        if proxy.upstreams_used()[-1] == port:
            return route
    raise AssertionError(f"no route of 200 reaches the server on port {port}")


@pytest.fixture(scope="module")
def lab(tmp_path_factory, postgres_cluster):
    from tests.system import require

    if NGINX is None:
        require("nginx")
    needs_provider()
    base = tmp_path_factory.mktemp("live-lab")
    provider = Provider(base, PEOPLE)
    (base / "nginx").mkdir()
    port = Proxy.reserve_port()
    redirect = f"http://localhost:{port}"
    secrets = secrets_for(base, redirect, provider.url)
    roles = base / "roles.toml"
    roles.write_text(ROLES, encoding="utf-8")
    env = {"DIALOGUE_NOTES_DB": postgres_cluster.new_database(), "DIALOGUE_CACHE_DIR": str(base / "cache"),
           "STREAMLIT_SECRETS_FILES": str(secrets), "DIALOGUE_ROLES": str(roles)}
    servers = [AppServer(base / name, env) for name in ("a", "b") if (base / name).mkdir() or True]
    proxy = Proxy(base / "nginx", [server.port for server in servers], port=port)
    routes = [_route_to(proxy, server.port) for server in servers]
    proxy.url = redirect  # the provider sends people back to localhost, the host of the app's cookie
    yield {"url": proxy.url, "servers": servers, "routes": routes}
    proxy.stop()
    for server in servers:
        server.stop()
    provider.stop()


def test_a_game_across_two_servers_survives_killing_one_and_is_recorded_once(lab, browser, tmp_path):
    from corpora.minecraft.data import frames

    url, servers, routes = lab["url"], lab["servers"], lab["routes"]
    contexts, tabs = [], {}
    try:
        for name, route in (("alice", routes[0]), ("bob", routes[1])):  # alice on server a, bob on server b
            context = browser.new_context(viewport={"width": 1400, "height": 1000}, reduced_motion="reduce")
            context.add_cookies([{"name": "dashboard_route", "value": route, "url": url}])
            contexts.append(context)
            tab = context.new_page()
            tab.set_default_timeout(60_000)
            sign_in(tab, url, f"{name}-sub")
            tabs[name] = tab
        alice, bob = tabs["alice"], tabs["bob"]
        link = _create(alice, url, "minecraft", "Architect")
        _open(bob, link)
        alice.locator("[data-live-game][data-live-status=playing]").wait_for()
        _say(alice, "one blue block")  # stored through server a, seen by bob's poll on server b
        _settled(bob, 1)
        command = bob.locator("[data-play-command]")
        command.fill("place blue 0 1 0")
        command.press("Enter")
        _settled(alice, 2)

        servers[1].process.kill()  # bob's server, mid-game, without a goodbye
        servers[1].process.wait(timeout=10)
        command = bob.locator("[data-play-command]")  # the page reconnects through nginx to server a
        command.fill("place red 1 1 0")
        command.press("Enter")
        _settled(bob, 3)
        _settled(alice, 3)
        _say(bob, "done")
        _settled(alice, 4)
        assert _messages(alice) == [("Architect", "one blue block"), ("Builder", "done")]
        folder = _finish_and_download(alice, bob, tmp_path / "minecraft")
    finally:
        for context in contexts:
            context.close()

    built, skipped = frames.build_frames(folder)
    assert skipped == []
    assert list(zip(built["utterances"]["role"], built["utterances"]["text"])) == [
        ("Architect", "one blue block"), ("Builder", "done")]
    actions = built["actions"]
    assert list(zip(actions["kind"], actions["x"], actions["y"], actions["color"])) == [
        ("placement", 0, 1, "blue"), ("placement", 1, 1, "red")]

