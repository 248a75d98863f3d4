"""Passwords out of every text that may show a database target: the Data page, captions, messages, logs.

``redact(text)`` hides the password of each PostgreSQL target in ``text``, in every form libpq accepts:

- URI user info: ``postgresql://user:secret@host/db`` → ``postgresql://user:***@host/db``. libpq takes the user
  info up to the ``@``, so a password may hold ``?``, ``#``, ``/`` or even ``@``: everything between ``user:``
  and the *last* ``@`` of the URL is hidden (when a URL holds several ``@``, more is hidden rather than less);
- query parameters: ``?password=secret`` and ``&sslpassword=secret`` (up to the next ``&keyword=``);
- keyword/value strings: ``host=db password=secret``, ``password = 'it''s quoted'`` (quoted values, escapes
  and an unclosed quote included), and ``sslpassword`` likewise;
- literal secrets the caller knows (``secrets=``: the password itself, as written and percent-decoded), so an
  error message that quotes the password alone (libpq's "invalid percent-encoded token: ...") is covered too.

Nothing is decoded or parsed as a URL, so a malformed target (an unclosed IPv6 bracket, a bad
percent-escape, a stray quote) is redacted like any other, and ``redact`` never raises.
"""
from __future__ import annotations

import logging
import re
from typing import Iterable
from urllib.parse import unquote

MASK = "***"
MIN_SECRET_CHARS = 3  # a literal secret shorter than this is not searched for (it would mask every "a")

_SCHEME = re.compile(r"postgres(?:ql)?://", re.IGNORECASE)
_QUERY_SECRET = re.compile(r"(?i)([?&]\s*(?:ssl)?password\s*=)[^&#]*(?:&(?![A-Za-z_]+=)[^&#]*)*")
_KEYWORD_SECRET = re.compile(r"""(?i)\b((?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.|'')*'?|[^\s'"]\S*|"[^"]*"?)""")
_URL_END = re.compile(r"\s")
_HOST = r"(?:\[[^\]/@]*\]|[\w.%-]*)(?::\d*)?"
_HOST_LIST = re.compile(rf"{_HOST}(?:,{_HOST})*")  # host[:port][,host[:port]...] as libpq lists them


def redact(text: object, secrets: Iterable[str] = ()) -> str:
    """``text`` with every PostgreSQL password in it replaced by ``***`` (see the module docstring)."""
    try:
        value = "" if text is None else str(text)
        value = _redact_urls(value)
        for secret in sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True):
            value = value.replace(secret, MASK)
        return value
    except Exception:  # noqa: BLE001 - a redaction that fails must not show the text it failed on
        return "(a database target, hidden because it could not be redacted)"


def url_secrets(target: object) -> list[str]:
    """The passwords a target holds (user info, ``password=``/``sslpassword=``), raw and percent-decoded, for
    ``redact(..., secrets=)``. Never raises; a malformed target gives what could be found."""
    found: list[str] = []
    try:
        text = str(target)
        for start, end in _url_spans(text):
            url = text[start:end]
            scheme = _SCHEME.match(url)
            assert scheme is not None  # every span starts with the scheme (_url_spans)
            password = _userinfo_password(url[scheme.end():])
            if password is not None:
                found.append(password[0])
        for match in re.finditer(r"(?i)(?:ssl)?password\s*=\s*('(?:[^'\\]|\\.|'')*'?|[^&#\s]*)", text):
            value = match.group(1)
            found.append(value)
            found.append(value.strip("'"))
        found += [unquote(value) for value in list(found)]
    except Exception:  # noqa: BLE001
        pass
    return [value for value in dict.fromkeys(found) if value]


class RedactingFilter(logging.Filter):
    """A logging filter that redacts each record's message (and its arguments) before any handler sees it."""

    def __init__(self, secrets: Iterable[str] = ()):
        super().__init__()
        self.secrets = tuple(secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a record whose arguments do not format: keep only its template
            message = str(record.msg)
        record.msg, record.args = redact(message, self.secrets), None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info), self.secrets)
            record.exc_info = None
        return True


def _url_spans(text: str) -> list[tuple[int, int]]:
    """Where each PostgreSQL URL in ``text`` starts and ends: a text that is one URL (what a setting holds)
    is all of it, spaces included; inside a longer message a URL ends at white space."""
    spans = []
    stripped = text.strip()
    if _SCHEME.match(stripped) and not _SCHEME.search(stripped, 1):
        start = text.index(stripped[:1])
        return [(start, start + len(stripped))]
    for match in _SCHEME.finditer(text):
        end = _URL_END.search(text, match.end())
        spans.append((match.start(), end.start() if end else len(text)))
    return spans


def _redact_urls(text: str) -> str:
    """URLs redacted by their own rules, the text between them as keyword/value strings."""
    pieces, position = [], 0
    for start, end in _url_spans(text):
        pieces.append(_KEYWORD_SECRET.sub(lambda m: m.group(1) + MASK, text[position:start]))
        pieces.append(_redact_url(text[start:end]))
        position = end
    pieces.append(_KEYWORD_SECRET.sub(lambda m: m.group(1) + MASK, text[position:]))
    return "".join(pieces)


def _userinfo_password(rest: str) -> "tuple[str, int] | None":
    """The password in the user info of a URL without its scheme, and where the user info ends (its last
    ``@``); None when there is none (no ``@``, no ``:`` before it, or the ``@`` is in the path or query)."""
    at = rest.rfind("@")
    if at < 0 or ":" not in rest[:at]:
        return None
    before_first = rest[:rest.find("@")]
    slash = before_first.find("/")
    if slash >= 0 and _HOST_LIST.fullmatch(before_first[:slash]):
        return None  # host[:port]/path...@...: the "@" is in the path or query
    if not any(mark in before_first for mark in ":/?#"):
        return None  # user@...: a user name alone, the later "@" belongs to the query
    return rest[:at].split(":", 1)[1], at


def _redact_url(url: str) -> str:
    scheme = _SCHEME.match(url)
    assert scheme is not None  # called on the spans of _url_spans, which start with the scheme
    head, rest = url[:scheme.end()], url[scheme.end():]
    password = _userinfo_password(rest)
    if password is not None:
        rest = rest.split(":", 1)[0] + ":" + MASK + rest[password[1]:]
    return head + _QUERY_SECRET.sub(lambda m: m.group(1) + MASK, rest)
