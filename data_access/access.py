"""Who may change what in the store: the four roles, the identity a change is made by, the roles file that
gives signed-in people their role, and the one check (``check``) every write of the store passes.

Without sign-in (one person on a laptop) the identity is the *local user*, who may do everything under the
coder name chosen in the session, as the dashboard always worked. With sign-in (Streamlit's ``st.login``,
configured in ``.streamlit/secrets.toml``) the identity comes from the OpenID Connect provider, the coder name
is fixed by it (no free-text name), and the role comes from the roles file:

- **viewer** reads;
- **coder** also writes their own notes and annotations;
- **adjudicator** also writes the gold layer;
- **admin** also manages codebooks and coding queues (and the roles file is theirs to edit).

The store refuses a change the identity may not make (``AccessRefused``), whatever the page sent: a forged
coder name in a direct call is refused and logged (logger ``dialogue.access``).

Someone the roles file does not list is named by their verified e-mail, or else by their provider subject written
``subject:<sub>`` (``RoleBook.unlisted_name``): never by a name a listed person has or one that only looks like it,
so an account whose subject is ``alice`` neither reads nor writes as alice.
"""
from __future__ import annotations

import enum
import functools
import logging
import os
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional

ROLES_VARIABLE = "DIALOGUE_ROLES"
LOCAL_USER = "local user"
# How an unlisted person without a usable e-mail is named: their provider subject after this, a prefix no listed
# person's coder name may start like (the roles file refuses it).
UNLISTED_SUBJECT_PREFIX = "subject:"
log = logging.getLogger("dialogue.access")


class Role(enum.IntEnum):
    """Each role may do everything the roles before it may."""

    VIEWER = 1
    CODER = 2
    ADJUDICATOR = 3
    ADMIN = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: object) -> "Role":
        if isinstance(text, str) and text.strip().upper() in cls.__members__:
            return cls[text.strip().upper()]
        raise ValueError(f"{text!r} is not a role; expected one of {', '.join(r.label for r in cls)}")


class Action(enum.Enum):
    """What a write does, as far as permission goes; ``needs`` is the role it takes once signed in (and
    ``owned``: whether it also has to be the writer's own work, unless they are an admin)."""

    WRITE_OWN = "write own"  # a note or an annotation attributed to the writer
    WRITE_GOLD = "write gold"  # the gold layer (adjudication)
    MANAGE = "manage"  # codebooks, coding queues
    ADD_RUN = "add run"  # a run file uploaded under a name nobody has used
    CHANGE_RUN = "change run"  # replace or remove an uploaded run file (its uploader's, or an admin's)
    REPLACE_MODEL_LABELS = "replace model labels"  # import a model's labels over an earlier import (its importer's)
    RELOAD = "reload"  # empty the server-wide caches that every session shares

    @property
    def needs(self) -> Role:
        return _NEEDS[self]

    @property
    def owned(self) -> bool:
        """Whether the action is on someone's work, which only they (or an admin) may change."""
        return self in (Action.WRITE_OWN, Action.CHANGE_RUN, Action.REPLACE_MODEL_LABELS)


_NEEDS = {Action.WRITE_OWN: Role.CODER, Action.WRITE_GOLD: Role.ADJUDICATOR, Action.MANAGE: Role.ADMIN,
          Action.ADD_RUN: Role.CODER, Action.CHANGE_RUN: Role.CODER, Action.REPLACE_MODEL_LABELS: Role.CODER,
          Action.RELOAD: Role.ADMIN}


class AccessRefused(PermissionError):
    """The identity may not make this change; nothing was written. The message says who, what and why."""


@dataclass(frozen=True)
class Identity:
    """Who makes a change: the coder name it is attributed to, the role, and (signed in) the provider's
    e-mail and subject."""

    coder: str
    role: Role
    email: Optional[str] = None
    subject: Optional[str] = None
    signed_in: bool = False
    # the e-mail the provider gave without verifying it: shown so the person knows why it is not used
    unverified_email: Optional[str] = None
    # whether the roles file lists them; an unlisted person is shown by their coder name (``RoleBook.unlisted_name``)
    listed: bool = True

    @classmethod
    def local(cls, coder: str = "") -> "Identity":
        """The one person of a deployment without sign-in: every role, any coder name (as before sign-in)."""
        return cls(coder=coder, role=Role.ADMIN, signed_in=False)

    @property
    def who(self) -> str:
        """How messages name the identity (never a secret: e-mail or subject as the provider gave them)."""
        if not self.signed_in:
            return LOCAL_USER
        if not self.listed:
            return self.coder or self.email or self.subject or ""
        return self.email or self.subject or self.coder

    @property
    def signature(self) -> str:
        """What a change row records as made by: who, and the coder name they wrote as."""
        return f"{self.who} as {self.coder}" if self.coder else self.who

    read_only_reason: Optional[str] = None

    @classmethod
    def local_read_only(cls, reason: str) -> "Identity":
        """The local user of a deployment that may not write (served beyond this machine without sign-in)."""
        return cls(coder="", role=Role.VIEWER, signed_in=False, read_only_reason=reason)

    def may(self, action: Action, owner: Optional[str] = None) -> bool:
        if self.read_only_reason is not None:
            return False
        if not self.signed_in:
            return True
        if self.role < action.needs:
            return False
        if not action.owned or owner is None:
            return True
        # Someone else's work: their own only, except that an admin may replace or remove another's run or import.
        return owner == self.coder or (action is not Action.WRITE_OWN and self.role >= Role.ADMIN)


def check(identity: Identity, action: Action, owner: Optional[str] = None, what: str = "this change") -> None:
    """Raise ``AccessRefused`` (and log it) unless ``identity`` may do ``action`` (on ``owner``'s work)."""
    if identity.may(action, owner):
        return
    if identity.read_only_reason is not None:
        reason = identity.read_only_reason
    elif identity.role < action.needs:
        reason = f"it needs the {action.needs.label} role; {identity.who} is a {identity.role.label}"
    elif not owner:
        reason = f"it carries no coder name, and {identity.who} codes as {identity.coder!r}"
    else:
        reason = f"it belongs to coder {owner!r}, and {identity.who} codes as {identity.coder!r}"
    log.warning("refused %s by %s (%s): %s", what, identity.who, identity.role.label, reason)
    raise AccessRefused(f"Not allowed: {what} ({reason}).")


def attributed(identity: Identity, claimed: Optional[str], what: str = "this change") -> str:
    """The coder name a change by ``identity`` is attributed to: signed in, always their own (a different
    ``claimed`` name is a forgery: refused and logged); without sign-in, ``claimed`` as the page chose it."""
    # Local user: the name exactly as given, so a deployment without sign-in stores what it always did.
    if not identity.signed_in:
        return claimed or ""
    claimed = " ".join(claimed.split()) if isinstance(claimed, str) else ""
    if claimed and claimed != identity.coder:
        log.warning("refused %s by %s (%s): written as coder %r, but they code as %r", what, identity.who,
                    identity.role.label, claimed, identity.coder)
        raise AccessRefused(f"Not allowed: {what} (written as coder {claimed!r}, and {identity.who} codes as "
                            f"{identity.coder!r}).")
    return identity.coder


def nobody_signed_in(what: str = "this change") -> AccessRefused:
    """The refusal of a write made without a signed-in identity on a deployment with sign-in (logged)."""
    log.warning("refused %s: nobody is signed in", what)
    return AccessRefused(f"Not allowed: {what} (sign in first: this deployment has sign-in).")


@dataclass(frozen=True)
class Person:
    role: Role
    coder: str


@dataclass(frozen=True)
class RoleBook:
    """The roles file: people by e-mail or subject, each with a role and the coder name their work carries,
    and the role of anyone else who signs in (``default``, viewer unless the file says otherwise)."""

    by_email: Mapping[str, Person] = field(default_factory=dict)
    by_subject: Mapping[str, Person] = field(default_factory=dict)
    default: Role = Role.VIEWER
    source: Optional[str] = None

    def identity(self, email: object, subject: object, *, email_verified: object) -> Identity:
        """The identity of a signed-in person: listed by e-mail (case-insensitive) first, then by subject. The
        e-mail counts only when the provider says it verified it (``email_verified`` true): anyone may put any
        address on an account, so an unverified one is neither matched, nor shown, nor a coder name."""
        email = email.strip() if isinstance(email, str) and email.strip() else None
        subject = subject.strip() if isinstance(subject, str) and subject.strip() else None
        unverified = email if email and not claim_is_true(email_verified) else None
        if unverified:
            log.warning("sign-in with the unverified e-mail %r (subject %r): matched by subject only", unverified,
                        subject)
            email = None
        person = (self.by_email.get(email.lower()) if email else None) or (self.by_subject.get(subject) if subject else None)
        if person is not None:
            return Identity(coder=person.coder, role=person.role, email=email, subject=subject, signed_in=True,
                            unverified_email=unverified)
        coder = self.unlisted_name(email, subject)
        return Identity(coder=coder, role=self.default, email=email if coder == email else None, subject=subject,
                        signed_in=True, unverified_email=unverified, listed=False)

    def unlisted_name(self, email: Optional[str], subject: Optional[str]) -> str:
        """The coder name (and the name shown) of someone the file does not list: their verified ``email``,
        unless it reads as a listed person's e-mail, subject or coder name (in another case, with look-alike
        letters); else ``subject:<subject>``, which no listed name starts like. ``AccessRefused`` when neither
        gives a name that is theirs alone."""
        if email and name_skeleton(email) not in self._listed_skeletons:
            coder = email
        elif subject:
            coder = UNLISTED_SUBJECT_PREFIX + subject
        else:
            raise AccessRefused("Not allowed: the sign-in gave neither a verified e-mail of its own nor a subject.")
        reason = reserved_name_reason(coder)
        if reason is None and name_skeleton(coder) in self._listed_skeletons:
            reason = f"{coder!r} reads as the name of someone the roles file lists"
        if reason:
            raise AccessRefused(f"Not allowed: this account's name cannot be a coder name ({reason}); ask an admin "
                                "to list it in the roles file with a coder name.")
        return coder

    @functools.cached_property
    def _listed_skeletons(self) -> frozenset[str]:
        """What every listed person's e-mail, subject and coder name look like (``name_skeleton``)."""
        people = [*self.by_email.items(), *self.by_subject.items()]
        return frozenset(name_skeleton(name) for key, person in people for name in (key, person.coder))

    def identity_from_claims(self, claims: Mapping[str, object]) -> Identity:
        """``identity`` from the provider's claims as Streamlit keeps them (``st.user``)."""
        return self.identity(claims.get("email"), claims.get("sub"), email_verified=claims.get("email_verified"))


def claim_is_true(value: object) -> bool:
    """An OpenID Connect boolean claim: JSON true (some providers send the string "true")."""
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


# -- coder names ---------------------------------------------------------------------------------------------

# Names no person codes as: the gold layer's, and the prefix of imported model labels (``model:<name>``).
GOLD_CODER = "gold"
MODEL_CODER_PREFIX = "model:"
_MAX_CODER_NAME = 80


def name_skeleton(name: str) -> str:
    """What a name looks like, for telling apart names a reader would take for one another: compatibility forms
    folded (full-width, superscript), accents dropped, case folded, each letter of another script that is
    drawn like a Latin letter or digit (Cyrillic о, script ɡ) read as that letter, and the digits and signs drawn
    like a Latin letter (0, 1, |) read as it (Unicode's confusables, through ``confusable_homoglyphs``); spaces
    and separators dropped."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name))
    out = []
    for char in folded:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Cf", "Zs", "Pd", "Pc"):
            continue
        if not char.isascii():
            char = _ascii_homoglyph(char, letters_only=False)
        if char.isascii() and not char.isalpha():
            char = _ascii_homoglyph(char, letters_only=True)
        out.append(char.casefold())
    return "".join(out).replace("_", "").replace(" ", "")


@functools.lru_cache(maxsize=4096)
def _ascii_homoglyph(char: str, letters_only: bool) -> str:
    """The ASCII character (a letter, if ``letters_only``) that ``char`` is drawn like; ``char`` when none is."""
    from confusable_homoglyphs import confusables

    found = confusables.is_confusable(char, preferred_aliases=[], greedy=True)
    ascii_like = [h["c"] for h in (found or [{}])[0].get("homoglyphs", []) if h["c"].isascii()]
    chosen = [c for c in ascii_like if c.isalpha()] if letters_only else ascii_like
    return chosen[0] if chosen else char


def reserved_name_reason(name: str) -> Optional[str]:
    """Why ``name`` cannot be a person's coder name, or None: it reads as the gold layer or as an imported
    model's labels (also in another case, with look-alike letters or extra spaces), or is over-long."""
    if len(name) > _MAX_CODER_NAME:
        return f"more than {_MAX_CODER_NAME} characters"
    skeleton = name_skeleton(name)
    if skeleton == name_skeleton(GOLD_CODER):
        return f"{name!r} reads as the gold layer, which is written by adjudication"
    if skeleton.startswith(name_skeleton(MODEL_CODER_PREFIX)):
        return (f"{name!r} reads as an imported model's labels: coder names starting with {MODEL_CODER_PREFIX!r} "
                "are kept for imported model labels")
    return None


def checked_coder_name(name: object, what: str = "the coder name") -> str:
    """``name`` with its spaces tidied; ValueError (saying why) for a name no person may code as."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{what} is empty: choose your name (or set DIALOGUE_CODER)")
    tidy = " ".join(name.split())
    reason = reserved_name_reason(tidy)
    if reason:
        raise ValueError(f"{what} cannot be used: {reason}; choose another")
    return tidy


class RolesFileError(ValueError):
    """The roles file cannot be used; the message names the file and the entry."""


def read_roles(path: Path | str) -> RoleBook:
    """Read a roles file (TOML)::

        default = "viewer"            # anyone else who signs in (viewer when left out)

        [[person]]
        email = "alice@lab.example"   # or subject = "..." (the provider's ``sub``)
        role = "adjudicator"
        coder = "alice"               # the name her work carries, earlier work included (default: the e-mail)
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise RolesFileError(f"{path}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RolesFileError(f"{path}: not a TOML roles file ({exc})") from None
    unknown = set(data) - {"default", "person"}
    if unknown:
        raise RolesFileError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; expected default and [[person]]")
    try:
        default = Role.parse(data.get("default", "viewer"))
    except ValueError as exc:
        raise RolesFileError(f"{path}: default: {exc}") from None
    people = data.get("person", [])
    if not isinstance(people, list):
        raise RolesFileError(f"{path}: person must be a list of [[person]] tables")
    by_email: dict[str, Person] = {}
    by_subject: dict[str, Person] = {}
    skeletons: dict[str, tuple[str, str]] = {}
    for number, entry in enumerate(people, start=1):
        where = f"{path}: person {number}"
        if not isinstance(entry, dict):
            raise RolesFileError(f"{where}: not a table")
        extra = set(entry) - {"email", "subject", "role", "coder"}
        if extra:
            raise RolesFileError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
        email, subject = entry.get("email"), entry.get("subject")
        for name, value in (("email", email), ("subject", subject), ("coder", entry.get("coder"))):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise RolesFileError(f"{where}: {name} must be a non-empty string")
        if email is None and subject is None:
            raise RolesFileError(f"{where}: needs an email or a subject")
        try:
            role = Role.parse(entry.get("role"))
        except ValueError as exc:
            raise RolesFileError(f"{where}: role: {exc}") from None
        named: str = entry.get("coder") or email or subject or ""  # email or subject is set (checked above)
        coder = " ".join(named.split())
        if reason := reserved_name_reason(coder):
            raise RolesFileError(f"{where}: coder {coder!r} cannot be used: {reason}")
        if name_skeleton(coder).startswith(name_skeleton(UNLISTED_SUBJECT_PREFIX)):
            raise RolesFileError(f"{where}: coder {coder!r} cannot be used: names starting with "
                                 f"{UNLISTED_SUBJECT_PREFIX!r} are those of people the file does not list")
        key = email.strip().lower() if email else f"subject {(subject or '').strip()}"
        # Two people whose coder names differ only in case or look-alike letters would read as one in every table.
        skeleton = name_skeleton(coder)
        owner, named_so = skeletons.get(skeleton, (key, coder))
        if owner != key:
            looks = "is" if named_so == coder else f"reads as {named_so!r},"
            raise RolesFileError(f"{where}: coder {coder!r} {looks} already {owner}'s")
        skeletons[skeleton] = (key, coder)
        person = Person(role, coder)
        if email is not None:
            if email.strip().lower() in by_email:
                raise RolesFileError(f"{where}: {email!r} is listed twice")
            by_email[email.strip().lower()] = person
        if subject is not None:
            if subject.strip() in by_subject:
                raise RolesFileError(f"{where}: subject {subject!r} is listed twice")
            by_subject[subject.strip()] = person
    return RoleBook(by_email, by_subject, default, str(path))


def configured_roles() -> RoleBook:
    """The roles file named by ``DIALOGUE_ROLES``; with none, everyone who signs in is a viewer."""
    value = os.environ.get(ROLES_VARIABLE, "").strip()
    return read_roles(Path(value).expanduser()) if value else RoleBook()
