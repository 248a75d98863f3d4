"""Whether the deployment has sign-in: one question that both the writing identity (``ui.shell.auth``) and the store
(``ui.store``, which then refuses writes without a signed-in actor) ask. It stands below both so that the store
does not reach up to the identity that itself reads the store's sign-outs."""
from __future__ import annotations

import threading

import streamlit as st

# Without a secrets file Streamlit looks for one again at every access to ``st.secrets`` (about 0.7 ms), and a
# Replay run asks a dozen times (the store, the identity, each write control): a step the browser has cost the
# server ~8 ms of looking for a file that is not there. A script run asks once and keeps the answer to its end
# (the next run asks again: a secrets file added or removed counts from the next run on).
_answer = threading.local()  # (the run's own object that names it, the answer): a run is on one thread


def configured() -> bool:
    """Whether the deployment has sign-in: an ``[auth]`` table in Streamlit's secrets."""
    run = _this_run()
    kept = getattr(_answer, "kept", None)
    if run is not None and kept is not None and kept[0] is run:
        return kept[1]
    try:
        found = "auth" in st.secrets
    except Exception:  # noqa: BLE001 - no secrets file, or one Streamlit cannot parse: no sign-in configured
        found = False
    _answer.kept = None if run is None else (run, found)
    return found


def _this_run():
    """An object that is this script run's own (its context's cursors, made anew as each run starts and held
    here, so no later run can have the same one), or None outside a run (a server request)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx(suppress_warning=True)
    return getattr(context, "cursors", None) if context is not None else None
