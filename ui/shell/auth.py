"""Sign-in: Streamlit's own ``st.login`` (OpenID Connect, configured by an ``[auth]`` table in
``.streamlit/secrets.toml``) and the identity every page writes as.

Without an ``[auth]`` table: one local user, every role, the coder name chosen in the session, while the server
listens on this machine only; served to other machines without sign-in, nobody writes (``identity``). With one, ``app.py`` asks for sign-in before any page, the sidebar names the signed-in person and their role,
and ``identity()`` is what the store checks each write against (``data_access.access``); the role comes from
the roles file (``DIALOGUE_ROLES``), matched on verified claims only (``RoleBook.identity_from_claims``).
Signing out ends the sign-in on the server too (``sign_out``; ``data_access.store.SignOuts``).

Pages ask ``allowed(action, doing)`` before drawing a write control: it says (a caption) why the control is
read only when the identity may not use it, and ``coding_as(...)`` replaces the free-text coder box once
signed in. Tests stand in for a signed-in person by patching ``sign_in_configured`` and
``signed_in_identity`` (AppTest cannot go through the provider); every caller looks them up here.
"""
from __future__ import annotations

# Action and AccessRefused are re-exported for the pages (which import ui, not data_access).
import dataclasses
import os
from typing import Optional

import streamlit as st

from data_access.access import AccessRefused, Action, Identity, Role, RoleBook, RolesFileError, configured_roles
from data_access.store import StoreError
from ui.server.exposure import served_beyond_localhost
from ui.shell import sign_in
from ui.shell.run_mark import stop_run
from ui.shell.url_state import query_param
from ui.widgets import md_escape

__all__ = ["AccessRefused", "Action", "allowed", "coding_as", "identity", "require_sign_in", "roles",
           "sign_in_configured", "signed_in_identity", "writer"]


def sign_in_configured() -> bool:
    """Whether the deployment has sign-in: an ``[auth]`` table in Streamlit's secrets (``ui.shell.sign_in``)."""
    return sign_in.configured()


def current_coder() -> str:
    """The coder's name: chosen in this browser session, else the URL's ``coder``, else ``DIALOGUE_CODER``."""
    return (st.session_state.get("coder") or query_param("coder") or os.environ.get("DIALOGUE_CODER", "")).strip()


@st.cache_resource(show_spinner=False)
def _roles(_marker: str) -> RoleBook:
    return configured_roles()


def roles() -> RoleBook:
    """The roles file, read once per server (its path is the key, so a changed DIALOGUE_ROLES reads again)."""
    from data_access.access import ROLES_VARIABLE

    return _roles(os.environ.get(ROLES_VARIABLE, ""))


def _claims() -> dict:
    """The provider's claims of this session's sign-in, as Streamlit keeps them."""
    return {key: st.user.get(key) for key in st.user.keys()}


def _sign_in_ended(claims: dict) -> Optional[bool]:
    """Whether this sign-in was ended by signing out (``data_access.store.SignOuts``); None when the store
    that keeps that cannot be read. Asked of the store once per script run: a page asks for its identity at
    every write control, and a sign-out elsewhere takes effect from the next run."""
    from ui.store import run_token, shared_store

    run, memo = run_token(), st.session_state.get("_sign_in_ended")
    if run is not None and memo is not None and memo[0] == run:
        return memo[1]
    try:
        ended: Optional[bool] = shared_store().sign_outs.ended(claims)
    except StoreError:
        ended = None
    st.session_state["_sign_in_ended"] = (run, ended)
    return ended


def signed_in_identity() -> Optional[Identity]:
    """The signed-in person's identity, or None when nobody is signed in (or sign-in is not configured), or
    when this sign-in was ended by signing out (a cookie copied before then). While the store that knows the
    ended sign-ins cannot be read, a viewer: nothing is written on the word of a cookie that may be ended."""
    if not sign_in_configured() or not st.user.is_logged_in:
        return None
    claims = _claims()
    return person_of_claims(claims, _sign_in_ended(claims))


def person_of_claims(claims: dict, ended: Optional[bool]) -> Optional[Identity]:
    """The identity of a sign-in's ``claims`` (the roles file decides the role), given whether that sign-in was
    ended (``ended``; None: not known, the store cannot be read): None once ended, a viewer while not known. The
    pages' ``signed_in_identity`` and the live game's routes (``ui.server.live_routes``, which read the claims
    from the request's cookie) both ask it."""
    person = roles().identity_from_claims(claims)
    if ended:
        return None
    if ended is None:
        return dataclasses.replace(person, role=Role.VIEWER)
    return person


# Set to 1 to let the local user write on a server reachable from other machines without sign-in (a demo on a
# trusted network); docs/deployment.md, "Who can reach the app".
OPEN_WRITES_VARIABLE = "DIALOGUE_WRITES_WITHOUT_SIGN_IN"


def identity(local_coder: str = "") -> Identity:
    """Who this session writes as: the signed-in person, else (no sign-in configured) the local user coding as
    ``local_coder``. With sign-in configured but nobody signed in, a viewer who cannot write. Without sign-in on
    a server reachable from other machines, nobody may write (every visitor would be the local user)."""
    return identity_of(signed_in_identity(), local_coder)


def identity_of(person: Optional[Identity], local_coder: str = "") -> Identity:
    """``identity``'s answer given the signed-in ``person`` (None: nobody, or no sign-in configured)."""
    if person is not None:
        return person
    if sign_in_configured():
        return Identity(coder="", role=Role.VIEWER, signed_in=True)
    if served_beyond_localhost() and os.environ.get(OPEN_WRITES_VARIABLE, "").strip() != "1":
        return Identity.local_read_only(
            "this server is reachable from other machines without sign-in, so nothing is written; turn sign-in on "
            "or listen on localhost (docs/deployment.md)")
    return Identity.local(local_coder)


def writer() -> Identity:
    """Who this session's writes are made by: ``identity(current_coder())``, the coder name chosen in the
    session standing for the local user without sign-in."""

    return identity(current_coder())


def allowed(action: Action, doing: str, local_coder: str = "", container=None, owner: Optional[str] = None) -> bool:
    """Whether this session's identity may ``action`` (on ``owner``'s work); when not, a caption saying why
    (``doing``: "adding notes", "editing codebooks" ...), so the controls drawn disabled or left out are
    explained."""
    person = identity(local_coder)
    if person.may(action, owner):
        return True
    if person.read_only_reason:
        reason = person.read_only_reason
        (container or st).caption(f"Read only: {md_escape(reason)}.")
        return False
    if person.role >= action.needs:
        reason = f"it is {owner or 'nobody'}'s, and {person.who} codes as {person.coder}"
        (container or st).caption(f"Read only: {md_escape(doing)} is for its owner or an admin; "
                                  f"{md_escape(reason)}.")
        return False
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
        local_user_notice()
        return
    try:
        person = signed_in_identity()
    except RolesFileError as exc:
        st.error(md_escape(str(exc)), icon=":material/error:")
        stop_run()
    if person is None:
        st.title("Visually grounded dialogue dashboard")
        st.write("Sign in with your lab account to continue.")
        st.button("Sign in", on_click=st.login, type="primary")
        stop_run()
    st.sidebar.caption(f"Signed in as {md_escape(person.who)} ({person.role.label})")
    if person.unverified_email:
        st.sidebar.caption(f"Your provider did not verify the e-mail {md_escape(person.unverified_email)}, so it is "
                           "not used: you are known by your account's subject.")
    st.sidebar.button("Sign out", on_click=sign_out, key="sign_out")


def sign_out() -> None:
    """End this sign-in on the server (a copy of its cookie no longer signs anyone in), then in the browser."""
    from ui.store import shared_store

    try:
        shared_store().sign_outs.end(_claims())
    except StoreError:
        pass  # the browser still signs out; the sidebar of a copied cookie's session then reads as a viewer
    st.logout()


def local_user_notice() -> None:
    """The sidebar's word on the local user (no sign-in), and why nothing is written when that is so."""
    person = identity()
    if person.read_only_reason:
        st.sidebar.warning(f"Read only: {md_escape(person.read_only_reason)}.", icon=":material/lock:")
    else:
        st.sidebar.caption("Local user: sign-in is not configured (docs/deployment.md).")
