"""``ui/server/upload_guard.py``: what Streamlit's upload endpoint may keep per session and in all, refused with 413 as
the bytes arrive (before the app has read the rest), and uploads and media only for a signed-in person when
sign-in is configured (the ``st.login`` cookie, checked as Streamlit checks it)."""
from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from data_access import budgets
from ui.server.upload_guard import UploadBudgets, UploadGuard, budgets_from_environment, signed_in_cookie

ROOT = Path(__file__).resolve().parents[2]
MB = budgets.MiB


class FakeApp:
    """Streamlit's upload handler as far as the guard sees it: reads the whole body, then answers 204."""

    def __init__(self):
        self.received = 0
        self.calls = 0

    async def __call__(self, scope, receive, send):
        self.calls += 1
        while True:
            message = await receive()
            self.received += len(message.get("body", b""))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def _call(guard, path, method="PUT", size=0, chunk=MB, declare=True, cookie=None, expect=False, seen=None):
    headers = [(b"content-length", str(size).encode())] if declare else []
    if expect:
        headers.append((b"expect", b"100-continue"))
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    scope = {"type": "http", "method": method, "path": path, "headers": headers, "query_string": b""}
    pieces = [b"x" * min(chunk, size - start) for start in range(0, size, chunk)] or [b""]
    sent: list[dict] = []

    async def receive():
        body = pieces.pop(0) if pieces else b""
        return {"type": "http.request", "body": body, "more_body": bool(pieces)}

    async def send(message):
        if message["type"] == "http.response.start" and seen is not None:
            seen["unread when answered"] = sum(len(piece) for piece in pieces)
        sent.append(message)

    # in a thread of its own: a browser test before this one on the same worker leaves Playwright's loop
    # running in this thread, where asyncio.run is refused
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, guard(scope, receive, send)).result()
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], body.decode()


def _guard(held=(0, 0), session=10 * MB, total=15 * MB, sign_in=False, signed_in=False):
    app = FakeApp()
    guard = UploadGuard(app, budgets=UploadBudgets(session=session, total=total), held=lambda s, f: held,
                        sign_in_configured=lambda: sign_in, signed_in=lambda cookies: signed_in)
    return app, guard


UPLOAD = "/_stcore/upload_file/session-a/file-1"


def test_an_upload_within_the_budgets_passes_whole():
    app, guard = _guard()
    assert _call(guard, UPLOAD, size=6 * MB) == (204, "")
    assert app.received == 6 * MB


def test_a_declared_body_past_the_session_budget_is_refused_before_the_app_reads_it():
    app, guard = _guard(held=(5 * MB, 5 * MB))
    status, text = _call(guard, UPLOAD, size=6 * MB)
    assert status == 413 and "at most 10 MB" in text and "holds 5 MB" in text
    assert app.calls == 0


def test_a_refused_body_is_read_to_its_end_before_the_413_so_the_client_sees_it_not_a_reset():
    # a server closing with a body's bytes unread makes the client's TCP stack answer with a reset (ECONNRESET)
    for declare in (True, False):
        app, guard = _guard(held=(5 * MB, 5 * MB))
        seen: dict = {}
        status, _ = _call(guard, UPLOAD, size=12 * MB, declare=declare, seen=seen)
        assert status == 413 and seen["unread when answered"] == 0
        assert app.received <= 5 * MB  # read and dropped by the guard, never handed to the app


def test_a_refused_body_is_not_waited_for_when_its_client_waits_for_continue_or_it_is_past_the_drain_bound(
        monkeypatch):
    app, guard = _guard(held=(5 * MB, 5 * MB))
    seen: dict = {}
    assert _call(guard, UPLOAD, size=6 * MB, expect=True, seen=seen)[0] == 413
    assert seen["unread when answered"] == 6 * MB  # "Expect: 100-continue": the client has sent nothing
    monkeypatch.setattr("ui.server.upload_guard.REFUSED_BODY_DRAIN_BYTES", 3 * MB)
    assert _call(guard, UPLOAD, size=6 * MB, seen=seen)[0] == 413
    assert seen["unread when answered"] == 6 * MB  # declared past the bound: refused at once
    assert _call(guard, UPLOAD, size=20 * MB, declare=False, seen=seen)[0] == 413
    assert 0 < seen["unread when answered"] <= 20 * MB - 3 * MB  # streamed: read up to the bound, then refused


def test_an_undeclared_body_is_cut_as_soon_as_its_bytes_pass_the_budget():
    app, guard = _guard(held=(5 * MB, 5 * MB))
    status, text = _call(guard, UPLOAD, size=150 * MB, declare=False)
    assert status == 413 and "Upload refused" in text
    assert app.received <= 5 * MB  # the app never saw more than the session had room for


def test_a_lying_content_length_does_not_get_past_the_count():
    app, guard = _guard()
    status, _ = _call(guard, UPLOAD, size=40 * MB, declare=False)
    assert status == 413 and app.received <= 10 * MB


def test_the_total_budget_holds_across_sessions():
    app, guard = _guard(held=(0, 12 * MB))
    status, text = _call(guard, "/_stcore/upload_file/session-b/file-9", size=4 * MB)
    assert status == 413 and "at most 15 MB in all" in text


def test_the_issue_s_six_puts_into_one_session_keep_at_most_the_session_budget():
    """Six 150 MB PUTs into one session with a real upload manager's accounting: only what fits is kept."""
    kept: dict[str, int] = {}

    def held(session, file_id):
        return (sum(v for k, v in kept.items() if k != file_id), sum(v for k, v in kept.items() if k != file_id))

    class Keeping(FakeApp):
        async def __call__(self, scope, receive, send):
            before = self.received
            await super().__call__(scope, receive, send)
            kept[scope["path"].rsplit("/", 1)[1]] = self.received - before

    app = Keeping()
    limits = budgets_from_environment({})
    guard = UploadGuard(app, budgets=limits, held=held, sign_in_configured=lambda: False, signed_in=lambda c: False)
    statuses = [_call(guard, f"/_stcore/upload_file/s/id-{n}", size=150 * MB, chunk=16 * MB)[0] for n in range(6)]
    assert statuses[0] == 204 and set(statuses[1:]) == {413}
    assert sum(kept.values()) <= limits.session


def test_other_requests_and_replacing_the_same_file_pass():
    app, guard = _guard(held=(9 * MB, 9 * MB), sign_in=True, signed_in=False)
    assert _call(guard, "/_stcore/health", method="GET") == (204, "")
    assert _call(guard, UPLOAD, method="OPTIONS") == (204, "")


@pytest.mark.parametrize("path,method", [(UPLOAD, "PUT"), (UPLOAD, "DELETE"), ("/media/abc.png", "GET")])
def test_with_sign_in_configured_uploads_and_media_need_a_signed_in_cookie(path, method):
    app, guard = _guard(sign_in=True, signed_in=False)
    status, text = _call(guard, path, method=method, size=10 if method == "PUT" else 0)
    assert status == 403 and "sign in first" in text and app.calls == 0
    app, guard = _guard(sign_in=True, signed_in=True)
    assert _call(guard, path, method=method, size=10 if method == "PUT" else 0)[0] == 204


def test_without_sign_in_media_is_served():
    app, guard = _guard(sign_in=False)
    assert _call(guard, "/media/abc.png", method="GET")[0] == 204


def test_bad_budget_variables_are_said_and_the_defaults_kept():
    said: list[str] = []
    limits = budgets_from_environment({"DIALOGUE_UPLOAD_SESSION_MB": "lots", "DIALOGUE_UPLOAD_TOTAL_MB": "64"}, said.append)
    assert limits == UploadBudgets(session=budgets.UPLOAD_SESSION_BYTES, total=64 * MB)
    assert len(said) == 1 and "DIALOGUE_UPLOAD_SESSION_MB='lots'" in said[0] and "\n" not in said[0]


def test_the_proxy_body_limit_is_the_app_s_upload_limit():
    conf = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    (size,) = re.findall(r"client_max_body_size\s+(\d+)m;", conf)
    config = (ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8")
    (upload_mb,) = re.findall(r"^maxUploadSize\s*=\s*(\d+)", config, re.M)
    assert int(upload_mb) * MB == budgets.UPLOAD.max_bytes
    assert int(size) * MB == budgets.UPLOAD_REQUEST_BYTES
    assert budgets.UPLOAD_REQUEST_BYTES <= budgets.UPLOAD_SESSION_BYTES <= budgets.UPLOAD_TOTAL_BYTES


# ------------------------------------------------------------------------------------- the st.login cookie
SECRET = "a-cookie-secret-for-tests-only"
ORIGIN = "https://dialogue.lab.example"


@pytest.fixture
def auth_secrets(monkeypatch):
    import streamlit.auth_util as auth_util
    import streamlit.web.server.server_util as server_util

    monkeypatch.setattr(server_util, "get_cookie_secret", lambda: SECRET)
    monkeypatch.setattr(auth_util, "get_origin_from_redirect_uri", lambda: ORIGIN)


def _cookie(payload: dict, secret: str = SECRET) -> dict[str, str]:
    from streamlit.web.server.starlette.starlette_app_utils import create_signed_value

    return {"_streamlit_user": create_signed_value(secret, "_streamlit_user", json.dumps(payload)).decode()}


def test_the_identity_cookie_is_checked_as_streamlit_signs_it(auth_secrets):
    good = {"email": "alice@lab.example", "origin": ORIGIN, "is_logged_in": True}
    assert signed_in_cookie(_cookie(good))
    assert not signed_in_cookie({})
    assert not signed_in_cookie(_cookie(good, secret="another-secret"))  # forged
    assert not signed_in_cookie(_cookie({**good, "is_logged_in": False}))
    assert not signed_in_cookie(_cookie({**good, "origin": "http://evil.example"}))
    assert not signed_in_cookie({"_streamlit_user": json.dumps(good)})  # unsigned
    assert not signed_in_cookie({"_streamlit_user": "garbage\u00ff"})


def test_over_a_real_http_server_a_refused_body_gets_its_413_and_no_reset():
    # what a browser met: uvicorn closing the socket on a 413 sent with a large body still unread made the
    # client's TCP stack answer with a reset (ECONNRESET) instead of the refusal
    import http.client
    import socket
    import threading

    import uvicorn

    _, guard = _guard(held=(0, 0), session=1 * MB, total=2 * MB)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(guard, host="127.0.0.1", port=port, log_level="error", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(3000):  # the server's own start in its thread (at most a minute), not an outcome under test
            if server.started:
                break
            thread.join(0.02)
        assert server.started
        outcomes = []
        for n in range(3):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                connection.request("PUT", f"/_stcore/upload_file/session-a/file-{n}", body=b"x" * (16 * MB))
                response = connection.getresponse()
                outcomes.append((response.status, response.read().decode()[:15]))
            except OSError as error:
                outcomes.append((type(error).__name__, ""))
            finally:
                connection.close()
        assert outcomes == [(413, "Upload refused:")] * 3
    finally:
        server.should_exit = True
        thread.join(10)
