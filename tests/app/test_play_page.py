"""The Play page (issue 49) through AppTest: it opens on every corpus (a corpus without a game says so), chooses a
dialog from the link, a split at random or the URL's slice, starts a play under the player's name and resumes it;
a viewer and the local user of a server open to other machines without sign-in get no play (the Start button
disabled, the reason said, nothing in the store); the Replay offers "Play this dialog"; a finished play stands on the
Runs page's leaderboard as ``person:<name>`` beside the models and the humans. The game itself (the
browser component) is driven in tests/e2e/test_play_browser.py."""
from __future__ import annotations

import pandas as pd
import pytest

from data_access.access import Role
from data_access.contract import play_rules_of
from data_access.corpora import demo_path, load_path
from data_access.registry import CORPUS_NAMES
from data_access.store import Store
from ui.shell import auth

from .conftest import open_page
from .test_signed_in_roles import _captions, sign_in  # noqa: F401  (the fixture)


def _dialogs(name: str) -> list[str]:
    loaded = load_path(name, demo_path(name))
    return play_rules_of(loaded).playable(loaded)


def _start(at):
    return next(b for b in at.button if b.key == "play_start")


def _texts(at) -> str:
    return " | ".join(str(e.value) for kind in ("caption", "info", "warning", "error", "success", "markdown")
                      for e in getattr(at, kind))


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_the_page_opens_on_every_corpus(name):
    at = open_page("play", corpus=name)
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == "Play"
    if play_rules_of(load_path(name, demo_path(name))) is not None:
        assert any(t.label == "Your name" for t in at.text_input)


def test_a_linked_dialog_is_started_under_the_name_and_resumed():
    dialog = _dialogs("minecraft")[1]
    at = open_page("play", corpus="minecraft", dialog=dialog, coder="ann")
    assert at.selectbox(key="play_dialog_minecraft").value == dialog
    assert not _start(at).disabled
    _start(at).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    plays = Store().plays
    play = plays.latest("minecraft", dialog, "Builder", "ann")
    assert play is not None and play.steps_done == 0 and play.status == "playing"
    again = open_page("play", corpus="minecraft", dialog=dialog, coder="ann")  # a new session: resumed, no Start
    assert not any(b.key == "play_start" for b in again.button)
    assert any(b.key == "play_restart" for b in again.button)


def test_a_dialog_of_a_split_is_picked_at_random_and_the_slice_narrows_the_choice():
    at = open_page("play", corpus="minecraft")
    splits = at.selectbox(key="play_split_minecraft").options
    assert splits[0] == "all splits" and len(splits) > 1
    at.selectbox(key="play_split_minecraft").set_value(splits[1]).run()
    next(b for b in at.button if b.key == "play_random_minecraft").click().run()
    chosen = at.selectbox(key="play_dialog_minecraft").value
    loaded = load_path("minecraft", demo_path("minecraft"))
    assert loaded.dialogs.set_index("dialog_id").loc[chosen, "split"] == splits[1]
    assert at.query_params["dialog"] == chosen
    only = _dialogs("minecraft")[2]
    sliced = open_page("play", corpus="minecraft", slice=f'dialog_id = "{only}"')
    assert [option.split(" · ")[0] for option in sliced.selectbox(key="play_dialog_minecraft").options] == [only]
    assert "From the slice: 1 of its 1 dialogs can be played." in _texts(sliced)


def test_a_viewer_cannot_start_a_play(sign_in):  # noqa: F811
    sign_in(Role.VIEWER, "vera")
    at = open_page("play", corpus="minecraft", dialog=_dialogs("minecraft")[0])
    assert _start(at).disabled
    assert "Read only: playing needs the coder role, and vera@lab.example is a viewer." in _captions(at)
    assert Store().plays.finished_stamp("minecraft") == (0, 0)
    assert Store().plays.latest("minecraft", _dialogs("minecraft")[0], "Builder", "vera") is None


def test_a_signed_in_coder_plays_under_their_own_name(sign_in):  # noqa: F811
    sign_in(Role.CODER, "carl")
    dialog = _dialogs("minecraft")[0]
    at = open_page("play", corpus="minecraft", dialog=dialog, coder="someone else")
    assert "Playing as **carl**" in _texts(at)
    _start(at).click().run()
    assert Store().plays.latest("minecraft", dialog, "Builder", "carl") is not None
    assert Store().plays.latest("minecraft", dialog, "Builder", "someone else") is None


def test_served_to_other_machines_without_sign_in_nobody_plays(monkeypatch):
    monkeypatch.setattr(auth, "served_beyond_localhost", lambda: True)
    at = open_page("play", corpus="minecraft", dialog=_dialogs("minecraft")[0], coder="ann")
    assert _start(at).disabled
    assert "reachable from other machines without sign-in" in _captions(at)


def test_the_replay_offers_to_play_the_dialog_shown():
    dialog = _dialogs("minecraft")[0]
    at = open_page("replay", corpus="minecraft", dialog=dialog, turn="1")
    links = [link.proto for link in at.get("page_link") if link.proto.label == "Play this dialog"]
    assert [(link.page, link.query_string) for link in links] == [("play", f"corpus=minecraft&dialog={dialog}")]


def test_a_finished_play_stands_on_the_leaderboard_beside_the_models_and_the_humans():
    from data_access.play.game import start, submit_step

    loaded = load_path("minecraft", demo_path("minecraft"))
    rules = play_rules_of(loaded)
    dialog = rules.playable(loaded)[0]
    seat = rules.seats(loaded, dialog)[0]
    store = Store()
    play = start(store, loaded, dialog, seat, player="ann")
    for step in range(1, play.n_steps + 1):  # the human Builder's own actions: F1 1 on the dialog's samples
        play = submit_step(store, loaded, play, step, rules.human_move(loaded, dialog, seat, step))
    at = open_page("pages/runs.py", corpus="minecraft")
    boards = [d.value for d in at.dataframe if "below_best" in d.value.columns]  # one a split
    mine = pd.concat([b for b in boards if "person:ann" in set(b["run"])])
    assert {"person:ann", "baseline", "noisy"} <= set(mine["run"])  # a person ranked beside the models
    ann = mine[mine["run"] == "person:ann"].iloc[0]
    assert ann["score"] == pytest.approx(1.0) and ann["humans"] == pytest.approx(1.0)  # and beside the humans
