"""Who a store write is made by: the acting ``Identity`` each write method takes (``actor=``), checked with
``data_access.access.check`` inside the write's transaction.

A store opened for a deployment with sign-in (``Store(target, sign_in=True)``) refuses a write without a
signed-in actor; without sign-in a missing actor is the local user (every role), writing under the coder name
the call gives, as the store always worked.
"""
from __future__ import annotations

from typing import Optional

from ..access import Identity, nobody_signed_in


def acting(actor: Optional[Identity], sign_in: bool, what: str, coder: Optional[str] = None) -> Identity:
    """The identity a write is checked against (``coder``: the name the call writes as, for the local user)."""
    if actor is None:
        if sign_in:
            raise nobody_signed_in(what)
        return Identity.local(coder if isinstance(coder, str) else "")
    if sign_in and not actor.signed_in:
        raise nobody_signed_in(what)
    return actor
