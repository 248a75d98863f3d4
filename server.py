"""What ``make run`` serves: ``app.py`` as an ``st.App`` (Streamlit's own Starlette server) with one middleware,
``ServerLocationHint``.

Why: a browser that opens a page at its own path (a deep link such as ``/replay?...``, or a reload) first asks
``/replay/_stcore/health`` whether the server lives under that path, gets a 404, waits 100 ms and asks the root.
That is about 0.1 s of every fresh page load but the home page's (``benchmarks/page_loads.py``: the app shell at
``/`` and at a page's path). Streamlit's page takes where its server lives from
``window.__streamlit.BACKEND_BASE_URL`` when a hosting page sets it, and then asks there first. The middleware
adds that one line to Streamlit's own ``index.html``, for a page's path only, and the line takes effect only
when the browser's path is the one the server received: behind a proxy that strips a prefix the two differ,
and Streamlit's own search finds the server as before. The same page gets a script that keeps one browser
history entry per click (``HISTORY_SCRIPT``: Streamlit adds one for every query parameter a click changes).
Every other response passes through untouched (``ui/server/server_hint.py``, ``tests/unit/test_server_hint.py``).

It also starts importing the libraries every page needs (pandas, numpy, pyarrow) on a background thread as
the server starts (``ui/server/warm_imports.py``), so that the first page after a restart does not wait for them.

A second middleware, ``UploadGuard`` (``ui/server/upload_guard.py``), bounds what Streamlit's upload endpoint keeps per
session and in all, and with sign-in configured keeps uploads and ``/media/`` to signed-in people. As it starts,
the server says who can reach it (``ui/server/exposure.py``): it listens on localhost unless told otherwise, and says
loudly when it listens beyond this machine without sign-in.

It serves the live game's routes too (``<base>/_live/<game>/events``, ``ui/server/live_routes.py``): what two
players' browsers call to send a message or a move and to see the partner's within a second, without a Streamlit
run per poll (docs/live-games.md).

``streamlit run app.py`` still works (without any of this); tests of pages use ``app.py`` directly."""
import sys

import streamlit as st
from starlette.middleware import Middleware

from ui.server import warm_imports
from ui.server.exposure import startup_notice
from ui.server.live_identity import app_routes
from ui.server.server_hint import ServerLocationHint
from ui.server.upload_guard import UploadGuard, budgets_from_environment
from ui.shell.auth import sign_in_configured

warm_imports.start()

_notice, _warning = startup_notice(str(st.get_option("server.address") or ""), sign_in_configured())
print(_notice, file=sys.stderr if _warning else sys.stdout, flush=True)

app = st.App("app.py", routes=app_routes(), middleware=[Middleware(ServerLocationHint),
                                                   Middleware(UploadGuard, budgets=budgets_from_environment())])
