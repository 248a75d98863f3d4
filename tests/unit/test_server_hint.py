"""The middleware server.py serves the app with (ui/server/server_hint.py): Streamlit's index.html, served for the root or a page's path, tells the page where
the server is; every other response (a download of an HTML replay, a static file, anything under a hostile
path) passes through byte for byte, with the request as the browser sent it."""
from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from ui.server import server_hint
from ui.server.server_hint import HISTORY_SCRIPT, PRELOAD_LINKS, STREAMLIT_INDEX, ServerLocationHint, hint_script

HTML = [(b"content-type", b"text/html; charset=utf-8")]


def run_alone(coroutine) -> None:
    """Run ``coroutine`` to its end in an event loop of its own thread: a browser test run earlier by the same
    test worker leaves Playwright's loop running in this one, where ``asyncio.run`` is refused."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, coroutine).result()


def downstream(body: bytes, headers=HTML, status: int = 200, chunks: int = 1):
    """A stand-in for Streamlit's app: answers every request with ``body`` (in ``chunks`` pieces) and keeps the
    request headers it saw."""
    seen = {}

    async def app(scope, receive, send):
        seen["headers"] = dict(scope.get("headers", []))
        seen["extensions"] = scope.get("extensions")
        await send({"type": "http.response.start", "status": status,
                    "headers": [*headers, (b"content-length", str(len(body)).encode()), (b"etag", b'"x"')]})
        step = max(1, len(body) // chunks)
        pieces = [body[i:i + step] for i in range(0, len(body), step)] or [b""]
        for index, piece in enumerate(pieces):
            await send({"type": "http.response.body", "body": piece, "more_body": index < len(pieces) - 1})

    return app, seen


def request(app, path: str, method: str = "GET", headers=None, extensions=None):
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path,
             "headers": headers or [(b"accept", b"text/html"), (b"accept-encoding", b"gzip"), (b"if-none-match", b'"x"')],
             "extensions": extensions or {}}
    run_alone(ServerLocationHint(app)(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start, body


@pytest.fixture(autouse=True)
def no_base_path(monkeypatch):
    monkeypatch.setattr(server_hint, "base_path", lambda: "")


@pytest.mark.parametrize("path", ["/", "/agreement", "/replay", "/codraw_scores/"])
def test_the_index_of_the_root_or_a_page_gets_the_hint_first_in_its_head(path):
    app, seen = downstream(STREAMLIT_INDEX, chunks=3)
    start, body = request(app, path)
    hint = hint_script(path, "")
    assert body == STREAMLIT_INDEX.replace(b"<head>", b"<head>" + hint + HISTORY_SCRIPT + PRELOAD_LINKS, 1)
    # the step player's component code, named so that the browser fetches it while the page connects
    assert re.fullmatch(rb'<link rel="modulepreload" href="\./static/js/BidiComponent\.[\w-]+\.js">', PRELOAD_LINKS)
    assert f'location.pathname==="{path}"'.encode() in hint and b'location.origin+"/"' in hint
    assert dict(start["headers"])[b"content-length"] == str(len(body)).encode()
    assert b"etag" not in dict(start["headers"])  # the file's validator, not this body's
    # the whole file, uncompressed, every time (no 304 to a cached copy, no gzip to look into)
    assert not {b"accept-encoding", b"if-none-match"} & set(seen["headers"])


def test_under_a_base_path_the_hint_names_it(monkeypatch):
    monkeypatch.setattr(server_hint, "base_path", lambda: "/lab")
    app, _ = downstream(STREAMLIT_INDEX)
    _, body = request(app, "/lab/replay")
    assert b'location.pathname==="/lab/replay"' in body and b'location.origin+"/lab/"' in body
    _, outside = request(downstream(STREAMLIT_INDEX)[0], "/replay")  # not under the base path: not the app's page
    assert outside == STREAMLIT_INDEX


def test_html_that_is_not_streamlits_index_passes_through_untouched():
    replay = b"<!DOCTYPE html><html><head><title>replay</title></head><body>a dialog</body></html>"
    _, body = request(downstream(replay)[0], "/replay")
    assert body == replay


@pytest.mark.parametrize("path", ["/media/abc.html", "/static/js/index.js", "/_stcore/health", "/agreement/_stcore/health",
                                  "/a/b", "/Replay", "/</script><script>alert(1)</script>", "/replay%3Cx"])
def test_other_paths_pass_through_with_the_request_as_sent(path):
    app, seen = downstream(STREAMLIT_INDEX)
    start, body = request(app, path)
    assert body == STREAMLIT_INDEX and b"__streamlit" not in body
    assert seen["headers"][b"accept-encoding"] == b"gzip"
    assert dict(start["headers"])[b"etag"] == b'"x"'


def test_a_post_or_an_error_passes_through():
    app, seen = downstream(STREAMLIT_INDEX)
    assert request(app, "/replay", method="POST")[1] == STREAMLIT_INDEX and b"accept-encoding" in seen["headers"]
    start, body = request(downstream(STREAMLIT_INDEX, status=500)[0], "/replay")
    assert start["status"] == 500 and body == STREAMLIT_INDEX


def test_a_file_is_never_handed_to_the_server_to_send_by_itself():
    app, seen = downstream(STREAMLIT_INDEX)
    request(app, "/replay", extensions={"http.response.pathsend": {}, "other": {}})
    assert seen["extensions"] == {"other": {}}


def test_the_hint_cannot_end_its_script_element():
    hint = hint_script('/x"</script><script>alert(1)//', "")
    assert hint.count(b"</script>") == 1 and hint.endswith(b"</script>")


@pytest.mark.parametrize("path,query,location", [("/overview", b"", b"/"), ("/overview/", b"corpus=gos", b"/?corpus=gos")])
def test_the_default_pages_own_path_is_sent_to_the_root_with_its_query(path, query, location):
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    app, seen = downstream(STREAMLIT_INDEX)
    scope = {"type": "http", "method": "GET", "path": path, "query_string": query, "headers": [], "extensions": {}}
    run_alone(ServerLocationHint(app)(scope, receive, send))
    assert sent[0]["status"] == 302 and dict(sent[0]["headers"])[b"location"] == location
    assert not seen  # Streamlit never saw it


def test_the_path_sent_to_the_root_is_the_default_page_of_app_py():
    import re
    from pathlib import Path

    from ui.shell.router import APP, DEFAULT_PAGE

    defaults = re.findall(r'url_path="([^"]+)", default=True', Path(APP).read_text(encoding="utf-8"))
    assert defaults == [DEFAULT_PAGE]


def test_the_index_cuts_a_link_streamlit_would_drop_before_streamlit_reads_it():
    """Streamlit reads no query of more than 1,000 parameters: the page's own script, ahead of Streamlit's
    bundle, keeps the first 999 and marks the link (tests/e2e/test_rough_edges_browser.py runs it)."""
    from streamlit.runtime.state.query_params import CLIENT_STATE_QUERY_STRING_MAX_FIELDS

    app, _ = downstream(STREAMLIT_INDEX)
    _, body = request(app, "/replay")
    script = server_hint.QUERY_LIMIT_SCRIPT
    assert script in body and body.index(script) < body.index(b'type="module"')
    assert CLIENT_STATE_QUERY_STRING_MAX_FIELDS == 1000  # the limit the script keeps to
    assert b"MAX_FIELDS = 1000" in script and b"history.replaceState" in script and b'"truncated="' in script
