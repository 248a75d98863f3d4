"""The consent text before a live game (issue 50), drawn by ``ui.play.consent``: a person sees the admin's text and
"I agree", the agreement is recorded (who, which version, for which game) and the game may go on; a text changed
between drawing and clicking is shown again, not agreed to; the admin's part saves a new version and lists who
agreed, and is only a caption for anyone else."""
from __future__ import annotations

import pytest

from data_access.access import Identity, Role
from data_access.store import Store
from tests.app.conftest import run_function

ADMIN = Identity(coder="root", role=Role.ADMIN, email="root@lab.example", signed_in=True)


def consent_page():
    import os

    import streamlit as st

    from data_access.access import Identity, Role
    from data_access.store import Store
    from ui.play.consent import consent_editor, consent_given

    who = st.query_params.get("who", "alice")
    role = Role.ADMIN if who == "root" else Role.CODER
    person = Identity(coder=who, role=role, email=f"{who}@lab.example", signed_in=True)
    store = Store(os.environ["TEST_LIVE_CONSENT_STORE"], sign_in=True)
    if st.query_params.get("part") == "editor":
        consent_editor(store, person)
    elif consent_given(store, person, "game 3"):
        st.markdown("THE GAME")


@pytest.fixture
def store(tmp_path, monkeypatch):
    path = tmp_path / "notes.sqlite3"
    monkeypatch.setenv("TEST_LIVE_CONSENT_STORE", str(path))
    opened = Store(path, sign_in=True)
    yield opened
    opened.close()


def _said(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_a_person_agrees_to_the_text_shown_once_and_plays(store):
    store.live_consent.set_text("Your **messages** are recorded.", actor=ADMIN)
    at = run_function(consent_page)
    assert "Your **messages** are recorded." in _said(at) and "THE GAME" not in _said(at)
    store.live_consent.set_text("Your messages and moves are recorded.", actor=ADMIN)  # changed after drawing
    at.button(key="live_consent_agree_game 3").click().run()
    assert not store.live_consent.has_agreed("alice") and "THE GAME" not in _said(at)
    assert "changed since it was shown" in at.warning[0].value and "moves are recorded" in _said(at)
    at.button(key="live_consent_agree_game 3").click().run()
    assert "THE GAME" in _said(at) and not at.button
    [agreement] = store.live_consent.agreements(viewer=ADMIN)
    assert (agreement.coder, agreement.text_version, agreement.game) == ("alice", store.live_consent.current().version,
                                                                          "game 3")
    again = run_function(consent_page)  # a new session: agreed once, not asked again
    assert "THE GAME" in _said(again)


def test_the_admin_sets_the_text_and_sees_who_agreed_and_nobody_else_can(store):
    store.live_consent.agree(0, "game 1", actor=Identity(coder="bob", role=Role.CODER, signed_in=True))
    at = run_function(consent_page, who="root", part="editor")
    assert at.text_area(key="live_consent_text").value == store.live_consent.current().text
    assert at.dataframe[0].value["coder"].tolist() == ["bob"]
    at.text_area(key="live_consent_text").set_value("Be kind; it is all recorded.").run()  # typed: the box loses focus
    at.button(key="live_consent_save").click().run()
    assert "version" in at.success[0].value and store.live_consent.current().text == "Be kind; it is all recorded."
    other = run_function(consent_page, who="carol", part="editor")
    assert not other.text_area and "set by an admin" in other.caption[0].value
