"""The step player on the page: an inline ``st.components.v2`` component (``ui/assets/step_player.js`` and
``.css``, no iframe, nothing fetched but the app's own media URLs) that steps, scrubs and plays a dialog in the
browser. What it is sent is ``data_access.player``'s payload.

A page section calls ``player_step`` where it used to call the stepper (it keeps the URL's link rules, and
the stepper itself as a fallback that the player's CSS hides once it has drawn), shows whatever depends on
the step, and calls ``show_player`` with the dialog and a function that describes one step. The player
reports each step the reader goes to (its ``step`` trigger): the callback makes it the stepper's value before
the page runs again, so the URL (``turn=``, one history entry per step), notes, codes and run panels follow,
while the player has shown the step already. The first run of a dialog sends its step alone (a replay opens
as fast as before); once drawn, the player asks for its window (``window`` trigger), which every later run
re-centres on the step shown.
"""
from __future__ import annotations

import time
from dataclasses import replace
from functools import partial
from typing import Callable, Optional

import streamlit as st

from data_access.corpus import Corpus
from data_access.player import Picture, PlayerDialog, PlayerStep, TimelineEntry, payload, window, within_budget
from ui.assets import asset_text
from ui.shell.reconnect import full_run_after_reconnect, page_run_button
from ui.shell.url_state import is_new_link, query_param, remember_link, served
from ui.widgets import stepper

try:
    _PLAYER = st.components.v2.component("dialogue_step_player", css=asset_text("step_player.css"),
                                         js=asset_text("step_player.js"), isolate_styles=False)
except Exception:  # pragma: no cover - an environment without the v2 component runtime
    _PLAYER = None  # type: ignore[assignment]


WIDE_RUN_SECONDS = 0.4  # the most a run spends describing the window's steps (more: the next run goes on)


def _goto_key(key: str) -> str:
    return f"{key}__player_goto"


def player_step(n_steps: int, requested: Optional[str], key: str, label: str, param: str = "turn") -> int:
    """The step shown (``ui.widgets.stepper``'s rules: a new link wins once, a step past the end shows the
    last with a warning). A link applied on this run moves the player too (its ``goto`` counter)."""
    if n_steps > 0 and (is_new_link(key, requested) or key not in st.session_state):
        st.session_state[_goto_key(key)] = st.session_state.get(_goto_key(key), 0) + 1
    st.session_state[_param_key(key)] = param  # what the player's reports of this step leave as it is (_reported)
    with st.container(key=f"player_fallback_{key}"):
        return stepper(n_steps, requested, key=key, label=label, keyboard=_PLAYER is None, param=param)


def _param_key(key: str) -> str:
    return f"{key}__param"


def _reported(player_key: str, step_key: str, n_steps: int) -> None:
    """The player went to a step: it becomes the stepper's value before the page runs.

    The report's request carries the address bar as the browser had it when it was sent, which may be before
    the last run's ``turn=`` reached the browser (the reader stepping fast, or a report sent again). That value is
    not a link to follow: the step reported wins, where taking the old ``turn=`` as a new link would move the
    player back to it."""
    state = st.session_state.get(player_key) or {}
    step = state.get("step") if hasattr(state, "get") else None
    if isinstance(step, int) and not isinstance(step, bool) and 1 <= step <= n_steps:
        st.session_state[step_key] = step
        remember_link(step_key, query_param(st.session_state.get(_param_key(step_key), "turn")))


def _widen(player_key: str, token: str) -> None:
    st.session_state[f"{player_key}__wide"] = token
    st.session_state[f"{player_key}__wide_runs"] = st.session_state.get(f"{player_key}__wide_runs", 0) + 1


def _media_url(key: str, png: bytes, slot: str) -> str:
    """A picture on Streamlit's media endpoint (kept while a run of this session names it), as the browser
    requests it: the same bytes keep the same URL, so the browser fetches each picture once."""
    from streamlit import runtime

    url = runtime.get_instance().media_file_mgr.add(png, "image/png", f"step_player:{key}:{slot}")
    return served(url)


def show_player(key: str, step_key: str, dialog: PlayerDialog, step: int, describe: Callable[[int], Optional[PlayerStep]],
                timeline: Optional[Callable[[dict[int, PlayerStep]], tuple[TimelineEntry, ...]]] = None,
                on_round: Optional[Callable[[int], None]] = None, **settings) -> None:
    """The player of ``dialog`` at ``step``; ``describe(s)`` gives step ``s`` (cached by the caller), and
    ``timeline(described)`` the timeline from the steps described on this run (a step not among them: no bar).
    ``on_round(delta)`` opens the next (+1) or previous (-1) round when the reader steps past either end."""
    if _PLAYER is None or dialog.n_steps <= 0:
        return
    st.session_state.pop(_moved_key(key), None)  # this run is the page's: it follows the reported step already
    full_run_after_reconnect()
    # Hidden with the fallback stepper: what the player clicks when a report of its got no answer (_page_run_key)
    page_run_button(_page_run_box(key), _page_run_key(key))
    if st.session_state.pop(_beside_key(key), False):  # the workbench: the page's panel beside the player
        player_column, beside = st.columns([5, 2], gap="small")
        with player_column:
            _player_fragment(key, step_key, dialog, step, describe, timeline, on_round, settings)
        st.session_state[_after_key(key)] = beside.container()
        return
    _player_fragment(key, step_key, dialog, step, describe, timeline, on_round, settings)
    st.session_state[_after_key(key)] = st.container()  # what a page wants right under the player (coding)


def _page_run_key(key: str) -> str:
    """The hidden button whose click runs the whole page (``ui.shell.reconnect``): after a fail-over the other
    server has not run this page and ignores each step the player reports until the player clicks it
    (tests/e2e/test_two_servers.py)."""
    return f"{key}__page_run"


def _page_run_box(key: str) -> str:
    """The container of that button: the player finds the button by it, and the fallback's style hides it."""
    return f"player_fallback_page_run_{key}"


def _moved_key(key: str) -> str:
    return f"{key}__moved"


def _moved(key: str, then: Callable[[], None]) -> None:
    """A callback of the player that moves the page (a step, a round): the page runs again, not the player alone."""
    then()
    st.session_state[_moved_key(key)] = True


# The player is a fragment: its window request (a trigger) runs the player alone, so the page's one-shot notes
# (a link's warning) stay and its URL is not touched; a step or round it reports runs the whole page.
@st.fragment
def _player_fragment(key: str, step_key: str, dialog: PlayerDialog, step: int, describe: Callable[[int], Optional[PlayerStep]],
                     timeline: Optional[Callable[[dict[int, PlayerStep]], tuple[TimelineEntry, ...]]],
                     on_round: Optional[Callable[[int], None]], settings: dict) -> None:
    if st.session_state.pop(_moved_key(key), False):
        st.rerun(scope="app")
    wide = st.session_state.get(f"{key}__wide") == dialog.token
    order = window(step, dialog.n_steps) if wide else [step]
    described, more, started = [], False, time.perf_counter()
    for number in order:
        one = describe(number)
        if one is not None:
            described.append(one)
        # the steps not yet computed cost a run its time: a slice per run, the player asks for the next one
        if time.perf_counter() - started > WIDE_RUN_SECONDS and number != order[-1]:
            more = True
            break
    steps = within_budget(described)
    if timeline is not None:
        dialog = replace(dialog, timeline=timeline({s.step: s for s in steps}))
    dialog = _with_highlight(dialog, step)
    data = payload(dialog, sorted(steps, key=lambda s: s.step), step, st.session_state.get(_goto_key(step_key), 0),
                   partial(_media_url, key), wide=wide, more=more,
                   wideRun=st.session_state.get(f"{key}__wide_runs", 0), pageRun=_page_run_box(key),
                   **settings)
    _PLAYER(data=data, key=key, on_step_change=partial(_moved, key, partial(_reported, key, step_key, dialog.n_steps)),
            on_window_change=partial(_widen, key, dialog.token),
            on_round_change=partial(_moved, key, (lambda: on_round(_delta(key))) if on_round else (lambda: None)))


def _after_key(key: str) -> str:
    return f"_{key}__under"


def _beside_key(key: str) -> str:
    return f"_{key}__beside"


def under_player(key: str = "player_replay", *, beside_next: bool = False):
    """The container drawn right after player ``key`` on this run, or None when it was not shown (a page lays
    the coding panel there, next to the step rather than under the corpus's other panels). ``beside_next``:
    the player this run draws next has that container beside it (a column to its right, stacked in a narrow
    window) rather than under it: the workbench, where the step, its transcript and the coding panel fit on
    one screen."""
    st.session_state[_beside_key(key)] = beside_next
    return st.session_state.pop(_after_key(key), None)


def _delta(key: str) -> int:
    state = st.session_state.get(key) or {}
    value = state.get("round") if hasattr(state, "get") else None
    return 1 if value == 1 else -1 if value == -1 else 0


def _with_highlight(dialog: PlayerDialog, step: int) -> PlayerDialog:
    """A search hit's match (the URL's ``hl``) marked in the lines of the step it was linked to: the line's
    text as (piece, is match) segments, which the player sets as text nodes and ``mark`` elements."""
    from data_access.links import highlight_segments
    from ui.replay.highlight import requested_highlight

    needle = requested_highlight()
    if not needle:
        return dialog
    lines = tuple({**line, "segments": [[piece, bool(match)] for piece, match in highlight_segments(line["text"], needle)]}
                  if line["turn"] == step else line for line in dialog.lines)
    return replace(dialog, lines=lines)


def snapshot_player(key: str, step_key: str, corpus: Corpus, dialog_id: str, round_number: Optional[int], step: int,
                    n_steps: int, lines, unit: str, **settings) -> None:
    """The player over the corpus's snapshot of each step (Compare, Present): one picture per step, the
    transcript; what a corpus shows around its snapshot (``state_details``) stays on the page and follows."""
    from data_access.player import transcript_lines
    from data_access.snapshots import snapshot_png
    from ui import cached
    from ui.replay.transcript import LEADING_ROLES

    def describe(number: int) -> PlayerStep:
        png = cached.derived(snapshot_png, corpus, dialog_id, number, round_number)
        return PlayerStep(number, (Picture(png, f"{unit.capitalize()} {number} of {n_steps}"),))

    dialog = PlayerDialog(f"{corpus.name}|{dialog_id}|{round_number}", unit.capitalize(), n_steps,
                          transcript_lines(lines, LEADING_ROLES), tuple(TimelineEntry() for _ in range(n_steps)))
    show_player(key, step_key, dialog, step, describe, **settings)
