"""The consent text shown before a live game (issue 50), on both backends: the default until an admin sets one, set by
an admin only (anyone else refused in the store, and the refusal logged), each text a version, an agreement recorded
once per person and version with its game and time, refused when the text changed since it was shown, and who
agreed listed for an admin only."""
from __future__ import annotations

import logging

import pytest

from data_access.access import AccessRefused, Identity, Role
from data_access.store import ConsentChanged, Store
from data_access.store import live_consent as consent
from tests.postgres import BACKENDS


def _as(role: Role, coder: str) -> Identity:
    return Identity(coder=coder, role=role, email=f"{coder}@lab.example", signed_in=True)


ALICE, ADMIN, VIEWER = _as(Role.CODER, "alice"), _as(Role.ADMIN, "root"), _as(Role.VIEWER, "vera")
VISITOR = Identity(coder="", role=Role.VIEWER, signed_in=False)


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    target = tmp_path / "notes.sqlite3" if request.param == "sqlite" else \
        request.getfixturevalue("postgres_cluster").new_database()
    opened = Store(target, sign_in=True)
    yield opened
    opened.close()


def test_the_consent_text_is_the_default_until_an_admin_sets_one_and_only_an_admin_may(store, caplog):
    assert store.live_consent.current() == consent.ConsentText(0, consent.DEFAULT_TEXT)
    for someone in (ALICE, VIEWER, VISITOR, None):
        with caplog.at_level(logging.WARNING), pytest.raises(AccessRefused):
            store.live_consent.set_text("Play nicely.", actor=someone)
    assert "refused setting the consent text" in caplog.text
    assert store.live_consent.current().version == 0
    first = store.live_consent.set_text("  Your messages are recorded.\n", actor=ADMIN)
    assert (first.version > 0, first.text, first.set_by) == (True, "Your messages are recorded.", "root@lab.example as root")
    assert store.live_consent.set_text("Your messages are recorded.", actor=ADMIN) == first  # no new version
    second = store.live_consent.set_text("Your messages and moves are recorded.", actor=ADMIN)
    assert second.version > first.version and store.live_consent.current() == second
    assert store.live_consent.text_of(first.version) == "Your messages are recorded."
    assert store.live_consent.text_of(0) == consent.DEFAULT_TEXT and store.live_consent.text_of(10**6) is None
    for bad in ("", "   ", "x" * (consent.MAX_TEXT_CHARS + 1)):
        with pytest.raises(ValueError, match="consent text"):
            store.live_consent.set_text(bad, actor=ADMIN)


def test_an_agreement_is_to_the_version_shown_once_per_person_and_listed_for_an_admin(store):
    shown = store.live_consent.current()
    assert not store.live_consent.has_agreed("alice")
    agreed = store.live_consent.agree(shown.version, "game 7", actor=ALICE)
    assert (agreed.coder, agreed.text_version, agreed.game) == ("alice", 0, "game 7")
    assert store.live_consent.agree(shown.version, "game 8", actor=ALICE) == agreed  # recorded once
    assert store.live_consent.has_agreed("alice") and not store.live_consent.has_agreed("bob")
    with pytest.raises(AccessRefused):
        store.live_consent.agree(shown.version, "game 7", actor=VISITOR)
    with pytest.raises(AccessRefused):
        store.live_consent.agree(shown.version, "game 7", player="bob", actor=ALICE)  # as someone else
    changed = store.live_consent.set_text("New words.", actor=ADMIN)
    assert not store.live_consent.has_agreed("alice")  # a new text is asked again
    with pytest.raises(ConsentChanged) as refused:
        store.live_consent.agree(shown.version, "game 9", actor=ALICE)  # the page showed the old words
    assert refused.value.current == changed
    store.live_consent.agree(changed.version, "new game", actor=ALICE)
    assert [(a.coder, a.text_version, a.game) for a in store.live_consent.agreements(viewer=ADMIN)] == [
        ("alice", 0, "game 7"), ("alice", changed.version, "new game")]
    for someone in (ALICE, VIEWER, VISITOR):
        with pytest.raises(AccessRefused):
            store.live_consent.agreements(viewer=someone)
