"""``UploadGuard``, the ASGI middleware ``server.py`` serves the app with in front of Streamlit's upload endpoint
(``PUT /_stcore/upload_file/<session>/<file id>``) and its media (``/media/...``).

Why: Streamlit keeps every uploaded file in memory (``MemoryUploadedFileManager``) until its widget lets go of it
or the session ends, under any file id a client makes up, and it bounds one request only
(``server.maxUploadSize``). Six 150 MB PUTs into one session took a server from 162 MB to 1,064 MB. So:

- a session holds at most ``session_budget`` bytes of uploads and the server ``total_budget`` in all, counting
  what the upload manager already holds and what is still arriving; a PUT that would pass either is refused
  with 413, at once when its ``Content-Length`` says so, else as soon as its streamed bytes do (before
  Streamlit's handler has buffered the rest); the refused body's rest is then read and dropped (bounded) so that
  the client gets the 413 rather than a connection reset;
- with sign-in configured, a PUT or DELETE of an upload, and any ``/media/`` file, needs the signed-in
  identity cookie that ``st.login`` sets (``_streamlit_user``, signed with the auth ``cookie_secret`` by
  itsdangerous, holding ``is_logged_in`` and the ``redirect_uri``'s origin); without it: 403. The cookie is
  checked the way Streamlit's own websocket handler checks it (signature, age, chunks, origin).

Budgets: ``data_access.budgets`` (``UPLOAD_SESSION_BYTES``, ``UPLOAD_TOTAL_BYTES``), overridable in MB by
``DIALOGUE_UPLOAD_SESSION_MB`` and ``DIALOGUE_UPLOAD_TOTAL_MB``; docs/hardening.md, "The upload endpoint"."""
from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from dataclasses import dataclass
from typing import Callable, Mapping, Optional

from data_access.budgets import UPLOAD_SESSION_BYTES, UPLOAD_TOTAL_BYTES, MiB
from ui.shell.url_state import base_path

_UPLOAD_PATH = re.compile(r"/_stcore/upload_file/([^/]+)/([^/]+)/?")
# A refused body's unread rest is read and dropped (never kept) before the 413 goes out: a server that closes with a
# request's bytes still unread makes the client's TCP stack answer with a reset, and the client sees "connection
# reset" instead of the refusal. Bounded, so that a refused body costs at most this much reading.
REFUSED_BODY_DRAIN_BYTES = 256 * MiB
REFUSED_BODY_DRAIN_SECONDS = 10.0


@dataclass(frozen=True)
class UploadBudgets:
    session: int  # bytes one session's uploads may hold
    total: int  # bytes every session's uploads may hold together


def budgets_from_environment(environ: Optional[Mapping[str, str]] = None,
                             warn: Callable[[str], None] = print) -> UploadBudgets:
    """The budgets, each replaced by its variable (whole MB) when that is set; a value that is no positive whole
    number is said and the default kept."""
    env = os.environ if environ is None else environ
    values = {"session": UPLOAD_SESSION_BYTES, "total": UPLOAD_TOTAL_BYTES}
    for key, variable in (("session", "DIALOGUE_UPLOAD_SESSION_MB"), ("total", "DIALOGUE_UPLOAD_TOTAL_MB")):
        text = (env.get(variable) or "").strip()
        if not text:
            continue
        if text.isdigit() and int(text) > 0:
            values[key] = int(text) * MiB
        else:
            warn(f"dialogue-dashboard: {variable}={text!r} is no positive whole number of MB; "
                 f"keeping {values[key] // MiB} MB.")
    return UploadBudgets(**values)


def _streamlit_held(session_id: str, file_id: str) -> tuple[int, int]:
    """What Streamlit's upload manager holds now: (this session's bytes, every session's bytes), leaving out the
    file that this upload would replace."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return 0, 0
    storage = getattr(Runtime.instance().uploaded_file_mgr, "file_storage", None)
    if storage is None:  # not the in-memory manager: it holds nothing in this process
        return 0, 0
    session = total = 0
    for owner, files in list(storage.items()):  # copies: scripts' threads remove files meanwhile
        for key, record in list(files.items()):
            if owner == session_id and key == file_id:
                continue
            size = len(record.data)
            total += size
            if owner == session_id:
                session += size
    return session, total


def signed_in_cookie(cookies: Mapping[str, str]) -> bool:
    """Whether ``cookies`` carry a valid ``st.login`` identity: signed with this deployment's cookie secret, not
    expired, saying ``is_logged_in``, for this deployment's origin (from ``redirect_uri``)."""
    return signed_in_claims(cookies) is not None


def signed_in_claims(cookies: Mapping[str, str]) -> Optional[dict]:
    """The sign-in's claims as ``st.user`` holds them (``is_logged_in`` and the provider's claims, without the
    origin) when ``cookies`` carry a valid ``st.login`` identity (as ``signed_in_cookie`` checks it), else None."""
    from streamlit.auth_util import get_cookie_with_chunks, get_origin_from_redirect_uri
    from streamlit.web.server.server_util import get_cookie_secret
    from streamlit.web.server.starlette.starlette_app_utils import decode_signed_value
    from streamlit.web.server.starlette.starlette_server_config import USER_COOKIE_NAME

    if USER_COOKIE_NAME not in cookies:
        return None
    secret = get_cookie_secret()

    def single(name: str) -> Optional[bytes]:
        raw = cookies.get(name)
        return None if raw is None else decode_signed_value(secret, name, raw.encode("latin-1", "replace"))

    try:
        decoded = get_cookie_with_chunks(single, USER_COOKIE_NAME)
        payload = json.loads(decoded) if decoded else None
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(payload, dict) or payload.get("is_logged_in") is not True:
        return None
    expected = get_origin_from_redirect_uri()
    if expected is None or payload.get("origin") != expected:
        return None
    return {key: value for key, value in payload.items() if key != "origin"}


def _sign_in_configured() -> bool:
    from ui.shell.auth import sign_in_configured

    return sign_in_configured()


def _cookies(scope) -> dict[str, str]:
    from starlette.requests import cookie_parser

    header = b"; ".join(v for k, v in scope.get("headers", []) if k.lower() == b"cookie")
    return cookie_parser(header.decode("latin-1")) if header else {}


class _TooMuch(Exception):
    pass


class UploadGuard:
    """ASGI middleware: bounds what uploads hold per session and in all, and keeps uploads and media for signed-in
    people when sign-in is configured. Every other request passes through untouched."""

    def __init__(self, app, budgets: Optional[UploadBudgets] = None,
                 held: Callable[[str, str], tuple[int, int]] = _streamlit_held,
                 sign_in_configured: Callable[[], bool] = _sign_in_configured,
                 signed_in: Callable[[Mapping[str, str]], bool] = signed_in_cookie):
        self.app = app
        self.budgets = budgets or budgets_from_environment()
        self.held = held
        self.sign_in_configured = sign_in_configured
        self.signed_in = signed_in
        self._arriving: dict[object, tuple[str, int]] = {}  # request -> (its session, its bytes so far)
        self._lock = threading.Lock()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        base = base_path()
        path = scope.get("path", "")
        rest = path[len(base):] if path.startswith(base) else ""
        method = scope.get("method", "")
        upload = _UPLOAD_PATH.fullmatch(rest)
        if upload and method in ("PUT", "DELETE") or rest.startswith("/media/"):
            if self.sign_in_configured() and not self.signed_in(_cookies(scope)):
                await _refuse(send, 403, "Refused: sign in first (uploads and media need a signed-in session).")
                return
        if upload and method == "PUT":
            await self._bounded_upload(scope, receive, send, upload.group(1), upload.group(2))
            return
        await self.app(scope, receive, send)

    def _over(self, request: object, session_id: str, file_id: str, adding: int, count: bool = True) -> Optional[str]:
        """Why ``adding`` more bytes of this upload would pass a budget (None when it would not); unless only
        checking, the bytes are then counted as arriving for ``request``."""
        held_session, held_total = self.held(session_id, file_id)
        with self._lock:
            mine = self._arriving.get(request, (session_id, 0))[1] + adding
            others = [(owner, size) for key, (owner, size) in self._arriving.items() if key is not request]
            arriving_session = mine + sum(size for owner, size in others if owner == session_id)
            arriving_total = mine + sum(size for _, size in others)
            if held_session + arriving_session > self.budgets.session:
                return (f"Upload refused: a session may hold at most {self.budgets.session // MiB} MB of uploads, and "
                        f"this one holds {held_session // MiB} MB; remove a file first (docs/hardening.md).")
            if held_total + arriving_total > self.budgets.total:
                return (f"Upload refused: the server holds {held_total // MiB} MB of uploads, and at most "
                        f"{self.budgets.total // MiB} MB in all; try again later (docs/hardening.md).")
            if count:
                self._arriving[request] = (session_id, mine)
            return None

    async def _bounded_upload(self, scope, receive, send, session_id: str, file_id: str) -> None:
        request = object()  # this request's own entry, beside other uploads of the same session
        declared = dict(scope.get("headers", [])).get(b"content-length", b"")
        # A body that says it is too large is refused before a byte of it is read; whatever it says, its bytes
        # are counted as they arrive (a declared length can lie).
        reason = self._over(request, session_id, file_id, int(declared), count=False) if declared.isdigit() else None
        if reason:
            # a client that waits for "100 Continue" has sent nothing yet, and one that declares more than the
            # drain's bound is not waited for
            waiting = dict(scope.get("headers", [])).get(b"expect", b"").lower() == b"100-continue"
            if not waiting and int(declared) <= REFUSED_BODY_DRAIN_BYTES:
                await _drain(receive)
            await _refuse(send, 413, reason)
            return
        started = False
        body_done = False

        async def counted_receive():
            nonlocal body_done
            message = await receive()
            if message["type"] == "http.request":
                body_done = not message.get("more_body")
                refusal = self._over(request, session_id, file_id, len(message.get("body", b"")))
                if refusal:
                    raise _TooMuch(refusal)
            else:
                body_done = True
            return message

        async def noting_send(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, noting_send)
        except _TooMuch as refusal:
            if started:
                raise
            if not body_done:
                await _drain(receive)
            await _refuse(send, 413, str(refusal))
        finally:
            with self._lock:
                self._arriving.pop(request, None)


async def _drain(receive) -> None:
    """Reads and drops the rest of a request's body, up to ``REFUSED_BODY_DRAIN_BYTES`` and
    ``REFUSED_BODY_DRAIN_SECONDS``; past either, the refusal goes out anyway."""
    async def rest() -> None:
        read = 0
        while read <= REFUSED_BODY_DRAIN_BYTES:
            message = await receive()
            if message["type"] != "http.request":
                return
            read += len(message.get("body", b""))
            if not message.get("more_body"):
                return

    try:
        await asyncio.wait_for(rest(), REFUSED_BODY_DRAIN_SECONDS)
    except asyncio.TimeoutError:
        pass


async def _refuse(send, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
