"""Signing out ends the sign-in on the server, not only in the browser that signed out.

Streamlit keeps a sign-in in a signed cookie that holds the provider's claims and nothing the server
remembers, so a copy of the cookie taken before its owner signed out would still sign them in afterwards. On
sign-out the app records the sign-in as ended (``end``): a digest of the claims that name this one sign-in
(subject, issued-at, nonce, issuer), never the claims themselves, in the shared store, so every server of a
deployment refuses it (``ended``). Records older than a cookie can live are dropped as new ones are written.
"""
from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta, timezone
from typing import Mapping

from .database import Database
from .values import now as _now

# Streamlit's sign-in cookie lives 30 days, and the server still reads it a day past that.
KEPT_FOR = timedelta(days=31)
_NAMING_CLAIMS = ("iss", "sub", "iat", "nonce", "email", "sid")


def sign_in_digest(claims: Mapping[str, object]) -> str:
    """What names one sign-in: the claims that a new sign-in of the same person changes (``iat``, ``nonce``)
    with those that name the person, hashed."""
    named = {key: claims.get(key) for key in _NAMING_CLAIMS}
    return hashlib.sha256(json.dumps(named, sort_keys=True, default=str).encode("utf-8")).hexdigest()


class SignOuts:
    """The ended sign-ins of one database."""

    def __init__(self, db: Database):
        self.db = db

    def end(self, claims: Mapping[str, object]) -> None:
        """Record the sign-in ``claims`` name as ended. Anyone signed in may end their own sign-in: the record is
        made from the claims of the session that signs out, so no one can end another person's."""
        now = _now()
        oldest = (datetime.now(timezone.utc) - KEPT_FOR).isoformat(timespec="microseconds")
        digest = sign_in_digest(claims)
        with self.db.write() as cur:
            cur.execute("DELETE FROM ended_sign_ins WHERE ended_at < ?", [oldest])
            if cur.execute("SELECT 1 FROM ended_sign_ins WHERE sign_in = ?", [digest]).fetchone() is None:
                cur.execute("INSERT INTO ended_sign_ins (sign_in, ended_at) VALUES (?, ?)", [digest, now])

    def ended(self, claims: Mapping[str, object]) -> bool:
        """Whether the sign-in ``claims`` name was ended by signing out."""
        with self.db.read() as cur:
            found = cur.execute("SELECT 1 FROM ended_sign_ins WHERE sign_in = ?", [sign_in_digest(claims)]).fetchone()
        return found is not None
