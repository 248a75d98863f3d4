"""Roles and the one permission check of the store (data_access/access.py)."""
from __future__ import annotations

import logging

import pytest

from data_access.access import (
    AccessRefused,
    Action,
    Identity,
    Role,
    RoleBook,
    RolesFileError,
    check,
    configured_roles,
    read_roles,
)

ROLES = """
default = "viewer"

[[person]]
email = "Alice@Lab.example"
role = "adjudicator"
coder = "alice"

[[person]]
subject = "248289761001"
role = "coder"
coder = "bob"

[[person]]
email = "carol@lab.example"
role = "admin"
"""


@pytest.fixture
def book(tmp_path):
    path = tmp_path / "roles.toml"
    path.write_text(ROLES, encoding="utf-8")
    return read_roles(path)


def test_people_are_found_by_email_case_insensitively_then_by_subject(book):
    alice = book.identity("alice@lab.example", "x", email_verified=True)
    assert (alice.coder, alice.role, alice.signed_in) == ("alice", Role.ADJUDICATOR, True)
    bob = book.identity(None, "248289761001", email_verified=True)
    assert (bob.coder, bob.role) == ("bob", Role.CODER)
    carol = book.identity("carol@lab.example", None, email_verified=True)
    assert (carol.coder, carol.role) == ("carol@lab.example", Role.ADMIN)  # no coder name: the e-mail


def test_anyone_else_who_signs_in_gets_the_default_role(book, tmp_path):
    stranger = book.identity("eve@elsewhere.example", "eve-sub", email_verified=True)
    assert (stranger.coder, stranger.role) == ("eve@elsewhere.example", Role.VIEWER)
    path = tmp_path / "coders.toml"
    path.write_text('default = "coder"\n', encoding="utf-8")
    assert read_roles(path).identity(None, "s1", email_verified=True).role is Role.CODER
    with pytest.raises(AccessRefused):
        RoleBook().identity(None, "  ", email_verified=True)


def test_each_role_may_what_the_roles_before_it_may(book):
    viewer = book.identity("eve@elsewhere.example", None, email_verified=True)
    coder = book.identity(None, "248289761001", email_verified=True)
    adjudicator = book.identity("alice@lab.example", None, email_verified=True)
    admin = book.identity("carol@lab.example", None, email_verified=True)
    table = {who.role: [who.may(Action.WRITE_OWN, who.coder), who.may(Action.WRITE_GOLD), who.may(Action.MANAGE)]
             for who in (viewer, coder, adjudicator, admin)}
    assert table == {Role.VIEWER: [False, False, False], Role.CODER: [True, False, False],
                     Role.ADJUDICATOR: [True, True, False], Role.ADMIN: [True, True, True]}


def test_nobody_signed_in_writes_another_coders_work_and_the_refusal_is_logged(book, caplog):
    admin = book.identity("carol@lab.example", None, email_verified=True)
    with caplog.at_level(logging.WARNING, logger="dialogue.access"):
        with pytest.raises(AccessRefused, match="belongs to coder 'bob'"):
            check(admin, Action.WRITE_OWN, owner="bob", what="an annotation")
    assert "refused an annotation by carol@lab.example" in caplog.text
    with pytest.raises(AccessRefused, match="needs the adjudicator role; 248289761001 is a coder"):
        check(book.identity(None, "248289761001", email_verified=True), Action.WRITE_GOLD, what="a gold decision")


def test_the_local_user_may_do_everything_under_any_name():
    local = Identity.local("whoever")
    assert local.who == "local user"
    for action in Action:
        check(local, action, owner="someone else")


@pytest.mark.parametrize("text, message", [
    ("not toml [", "not a TOML roles file"),
    ('default = "owner"', "default: 'owner' is not a role"),
    ('[[person]]\nrole = "coder"', "person 1: needs an email or a subject"),
    ('[[person]]\nemail = "a@b"\nrole = "boss"', "person 1: role: 'boss' is not a role"),
    ('[[person]]\nemail = "a@b"\nrole = "coder"\nteam = 1', "person 1: unknown key"),
    ('[[person]]\nemail = "a@b"\nrole = "coder"\n[[person]]\nemail = "A@B"\nrole = "admin"', "person 2: 'A@B' is listed twice"),
    ('[[person]]\nemail = "a@b"\nrole = "coder"\ncoder = "x"\n[[person]]\nemail = "c@d"\nrole = "coder"\ncoder = "x"',
     "person 2: coder 'x' is already a@b's"),
    ('[[person]]\nemail = ""\nrole = "coder"', "person 1: email must be a non-empty string"),
    ('admins = ["a"]', "unknown key"),
])
def test_a_bad_roles_file_is_named_with_its_entry(tmp_path, text, message):
    path = tmp_path / "roles.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RolesFileError, match=message) as raised:
        read_roles(path)
    assert str(path) in str(raised.value)


def test_a_missing_roles_file_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("DIALOGUE_ROLES", str(tmp_path / "absent.toml"))
    with pytest.raises(RolesFileError, match="absent.toml: cannot be read"):
        configured_roles()
    monkeypatch.setenv("DIALOGUE_ROLES", "")
    assert configured_roles().default is Role.VIEWER
