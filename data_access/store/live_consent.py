"""The consent text shown before a person joins or creates a live game (issue 50), and who agreed to it.

An admin sets the text (``set_text``: ``Action.MANAGE``, checked inside the write; anyone else is refused with
``AccessRefused`` and the refusal logged, as every refused write is). Each text set is a new immutable row whose id
is its version; until an admin sets one, the app's ``DEFAULT_TEXT`` is version 0. A person agrees to the version
they were shown (``agree``: their own coder name, ``Action.WRITE_OWN``), once per version: an agreement to a text
that changed since it was shown is refused (``ConsentChanged``), so nobody is recorded as agreeing to words they
never saw. ``agreements`` lists who agreed to which version, when and for which game, for a study's record.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..access import Action, Identity, attributed, check, checked_coder_name
from .acting import acting
from .database import Database, StoreError
from .values import now as _now

MAX_TEXT_CHARS = 20_000  # a consent form of several pages; the page shows it whole before the button
MAX_GAME_CHARS = 200  # what the agreement was given for: a game's id, or what the page was about to create
MAX_AGREEMENTS_LISTED = 10_000  # agreements one listing returns (a study of a class: tens)
DEFAULT_TEXT = (
    "You are about to play a game with another person. Everything you write and do in the game (your messages, "
    "your moves, and their times) is recorded, and may be kept and shared for research in the file format of the "
    "original corpus. Your sign-in name is not written into the shared files. Please do not write anything that "
    "identifies you or anyone else. Taking part is voluntary: you may stop at any time by closing the page. Ask "
    "the person running the study if you have questions before you start."
)


class ConsentChanged(StoreError):
    """The consent text changed after it was shown; nothing was recorded. ``current``: the text as it now is."""

    def __init__(self, message: str, current: "ConsentText"):
        super().__init__(message)
        self.current = current


@dataclass(frozen=True)
class ConsentText:
    version: int  # 0: the app's default, never set by an admin
    text: str
    set_at: Optional[str] = None
    set_by: Optional[str] = None


@dataclass(frozen=True)
class Agreement:
    coder: str
    text_version: int
    game: str
    agreed_at: str


def _current(conn) -> ConsentText:
    row = conn.execute("SELECT id, text, created_at, changed_by FROM live_consent_texts ORDER BY id DESC LIMIT 1").fetchone()
    return ConsentText(int(row[0]), str(row[1]), row[2], row[3]) if row is not None else ConsentText(0, DEFAULT_TEXT)


def _checked_text(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValueError("The consent text is empty; write the text people read before they play.")
    text = text.strip()
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"The consent text is {len(text):,} characters; at most {MAX_TEXT_CHARS:,} are kept.")
    return text


class LiveConsent:
    """The consent text and the agreements of one database (``Store.live_consent``)."""

    def __init__(self, db: Database, *, sign_in: bool = False):
        self.db = db
        self.sign_in = sign_in

    def current(self) -> ConsentText:
        """The text people are shown now: the last an admin set, else the default (version 0)."""
        with self.db.read() as conn:
            return _current(conn)

    def set_text(self, text: str, *, actor: Optional[Identity] = None) -> ConsentText:
        """Make ``text`` the consent text (a new version); an admin's only. The same text as now adds no version."""
        what = "setting the consent text of live games"
        text = _checked_text(text)
        with self.db.write() as conn:
            identity = acting(actor, self.sign_in, what)
            check(identity, Action.MANAGE, what=what)
            if _current(conn).text != text:
                conn.insert("INSERT INTO live_consent_texts (text, created_at, changed_by) VALUES (?, ?, ?)",
                            (text, _now(), identity.signature))
            return _current(conn)

    def agree(self, version: int, game: str, *, player: Optional[str] = None,
              actor: Optional[Identity] = None) -> Agreement:
        """Record that the actor agreed to the text ``version`` they were shown, before ``game`` (a game's id, or what
        they were about to create); once per person and version (a second agreement returns the first).
        ``ConsentChanged`` when ``version`` is no longer the current text."""
        what = "agreeing to the consent text"
        game = str(game)[:MAX_GAME_CHARS]
        with self.db.write() as conn:
            identity = acting(actor, self.sign_in, what, player)
            check(identity, Action.WRITE_OWN, what=what)
            coder = checked_coder_name(attributed(identity, player, what), "the player")
            now = _current(conn)
            if int(version) != now.version:
                raise ConsentChanged("The consent text changed since it was shown; read it again.", now)
            conn.execute("INSERT INTO live_consents (coder, text_version, game, agreed_at, changed_by) "
                         "VALUES (?, ?, ?, ?, ?) ON CONFLICT (coder, text_version) DO NOTHING",
                         (coder, now.version, game, _now(), identity.signature))
            row = conn.execute("SELECT coder, text_version, game, agreed_at FROM live_consents WHERE coder = ? AND "
                               "text_version = ?", (coder, now.version)).fetchone()
        return Agreement(str(row[0]), int(row[1]), str(row[2]), str(row[3]))

    def has_agreed(self, coder: str, version: Optional[int] = None) -> bool:
        """Whether ``coder`` agreed to the text ``version`` (None: the current one)."""
        if not coder:
            return False
        version = self.current().version if version is None else int(version)
        with self.db.read() as conn:
            found = conn.execute("SELECT 1 FROM live_consents WHERE coder = ? AND text_version = ?",
                                 (coder, version)).fetchone()
        return found is not None

    def agreements(self, *, viewer: Optional[Identity] = None) -> list[Agreement]:
        """Who agreed to which version, when and for which game, oldest first (at most ``MAX_AGREEMENTS_LISTED``):
        a study's record, an admin's to read (``AccessRefused`` for anyone else)."""
        check(acting(viewer, self.sign_in, "reading who agreed to the consent text"), Action.MANAGE,
              what="reading who agreed to the consent text")
        with self.db.read() as conn:
            rows = conn.execute("SELECT coder, text_version, game, agreed_at FROM live_consents ORDER BY id LIMIT ?",
                                (MAX_AGREEMENTS_LISTED,)).fetchall()
        return [Agreement(str(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]

    def text_of(self, version: int) -> Optional[str]:
        """The words of text ``version`` (0: the default), None for a version never set: what an agreement was to."""
        if int(version) == 0:
            return DEFAULT_TEXT
        with self.db.read() as conn:
            row = conn.execute("SELECT text FROM live_consent_texts WHERE id = ?", (int(version),)).fetchone()
        return str(row[0]) if row is not None else None
