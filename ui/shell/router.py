"""Make sure every page runs inside ``app.py``'s router, even on a fresh server.

Streamlit treats an app with a ``pages/`` folder as a legacy multipage app until ``st.navigation`` has
run once in the process: until then a deep link such as ``/replay?...`` runs ``pages/replay.py`` on its
own, without the router (no page configuration, an auto-generated sidebar). ``app.py`` marks each run
it routes; a page that finds no mark runs the router itself, which then runs the page properly, and
the unrouted run stops.
"""
from __future__ import annotations

import runpy
import threading
from pathlib import Path

from ui.shell.run_mark import stop_run

# app.py beside ui/ in a checkout; an installed wheel keeps it in dialogue_dashboard/app/, beside the
# server.py Streamlit runs, which is where ``app_file`` looks first.
APP = Path(__file__).resolve().parents[2] / "app.py"
# The favicon is a file of the app's own: a ":material/...:" icon makes every page fetch it from
# fonts.gstatic.com, a request to another host (and an error offline).
FAVICON = Path(__file__).resolve().parents[1] / "assets" / "favicon.png"
# The url_path of app.py's default page (written out there too, where the benchmarks read the pages; a test
# checks the two agree): Streamlit serves it at the root, and at its own path shows "Page not found", so
# server.py sends that path to the root (ui/server/server_hint.py).
DEFAULT_PAGE = "overview"
_run = threading.local()  # a script run happens on one thread from start to end


def app_file() -> Path:
    """The app.py of the running server: the one beside the script Streamlit runs (server.py or app.py)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    if context is not None and context.main_script_path:
        beside = Path(context.main_script_path).with_name("app.py")
        if beside.is_file():
            return beside
    return APP


def mark_routed() -> None:
    """Called by app.py just before it runs the selected page."""
    _run.routed = True


def ensure_routed() -> None:
    """Called first by every page: run the router unless this run came through it."""
    if getattr(_run, "routed", False):
        _run.routed = False
        return
    runpy.run_path(str(app_file()), run_name="__main__")
    stop_run(marked=True)  # app.py ran to its end here, so it marked the run (any other end raised through)
