"""A hostile viewer, a hostile coder and an anonymous visitor, in a real browser, against the two-server
deployment with sign-in (issue 35): nginx in front of two app servers sharing one PostgreSQL store, people
signing in through a real OpenID Connect provider. A viewer gets no uploader, no remove button and no reload; a
coder cannot replace or remove a colleague's run; a visitor who has not signed in reaches no page and cannot
upload. What is on the server's disk is checked, not only what the page says."""
from __future__ import annotations

import pytest

from .conftest import AppServer, wait_for_app
from .test_sign_in import Provider, needs_provider, secrets_for, shown, sign_in
from .test_two_servers import NGINX, Proxy

pytestmark = pytest.mark.e2e

PEOPLE = [
    {"sub": "alice-sub", "email": "alice@lab.example", "email_verified": True},
    {"sub": "dave-sub", "email": "dave@lab.example", "email_verified": True},
    {"sub": "vic-sub", "email": "vic@lab.example", "email_verified": True},
]
ROLES = """default = "viewer"

[[person]]
email = "alice@lab.example"
role = "coder"
coder = "alice"

[[person]]
email = "dave@lab.example"
role = "coder"
coder = "dave"
"""
RUN = b'{"dialog_id": "train_00000", "round": 1, "abs_d": ""}\n'


@pytest.fixture(scope="module")
def lab(tmp_path_factory, postgres_cluster):
    from tests.system import require

    if NGINX is None:
        require("nginx")
    needs_provider()
    base = tmp_path_factory.mktemp("lab")
    provider = Provider(base, PEOPLE, ready=False)  # waited for with the servers
    (base / "nginx").mkdir()
    proxy_port_holder = Proxy.reserve_port()
    redirect = f"http://localhost:{proxy_port_holder}"
    secrets = secrets_for(base, redirect, provider.url)
    roles = base / "roles.toml"
    roles.write_text(ROLES, encoding="utf-8")
    cache = base / "cache"
    env = {"DIALOGUE_NOTES_DB": postgres_cluster.new_database(), "DIALOGUE_CACHE_DIR": str(cache),
           "STREAMLIT_SECRETS_FILES": str(secrets), "DIALOGUE_ROLES": str(roles)}
    servers = [AppServer(base / name, env, ready=False) for name in ("a", "b") if (base / name).mkdir() or True]
    provider.wait_ready()
    servers = [server.wait_ready() for server in servers]  # started together, waited for together
    proxy = Proxy(base / "nginx", [server.port for server in servers], port=proxy_port_holder)
    proxy.url = redirect  # the provider sends people back to localhost, the host of the app's cookie
    yield {"url": proxy.url, "uploads": cache / "uploads" / "codraw"}
    proxy.stop()
    for server in servers:
        server.stop()
    provider.stop()


def _runs_page(page, url: str) -> None:
    page.goto(f"{url}/runs?corpus=codraw")
    wait_for_app(page)


def _upload(page, name: str, data: bytes) -> None:
    page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(
        files=[{"name": name, "mimeType": "application/json", "buffer": data}])
    wait_for_app(page)


def test_hostile_people_write_nothing_that_is_not_theirs(lab, browser):
    url, uploads = lab["url"], lab["uploads"]
    contexts = []

    def person(subject: str):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(60_000)
        sign_in(page, url, subject)
        return page

    try:
        alice = person("alice-sub")
        _runs_page(alice, url)
        _upload(alice, "alices.jsonl", RUN)
        alice.get_by_text("Saved as alices.jsonl.").wait_for()
        kept = (uploads / "alices.jsonl").read_bytes()

        dave = person("dave-sub")  # a coder, on whichever server nginx sends him to
        _runs_page(dave, url)
        dave.get_by_text("alices (alice's)").wait_for()
        assert dave.locator("button", has_text="alices").count() == 0  # no remove button for alice's run
        _upload(dave, "alices.json", b"{}\n")  # the same run name under another suffix: a replacement
        dave.get_by_text("Not allowed: replacing the uploaded run", exact=False).wait_for()
        assert sorted(p.name for p in uploads.iterdir()) == ["alices.jsonl"]
        assert (uploads / "alices.jsonl").read_bytes() == kept

        vic = person("vic-sub")  # signed in, listed nowhere: a viewer
        _runs_page(vic, url)
        vic.get_by_text(shown("Read only: uploading runs needs the coder role, and vic@lab.example is a viewer.")).wait_for()
        assert vic.locator("[data-testid=stFileUploader]").count() == 0
        assert vic.locator("button", has_text="alices").count() == 0
        vic.goto(f"{url}/data")
        wait_for_app(vic)
        vic.get_by_text("Read only: reloading every corpus needs the admin role", exact=False).wait_for()
        assert vic.get_by_role("button", name="↻ Reload all corpora").count() == 0

        stranger = browser.new_context()
        contexts.append(stranger)
        page = stranger.new_page()
        page.goto(f"{url}/runs?corpus=codraw")
        wait_for_app(page)
        page.get_by_role("button", name="Sign in").wait_for()
        assert page.locator("[data-testid=stFileUploader]").count() == 0
        refused = page.request.put(f"{url}/_stcore/upload_file/any-session/any-file", multipart={
            "file": {"name": "x.jsonl", "mimeType": "application/json", "buffer": RUN}}, fail_on_status_code=False)
        assert refused.status == 403
        assert sorted(p.name for p in uploads.iterdir()) == ["alices.jsonl"]
    finally:
        for context in contexts:
            context.close()
