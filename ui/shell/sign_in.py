"""Whether the deployment has sign-in: one question that both the writing identity (``ui.shell.auth``) and the store
(``ui.store``, which then refuses writes without a signed-in actor) ask. It stands below both so that the store
does not reach up to the identity that itself reads the store's sign-outs."""
from __future__ import annotations

import streamlit as st


def configured() -> bool:
    """Whether the deployment has sign-in: an ``[auth]`` table in Streamlit's secrets."""
    try:
        return "auth" in st.secrets
    except Exception:  # noqa: BLE001 - no secrets file, or one Streamlit cannot parse: no sign-in configured
        return False
