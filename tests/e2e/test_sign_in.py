"""Sign-in through a real OpenID Connect provider on localhost (``oidc-provider-mock``), in the browser: the app
asks for sign-in before any page, the provider's login form signs a person in, the sidebar names them with
their role from the roles file, and signing out asks again. Without ``[auth]`` the page says "Local user"."""
from __future__ import annotations

import importlib.util
import json
import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.system import required

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

PEOPLE = [
    {"sub": "alice-sub", "email": "alice@lab.example", "email_verified": True, "name": "Alice"},
    {"sub": "bob-sub", "email": "bob@lab.example", "email_verified": True, "name": "Bob"},
    # an account that claims alice's address without the provider having verified it
    {"sub": "mallory-sub", "email": "ALICE@lab.example", "email_verified": False, "name": "Mallory"},
    # an unlisted account whose subject is alice's coder name (issue 45)
    {"sub": "alice", "name": "Not Alice"},
]
ROLES = """default = "viewer"

[[person]]
email = "alice@lab.example"
role = "adjudicator"
coder = "alice"
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Provider:
    """A real OpenID Connect provider on a free local port, knowing ``people`` (any client id and secret are
    accepted); answering when the constructor returns, or with ``ready=False`` once ``wait_ready()`` has (its
    address is known at once: the app's servers can be started meanwhile, they ask it nothing before a sign-in)."""

    def __init__(self, folder, people: list[dict], ready: bool = True):
        port = _free_port()
        self.log = open(folder / "provider.log", "wb")
        claims = [arg for person in people for arg in ("--user-claims", json.dumps(person))]
        self.process = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--port", str(port), *claims],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        self.url = f"http://localhost:{port}"
        if ready:
            self.wait_ready()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/.well-known/openid-configuration", timeout=2):
                    break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    pytest.fail("the OpenID Connect provider did not start")
                time.sleep(0.2)  # the interval between polls of a provider still starting

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


def needs_provider() -> None:
    if importlib.util.find_spec("oidc_provider_mock") is None:
        reason = "oidc-provider-mock is not installed: pip install -r requirements-test.txt (as `make test` does)"
        if required("oidc"):
            pytest.fail(reason)
        pytest.skip(reason)


def secrets_for(folder, redirect: str, provider_url: str):
    """A secrets file with sign-in through ``provider_url``, back to ``redirect``."""
    secrets = folder / "secrets.toml"
    secrets.write_text(
        "[auth]\n"
        f'redirect_uri = "{redirect}/oauth2callback"\n'
        'cookie_secret = "a-cookie-secret-for-tests-only"\n'
        'client_id = "dashboard"\nclient_secret = "dashboard-secret"\n'
        f'server_metadata_url = "{provider_url}/.well-known/openid-configuration"\n', encoding="utf-8")
    return secrets


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    needs_provider()
    started = Provider(tmp_path_factory.mktemp("oidc"), PEOPLE, ready=False)  # waited for by signed_app
    yield started
    started.stop()


def signed_in_app(workdir, provider: Provider, roles: str) -> AppServer:
    """An app that signs people in with ``provider`` under the roles file text ``roles``: started while the
    provider starts, returned when both answer, at localhost (where the provider redirects: the cookie's host)."""
    port = _free_port()
    secrets = secrets_for(workdir, f"http://localhost:{port}", provider.url)
    roles_file = workdir / "roles.toml"
    roles_file.write_text(roles, encoding="utf-8")
    server = AppServer(workdir, {"STREAMLIT_SECRETS_FILES": str(secrets), "DIALOGUE_ROLES": str(roles_file)},
                       port=port, ready=False)
    provider.wait_ready()  # the two started together
    server.wait_ready()
    server.url = f"http://localhost:{port}"
    return server


@pytest.fixture(scope="module")
def signed_app(tmp_path_factory, provider):
    server = signed_in_app(tmp_path_factory.mktemp("signed-app"), provider, ROLES)
    yield server
    server.stop()


def shown(text: str) -> re.Pattern:
    """``text`` as the page shows it: an e-mail address carries an invisible word joiner before its ``@`` (so
    Streamlit's markdown does not make it a link)."""
    return re.compile("^" + re.escape(text).replace("@", "\u2060?@") + "$")


def sign_in(page, app_url: str, subject: str) -> None:
    page.goto(f"{app_url}/")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/oauth2/authorize**")
    page.locator("input[name=sub]").fill(subject)
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{app_url}/**")
    wait_for_app(page)


def test_nobody_reaches_a_page_before_signing_in(signed_app, page):
    page.goto(f"{signed_app.url}/browse")
    wait_for_app(page)
    assert page.get_by_role("button", name="Sign in").is_visible()
    assert page.locator("[data-testid=stDataFrame]").count() == 0


def test_a_listed_person_signs_in_with_their_role_and_signs_out(signed_app, page):
    sign_in(page, signed_app.url, "alice-sub")
    sidebar = page.locator("[data-testid=stSidebar]")
    sidebar.get_by_text(shown("Signed in as alice@lab.example (adjudicator)")).wait_for()
    sidebar.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/oauth2/end_session**")  # the provider ends its session, then sends the reader back
    page.get_by_role("button", name="End session").click()
    page.get_by_role("button", name="Sign in").wait_for()


def test_anyone_else_signs_in_as_a_viewer(signed_app, page):
    sign_in(page, signed_app.url, "bob-sub")
    page.locator("[data-testid=stSidebar]").get_by_text(shown("Signed in as bob@lab.example (viewer)")).wait_for()


def test_an_unverified_email_claim_takes_no_ones_role(signed_app, page):
    sign_in(page, signed_app.url, "mallory-sub")
    sidebar = page.locator("[data-testid=stSidebar]")
    sidebar.get_by_text(shown("Signed in as subject:mallory-sub (viewer)")).wait_for()
    sidebar.get_by_text("did not verify the e-mail", exact=False).wait_for()
    assert sidebar.get_by_text("adjudicator", exact=False).count() == 0


def test_an_unlisted_subject_named_like_a_coder_is_not_that_coder(signed_app, page):
    sign_in(page, signed_app.url, "alice")
    sidebar = page.locator("[data-testid=stSidebar]")
    sidebar.get_by_text(shown("Signed in as subject:alice (viewer)")).wait_for()


def test_signing_out_ends_the_sign_in_for_a_copy_of_its_cookies_too(signed_app, page, second_profile):
    sign_in(page, signed_app.url, "alice-sub")
    sidebar = page.locator("[data-testid=stSidebar]")
    sidebar.get_by_text(shown("Signed in as alice@lab.example (adjudicator)")).wait_for()
    copied = page.context.cookies()
    sidebar.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/oauth2/end_session**")
    page.get_by_role("button", name="End session").click()
    page.get_by_role("button", name="Sign in").wait_for()

    second_profile.add_cookies(copied)  # the thief's browser
    stolen = second_profile.new_page()
    stolen.set_default_timeout(60_000)
    stolen.goto(f"{signed_app.url}/notes")
    wait_for_app(stolen)
    stolen.get_by_role("button", name="Sign in").wait_for()
    assert stolen.get_by_text("Signed in as", exact=False).count() == 0


def test_without_sign_in_configured_the_page_says_local_user(demo_app, page):
    page.goto(demo_app.url)
    wait_for_app(page)
    page.locator("[data-testid=stSidebar]").get_by_text("Local user").wait_for()


def _open_notes_panel(page, app_url: str) -> None:
    from data_access.corpora import demo_path, load_path

    dialog = load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].iloc[0]
    page.goto(f"{app_url}/replay?corpus=codraw&dialog={dialog}&turn=1")
    wait_for_app(page)
    if not page.get_by_label("New note").is_visible():  # the panel opens by itself once it holds notes
        page.get_by_text("Notes (", exact=False).first.click()
    page.get_by_label("New note").wait_for()


def test_a_signed_in_coder_saves_a_note_as_herself_and_a_viewer_cannot_save(signed_app, page, second_profile):
    from data_access.store import NotesStore

    sign_in(page, signed_app.url, "alice-sub")
    _open_notes_panel(page, signed_app.url)
    page.get_by_text("Notes are saved as alice.").wait_for()
    page.get_by_label("New note").fill("the drawer hesitates here")
    page.get_by_role("button", name="Save note").click()
    page.get_by_text("Note saved.").wait_for()
    notes = NotesStore(signed_app.notes_db).notes()
    assert notes[["author", "text", "turn"]].values.tolist() == [["alice", "the drawer hesitates here", 1]]
    stored = NotesStore(signed_app.notes_db).get_note(int(notes["id"].iloc[0]))
    assert stored["changed_by"] == "alice@lab.example as alice"

    bobs = second_profile.new_page()  # a session of its own, in a browser of its own
    bobs.set_default_timeout(60_000)
    sign_in(bobs, signed_app.url, "bob-sub")
    _open_notes_panel(bobs, signed_app.url)
    bobs.get_by_text(shown("Read only: adding notes needs the coder role, and bob@lab.example is a viewer.")).wait_for()
    assert bobs.get_by_role("button", name="Save note").is_disabled()
    assert not any(button.is_enabled() for button in bobs.get_by_role("button", name="Save").all())


def test_before_sign_in_uploads_and_media_are_refused_and_after_it_they_are_not(signed_app, page):
    """With sign-in configured, Streamlit's upload endpoint and its media need the signed-in cookie
    (``ui/server/upload_guard.py``): the sign-in page's own session may not upload, nor fetch a media file."""
    from .test_exposure_and_uploads import open_session, put_upload

    session = open_session(page, f"{signed_app.url}/")
    page.get_by_role("button", name="Sign in").wait_for()
    refused = put_upload(page, signed_app.url, session, "before", 1024)
    assert refused.status == 403 and "sign in first" in refused.text()
    media = page.request.get(f"{signed_app.url}/media/0123456789abcdef.png", fail_on_status_code=False)
    assert media.status == 403

    sign_in(page, signed_app.url, "alice-sub")
    session = open_session(page, f"{signed_app.url}/")
    assert put_upload(page, signed_app.url, session, "after", 1024).status == 204
    # past the guard, Streamlit itself answers: no such media file
    assert page.request.get(f"{signed_app.url}/media/0123456789abcdef.png", fail_on_status_code=False).status == 404


def test_a_viewer_sees_no_label_control_and_a_label_key_stores_nothing(signed_app, page):
    """Issue 47: the coding column is a coder's; a viewer's label key reaches no handler, and the store, which
    checks every write, holds nothing (its refusal of a viewer's write: tests/unit/test_label_writes.py)."""
    from data_access.coding import codebook as cb
    from data_access.corpora import demo_path, load_path
    from data_access.store import CodingStore

    store = CodingStore(signed_app.notes_db)
    if store.codebook("viewer-check", missing_ok=True) is None:
        store.save_codebook(cb.Codebook("viewer-check", (cb.Label("CR", scope="turn", key="c"),)))
    dialog = load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].iloc[0]
    sign_in(page, signed_app.url, "bob-sub")
    page.goto(f"{signed_app.url}/replay?corpus=codraw&dialog={dialog}&turn=1&code=1&codebook=viewer-check")
    page.wait_for_selector("[data-step-player][data-step='1']")
    wait_for_app(page)
    page.get_by_text(shown("Read only: coding needs the coder role, and bob@lab.example is a viewer.")).wait_for()
    assert page.locator("[data-coding-panel], [data-label-key], [data-notes-field]").count() == 0
    before = len(store.annotations(include_deleted=True))
    page.keyboard.press("c")
    page.keyboard.press("Shift+C")
    page.keyboard.press("ArrowRight")  # a step, whose run the wait below sees end
    page.wait_for_selector("[data-step-player][data-step='2']")
    wait_for_app(page)
    assert len(store.annotations(include_deleted=True)) == before


def test_a_viewer_cannot_start_a_play_and_a_signed_in_coder_plays_as_herself(signed_app, page, second_profile):
    """Issue 49: a viewer sees the Play page but no play starts (the store holds none of theirs); alice plays under
    her own coder name, whatever the link says."""
    from data_access.contract import play_rules_of
    from data_access.corpora import demo_path, load_path
    from data_access.store import Store

    loaded = load_path("minecraft", demo_path("minecraft"))
    game = play_rules_of(loaded).playable(loaded)[0]
    sign_in(page, signed_app.url, "bob-sub")
    page.goto(f"{signed_app.url}/play?corpus=minecraft&dialog={game}&coder=alice")
    wait_for_app(page)
    page.get_by_text(shown("Read only: playing needs the coder role, and bob@lab.example is a viewer.")).wait_for()
    assert page.get_by_role("button", name="Start playing as the Builder").is_disabled()
    assert page.locator("[data-play]").count() == 0
    plays = Store(signed_app.notes_db).plays
    assert plays.latest("minecraft", game, "Builder", "bob@lab.example") is None
    assert plays.latest("minecraft", game, "Builder", "alice") is None

    alices = second_profile.new_page()
    alices.set_default_timeout(60_000)
    sign_in(alices, signed_app.url, "alice-sub")
    alices.goto(f"{signed_app.url}/play?corpus=minecraft&dialog={game}&coder=bob")
    wait_for_app(alices)
    alices.get_by_role("button", name="Start playing as the Builder").click()
    wait_for_app(alices)
    alices.locator("[data-play]").wait_for()
    assert plays.latest("minecraft", game, "Builder", "alice") is not None
    assert plays.latest("minecraft", game, "Builder", "bob") is None
