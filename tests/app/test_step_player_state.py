"""The step player's report of a step (``ui.replay.step_player._reported``) against the URL its request carries: the
browser sends the address bar as it had it, which can still name an earlier step when the reader steps fast or
a report is sent again. Found by a browser test that came late: after Home the player was moved back to the step
before it (tests/e2e/test_step_player_browser.py)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.transcript_lines import player_data

from .conftest import open_page


def reporting_page():
    import streamlit as st

    from ui.replay.step_player import _reported, player_step

    report = st.session_state.pop("report", None)
    if report is not None:  # what the player's callback does before the page runs
        st.session_state["player"] = {"step": report}
        _reported("player", "step", 60)
    st.session_state["shown"] = player_step(60, st.query_params.get("turn"), key="step", label="Step")


def test_a_report_sent_with_an_earlier_turn_in_the_url_keeps_the_step_reported():
    at = AppTest.from_function(reporting_page)
    at.query_params["turn"] = "50"
    at.run()
    assert at.session_state["shown"] == 50 and at.query_params["turn"] == "50"
    at.session_state["report"] = 1  # Home: reported while the URL still says 50
    at.run()
    assert at.session_state["shown"] == 1 and at.query_params["turn"] == "1"
    at.query_params["turn"] = "50"  # the same report sent again from a browser that had not seen turn=1 yet
    at.session_state["report"] = 1
    at.run()
    assert at.session_state["shown"] == 1 and at.query_params["turn"] == "1"


def test_a_link_without_a_report_still_moves_the_step():
    at = AppTest.from_function(reporting_page)
    at.query_params["turn"] = "50"
    at.run()
    at.session_state["report"] = 1
    at.run()
    at.query_params["turn"] = "7"  # Back, or a link: no report in the request, the URL wins
    at.run()
    assert at.session_state["shown"] == 7


def player_path(at) -> tuple:
    """Where the step player is in the page's element tree (the delta path the browser keys its elements by)."""
    found = []

    def walk(node, path):
        for index, child in (getattr(node, "children", None) or {}).items():
            if getattr(child, "type", None) == "bidi_component":
                found.append(tuple(path + [index]))
            walk(child, path + [index])

    walk(at._tree, [])
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("corpus, extra", [("codraw", {}), ("gos", {"round": "1"}), ("minecraft", {})])
def test_the_player_keeps_its_place_in_the_page_at_every_step(corpus, extra):
    """An element shown at some steps only (A Game Of Sorts' published mentions, a CoDraw round's problem) above
    the player moved it in the page, and the browser then built a new player: its steps and decoded pictures
    gone, and a key pressed as it happened lost. So did the first parse's progress box, shown on the first run of
    a fresh server only: the replay is opened here as its first visitor, with no dialog named."""
    at = open_page("pages/replay.py", corpus=corpus, turn="1", **extra)
    n_steps = player_data(at)[0]["n"]
    places = {1: player_path(at)}
    for turn in range(2, min(n_steps, 14) + 1):
        at.query_params["turn"] = str(turn)
        at.run()
        assert not at.exception and player_data(at)[0]["step"] == turn
        places[turn] = player_path(at)
    assert len(set(places.values())) == 1, places


def settling_page():
    """A step reported lightly, its run publishing it (the player's fragment), then the settle the player sends
    when the reader rests on it, each as the player's callbacks do before the page runs."""
    import streamlit as st

    from ui.replay.step_player import _light_key, _reported, player_step
    from ui.shell.url_state import publish

    light = st.session_state.pop("light", None)
    if light is not None:  # the light report's run: the player's fragment alone puts the step into the URL
        st.session_state["player"] = {"step": light}
        _reported("player", "step", 60)
        publish("step", "turn", st.session_state[_light_key("step")])
        return
    settle = st.session_state.pop("settle", None)
    if settle is not None:
        st.session_state["player"] = {"settle": settle}
        _reported("player", "step", 60, "settle")
    st.session_state["shown"] = player_step(60, st.query_params.get("turn"), key="step", label="Step")


def test_a_settle_sent_before_the_reports_turn_reached_the_browser_keeps_the_step():
    """Ten sessions on one server (`make bench-sessions`): the settle left 0.6 s after the report, before the
    report's run had put turn=3 into the address bar, and the page's run took the bar's turn=2 for a link: the
    player went back to step 2 and the URL never named step 3."""
    at = AppTest.from_function(settling_page)
    at.query_params["turn"] = "2"
    at.run()
    assert at.session_state["shown"] == 2
    at.session_state["light"] = 3  # → : reported lightly, the report's run writes turn=3
    at.run()
    assert at.query_params["turn"] == "3"
    at.query_params["turn"] = "2"  # the settle's request: the address bar had not heard of turn=3 yet
    at.session_state["settle"] = 3
    at.run()
    assert at.session_state["shown"] == 3 and at.query_params["turn"] == "3"
    at.query_params["turn"] = "9"  # then a link (Back, Forward): no report in its request, the URL wins
    at.run()
    assert at.session_state["shown"] == 9
