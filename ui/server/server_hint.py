"""``ServerLocationHint``, the ASGI middleware ``server.py`` serves the app with: Streamlit's own ``index.html``,
served for the root or a page's path, tells the page where the server is, so that a deep link does not first
look for it under the page's path (a 404 and a 100 ms pause; see ``server.py``). The line it adds takes effect
only when the browser's path is the one the server received. The same page also gets ``HISTORY_SCRIPT``: one
browser history entry per click, so that Back undoes one click, after ``QUERY_LIMIT_SCRIPT``: a link with more
parameters than Streamlit reads is cut to the first 999 and marked ``truncated=<kept>,<all>``. The default page's own path
(``/overview``, where Streamlit would say "Page not found") is sent to the root, its query kept; every other
response passes through untouched."""
from __future__ import annotations

import json
import re
from pathlib import Path

import streamlit as st

from ui.assets import asset_text
from ui.shell.router import DEFAULT_PAGE
from ui.shell.url_state import base_path

STREAMLIT_INDEX = (Path(st.__file__).parent / "static" / "index.html").read_bytes()
_PAGE_PATH = re.compile(r"/(?:[a-z_]+/?)?")  # the root or one page's url_path (app.py: lower case and "_")
_DROPPED_REQUEST_HEADERS = {b"accept-encoding", b"if-none-match", b"if-modified-since", b"range"}


def hint_script(served_path: str, base: str) -> bytes:
    """The script that tells Streamlit's page where the server is, if the browser is where the server thinks."""
    def js(text: str) -> str:  # a JavaScript string that cannot end the script element
        return json.dumps(text).replace("<", "\\u003c")

    return (f"<script>if(location.pathname==={js(served_path)})window.__streamlit=Object.assign({{}},"
            f"window.__streamlit,{{BACKEND_BASE_URL:location.origin+{js(base + '/')}}});</script>").encode()


# Streamlit pushes a browser history entry for every change of the URL's query, and a page changes several
# in one run: opening the Replay from the navigation left four entries (the page, its corpus, dialog and
# step), picking another dialog three (the old dialog without its step, the new one, its first step), and Back
# walked through states nobody had seen. So only the first change after something the reader did (a click, a
# touch, a key) pushes; the changes that follow it, and those a page load makes to the URL it opened, replace.
# Streamlit's own Back/Forward handling replaces already. (The app's script-state attribute is no guide: it
# can still say "notRunning" while a run's changes arrive.)
# Streamlit drops a query of more than 1,000 parameters whole and silently; the first script keeps the first 999
# and says so, before Streamlit reads the URL.
QUERY_LIMIT_SCRIPT = f"<script>{asset_text('query_limit.js')}</script>".encode()
HISTORY_SCRIPT = QUERY_LIMIT_SCRIPT + f"<script>{asset_text('history.js')}</script>".encode()


# Streamlit loads the code of a custom component (the step player's) only once a run has sent one: a round trip
# and a parse after the run, before the player can draw its first step. Named in the head, the browser fetches
# it (and what it imports) while the page connects. The chunk's name carries a hash of this Streamlit release.
_COMPONENT_CHUNKS = sorted((Path(st.__file__).parent / "static" / "static" / "js").glob("BidiComponent.*.js"))
PRELOAD_LINKS = "".join(f'<link rel="modulepreload" href="./static/js/{chunk.name}">' for chunk in _COMPONENT_CHUNKS).encode()


def hinted_index(body: bytes, served_path: str, base: str) -> bytes:
    """Streamlit's index.html with the hint, the history script and the player's preload first in its head; any
    other body as it is."""
    if body != STREAMLIT_INDEX:
        return body
    return body.replace(b"<head>", b"<head>" + hint_script(served_path, base) + HISTORY_SCRIPT + PRELOAD_LINKS, 1)


class ServerLocationHint:
    """ASGI middleware: Streamlit's index.html, when served for the root or a page's path, gets the hint."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        base = base_path()
        path = scope.get("path", "") if scope["type"] == "http" and scope.get("method") == "GET" else ""
        if not (path.startswith(base) and _PAGE_PATH.fullmatch(path[len(base):])):
            await self.app(scope, receive, send)
            return
        if path[len(base):].strip("/") == DEFAULT_PAGE:  # Streamlit serves it at the root only
            query = scope.get("query_string", b"")
            location = f"{base}/".encode() + (b"?" + query if query else b"")
            await send({"type": "http.response.start", "status": 302,
                        "headers": [(b"location", location), (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        # The whole file (about 8 kB) is needed to recognise and amend it: uncompressed, never a 304 or a range,
        # and as body bytes rather than a file the server would send by itself (the "pathsend" extension).
        scope = dict(scope, headers=[(k, v) for k, v in scope["headers"] if k.lower() not in _DROPPED_REQUEST_HEADERS],
                     extensions={k: v for k, v in (scope.get("extensions") or {}).items() if k != "http.response.pathsend"})
        start: dict = {}
        chunks: list[bytes] = []

        async def send_hinted(message):
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] != "http.response.body" or not start:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            original = b"".join(chunks)
            body = hinted_index(original, path, base) if start.get("status") == 200 else original
            # The file's validators describe the file, not this body: dropped with it.
            dropped = {b"content-length"} | ({b"etag", b"last-modified", b"accept-ranges"} if body != original else set())
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() not in dropped]
            await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, send_hinted)

