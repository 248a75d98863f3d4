"""Saved slices in the store (issue 37), on both backends: saved in canonical form, private or shared, listed per
viewer, edited and deleted only by their owner with the coder role (as notes), names unique per owner among
live slices, a bad slice or name refused before anything is written, and a v5 database brought to v6."""
from __future__ import annotations

import pytest

from data_access.access import AccessRefused, Identity, Role
from data_access.store import SavedSliceConflict, SavedSliceNotFound, Store, open_database, schema


def _as(role: Role, coder: str) -> Identity:
    return Identity(coder=coder, role=role, email=f"{coder}@lab.example", signed_in=True)


ALICE, BOB, VIEWER = _as(Role.CODER, "alice"), _as(Role.CODER, "bob"), _as(Role.VIEWER, "vera")


@pytest.fixture
def store(store_target):
    opened = Store(store_target, sign_in=True)
    yield opened
    opened.close()


def test_saved_in_canonical_form_and_listed_per_viewer(store):
    private = store.slices.save("CR drops", "crs   and peek_gain<0", description="the issue's question",
                                corpus="codraw", actor=ALICE)
    shared = store.slices.save("long", "n_rounds >= 10", shared=True, actor=BOB)
    record = store.slices.get(private, viewer=ALICE)
    assert record["slice"] == "crs and peek_gain < 0" and record["owner"] == "alice" and not record["shared"]
    assert record["corpus"] == "codraw" and record["changed_by"] == "alice@lab.example as alice"
    assert list(store.slices.list(viewer=ALICE)["name"]) == ["CR drops", "long"]
    assert list(store.slices.list(viewer=BOB)["name"]) == ["long"]
    assert list(store.slices.list(viewer=VIEWER)["name"]) == ["long"]
    with pytest.raises(SavedSliceNotFound):
        store.slices.get(private, viewer=BOB)  # private: as if absent
    assert store.slices.get(shared, viewer=VIEWER)["owner"] == "bob"


def test_only_the_owner_with_the_coder_role_writes(store):
    mine = store.slices.save("mine", "crs", actor=ALICE)
    with pytest.raises(AccessRefused, match="coder role"):
        store.slices.save("viewer's", "crs", actor=VIEWER)
    with pytest.raises(AccessRefused, match="belongs to coder 'alice'"):
        store.slices.update(mine, shared=True, actor=BOB)
    with pytest.raises(AccessRefused):
        store.slices.delete(mine, actor=BOB)
    with pytest.raises(AccessRefused, match="forgery|written as coder"):
        store.slices.save("forged", "crs", owner="bob", actor=ALICE)
    with pytest.raises(AccessRefused, match="sign in first"):
        store.slices.save("nobody", "crs")
    store.slices.update(mine, shared=True, description="now shared", actor=ALICE)
    assert store.slices.get(mine, viewer=BOB)["description"] == "now shared"
    store.slices.delete(mine, actor=ALICE)
    assert store.slices.list(viewer=ALICE).empty
    with pytest.raises(SavedSliceNotFound):
        store.slices.update(mine, name="again", actor=ALICE)


def test_names_are_unique_per_owner_and_edits_see_conflicts(store):
    first = store.slices.save("peeks", "peek_gain < 0", actor=ALICE)
    store.slices.save("peeks", "peek_gain > 0", actor=BOB)  # another owner may use the name
    with pytest.raises(SavedSliceConflict, match="already has a slice named “peeks”"):
        store.slices.save(" peeks ", "crs", actor=ALICE)
    second = store.slices.save("other", "crs", actor=ALICE)
    with pytest.raises(SavedSliceConflict):
        store.slices.update(second, name="peeks", actor=ALICE)
    seen = store.slices.get(first, viewer=ALICE)["updated_at"]
    store.slices.update(first, slice_text="peek_gain <= 0", actor=ALICE)
    with pytest.raises(SavedSliceConflict, match="changed since"):
        store.slices.update(first, description="stale", expected_updated_at=seen, actor=ALICE)
    store.slices.delete(first, actor=ALICE)
    store.slices.save("peeks", "crs", actor=ALICE)  # a deleted slice's name is free again


@pytest.mark.parametrize("name, text, words", [
    ("", "crs", "needs a name"),
    ("x" * 200, "crs", "at most 120"),
    ("bad", "crs and", "the slice is not one"),
    ("bad", "(" * 100 + "a", "the slice is not one"),
])
def test_a_bad_name_or_slice_is_refused_and_nothing_written(store, name, text, words):
    with pytest.raises(ValueError, match=words):
        store.slices.save(name, text, actor=ALICE)
    assert store.slices.list(viewer=ALICE).empty


def test_the_local_user_owns_and_sees_every_slice(store_target):
    local = Store(store_target)
    try:
        one = local.slices.save("by ann", "crs", owner="ann")
        local.slices.save("by bo", "crs", owner="bo")
        local.slices.update(one, name="renamed")
        assert sorted(local.slices.list()["name"]) == ["by bo", "renamed"]
    finally:
        local.close()


def test_a_version_5_database_gains_saved_slices(tmp_path):
    path = tmp_path / "old.sqlite3"
    db = open_database(path)
    db.migrate(schema.MIGRATIONS[:5])
    assert db.schema_version() == 5
    upgraded = Store(path)
    assert upgraded.db.schema_version() == schema.SCHEMA_VERSION == 6
    assert upgraded.slices.save("first", "crs", owner="ann") > 0
