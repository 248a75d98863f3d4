"""The Replay's parts that follow its step player's step, as one fragment (``step_parts_fragment``): the player,
the corpus's section, the coding column, notes, the link, downloads and a run's panels. When the reader rests on
a step (the player's settle, ``ui.replay.step_player.report_lightly``) this fragment runs alone
(``rerun_step_parts``), not the page: the router, the header and its pickers, a slice's or a queue's place do
not run (ten sessions stepping: `make bench-sessions`, docs/speed.md). Any other run of the fragment (a widget
of its own) runs the whole page, as before.
"""
from __future__ import annotations

from functools import wraps
from typing import Callable

import streamlit as st
from streamlit.errors import StreamlitAPIException

from ui.shell.reconnect import follow_page_run, fragment_run
from ui.shell.run_mark import mark_run

_SETTLED_RUN = "_player_step_parts_run"


def rerun_step_parts(key: str) -> None:
    """In a callback (the player's settle): run the fragment ``key`` alone. Returns only when it cannot (not drawn
    by this server's last run of the page); otherwise it ends the callback (``st.rerun``), and a sibling callback
    of the same batch that returns normally makes it a run of the page."""
    st.session_state[_SETTLED_RUN] = True
    try:
        st.rerun(key)
    except StreamlitAPIException:
        st.session_state.pop(_SETTLED_RUN, None)


def step_parts_fragment(key: str):
    """``st.fragment`` under ``key`` for a page's parts that follow its player's step: the player's settle runs
    it alone (``rerun_step_parts``); any other run of it (a widget of its own: a dialog, a toggle, a button) runs
    the whole page instead, so that what lies outside it (the header, a slice's or a queue's place) follows too."""
    def decorate(body: Callable[..., None]) -> Callable[..., None]:
        @st.fragment(key=key)
        @wraps(body)
        def parts(*args, **kwargs) -> None:
            alone = fragment_run()
            if st.session_state.pop(_SETTLED_RUN, False) is not True and alone:
                st.rerun(scope="app")
            follow_page_run()
            body(*args, **kwargs)
            if alone:
                mark_run()  # the run is over (app.py marks the page's runs; ui/shell/run_mark.py)
        return parts
    return decorate
