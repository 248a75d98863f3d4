"""No password on screen, in logs or in the store's exceptions (issue 26 item 3): every form libpq accepts is
redacted by one function that never raises, and the store's errors, the Data page and the Codebooks caption
go through it."""
from __future__ import annotations

import logging
import random
import string

import pytest

from data_access.sources import notes_db_display
from data_access.store import NotesStore, StoreError, redact, url_secrets
from data_access.store.redaction import RedactingFilter

SECRET = "Zq7secret"

FORMS = [
    # (target, what must stay visible)
    (f"postgresql://ann:{SECRET}@db.example:5432/notes", "postgresql://ann:***@db.example:5432/notes"),
    (f"postgres://ann:{SECRET}@db.example/notes", "postgres://ann:***@db.example/notes"),
    (f"postgresql://ann@db.example/notes?password={SECRET}", "postgresql://ann@db.example/notes?password=***"),
    (f"postgresql://ann@db.example/notes?sslmode=require&password={SECRET}&application_name=x",
     "postgresql://ann@db.example/notes?sslmode=require&password=***&application_name=x"),
    (f"postgresql://ann@db.example/notes?sslpassword={SECRET}", "postgresql://ann@db.example/notes?sslpassword=***"),
    ("postgresql://user:pa?ss#1Zq7@host", "postgresql://user:***@host"),  # ? and # are the password's (libpq)
    ("postgresql://user:pa/ss@Zq7@host/db", "postgresql://user:***@host/db"),
    ("postgresql://u:Zq7%zz%@h/db", "postgresql://u:***@h/db"),  # an invalid percent-escape
    (f"postgresql://u:{SECRET}@[::1/db", "postgresql://u:***@[::1/db"),  # an unclosed IPv6 bracket
    (f"postgresql://u:{SECRET}@h1:5432,h2:5433/db", "postgresql://u:***@h1:5432,h2:5433/db"),
    (f"host=db.example port=5432 password={SECRET} dbname=notes", "host=db.example port=5432 password=*** dbname=notes"),
    (f"host=db password = '{SECRET} with spaces' user=ann", "host=db password = *** user=ann"),
    (f"host=db password='{SECRET}\\' quoted' user=ann", "host=db password=*** user=ann"),
    (f"host=db password='{SECRET} never closed", "host=db password=***"),
    (f"host=db PASSWORD={SECRET}", "host=db PASSWORD=***"),
    (f"could not connect to postgresql://ann:{SECRET}@db/notes: refused", "postgresql://ann:***@db/notes: refused"),
]


@pytest.mark.parametrize("target, shown", FORMS)
def test_every_form_libpq_accepts_is_redacted(target, shown):
    redacted = redact(target)
    assert SECRET not in redacted and "Zq7" not in redacted, redacted
    assert shown in redacted, redacted


def test_what_holds_no_password_is_left_alone():
    for text in ["/home/ann/notes.sqlite3", "postgresql://ann@db/notes", "postgresql://db:5432/notes?application_name=a@b",
                 "postgresql://[::1]:5432/notes", "host=db user=ann", ""]:
        assert redact(text) == text


def test_a_secret_quoted_alone_is_redacted_by_name():
    """libpq's "invalid percent-encoded token" quotes the password without the URL around it."""
    target = "postgresql://u:Zq7%zz@h/db"
    assert "Zq7" not in redact('invalid percent-encoded token: "Zq7%zz"', url_secrets(target))


def test_redaction_never_raises_and_never_shows_a_password():
    rng = random.Random(26)
    alphabet = string.ascii_letters + string.digits + ":/@?#&=%[]'\" \\,."
    for _ in range(3000):
        junk = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for text, holds_secret in ((f"postgresql://{junk}", False), (f"postgresql://u:{SECRET}@{junk}", True),
                                   (f"password={SECRET}{junk}", True), (f"x password='{SECRET}{junk}", True), (junk, False)):
            redacted = redact(text)
            assert isinstance(redacted, str)
            if holds_secret:
                assert SECRET not in redacted, (text, redacted)
    assert redact(None) == "" and redact(12) == "12"


@pytest.mark.parametrize("target", [
    f"postgresql://ann:{SECRET}@127.0.0.1:9/notes",
    f"postgresql://ann@127.0.0.1:9/notes?password={SECRET}",
    f"postgresql://ann:{SECRET}%zz@127.0.0.1:9/notes",
    f"postgresql://ann:{SECRET}@[::1/notes",
    f"postgresql://ann:pa?ss#{SECRET}@127.0.0.1:9/notes",
    f"host=127.0.0.1 port=9 password={SECRET}",
])
def test_the_store_refuses_without_showing_the_password(target):
    with pytest.raises(StoreError) as raised:
        NotesStore(target)
    error = raised.value
    assert SECRET not in str(error) and error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)


@pytest.mark.parametrize("target, shown", FORMS[:10])
def test_the_data_page_line_is_redacted(monkeypatch, target, shown):
    monkeypatch.setenv("DIALOGUE_NOTES_DB", target)
    assert SECRET not in notes_db_display() and "Zq7" not in notes_db_display()


def test_log_records_are_redacted(caplog):
    logger = logging.getLogger("dialogue-test-redaction")
    logger.addFilter(RedactingFilter([SECRET]))
    with caplog.at_level(logging.WARNING, logger="dialogue-test-redaction"):
        logger.warning("error connecting to %s: %s", f"postgresql://u:{SECRET}@h/db", f"token {SECRET}")
        try:
            raise RuntimeError(f"host=h password={SECRET}")
        except RuntimeError:
            logger.exception("failed")
    text = caplog.text
    assert "failed" in text and "postgresql://u:***@h/db" in text and SECRET not in text
