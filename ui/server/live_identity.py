"""Who a live game's request (``ui.server.live_routes``) comes from, worked out as the pages work it out, and the
routes as ``server.py`` serves them (``app_routes``).

- With sign-in configured: the ``st.login`` cookie, checked as Streamlit's own websocket checks it
  (``upload_guard.signed_in_claims``), gives the claims; the roles file gives the role, and a sign-in ended by
  signing out (``Store.sign_outs``) counts for nobody, a viewer while the store cannot say
  (``ui.shell.auth.person_of_claims``). No valid cookie: a viewer who cannot write.
- Without sign-in: the local user under the name the page sends in the header ``X-Live-Player`` (the name typed on
  the Play page, as every page of a deployment without sign-in takes it), read only when the server is reachable
  from other machines (``ui.shell.auth.identity_of``).
"""
from __future__ import annotations

from typing import Optional
from urllib.parse import unquote

from starlette.requests import Request
from starlette.routing import Route

from data_access.access import Identity
from data_access.store import StoreError
from ui.server.upload_guard import signed_in_claims

PLAYER_HEADER = "x-live-player"
MAX_PLAYER_CHARS = 80


def request_identity(request: Request) -> Identity:
    """The identity the store checks ``request``'s reads and writes against."""
    from ui.shell.auth import identity_of, person_of_claims, sign_in_configured
    from ui.store import shared_store

    if not sign_in_configured():
        name = " ".join(unquote(request.headers.get(PLAYER_HEADER, ""))[:MAX_PLAYER_CHARS].split())
        return identity_of(None, name)
    claims = signed_in_claims(request.cookies)
    person: Optional[Identity] = None
    if claims is not None:
        try:
            ended: Optional[bool] = shared_store().sign_outs.ended(claims)
        except StoreError:
            ended = None
        person = person_of_claims(claims, ended)
    return identity_of(person)


def app_routes() -> list[Route]:
    """The live game's routes over the app's shared store (``ui.store.shared_store``), under its base path."""
    from data_access.registry import corpus_module
    from ui.server.live_routes import LiveBackend, routes
    from ui.shell.url_state import base_path
    from ui.store import shared_store

    return routes(LiveBackend(store=shared_store, identity=request_identity, package=corpus_module), base_path())
