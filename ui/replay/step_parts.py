"""The Replay's parts that follow its step player's step, each an ``st.fragment`` with a key (``step_part``): the
corpus's panels under the player (``show_player(panels=...)``), the coding panel's part of the step and the page's
tail (a run's panels, the link, the notes there).

When the reader rests on a step (the player's settle, ``ui.replay.step_player.report_lightly``) the player's
fragment and these parts run alone, in the page's order (``rerun_parts``): the player puts the step into the URL
and the parts follow it. The page does not run: not the router, the header and its pickers, the corpus's dialog
picker and what its section draws above the player, nor what does not follow each step (the note form, the
downloads, the Play link). Ten sessions stepping (`make bench-sessions`, docs/speed.md) cost the server a run of the
whole page for each step they rested on before: 0.07 CPU-s a step against issue 47's 0.05.

A section that draws its step's panels itself (no ``panels`` given to ``show_player``: a plugin's, written before)
has the page run at a settle, as before: what it draws would not follow the step otherwise. Any other run of a part
alone (a widget of its own: the 3D switch, the run picker, a fallback label button) is followed by a run of the page, so what lies
outside the part (the player's marks, the header) follows too.
"""
from __future__ import annotations

from functools import wraps
from typing import Callable, Optional

import streamlit as st
from streamlit.errors import StreamlitAPIException

from ui.shell.reconnect import follow_page_run, fragment_run
from ui.shell.run_mark import mark_run

_DRAWN = "_step_parts_drawn"  # the parts the page's last run drew, in its order
_PENDING = "_step_parts_pending"  # the parts a settle asked for that have not run yet in its run
_PANELS = "_step_parts_panels"  # whether the section's own panels are a part (show_player(panels=...))


def begin_page_run() -> None:
    """At the start of each run of a page with parts (``report_lightly``): no part is drawn yet."""
    st.session_state[_DRAWN] = []
    st.session_state[_PANELS] = False
    st.session_state.pop(_PENDING, None)  # a settle's run cut short by this one: its parts are drawn here


def section_panels_drawn() -> None:
    """The section's panels of the step are a part on this run (``show_player`` was given ``panels``)."""
    st.session_state[_PANELS] = True


def section_panels(panels: Callable[[int], None], step: int, reported: Callable[[], int]) -> None:
    """The section's panels (``show_player(panels=...)``) of the page's step, or in a run of the parts alone of the
    step the player reported (``reported()``)."""
    panels(reported() if fragment_run() else step)


def step_part(key: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``st.fragment`` under ``key`` for a part of the page that follows the player's step: a settle runs it alone
    (``rerun_parts``), and any other run of it alone (a widget of its own) is followed by a run of the page."""
    def decorate(body: Callable[..., None]) -> Callable[..., None]:
        @st.fragment(key=key)
        @wraps(body)
        def part(*args, **kwargs) -> None:
            alone = fragment_run()
            pending = st.session_state.get(_PENDING) or []
            settling = alone and key in pending
            if settling:
                pending.remove(key)
            follow_page_run()
            if not alone:
                drawn = st.session_state.setdefault(_DRAWN, [])
                if key not in drawn:
                    drawn.append(key)
            body(*args, **kwargs)
            if alone and not settling:  # after the body: a button's press is handled where it is drawn
                st.rerun(scope="app")
            if settling and not pending:
                mark_run()  # the settle's run is over (app.py marks the page's runs; ui/shell/run_mark.py)
        return part
    return decorate


def rerun_parts(player_fragment: str) -> bool:
    """In the player's settle callback: run the player's fragment (``player_fragment``, its key) and every part the
    page's last run drew, alone. False when they cannot be: the section draws its panels itself, or this server
    has not drawn them (a fail-over): the caller runs the page. Otherwise it ends the callback (``st.rerun``)."""
    drawn = list(st.session_state.get(_DRAWN) or [])
    if not st.session_state.get(_PANELS) or not drawn:
        return False
    st.session_state[_PENDING] = list(drawn)
    try:
        st.rerun([player_fragment, *drawn])
    except StreamlitAPIException:
        st.session_state.pop(_PENDING, None)
        return False
    return True  # pragma: no cover - st.rerun raises


def step_place(corpus) -> Optional[tuple[str, int, Optional[int]]]:
    """(dialog, step, round) of the step the URL names, the round only where the corpus replays within rounds (every
    note, label and export of a step keeps it there); None without a dialog and a step."""
    from ui.shell.corpus_views import replays_in_rounds
    from ui.shell.url_state import parse_positive_int, query_param

    dialog, turn = query_param("dialog"), parse_positive_int(query_param("turn"))
    if dialog is None or turn is None:
        return None
    return dialog, turn, parse_positive_int(query_param("round")) if replays_in_rounds(corpus) else None
