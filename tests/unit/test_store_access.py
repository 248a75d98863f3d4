"""The store itself refuses a change the identity may not make (issue 28, sign-in and roles), on both backends:
every write × every role, a store with sign-in refusing writes without a signed-in actor, a forged coder name
refused and logged, who made each change kept on every row, and annotations made before sign-in keeping their
attribution through the migration."""
from __future__ import annotations

import json
import logging
from typing import Callable, Optional

import pytest

from data_access.access import AccessRefused, Identity, Role, read_roles
from data_access.coding import codebook as cb
from data_access.links import Place
from data_access.store import GoldUnit, Store, apply_edits, open_database, schema

BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn"), cb.Label("not-CR", scope="turn")))
ROLES = """
[[person]]
email = "alice@lab.example"
role = "adjudicator"
coder = "alice"

[[person]]
email = "bob@lab.example"
role = "viewer"
coder = "bob"
"""


def _as(role: Role, coder: str = "alice") -> Identity:
    return Identity(coder=coder, role=role, email=f"{coder}@lab.example", signed_in=True)


class Rows:
    """Rows written by the local user before each operation: alice's and bob's note, annotation and queue item,
    and a gold annotation."""

    def __init__(self, local: Store, tag: int):
        self.book = local.coding.codebook(BOOK.name)
        self.tag = tag
        self.note = local.notes.add_note("codraw", f"d{tag}", "alice's", turn=1, author="alice")
        self.bob_note = local.notes.add_note("codraw", f"d{tag}", "bob's", turn=1, author="bob")
        self.deleted_note = local.notes.add_note("codraw", f"d{tag}", "gone", turn=2, author="alice")
        local.notes.delete_note(self.deleted_note)
        self.annotation = local.coding.add_annotation("codraw", f"d{tag}", codebook=self.book, label="CR",
                                                      coder="alice", turn=1)
        self.bob_annotation = local.coding.add_annotation("codraw", f"d{tag}", codebook=self.book, label="CR",
                                                          coder="bob", turn=1)
        self.deleted_annotation = local.coding.add_annotation("codraw", f"d{tag}", codebook=self.book, label="CR",
                                                              coder="alice", turn=2)
        local.coding.delete_annotation(self.deleted_annotation)
        self.gold = local.coding.add_annotation("codraw", f"d{tag}", codebook=self.book, label="CR", coder="carol",
                                                turn=3, layer="gold")
        local.coding.create_queue(f"q{tag}", [Place("codraw", f"d{tag}", None, 1)], ["alice", "bob"])
        items = local.coding.queue_items(f"q{tag}")
        self.item = int(items.loc[items["coder"] == "alice", "id"].iloc[0])
        self.bob_item = int(items.loc[items["coder"] == "bob", "id"].iloc[0])


# Each write, and the least role that may make it (None: no role may, it is someone else's work).
Write = Callable[[Store, Rows, Optional[Identity]], object]
WRITES: dict[str, tuple[Write, Optional[Role]]] = {
    "add note": (lambda s, r, a: s.notes.add_note("codraw", "x", "mine", turn=1, actor=a), Role.CODER),
    "update own note": (lambda s, r, a: s.notes.update_note(r.note, text="changed", actor=a), Role.CODER),
    "delete own note": (lambda s, r, a: s.notes.delete_note(r.note, actor=a), Role.CODER),
    "restore own note": (lambda s, r, a: s.notes.restore_note(r.deleted_note, actor=a), Role.CODER),
    "update another's note": (lambda s, r, a: s.notes.update_note(r.bob_note, text="x", actor=a), None),
    "delete another's note": (lambda s, r, a: s.notes.delete_note(r.bob_note, actor=a), None),
    "save codebook": (lambda s, r, a: s.coding.save_codebook(
        cb.Codebook(f"book{r.tag}", (cb.Label("x", scope="turn"),)), actor=a), Role.ADMIN),
    "add annotation": (lambda s, r, a: s.coding.add_annotation(
        "codraw", "x", codebook=r.book, label="CR", coder="alice", turn=1, actor=a), Role.CODER),
    "update own annotation": (lambda s, r, a: s.coding.update_annotation(r.annotation, label="not-CR", actor=a),
                              Role.CODER),
    "delete own annotation": (lambda s, r, a: s.coding.delete_annotation(r.annotation, actor=a), Role.CODER),
    "restore own annotation": (lambda s, r, a: s.coding.restore_annotation(r.deleted_annotation, actor=a),
                               Role.CODER),
    "update another's annotation": (lambda s, r, a: s.coding.update_annotation(r.bob_annotation, label="not-CR",
                                                                               actor=a), None),
    "delete another's annotation": (lambda s, r, a: s.coding.delete_annotation(r.bob_annotation, actor=a), None),
    "add gold annotation": (lambda s, r, a: s.coding.add_annotation(
        "codraw", "x", codebook=r.book, label="CR", coder="alice", turn=5, layer="gold", actor=a), Role.ADJUDICATOR),
    "update gold annotation": (lambda s, r, a: s.coding.update_annotation(r.gold, label="not-CR", actor=a),
                               Role.ADJUDICATOR),
    "decide gold": (lambda s, r, a: s.coding.decide_gold(
        r.book, GoldUnit("turn", Place("codraw", f"d{r.tag}", None, 1)), [{"label": "CR"}], "alice", actor=a),
        Role.ADJUDICATOR),
    "create queue": (lambda s, r, a: s.coding.create_queue("new", [Place("codraw", "x", None, 1)], ["alice"],
                                                           actor=a), Role.ADMIN),
    "mark own queue item done": (lambda s, r, a: s.coding.set_done(r.item, actor=a), Role.CODER),
    "mark another's queue item done": (lambda s, r, a: s.coding.set_done(r.bob_item, actor=a), None),
}


def _snapshot(store: Store) -> str:
    """Everything the store holds, to show a refused write changed nothing."""
    with store.db.read() as cur:
        tables = ["notes", "note_revisions", "annotations", "annotation_revisions", "gold_decisions", "codebooks",
                  "queue_items"]
        return json.dumps({t: cur.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables}, default=str)


@pytest.fixture
def stores(store_target):
    local = Store(store_target)
    local.coding.save_codebook(BOOK)
    signed = Store(local.db, sign_in=True)
    yield local, signed
    local.close()


@pytest.mark.parametrize("role", list(Role), ids=lambda r: r.label)
def test_every_write_is_allowed_exactly_to_the_roles_that_may_make_it(stores, role, caplog):
    local, signed = stores
    actor = _as(role)
    for number, (name, (write, needs)) in enumerate(WRITES.items()):
        rows = Rows(local, number)
        before = _snapshot(signed)
        if needs is not None and role >= needs:
            write(signed, rows, actor)
            assert _snapshot(signed) != before, name
        else:
            with caplog.at_level(logging.WARNING, logger="dialogue.access"):
                with pytest.raises(AccessRefused, match="^Not allowed: "):
                    write(signed, rows, actor)
            assert _snapshot(signed) == before, f"{name}: a refused write changed the store"
            assert "alice@lab.example" in caplog.records[-1].getMessage(), name


def test_a_store_with_sign_in_refuses_every_write_without_a_signed_in_actor(stores):
    local, signed = stores
    for number, (name, (write, _)) in enumerate(WRITES.items()):
        rows = Rows(local, number)
        before = _snapshot(signed)
        for actor in (None, Identity.local("alice")):
            with pytest.raises(AccessRefused, match="sign in first"):
                write(signed, rows, actor)
        assert _snapshot(signed) == before, name


def test_without_sign_in_the_local_user_may_make_every_write(stores):
    local, _ = stores
    for number, (write, _) in enumerate(WRITES.values()):
        write(local, Rows(local, number), None)


def test_a_forged_coder_name_is_refused_and_logged(stores, caplog):
    local, signed = stores
    alice = _as(Role.ADJUDICATOR)
    book = signed.coding.codebook(BOOK.name)
    before = _snapshot(signed)
    forgeries = [
        lambda: signed.coding.add_annotation("codraw", "d1", codebook=book, label="CR", coder="bob", turn=1,
                                             actor=alice),
        lambda: signed.notes.add_note("codraw", "d1", "as bob", author="bob", actor=alice),
        lambda: signed.coding.decide_gold(book, GoldUnit("turn", Place("codraw", "d1", None, 1)), [{"label": "CR"}],
                                          "bob", actor=alice),
    ]
    for forge in forgeries:
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="dialogue.access"):
            with pytest.raises(AccessRefused, match="written as coder 'bob'.*alice@lab.example codes as 'alice'"):
                forge()
        [record] = [r for r in caplog.records if r.name == "dialogue.access"]
        assert "alice@lab.example" in record.getMessage() and "'bob'" in record.getMessage()
    assert _snapshot(signed) == before
    # Signed in, the name a write is attributed to is the actor's own even when the call leaves it out.
    note = signed.notes.add_note("codraw", "d1", "mine", actor=alice)
    assert signed.notes.get_note(note)["author"] == "alice"


def test_every_change_records_who_made_it(stores):
    local, signed = stores
    alice = _as(Role.ADJUDICATOR)
    book = signed.coding.codebook(BOOK.name)
    annotation = signed.coding.add_annotation("codraw", "d1", codebook=book, label="CR", coder="alice", turn=1,
                                              actor=alice)
    signed.coding.update_annotation(annotation, label="not-CR", actor=alice)
    local.coding.update_annotation(annotation, label="CR")
    history = signed.coding.annotation_history(annotation)
    assert list(history["changed_by"]) == ["alice@lab.example as alice", "alice@lab.example as alice",
                                           "local user as alice"]
    note = signed.notes.add_note("codraw", "d1", "first", actor=alice)
    signed.notes.update_note(note, text="second", actor=alice)
    assert list(signed.notes.note_history(note)["changed_by"]) == ["alice@lab.example as alice"] * 2
    signed.coding.decide_gold(book, GoldUnit("turn", Place("codraw", "d1", None, 1)), [{"label": "CR"}], "alice",
                              actor=alice)
    with signed.db.read() as cur:
        assert cur.execute("SELECT decided_by, changed_by FROM gold_decisions").fetchall() == [
            ("alice", "alice@lab.example as alice")]


def test_table_edits_refused_for_another_coders_note_are_reported_and_the_rest_saved(stores):
    local, signed = stores
    mine = local.notes.add_note("codraw", "d1", "mine", author="alice")
    theirs = local.notes.add_note("codraw", "d1", "theirs", author="bob")
    edits = [{"id": theirs, "text": "overwritten"}, {"id": mine, "text": "edited"}]
    outcome = apply_edits(signed.notes, edits, actor=_as(Role.CODER))
    assert outcome.saved == [mine]
    assert len(outcome.problems) == 1 and "belongs to coder 'bob'" in outcome.problems[0]
    assert "'overwritten'" in outcome.problems[0]
    assert signed.notes.get_note(theirs)["text"] == "theirs"


def _v3_database(target):
    """A store as the release before sign-in left it (schema 3), with work by alice and bob."""
    db = open_database(target)
    db.migrate(schema.MIGRATIONS[:3])
    now = "2026-01-01T00:00:00.000000+00:00"
    labels = json.dumps([cb.asdict(label) for label in BOOK.labels])
    with db.write() as cur:
        cur.execute("INSERT INTO codebooks (name, version, description, labels, created_by, created_at) "
                    "VALUES (?, 1, '', ?, 'carol', ?)", [BOOK.name, labels, now])
        for uid, coder in (("a1", "alice"), ("b1", "bob")):
            cur.execute("INSERT INTO annotations (uid, corpus, dialog_id, turn, scope, codebook, codebook_version, "
                        "label, coder, created_at, updated_at) VALUES (?, 'codraw', 'd1', 1, 'turn', ?, 1, 'CR', ?, "
                        "?, ?)", [uid, BOOK.name, coder, now, now])
        cur.execute("INSERT INTO notes (corpus, dialog_id, text, author, created_at, updated_at) "
                    "VALUES ('codraw', 'd1', 'old note', 'alice', ?, ?)", [now, now])
    close = getattr(db, "close", None)
    if close is not None:
        close()


def test_turning_sign_in_on_keeps_earlier_work_attributed_as_it_was(store_target, tmp_path):
    _v3_database(store_target)
    roles_file = tmp_path / "roles.toml"
    roles_file.write_text(ROLES, encoding="utf-8")
    roles = read_roles(roles_file)
    alice = roles.identity("alice@lab.example", "sub-a", email_verified=True)
    bob = roles.identity("bob@lab.example", "sub-b", email_verified=True)
    store = Store(store_target, sign_in=True)
    try:
        assert store.db.schema_version() == schema.SCHEMA_VERSION
        frame = store.coding.annotations(include_notes=True)
        assert sorted(zip(frame["kind"], frame["coder"])) == [("label", "alice"), ("label", "bob"), ("note", "alice")]
        ids = dict(zip(frame.loc[frame["kind"] == "label", "coder"], frame.loc[frame["kind"] == "label", "id"]))
        # alice's earlier work is hers: the roles file maps her e-mail to the coder name it carries.
        store.coding.update_annotation(int(ids["alice"]), label="not-CR", actor=alice)
        note_id = int(frame.loc[frame["kind"] == "note", "id"].iloc[0])
        store.notes.update_note(note_id, text="old note, revised", actor=alice)
        with pytest.raises(AccessRefused, match="belongs to coder 'bob'"):
            store.coding.update_annotation(int(ids["bob"]), label="not-CR", actor=alice)
        with pytest.raises(AccessRefused, match="needs the coder role"):
            store.coding.update_annotation(int(ids["bob"]), label="not-CR", actor=bob)
        history = store.coding.annotation_history(int(ids["alice"]))
        assert list(history["coder"]) == ["alice", "alice"]
        assert [by if isinstance(by, str) else None for by in history["changed_by"]] == [None, "alice@lab.example as alice"]
        assert store.coding.get_annotation(int(ids["bob"]))["coder"] == "bob"
    finally:
        store.close()
