"""The browser's sign that a script run is over, which the browser tests wait on instead of sleeping
(tests/e2e/conftest.py, ``wait_for_app``; docs/deployment.md): an invisible ``<style data-app-run="S-N">``
written as a finished run's last element (Streamlit puts a style-only ``st.html`` in its event container: no
space, nothing shown), S the session's own random name and N its run number.

At the end of a run, not its start: a run cut short by ``st.rerun``, ``st.switch_page`` or a newer click reaches
the browser as far as it got, then Streamlit says "not running" until the next run starts, and that start drops
what the cut run had not yet sent; a mark written first would then pass for a finished run (a wait once returned
on Browse while its "Make a slice" button was opening Slices). A cut run marks "rerun" at most.

After ``st.stop()`` nothing more reaches the browser, so the app's code ends a run early with ``stop_run()``
(a test holds that), which marks the run first. AppTest sessions have no browser (no request headers) and get no
mark."""
from __future__ import annotations

import uuid
from typing import NoReturn

import streamlit as st


def mark_run(rerun: bool = False) -> None:
    """Mark this run finished (``rerun``: cut short, another run follows at once)."""
    if not st.context.headers:
        return
    state = st.session_state
    if not rerun:
        state["app_run"] = state.get("app_run", 0) + 1
        state.setdefault("app_session", uuid.uuid4().hex[:8])
    st.html(f'<style data-app-run="{"rerun" if rerun else f"{state.app_session}-{state.app_run}"}"></style>')


def stop_run(*, marked: bool = False) -> NoReturn:
    """``st.stop()``, with the run marked finished first (``marked``: it is already, e.g. by app.py run within
    it: a second mark in one run would show the browser two)."""
    if not marked:
        mark_run()
    st.stop()
    raise AssertionError("st.stop() returned")  # it raises; this keeps NoReturn honest for the type checker
