"""The one store object per database, shared by every page and session, and how a page says that the store
cannot be reached.

``shared_store()`` returns the cached ``data_access.store.Store`` for ``DIALOGUE_NOTES_DB``: the Notes page,
the Replay's notes and coding panels, Codebooks, Agreement and the Coding queue all use the same one, so a
PostgreSQL store costs one connection pool per process (``DIALOGUE_STORE_POOL_SIZE`` connections at most),
not a connection per page and thread. With sign-in configured (``ui.shell.auth``) the store is opened with
``sign_in=True``: every write must name a signed-in actor, which every write of ``ui/`` passes
(``ui.shell.auth.identity(current_coder())``).

When the server stops while the app runs, every store call raises a ``StoreError`` with the URL's password
hidden; panels show ``unavailable(...)`` instead of Streamlit's error box, keep what the user typed (their
widgets are still drawn; ``remembered`` gives them the last listing read in this session), and work again by
themselves on the next run once the server is back (the store tries the server again first).
"""
from __future__ import annotations

from typing import Callable, Optional, TypeVar

import streamlit as st

from data_access.sources import notes_db_target
from data_access.store import ANNOTATION_FRAME_COLUMNS as ANNOTATION_FRAME_COLUMNS  # the empty tables of pages
from data_access.store import QUEUE_COLUMNS as QUEUE_COLUMNS
from data_access.store import Store, StoreBusy, StoreError, StoreUnavailable
from ui.shell import sign_in
from ui.widgets import md_escape

T = TypeVar("T")
_REMEMBERED = "store_remembered"
_SAID = "store_unavailable_said"


def run_token() -> Optional[int]:
    """Something that changes with every script run (Streamlit gives each run fresh cursors)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        return id(ctx.cursors) if ctx is not None else None
    except Exception:  # noqa: BLE001 - without it every failure is said, which is only noisier
        return None


@st.cache_resource(show_spinner=False)
def _open(target: str, sign_in: bool) -> Store:
    return Store(target, sign_in=sign_in)


def shared_store() -> Store:
    """The store of ``DIALOGUE_NOTES_DB`` (raises ``StoreError`` when it cannot be opened); with sign-in
    configured it refuses every write without a signed-in actor (``ui.shell.auth.identity``; ``ui.shell.sign_in``)."""
    return _open(str(notes_db_target()), sign_in.configured())


def opened(what: str) -> Optional[Store]:
    """``shared_store()``, or None after saying (as ``unavailable``) why ``what`` cannot be used."""
    try:
        return shared_store()
    except StoreError as exc:
        unavailable(what, exc)
        return None


def unavailable(what: str, exc: StoreError) -> None:
    """An error box: ``what`` ("Notes", "Coding", ...) is unavailable, and why (no password in it); once
    per run and panel, however many of its store calls failed."""
    said = st.session_state.setdefault(_SAID, {})
    run = run_token()
    if run is not None and said.get(what) == run:
        return
    said[what] = run
    if isinstance(exc, StoreBusy):
        st.error(f"{what} is unavailable for a moment: the store is busy — {md_escape(exc)}. What you typed is kept; "
                 "the next click tries again.", icon="⚠️")
    elif isinstance(exc, StoreUnavailable):
        st.error(f"{what} is unavailable: the store cannot be reached — {md_escape(exc)}. What you typed is kept; "
                 "this works again by itself once the database server is back (the next click retries).", icon="⚠️")
    else:
        st.error(f"{what} is unavailable: {md_escape(exc)}", icon="⚠️")


def remembered(name: str, read: Callable[[], T], fallback: T, what: str) -> T:
    """``read()`` from the store; when the store fails, the value ``read`` gave last in this session (else
    ``fallback``) after saying so, so the page keeps drawing its widgets and what was typed into them."""
    memory = st.session_state.setdefault(_REMEMBERED, {})
    try:
        value = read()
    except StoreError as exc:
        unavailable(what, exc)
        return memory.get(name, fallback)
    memory[name] = value
    return value
