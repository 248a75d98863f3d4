"""Identities only from verified claims, and the coder names no person may take (issue 35, items 2 and 10): an
unverified e-mail neither matches the roles file nor becomes a coder name; ``gold`` and the model prefix are
refused in any case or look-alike spelling wherever a name is set (the store, the roles file); a model's
labels are replaced only by their importer or an admin, so an empty re-import cannot wipe a colleague's. An
unlisted account never takes a listed person's name, or one that only looks like it (issue 45, item 7): it is
named by its verified e-mail or by ``subject:<sub>``."""
from __future__ import annotations

import pytest

from data_access.access import (
    AccessRefused,
    Identity,
    Role,
    RoleBook,
    RolesFileError,
    name_skeleton,
    read_roles,
    reserved_name_reason,
)
from data_access.coding import codebook as cb
from data_access.coding import model_labels as ml
from data_access.links import Place
from data_access.store import CodingStore, GoldUnit, Store

ROLES = """
[[person]]
email = "alice@lab.example"
role = "adjudicator"
coder = "alice"

[[person]]
subject = "alice-sub"
role = "coder"
coder = "alice-by-subject"
"""


@pytest.fixture
def book(tmp_path) -> RoleBook:
    path = tmp_path / "roles.toml"
    path.write_text(ROLES, encoding="utf-8")
    return read_roles(path)


def test_an_unverified_email_claim_takes_no_ones_role(book):
    claimed = book.identity_from_claims({"email": "ALICE@lab.example", "email_verified": False, "sub": "mallory"})
    assert (claimed.role, claimed.coder, claimed.email) == (Role.VIEWER, "subject:mallory", None)
    assert claimed.unverified_email == "ALICE@lab.example" and claimed.who == "subject:mallory"
    # a claim left out is not a verified one either
    assert book.identity_from_claims({"email": "alice@lab.example", "sub": "m2"}).role is Role.VIEWER
    # the subject still finds a person listed by it
    assert book.identity_from_claims({"email": "x@y.example", "sub": "alice-sub"}).coder == "alice-by-subject"


@pytest.mark.parametrize("verified", [True, "true", "True"])
def test_a_verified_email_claim_is_matched(book, verified):
    alice = book.identity_from_claims({"email": "ALICE@lab.example", "email_verified": verified, "sub": "s"})
    assert (alice.role, alice.coder, alice.email) == (Role.ADJUDICATOR, "alice", "ALICE@lab.example")


@pytest.mark.parametrize("name", ["gold", "Gold", "GOLD", " gold ", "g old", "\u0261old", "g\u043eld", "\uff27\uff2f\uff2c\uff24",
                                  "model:gpt", "Model:x", "model : x", "m\u043edel:x", "MODEL:"])
def test_names_that_read_as_gold_or_a_model_are_reserved(name):
    assert reserved_name_reason(name)


@pytest.mark.parametrize("name", ["alice", "goldie", "Golda Meir", "modeller", "model x", "Åsa", "李"])
def test_ordinary_names_are_not(name):
    assert reserved_name_reason(name) is None


def test_look_alike_skeletons():
    assert name_skeleton("Al\u0456ce") == name_skeleton("alice")  # Cyrillic і
    assert name_skeleton("alice") != name_skeleton("alicia")


@pytest.mark.parametrize("entry, message", [
    ('email = "g@x.example"\nrole = "coder"\ncoder = "Gold"', "coder 'Gold' cannot be used: 'Gold' reads as the gold"),
    ('email = "m@x.example"\nrole = "coder"\ncoder = "model:me"', "kept for imported model labels"),
    ('email = "b@x.example"\nrole = "coder"\ncoder = "Alice"', "coder 'Alice' reads as 'alice', already alice@lab"),
    ('email = "c@x.example"\nrole = "coder"\ncoder = "al\u0456ce"', "reads as 'alice', already alice@lab"),
])
def test_the_roles_file_refuses_reserved_and_look_alike_coder_names(tmp_path, entry, message):
    path = tmp_path / "roles.toml"
    path.write_text(ROLES + "\n[[person]]\n" + entry + "\n", encoding="utf-8")
    with pytest.raises(RolesFileError, match=message):
        read_roles(path)


def test_an_unlisted_account_whose_subject_reads_as_gold_is_not_gold():
    assert RoleBook().identity_from_claims({"sub": "Gold"}).coder == "subject:Gold"
    with pytest.raises(AccessRefused, match="cannot be a coder name"):  # an e-mail that reads as a model's labels
        RoleBook().identity_from_claims({"email": "model:x@lab.example", "email_verified": True, "sub": "s"})


# -- issue 45, item 7: an unlisted identity never takes a listed person's name ------------------------------------

LISTED = ROLES + """
[[person]]
email = "robert@lab.example"
role = "coder"
coder = "bob@lab.example"
"""


@pytest.fixture
def listed(tmp_path) -> RoleBook:
    path = tmp_path / "roles.toml"
    path.write_text('default = "coder"\n' + LISTED, encoding="utf-8")
    return read_roles(path)


def _names(book: RoleBook) -> set[str]:
    people = [*book.by_email.items(), *book.by_subject.items()]
    return {name_skeleton(name) for key, person in people for name in (key, person.coder)}


@pytest.mark.parametrize("claims", [
    {"sub": "alice"},  # the account: its subject is alice's coder name
    {"sub": "Alice"}, {"sub": " alice "}, {"sub": "al\u0456ce"}, {"sub": "\uff41lice"},  # case, spaces, look-alikes
    {"sub": "alice-sub"},  # not listed: a subject only in another provider's namespace
    {"sub": "x", "email": "bob@lab.example", "email_verified": True},  # a verified e-mail that is a listed coder name
    {"sub": "x", "email": "B\u043eb@lab.example", "email_verified": True},  # ... with a look-alike letter
    {"sub": "x", "email": "alice@lab.examp\u0031e", "email_verified": True},  # listed e-mail, 1 for l
    {"sub": "alice-by-subject"},
])
def test_an_unlisted_account_never_takes_a_listed_name(listed, claims):
    if claims.get("sub") == "alice-sub":
        assert listed.identity_from_claims(claims).listed  # listed by subject: hers
        return
    person = listed.identity_from_claims(claims)
    assert not person.listed and person.role is Role.CODER
    assert person.coder.startswith("subject:") and person.who == person.coder
    for name in (person.coder, person.who):
        assert name_skeleton(name) not in _names(listed), name


def test_an_unlisted_e_mail_of_its_own_is_its_name(listed):
    eve = listed.identity_from_claims({"sub": "e1", "email": "eve@elsewhere.example", "email_verified": True})
    assert (eve.coder, eve.who, eve.listed) == ("eve@elsewhere.example", "eve@elsewhere.example", False)


def test_the_roles_file_keeps_the_unlisted_names_prefix(tmp_path):
    for coder in ("subject:bob", "Subject : bob", "\u0405ubject:bob"):
        path = tmp_path / "roles.toml"
        path.write_text(f'[[person]]\nemail = "b@x.example"\nrole = "coder"\ncoder = "{coder}"\n', encoding="utf-8")
        with pytest.raises(RolesFileError, match="people the file does not list"):
            read_roles(path)


def test_a_subject_named_like_alice_neither_reads_nor_edits_her_work(listed, store_target):
    store = Store(store_target, sign_in=True)
    try:
        alice = listed.identity_from_claims({"sub": "a", "email": "alice@lab.example", "email_verified": True})
        mallory = listed.identity_from_claims({"sub": "alice"})  # default = "coder": may write, as themselves
        private = store.slices.save("alice's", "n_rounds > 3", actor=alice)
        note = store.notes.add_note("codraw", "d1", "hers", author="alice", actor=alice)
        assert list(store.slices.list(viewer=alice)["name"]) == ["alice's"]
        assert store.slices.list(viewer=mallory).empty
        with pytest.raises(AccessRefused):
            store.slices.update(private, name="mine", actor=mallory)
        with pytest.raises(AccessRefused):
            store.notes.update_note(note, text="mine", actor=mallory)
        store.notes.add_note("codraw", "d1", "theirs", author="subject:alice", actor=mallory)
        assert sorted(store.notes.notes()["author"]) == ["alice", "subject:alice"]
    finally:
        store.close()


BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn"), cb.Label("not-CR", scope="turn")))


@pytest.fixture
def store(store_target) -> Store:
    opened = Store(store_target)
    yield opened
    opened.close()


def test_the_store_refuses_a_reserved_name_wherever_a_name_is_set(store):
    book = store.coding.save_codebook(BOOK)
    attempts = {
        "annotation": lambda name: store.coding.add_annotation("codraw", "d1", codebook=book, label="CR", coder=name,
                                                               turn=1),
        "note author": lambda name: store.notes.add_note("codraw", "d1", "text", author=name),
        "queue coder": lambda name: store.coding.create_queue("q", [Place("codraw", "d1", None, 1)], [name]),
        "adjudicator": lambda name: store.coding.decide_gold(book, GoldUnit("turn", Place("codraw", "d1", None, 1)),
                                                             [{"label": "CR"}], name),
    }
    for where, attempt in attempts.items():
        for name in ("Gold", "g\u043eld", "Model:x"):
            with pytest.raises(ValueError, match="cannot be used"):
                attempt(name)
                pytest.fail(f"{where}: {name!r} was accepted")
    assert store.coding.annotations().empty and store.notes.notes().empty
    note = store.notes.add_note("codraw", "d1", "text", author="ann")
    with pytest.raises(ValueError, match="reads as the gold layer"):
        store.notes.update_note(note, author="GOLD")


def _import(coding: CodingStore, book: cb.Codebook, turns: list[int], actor: Identity):
    from .test_model_labels import corpora, first_dialog, lines

    dialog = first_dialog("codraw")
    records = [{"model": "gpt", "corpus": "codraw", "dialog": dialog, "round": turn, "labels": ["CR"]} for turn in turns]
    return ml.import_labels(coding, ml.parse(lines(*records), "labels.jsonl", book, corpora), actor=actor)


def test_only_the_importer_or_an_admin_replaces_a_models_labels(store_target):
    coding = CodingStore(store_target, sign_in=True)
    admin = Identity("root", Role.ADMIN, email="root@lab.example", signed_in=True)
    bob = Identity("bob", Role.CODER, email="bob@lab.example", signed_in=True)
    carol = Identity("carol", Role.CODER, email="carol@lab.example", signed_in=True)
    book = coding.save_codebook(BOOK, actor=admin)
    _import(coding, book, [1, 2, 3], actor=bob)
    with pytest.raises(AccessRefused, match="belongs to coder 'bob'"):
        _import(coding, book, [4], actor=carol)
    with pytest.raises(AccessRefused, match="belongs to coder 'bob'"):  # an empty import would wipe bob's labels
        coding.replace_model_annotations(book, "codraw", ["model:gpt"], [], actor=carol)
    assert len(coding.annotations(codebook=book.name, coder="model:gpt")) == 3
    assert _import(coding, book, [1, 2], actor=bob).replaced == 3
    assert _import(coding, book, [5], actor=admin).replaced == 2
