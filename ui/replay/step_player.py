"""The step player on the page: an inline ``st.components.v2`` component (``ui/assets/step_player.js`` and
``.css``, no iframe, nothing fetched but the app's own media URLs) that steps, scrubs and plays a dialog in the
browser. What it is sent is ``data_access.player``'s payload.

A page section calls ``player_step`` where it used to call the stepper (it keeps the URL's link rules, and
the stepper itself as a fallback that the player's CSS hides once it has drawn), shows whatever depends on
the step, and calls ``show_player`` with the dialog, a function that describes one step and one that draws the
section's panels under the player. The player reports each step the reader goes to (its ``step`` trigger): the
callback makes it the stepper's value before the page runs again, so the URL (``turn=``, one history entry per
step), notes, codes and run panels follow, while the player has shown the step already (on the Replay, the page's
parts of the step run alone: ``report_lightly``, ``ui.replay.step_parts``). The first run of a dialog sends its step alone (a replay opens
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
from data_access.player import (
    WINDOW_AHEAD,
    WINDOW_BACK,
    Picture,
    PlayerDialog,
    PlayerStep,
    TimelineEntry,
    payload,
    window,
    within_budget,
)
from ui.assets import asset_text
from ui.replay.step_parts import begin_page_run, rerun_parts, section_panels, section_panels_drawn, step_part
from ui.shell.reconnect import (
    PAGE_RUN,
    follow_page_run,
    full_run_after_reconnect,
    page_run_button,
    run_waiting,
    want_page_run,
)
from ui.shell.url_state import is_new_link, publish, query_param, remember_link, served
from ui.widgets import stepper

try:
    _PLAYER = st.components.v2.component("dialogue_step_player", css=asset_text("step_player.css"),
                                         js=asset_text("step_player.js"), isolate_styles=False)
except Exception:  # pragma: no cover - an environment without the v2 component runtime
    _PLAYER = None  # type: ignore[assignment]


WIDE_RUN_SECONDS = 0.4  # the most a run spends describing the window's steps (more: the next run goes on)
FIRST_RUN_SECONDS = 0.15  # what the run that opens a dialog may spend on the steps next to its own


def _goto_key(key: str) -> str:
    return f"{key}__player_goto"


def player_step(n_steps: int, requested: Optional[str], key: str, label: str, param: str = "turn") -> int:
    """The step shown (``ui.widgets.stepper``'s rules: a new link wins once, a step past the end shows the
    last with a warning). A link applied on this run moves the player too (its ``goto`` counter).

    A step reported lightly (``report_lightly``) ran the player alone: the stepper in the browser still holds the
    step of the page's last run and sends it with this run's request, so the step reported is its value here,
    unless the address bar was moved since (Back, a link: the link wins)."""
    light = st.session_state.pop(_light_key(key), None)
    if isinstance(light, int) and 1 <= light <= n_steps and not is_new_link(key, requested):
        st.session_state[key] = light
    if n_steps > 0 and (is_new_link(key, requested) or key not in st.session_state):
        st.session_state[_goto_key(key)] = st.session_state.get(_goto_key(key), 0) + 1
    st.session_state[_param_key(key)] = param  # what the player's reports of this step leave as it is (_reported)
    with st.container(key=f"player_fallback_{key}"):
        return stepper(n_steps, requested, key=key, label=label, keyboard=_PLAYER is None, param=param)


def _param_key(key: str) -> str:
    return f"{key}__param"


def _light_key(key: str) -> str:
    return f"{key}__light"


def _reported(player_key: str, step_key: str, n_steps: int, trigger: str = "step") -> None:
    """The player went to a step (``trigger`` "step"), or rests on it ("settle"): it becomes the stepper's value
    before the page runs.

    The report's request carries the address bar as the browser had it when it was sent, which may be before
    the last run's ``turn=`` reached the browser (the reader stepping fast, or a report sent again). That value is
    not a link to follow: the step reported wins, where taking the old ``turn=`` as a new link would move the
    player back to it (a settle sent 0.6 s after a light report, before the report's run had put the step into the
    address bar: ten sessions on one server, `make bench-sessions`, saw the player moved back a step)."""
    step = _asked(player_key, trigger)
    step = step.get("step") if isinstance(step, dict) else step  # a settle on a step the browser lacks (_settled)
    if isinstance(step, int) and not isinstance(step, bool) and 1 <= step <= n_steps:
        st.session_state[step_key] = step
        st.session_state[_light_key(step_key)] = step  # for a run of the player alone, and the page's next run
        remember_link(step_key, query_param(st.session_state.get(_param_key(step_key), "turn")))


def _widen(player_key: str, token: str) -> None:
    """The player asks for its window, saying which of its steps it has: those are not sent again (a player built
    anew has none, and gets them all)."""
    st.session_state[f"{player_key}__wide"] = token
    st.session_state[f"{player_key}__wide_runs"] = st.session_state.get(f"{player_key}__wide_runs", 0) + 1
    state = st.session_state.get(player_key) or {}
    asked = state.get("window") if hasattr(state, "get") else None
    have = asked.get("have") if isinstance(asked, dict) else None
    known_token, known = st.session_state.get(_known_key(player_key)) or (None, {})
    held = {s for s in have if isinstance(s, int) and s in known} if isinstance(have, list) and known_token == token else set()
    st.session_state[_sent_key(player_key)] = (token, held)
    st.session_state[f"{player_key}__asked"] = True


def _known_key(key: str) -> str:
    """(token, step -> the step as described, its pictures left out): what the timeline is drawn from."""
    return f"{key}__known"


def _sent_key(key: str) -> str:
    """(token, the steps the browser has): a run sends the others only."""
    return f"{key}__sent"


def _media_url(key: str, png: bytes, slot: str) -> str:
    """A picture on Streamlit's media endpoint (kept while a run of this session names it), as the browser
    requests it: the same bytes keep the same URL, so the browser fetches each picture once."""
    from streamlit import runtime

    url = runtime.get_instance().media_file_mgr.add(png, "image/png", f"step_player:{key}:{slot}")
    return served(url)


def show_player(key: str, step_key: str, dialog: PlayerDialog, step: int, describe: Callable[[int], Optional[PlayerStep]],
                timeline: Optional[Callable[[dict[int, PlayerStep]], tuple[TimelineEntry, ...]]] = None,
                on_round: Optional[Callable[[int], None]] = None, on_layout: Optional[Callable[[str], None]] = None,
                panels: Optional[Callable[[int], None]] = None, **settings) -> None:
    """The player of ``dialog`` at ``step``; ``describe(s)`` gives step ``s`` (cached by the caller), and
    ``timeline(described)`` the timeline from the steps described so far (a step not among them: no bar).
    ``on_round(delta)`` opens the next (+1) or previous (-1) round when the reader steps past either end;
    ``on_layout(name)`` takes the layout the player asks for (``autoLayout``: "present" in a small window).
    Pictures a page puts beside each step (``beside_steps``: a model run's) join the step's own.
    ``panels(s)`` draws what the section shows under the player for step ``s`` (its scores, its tables): drawn
    there, as a part that follows the step the reader rests on without a run of the page (``ui.replay.step_parts``)."""
    if _PLAYER is None or dialog.n_steps <= 0:
        return
    extra = st.session_state.pop(_extra_key(key), None)
    if extra is not None:
        suffix, pictures = extra
        dialog = replace(dialog, token=f"{dialog.token}|{suffix}")
        describe = partial(_with_pictures, describe, pictures)
    settings = {"playerKey": key, **settings}
    if st.session_state.pop(SETTLE_KEY, False):
        settings["lightReports"] = True
    st.session_state.pop(PAGE_RUN, None)  # this run is the page's: it follows the reported step already
    full_run_after_reconnect()
    # Hidden with the fallback stepper: what the player clicks when a report of its got no answer (_page_run_key)
    page_run_button(_page_run_box(key), _page_run_key(key))
    if st.session_state.pop(_beside_key(key), False):  # the workbench: the page's panel beside the player
        player_column, beside = st.columns([2, 1], gap="small")
        with player_column:
            _player_fragment(key)(key, step_key, dialog, step, describe, timeline, on_round, on_layout,
                                  {"layout": "workbench", **settings})
        st.session_state[_after_key(key)] = beside.container(key=f"{key}_beside")
    else:
        _player_fragment(key)(key, step_key, dialog, step, describe, timeline, on_round, on_layout, settings)
        st.session_state[_after_key(key)] = st.container()  # what a page wants right under the player (coding)
    if panels is not None:
        section_panels_drawn()
        step_part(f"{key}__panels")(section_panels)(panels, step, partial(_reported_step, step_key, step, dialog.n_steps))


def _reported_step(step_key: str, step: int, n_steps: int) -> int:
    """The step the player reported last (a run of the player or of the parts alone: the stepper in the browser still
    holds the step of the page's last run), else ``step``."""
    reported = st.session_state.get(_light_key(step_key), st.session_state.get(step_key))
    return reported if isinstance(reported, int) and 1 <= reported <= n_steps else step


def _player_fragment(key: str) -> Callable[..., None]:
    """The player's fragment, under a key of its own (``_fragment_key``): a settle runs it with the page's parts."""
    return st.fragment(_player_body, key=_fragment_key(key))


def _fragment_key(key: str) -> str:
    return f"{key}__fragment"


def _page_run_key(key: str) -> str:
    """The hidden button whose click runs the whole page (``ui.shell.reconnect``): after a fail-over the other
    server has not run this page and ignores each step the player reports until the player clicks it
    (tests/e2e/test_two_servers.py)."""
    return f"{key}__page_run"


def _page_run_box(key: str) -> str:
    """The container of that button: the player finds the button by it, and the fallback's style hides it."""
    return f"player_fallback_page_run_{key}"


def _moved(key: str, then: Callable[[], None]) -> None:
    """A callback of the player that moves the page (a step, a round): the page runs again, not the player alone."""
    then()
    want_page_run()


def _settled(key: str, step_key: str, n_steps: int) -> None:
    """The player rests on a step (``settle``): a report of it, then a run of the player and the page's parts alone."""
    _reported(key, step_key, n_steps, "settle")
    # the player's run answers with a payload of its own (awaitAnswer), with the step if the browser lacks it (a run
    # that sent it was cut short before its payload left)
    st.session_state[f"{key}__settles"] = st.session_state.get(f"{key}__settles", 0) + 1
    value = _asked(key, "settle")
    st.session_state[f"{key}__again"] = isinstance(value, dict) and bool(value.get("missing"))
    rerun_parts(_fragment_key(key))  # ends the callback, unless the parts cannot run alone
    want_page_run()


SETTLE_KEY = "_player_light_reports"


def report_lightly() -> None:
    """The player drawn next on this run reports its steps lightly (the Replay): a step the reader goes to whose
    neighbours the browser holds starts no run; once the reader rests on a step (the player's ``settle`` trigger,
    ``SETTLE_MS`` in its script) the player's fragment puts it into the URL and the page's parts that depend on the
    step (``ui.replay.step_parts``: the corpus's panels under the player, coding, notes, a run's scores) follow,
    not at every step passed over. A step near the window's edge runs the player's fragment alone at once (its
    window moves on, the URL follows)."""
    st.session_state[SETTLE_KEY] = True
    begin_page_run()


# The player is a fragment (``_player_fragment``): its window request (a trigger) runs the player alone, so the
# page's one-shot notes (a link's warning) stay and its URL is not touched; a step or round it reports runs the whole
# page (a step reported lightly, ``report_lightly``: the player alone, and its page's parts of the step once the
# reader rests).
def _player_body(key: str, step_key: str, dialog: PlayerDialog, step: int, describe: Callable[[int], Optional[PlayerStep]],
                 timeline: Optional[Callable[[dict[int, PlayerStep]], tuple[TimelineEntry, ...]]],
                 on_round: Optional[Callable[[int], None]], on_layout: Optional[Callable[[str], None]],
                 settings: dict) -> None:
    follow_page_run()
    light = bool(settings.get("lightReports"))
    page_step = step  # the step of the page's run, which the page's own parts of the player were made for
    if light:  # a run of the fragment alone after a report: the step reported, into the URL
        step = _reported_step(step_key, step, dialog.n_steps)
        publish(step_key, st.session_state.get(_param_key(step_key), "turn"), step)
        if step != page_step:  # the reader is stepping: the run brings the window ahead (a key held or tapped
            st.session_state[f"{key}__wide"] = dialog.token  # gives the player no idle moment to ask for it)
    again = st.session_state.pop(f"{key}__again", False) or step == page_step  # a settle's step: sent again
    steps, more, known = _new_steps(key, dialog, step, describe, again=again)
    wide = st.session_state.get(f"{key}__wide") == dialog.token
    if timeline is not None:
        dialog = replace(dialog, timeline=timeline(known))
    dialog = _with_highlight(dialog, step)
    data = payload(dialog, sorted(steps, key=lambda s: s.step), step, st.session_state.get(_goto_key(step_key), 0),
                   partial(_media_url, key), wide=wide, more=more,
                   wideRun=st.session_state.get(f"{key}__wide_runs", 0), pageRun=_page_run_box(key),
                   settles=st.session_state.get(f"{key}__settles", 0),
                   **settings)
    report = partial(_reported, key, step_key, dialog.n_steps)
    _PLAYER(data=data, key=key, on_step_change=report if light else partial(_moved, key, report),
            on_settle_change=partial(_settled, key, step_key, dialog.n_steps),
            on_window_change=partial(_widen, key, dialog.token),
            on_round_change=partial(_moved, key, (lambda: on_round(_delta(key))) if on_round else (lambda: None)),
            on_layout_change=partial(_moved, key, (lambda: on_layout(_asked(key, "layout"))) if on_layout else (lambda: None)))


def _new_steps(key: str, dialog: PlayerDialog, step: int, describe: Callable[[int], Optional[PlayerStep]],
               again: bool = True):
    """(the steps this run sends, whether the window has more, step -> every step described of this dialog).

    The run that opens a dialog sends its step and, within ``FIRST_RUN_SECONDS``, the steps next to it (so the
    first key press is drawn at once); once the player has asked for its window, each run sends the steps of the
    window around the step shown that the browser does not have yet, within ``WIDE_RUN_SECONDS`` (the player
    asks again for the rest). A step the browser has costs a run nothing, but for the step of a page's run
    (``again``), described again: what a page marks at its own step (the published mentions of a message) stays
    right."""
    token = dialog.token
    wide = st.session_state.get(f"{key}__wide") == token
    known_token, remembered = st.session_state.get(_known_key(key)) or (None, {})
    sent_token, sending = st.session_state.get(_sent_key(key)) or (None, set())
    known: dict[int, PlayerStep] = remembered if known_token == token else {}
    sent: set[int] = sending if sent_token == token else set()
    order = window(step, dialog.n_steps) if wide else [s for s in (step, step + 1, step - 1) if 1 <= s <= dialog.n_steps]
    asked = st.session_state.pop(f"{key}__asked", False)  # the player asked for its window: fill it
    if wide and not asked and _enough_around(step, dialog.n_steps, sent):
        order = [step]  # the browser has the steps around: the window moves on only when the reader nears its edge
    budget = WIDE_RUN_SECONDS if wide else FIRST_RUN_SECONDS
    described, more, started = [], False, time.perf_counter()
    for number in order:
        if number in sent and (number != step or not again):
            continue
        one = describe(number)
        if one is not None:
            described.append(one)
        # the steps not yet computed cost a run its time: a slice per run, the player asks for the next one; and
        # none while another run waits (a label's write, the next step's report), which goes first
        if (time.perf_counter() - started > budget or (wide and described and run_waiting())) and number != order[-1]:
            more = wide
            break
    steps = within_budget(described)
    more = more or len(steps) < len(described)
    for one in steps:
        known[one.step] = replace(one, pictures=tuple(Picture(None, p.caption) for p in one.pictures))
        sent.add(one.step)
    st.session_state[_known_key(key)] = (token, known)
    st.session_state[_sent_key(key)] = (token, sent)
    return steps, more, {**known, **{one.step: one for one in steps}}


def _enough_around(step: int, n_steps: int, sent: set[int]) -> bool:
    """Whether the browser holds the steps a reader goes to next from ``step``: ``WINDOW_AHEAD // 2`` ahead and
    ``WINDOW_BACK // 2`` behind (as far as the dialog goes). Then a run describes no other step: a reader going
    through the window costs the server no picture until they near its edge, when the next run fills it again."""
    ahead = range(step + 1, min(n_steps, step + WINDOW_AHEAD // 2) + 1)
    behind = range(max(1, step - WINDOW_BACK // 2), step)
    return all(s in sent for s in (*ahead, *behind))


def _asked(key: str, trigger: str):
    state = st.session_state.get(key) or {}
    return state.get(trigger) if hasattr(state, "get") else None


def _extra_key(key: str) -> str:
    return f"_{key}__extra"


def beside_steps(suffix: str, pictures: Callable[[int], tuple[Picture, ...]], key: str = "player_replay") -> None:
    """The player ``key`` drawn next on this run shows ``pictures(step)`` after each step's own pictures (a model
    run's output beside the humans'); ``suffix`` names what they are (a new one starts the player afresh)."""
    st.session_state[_extra_key(key)] = (suffix, pictures)


def _with_pictures(describe: Callable[[int], Optional[PlayerStep]], pictures: Callable[[int], tuple[Picture, ...]],
                   number: int) -> Optional[PlayerStep]:
    one = describe(number)
    return None if one is None else replace(one, pictures=one.pictures + pictures(number))


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
