"""The Play page's live part (issue 50, ui/play/live.py) through AppTest: a signed-in coder agrees to the consent
text, creates a game and gets its invitation link (the game waits in the store under their name and role); the link opened by a third person says the
game is full, by a viewer or the visitor of a server open to other machines that they cannot play, and neither sees
the game. The game's screens themselves (the browser component and the routes) are driven in
tests/e2e/test_live_browser.py."""
from __future__ import annotations

from data_access import live
from data_access.access import Identity, Role
from data_access.corpora import demo_path, load_path
from data_access.registry import corpus_module
from data_access.store import Store
from ui.shell import auth

from .conftest import open_page
from .test_signed_in_roles import sign_in  # noqa: F401  (the fixture)

TARGET = [[0, 1, 0, "blue"]]


def _texts(at) -> str:
    return " | ".join(str(e.value) for kind in ("caption", "info", "warning", "error", "success", "markdown", "code")
                      for e in getattr(at, kind))


def _a_full_game() -> str:
    """A game of alice (Architect) and bob, made straight in the store; its invitation token."""
    store = Store(sign_in=True)
    alice, bob = (Identity(coder=c, role=Role.CODER, email=f"{c}@lab.example", signed_in=True) for c in ("alice", "bob"))
    _game, token = live.create(store, corpus_module("minecraft"), "C1", "Architect",
                               {"roles": {"Architect": {"target": TARGET}}}, actor=alice)
    store.live_games.join(token, actor=bob)
    return token


def test_a_signed_in_coder_creates_a_game_and_is_given_its_invitation(sign_in):  # noqa: F811
    carl = sign_in(Role.CODER, "carl")
    at = open_page("play", corpus="minecraft")
    assert "Play with someone" in [h.value for h in at.subheader]
    assert not any(b.key == "live_create_minecraft" for b in at.button)  # the consent text first
    next(b for b in at.button if b.key == "live_consent_agree_new-minecraft").click().run()
    at.radio(key="live_role_minecraft").set_value("Builder").run()
    next(b for b in at.button if b.key == "live_create_minecraft").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (game,) = Store(sign_in=True).live_games.mine(viewer=carl)
    assert (game.corpus, game.status, game.role_of("carl")) == ("minecraft", "waiting", "Builder")
    token = at.query_params["live"]
    token = token[0] if isinstance(token, list) else token
    assert f"/play?corpus=minecraft&live={token}" in _texts(at)  # the invitation, for the Architect to open
    assert "Send this invitation to your partner (they play the Architect)" in _texts(at)


def test_the_urls_slice_narrows_the_items_a_game_is_created_over(sign_in):  # noqa: F811
    sign_in(Role.CODER, "carl")
    dialogs = load_path("minecraft", demo_path("minecraft")).frames["dialogs"]
    dialog, target = (str(v) for v in dialogs[["dialog_id", "config"]].iloc[-1])
    at = open_page("play", corpus="minecraft", slice=f'dialog_id = "{dialog}"')
    next(b for b in at.button if b.key == "live_consent_agree_new-minecraft").click().run()
    assert at.selectbox(key="live_item_minecraft").options == [target]
    assert "From the slice: its 1 dialogs were played over 1 items that can be played live." in _texts(at)
    unsliced = open_page("play", corpus="minecraft")  # (carl agreed already: once a person and text)
    assert len(unsliced.selectbox(key="live_item_minecraft").options) > 1  # the demo has several targets


def test_the_invitation_of_a_full_game_is_refused_to_a_third_person_and_to_a_viewer(sign_in):  # noqa: F811
    token = _a_full_game()
    sign_in(Role.CODER, "carl")
    at = open_page("play", corpus="minecraft", live=token)
    next(b for b in at.button if b.key == "live_consent_agree_join").click().run()  # before the game: the consent
    assert "This game is full" in _texts(at) and "Only its two players see it" in _texts(at)
    sign_in(Role.VIEWER, "vera")
    at = open_page("play", corpus="minecraft", live=token)
    assert "You cannot play" in _texts(at) and "is a viewer" in _texts(at)
    assert "This game is full" not in _texts(at)  # a viewer is not even told who plays


def test_a_server_open_to_other_machines_without_sign_in_lets_nobody_play(monkeypatch):
    monkeypatch.setattr(auth, "served_beyond_localhost", lambda: True)
    at = open_page("play", corpus="minecraft", live="x" * 32)
    assert "You cannot play" in _texts(at) and "reachable from other machines" in _texts(at)
    at = open_page("play", corpus="minecraft")
    assert not any(b.key == "live_create_minecraft" for b in at.button)
