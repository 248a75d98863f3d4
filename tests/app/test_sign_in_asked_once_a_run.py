"""``ui.shell.sign_in.configured`` asks Streamlit's secrets once a script run: without a secrets file each access
looks for one again (about 0.7 ms), and a Replay run asked a dozen times. The next run asks again, so a secrets
file written meanwhile counts from then on."""
from __future__ import annotations

import streamlit
from streamlit.testing.v1 import AppTest


def asking_page():
    import streamlit as st

    from ui.shell import sign_in

    st.session_state["answers"] = [sign_in.configured() for _ in range(5)]


class CountingSecrets:
    """Stands in for ``st.secrets``: whether it has an ``[auth]`` table, and how often it was asked."""

    def __init__(self, has_auth: bool):
        self.has_auth, self.asked = has_auth, 0

    def __contains__(self, key: str) -> bool:
        self.asked += 1
        return self.has_auth and key == "auth"


def test_a_run_asks_the_secrets_once_and_the_next_run_asks_again(monkeypatch):
    secrets = CountingSecrets(False)
    monkeypatch.setattr(streamlit, "secrets", secrets)
    at = AppTest.from_function(asking_page)
    at.run()
    assert at.session_state["answers"] == [False] * 5 and secrets.asked == 1
    secrets.has_auth = True  # a secrets file with [auth] written between two runs
    at.run()
    assert at.session_state["answers"] == [True] * 5 and secrets.asked == 2


def test_outside_a_run_every_question_is_asked(monkeypatch):
    from ui.shell import sign_in

    secrets = CountingSecrets(True)
    monkeypatch.setattr(streamlit, "secrets", secrets)
    assert sign_in.configured() and sign_in.configured() and secrets.asked == 2  # a server request (uploads, media)
