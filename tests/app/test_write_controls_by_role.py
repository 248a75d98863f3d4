"""The pages show the writes that are not the store's only to those who may make them (issue 35, item 1): a
viewer gets no run uploader and no remove button, a coder removes only their own uploads, only an admin
reloads the caches every session shares; the local user of a server reachable from other machines without
sign-in writes nothing. ``tests/unit/test_file_writes_access.py`` holds the same rules below the pages."""
from __future__ import annotations

import pytest

from data_access.access import Identity, Role
from data_access.runs import save_upload, upload_dir
from ui.shell import auth

from .conftest import open_page
from .test_signed_in_roles import _captions, _codraw_dialog, _unescaped, sign_in  # noqa: F401  (the fixture)


def _remove_buttons(at) -> list[str]:
    return sorted(b.key for b in at.button if (b.key or "").startswith("remove_upload_"))


@pytest.fixture
def uploads():
    save_upload("codraw", "bobs.jsonl", b"not a run\n", actor=Identity("bob", Role.CODER, signed_in=True))
    save_upload("codraw", "alices.jsonl", b"not a run\n", actor=Identity("alice", Role.CODER, signed_in=True))


def test_a_viewer_gets_no_uploader_and_removes_nothing(sign_in, uploads):  # noqa: F811
    sign_in(Role.VIEWER, "bob")
    at = open_page("pages/runs.py", corpus="codraw")
    assert not at.get("file_uploader")
    assert _remove_buttons(at) == []
    assert "Read only: uploading runs needs the coder role, and bob@lab.example is a viewer." in _captions(at)


def test_a_coder_uploads_and_removes_only_their_own(sign_in, uploads):  # noqa: F811
    sign_in(Role.CODER, "alice")
    at = open_page("pages/runs.py", corpus="codraw")
    assert len(at.get("file_uploader")) == 1
    assert _remove_buttons(at) == ["remove_upload_codraw_alices"]
    assert "bobs (bob's)" in _captions(at)
    sign_in(Role.ADMIN, "carol")
    at = open_page("pages/runs.py", corpus="codraw")
    assert _remove_buttons(at) == ["remove_upload_codraw_alices", "remove_upload_codraw_bobs"]
    next(b for b in at.button if b.key == "remove_upload_codraw_bobs").click().run()
    assert not (upload_dir("codraw") / "bobs.jsonl").exists()


@pytest.mark.parametrize("role, shown", [(Role.CODER, False), (Role.ADJUDICATOR, False), (Role.ADMIN, True)])
def test_only_an_admin_reloads_every_corpus(sign_in, role, shown):  # noqa: F811
    sign_in(role, "alice")
    at = open_page("pages/data.py")
    assert any(b.label == "↻ Reload all corpora" for b in at.button) is shown
    if not shown:
        assert "Read only: reloading every corpus needs the admin role" in _captions(at)


def test_served_to_other_machines_without_sign_in_the_local_user_writes_nothing(monkeypatch, uploads):
    monkeypatch.setattr(auth, "served_beyond_localhost", lambda: True)
    at = open_page("pages/runs.py", corpus="codraw")
    assert not at.get("file_uploader") and _remove_buttons(at) == []
    assert any("reachable from other machines without sign-in" in _unescaped(w.value) for w in at.sidebar.warning)
    at = open_page("pages/replay.py", corpus="codraw", dialog=_codraw_dialog(), turn="1")
    assert next(b for b in at.button if b.label == "Save note").disabled
    monkeypatch.setenv(auth.OPEN_WRITES_VARIABLE, "1")  # a demo on a trusted network, said so by the admin
    at = open_page("pages/runs.py", corpus="codraw")
    assert len(at.get("file_uploader")) == 1
