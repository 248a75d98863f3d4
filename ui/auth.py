"""Sign-in: Streamlit's own ``st.login`` (OpenID Connect, configured by an ``[auth]`` table in
``.streamlit/secrets.toml``) and the identity every page writes as.

Without an ``[auth]`` table nothing changes: one local user, every role, the coder name chosen in the session.
With one, ``app.py`` asks for sign-in before any page, the sidebar names the signed-in person and their role,
and ``identity()`` is what the store checks each write against (``data_access.access``); the role comes from
the roles file (``DIALOGUE_ROLES``).

Pages ask ``allowed(action, doing)`` before drawing a write control: it says (a caption) why the control is
read only when the identity may not use it, and ``coding_as(...)`` replaces the free-text coder box once
signed in. Tests stand in for a signed-in person by patching ``sign_in_configured`` and
``signed_in_identity`` (AppTest cannot go through the provider); every caller looks them up here.
"""
from __future__ import annotations

from typing import Optional

import streamlit as st

# Action and AccessRefused are re-exported for the pages (which import ui, not data_access).
from data_access.access import AccessRefused, Action, Identity, RoleBook, RolesFileError, configured_roles

from .widgets import md_escape

__all__ = ["AccessRefused", "Action", "allowed", "coding_as", "identity", "require_sign_in", "roles",
           "sign_in_configured", "signed_in_identity", "writer"]


def sign_in_configured() -> bool:
    """Whether the deployment has sign-in: an ``[auth]`` table in Streamlit's secrets."""
    try:
        return "auth" in st.secrets
    except Exception:  # noqa: BLE001 - no secrets file, or one Streamlit cannot parse: no sign-in configured
        return False


@st.cache_resource(show_spinner=False)
def _roles(_marker: str) -> RoleBook:
    return configured_roles()


def roles() -> RoleBook:
    """The roles file, read once per server (its path is the key, so a changed DIALOGUE_ROLES reads again)."""
    import os

    from data_access.access import ROLES_VARIABLE

    return _roles(os.environ.get(ROLES_VARIABLE, ""))


def signed_in_identity() -> Optional[Identity]:
    """The signed-in person's identity, or None when nobody is signed in (or sign-in is not configured)."""
    if not sign_in_configured() or not st.user.is_logged_in:
        return None
    return roles().identity(st.user.get("email"), st.user.get("sub"))


def identity(local_coder: str = "") -> Identity:
    """Who this session writes as: the signed-in person, else (no sign-in configured) the local user coding as
    ``local_coder``. With sign-in configured but nobody signed in, a viewer who cannot write."""
    person = signed_in_identity()
    if person is not None:
        return person
    if sign_in_configured():
        from data_access.access import Role

        return Identity(coder="", role=Role.VIEWER, signed_in=True)
    return Identity.local(local_coder)


def writer() -> Identity:
    """Who this session's writes are made by: ``identity(current_coder())``, the coder name chosen in the
    session standing for the local user without sign-in."""
    from ui.coding import current_coder

    return identity(current_coder())


def allowed(action: Action, doing: str, local_coder: str = "", container=None) -> bool:
    """Whether this session's identity may ``action``; when not, a caption saying why (``doing``: "adding
    notes", "editing codebooks" ...), so the controls drawn disabled or left out are explained."""
    person = identity(local_coder)
    if person.may(action):
        return True
    reason = f"{person.who} is a {person.role.label}" if person.coder else "nobody is signed in"
    (container or st).caption(f"Read only: {md_escape(doing)} needs the {action.needs.label} role, and "
                              f"{md_escape(reason)}.")
    return False


def coding_as(container=None) -> str:
    """Signed in: the coder name every write is attributed to, shown instead of a free-text box."""
    person = identity()
    (container or st).caption(f"Coding as **{md_escape(person.coder)}**" if person.coder else
                              "Not coding: sign in first.")
    return person.coder


def require_sign_in() -> None:
    """Called by app.py before any page: with sign-in configured and nobody signed in, show only the sign-in
    button; a roles file that cannot be read stops every page with its message. The sidebar says who is
    signed in (or that this is the local user)."""
    if not sign_in_configured():
        st.sidebar.caption("Local user: sign-in is not configured (docs/deployment.md).")
        return
    try:
        person = signed_in_identity()
    except RolesFileError as exc:
        st.error(md_escape(str(exc)), icon=":material/error:")
        st.stop()
    if person is None:
        st.title("Visually grounded dialogue dashboard")
        st.write("Sign in with your lab account to continue.")
        st.button("Sign in", on_click=st.login, type="primary")
        st.stop()
    st.sidebar.caption(f"Signed in as {md_escape(person.who)} ({person.role.label})")
    st.sidebar.button("Sign out", on_click=st.logout, key="sign_out")
