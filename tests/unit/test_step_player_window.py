"""``ui.replay.step_player._new_steps``: a run describing the player's window stops after the steps it has when the
browser asks for another run meanwhile (a label's write waits for the run going on: its callback stores it), and
says the window has more, so that the player asks for the rest; nothing without a browser."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
import streamlit

from data_access.player import PlayerStep
from ui.replay import step_player


@pytest.mark.parametrize("waiting, described", [(False, 17), (True, 1)])
def test_a_window_run_gives_way_to_a_run_waiting(monkeypatch, waiting, described):
    dialog = SimpleNamespace(token="t", n_steps=40)
    monkeypatch.setattr(streamlit, "session_state", {"player__wide": "t", "player__asked": True})
    monkeypatch.setattr(step_player, "run_waiting", lambda: waiting)
    asked = []
    steps, more, _ = step_player._new_steps("player", dialog, 10, lambda s: asked.append(s) or PlayerStep(s, ()))
    assert [one.step for one in steps] == asked and len(asked) == described and more is waiting


def test_outside_a_run_no_run_is_waiting():
    from ui.shell.reconnect import run_waiting

    assert run_waiting() is False
