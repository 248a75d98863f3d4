"""Two people play live on the lab deployment (issue 50): two app servers behind nginx (``deploy/nginx.conf``) on one
PostgreSQL store, with sign-in, each person served by a different server (their route cookies chosen so). They play
a game of each corpus at once (a tab a game); each message and move crosses from one server to the other; bob's
server is killed mid-game (SIGKILL); nginx sends his pages to alice's server, where they go on from the store and
his next moves arrive; they finish, and each export read back with the corpus's own reader holds every message,
move, lock and rank in order, once."""
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
    provider = Provider(base, PEOPLE, ready=False)  # waited for with the servers
    (base / "nginx").mkdir()
    port = Proxy.reserve_port()
    redirect = f"http://localhost:{port}"
    secrets = secrets_for(base, redirect, provider.url)
    roles = base / "roles.toml"
    roles.write_text(ROLES, encoding="utf-8")
    env = {"DIALOGUE_NOTES_DB": postgres_cluster.new_database(), "DIALOGUE_CACHE_DIR": str(base / "cache"),
           "STREAMLIT_SECRETS_FILES": str(secrets), "DIALOGUE_ROLES": str(roles)}
    servers = [AppServer(base / name, env, ready=False) for name in ("a", "b") if (base / name).mkdir() or True]
    provider.wait_ready()
    servers = [server.wait_ready() for server in servers]  # started together, waited for together
    proxy = Proxy(base / "nginx", [server.port for server in servers], port=port)
    routes = [_route_to(proxy, server.port) for server in servers]
    proxy.url = redirect  # the provider sends people back to localhost, the host of the app's cookie
    yield {"url": proxy.url, "servers": servers, "routes": routes}
    proxy.stop()
    for server in servers:
        server.stop()
    provider.stop()


def test_a_game_of_each_corpus_across_two_servers_survives_killing_one_and_is_recorded_once(lab, browser, tmp_path):
    from corpora.codraw.data import frames as codraw_frames
    from corpora.gos.data import frames as gos_frames
    from corpora.minecraft.data import frames as minecraft_frames

    from .playing import drag_from_palette

    url, servers, routes = lab["url"], lab["servers"], lab["routes"]
    contexts, tabs = [], {}
    try:
        for name, route in (("alice", routes[0]), ("bob", routes[1])):  # alice on server a, bob on server b
            context = browser.new_context(viewport={"width": 1400, "height": 1000}, reduced_motion="reduce")
            context.add_cookies([{"name": "dashboard_route", "value": route, "url": url}])
            contexts.append(context)
            first = context.new_page()
            first.set_default_timeout(60_000)
            sign_in(first, url, f"{name}-sub")
            for corpus in ("minecraft", "codraw", "gos"):  # a tab a game, the three at once
                tab = first if corpus == "minecraft" else context.new_page()
                tab.set_default_timeout(60_000)
                tabs[name, corpus] = tab
        for corpus, role in (("minecraft", "Architect"), ("codraw", "Teller"), ("gos", "Player A")):
            _open(tabs["bob", corpus], _create(tabs["alice", corpus], url, corpus, role))
            tabs["alice", corpus].locator("[data-live-game][data-live-status=playing]").wait_for()

        # before the kill: each game under way, every event crossing from one server to the other
        _say(tabs["alice", "minecraft"], "one blue block")
        _settled(tabs["bob", "minecraft"], 1)
        _command(tabs["bob", "minecraft"], "place blue 0 1 0")
        _settled(tabs["alice", "minecraft"], 2)
        _say(tabs["alice", "codraw"], "a sun")
        drawer = tabs["bob", "codraw"]
        drawer.locator("[data-live-message]").first.wait_for()
        piece = drawer.locator(".cd-palette [data-clipart]").first.get_attribute("data-clipart")
        drag_from_palette(drawer, piece, 420, 60)
        _settled(drawer, 2)
        gos_a, gos_b = tabs["alice", "gos"], tabs["bob", "gos"]
        gos_a.locator('[data-live-mark=""]').click()
        _say(gos_a, "hello")
        _settled(gos_b, 1)

        servers[1].process.kill()  # bob's server, mid-game, without a goodbye: his pages go on through server a
        servers[1].process.wait(timeout=10)
        _command(tabs["bob", "minecraft"], "place red 1 1 0")
        _settled(tabs["alice", "minecraft"], 3)
        _say(tabs["bob", "minecraft"], "done")
        _settled(tabs["alice", "minecraft"], 4)
        _say(drawer, "ok")
        _settled(tabs["alice", "codraw"], 3)
        image = gos_b.locator(".gs-board [data-image-id]").first.get_attribute("data-image-id")
        gos_b.locator(f'[data-live-mark="{image}"]').click()
        _say(gos_b, "this one first")
        for tab in (gos_a, gos_b):
            tab.locator(f'.gs-board [data-image-id="{image}"]').click()
            tab.locator("[data-live-lock]").click()
        for tab in (gos_a, gos_b):
            tab.locator(f'.gs-board [data-image-id="{image}"] .gs-badge', has_text="1").wait_for()
        assert _messages(tabs["alice", "minecraft"]) == [("Architect", "one blue block"), ("Builder", "done")]
        folders = {corpus: _finish_and_download(tabs["alice", corpus], tabs["bob", corpus], tmp_path / corpus)
                   for corpus in ("minecraft", "codraw", "gos")}
    finally:
        for context in contexts:
            context.close()

    built, skipped = minecraft_frames.build_frames(folders["minecraft"])
    assert skipped == []
    assert list(zip(built["utterances"]["role"], built["utterances"]["text"])) == [
        ("Architect", "one blue block"), ("Builder", "done")]
    actions = built["actions"]
    assert list(zip(actions["kind"], actions["x"], actions["y"], actions["color"])) == [
        ("placement", 0, 1, "blue"), ("placement", 1, 1, "red")]
    built, skipped = codraw_frames.build_frames(folders["codraw"] / "CoDraw_1_0.json")
    assert skipped == [] and built["rounds"]["msg_t"].tolist() == ["a sun"] and built["rounds"]["msg_d"].tolist() == ["ok"]
    assert built["rounds"]["stored_reproduced"].tolist() == [True]  # the stored score, the original metric's
    built, skipped = gos_frames.build_frames(folders["gos"])
    assert skipped == [] and built["messages"]["text"].tolist() == ["hello", "this one first"]
    assert [list(ids) for ids in built["messages"]["image_ids"]] == [[], [image]]
    assert built["ranks"].sort_values("rank")["image_id"].tolist() == [image]


def _command(tab, typed: str) -> None:
    command = tab.locator("[data-play-command]")
    command.fill(typed)
    command.press("Enter")
