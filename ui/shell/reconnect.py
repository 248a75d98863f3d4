"""A page whose element runs as an ``st.fragment`` answering a browser that reconnected to a server which has not run
the page (this one restarted, or the other one after a fail-over): the step player (``ui.replay.step_player``) and
the Play page's game (``ui.play.page``) share it.

Such a server does not know the fragment: a run of it alone that the browser asks for is ignored ("The fragment
with id … does not exist anymore"), and the page would never answer a click of the element again. Two guards:
``full_run_after_reconnect`` makes the page ask for a full run when its connection comes back, and
``page_run_button`` draws a hidden button (outside the fragment) that the element's JavaScript clicks when a
report it sent twice got no answer: a run of the whole page, the widgets' values kept, after which the element's
reports reach the new server (tests/e2e/test_two_servers.py, tests/e2e/test_play_browser.py). And a callback of a
fragment's element that changes more than the fragment asks for the page's run (``want_page_run``), which every
fragment of the page follows (``follow_page_run``). A long run (the player describing its window) asks whether
another run waits (``run_waiting``) and gives way to it.
"""
from __future__ import annotations

from datetime import timedelta

import streamlit as st

PAGE_RUN = "_page_run_wanted"


def want_page_run() -> None:
    """Called in a callback that moves the page (a step the player reports, a round, the next item of a list, a
    Done that ends a play): the page runs again, not only the fragment whose run it is. Streamlit sends the widget
    changes made in one moment as one batch run by one fragment (a label key and Enter pressed together: "Multiple
    different fragmentIds detected in a single batch"), so each of the page's fragments asks for the page's run
    when one is wanted (``follow_page_run``)."""
    st.session_state[PAGE_RUN] = True


def follow_page_run() -> None:
    """At the top of each fragment of a page: run the whole page instead, when a callback asked for it."""
    if st.session_state.pop(PAGE_RUN, False):
        st.rerun(scope="app")


@st.fragment(run_every=timedelta(hours=1))
def full_run_after_reconnect() -> None:
    """Shows nothing. A page with a fragment that reruns on a timer asks for a full run when its connection comes
    back (Streamlit 1.67 asks only then, or after a run of fragments alone). Without it, a page whose last run was a
    full one sends the element's next report as a run of its fragment, which a server that has not run this page
    ignores."""
    follow_page_run()


def page_run_button(box: str, key: str) -> None:
    """The hidden button whose click runs the whole page, in the container ``box`` (the element's JavaScript finds
    the button by it: ``.st-key-<box> button``; the element's CSS hides it), drawn by the page outside the fragment."""
    with st.container(key=box):
        st.button("Run the page again", key=key)


def fragment_run() -> bool:
    """Whether this script run is a run of fragments alone (not the page's)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx(suppress_warning=True)
    return bool(context is not None and context.fragment_ids_this_run)


def run_waiting() -> bool:
    """Whether the browser asked for another run while this one goes on (a fragment's run waits for the run going
    on: a label's write, whose callback stores it, waits behind a step player's run describing its window). Read
    from Streamlit's request queue for this session (``ScriptRequests``, not a public API: False when it moves)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx(suppress_warning=True)
    state = getattr(getattr(context, "script_requests", None), "_state", None)
    return getattr(state, "value", None) == "RERUN"
