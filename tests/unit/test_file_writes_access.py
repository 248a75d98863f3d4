"""Every write that is not the store's is checked below the page too (issue 35, item 1): run files uploaded,
replaced and removed, the caches every session shares, and the local user of a server reachable from other
machines. Each write × each role: allowed exactly to the roles that may make it, refused with "Not allowed"
(logged) and nothing changed on disk otherwise.

``test_every_write_in_the_code_is_checked_or_named`` reads the code: each function of ``data_access``, ``ui``,
``pages`` that writes a file, removes one or empties a cache either checks the identity (``check``,
``acting``, an ``actor``) or is named in ``UNCHECKED`` with the reason no person's write reaches it; a new
write path without either fails the suite."""
from __future__ import annotations

import ast
import logging
from pathlib import Path
from typing import Callable, Optional

import pytest

from data_access.access import AccessRefused, Action, Identity, Role
from data_access.runs import remove_upload, save_upload, upload_dir, upload_owner

ROOT = Path(__file__).resolve().parents[2]
RUN = b'{"dialog_id": "x", "round": 1}\n'


def _as(role: Role, coder: str) -> Identity:
    return Identity(coder=coder, role=role, email=f"{coder}@lab.example", signed_in=True)


def _disk(cache: Path) -> dict:
    return {str(p.relative_to(cache)): p.read_bytes() for p in sorted(cache.rglob("*")) if p.is_file()}


# Each file write, and the least role that may make it (None: no role but an admin may, it is bob's).
FileWrite = Callable[[Path, Identity], object]
WRITES: dict[str, tuple[FileWrite, Optional[Role]]] = {
    "upload a new run": (lambda c, a: save_upload("codraw", "new.jsonl", RUN, actor=a, cache_root=c), Role.CODER),
    "replace bob's run": (lambda c, a: save_upload("codraw", "bobs.jsonl", b"{}\n", actor=a, cache_root=c), None),
    "replace bob's run under another suffix": (
        lambda c, a: save_upload("codraw", "bobs.json", b"{}\n", actor=a, cache_root=c), None),
    "remove bob's run": (lambda c, a: remove_upload("codraw", "bobs", actor=a, cache_root=c), None),
    "replace an upload nobody is on record for": (
        lambda c, a: save_upload("codraw", "legacy.jsonl", b"{}\n", actor=a, cache_root=c), None),
    "remove an upload nobody is on record for": (
        lambda c, a: remove_upload("codraw", "legacy", actor=a, cache_root=c), None),
}


def _seed(root: Path) -> None:
    """bob's upload, and one uploaded before uploads had owners."""
    import shutil

    shutil.rmtree(root, ignore_errors=True)
    save_upload("codraw", "bobs.jsonl", RUN * 3, actor=_as(Role.CODER, "bob"), cache_root=root)
    (upload_dir("codraw", root) / "legacy.jsonl").write_bytes(RUN)


@pytest.fixture
def cache(tmp_path) -> Path:
    root = tmp_path / "cache"
    _seed(root)
    return root


@pytest.mark.parametrize("role", list(Role), ids=lambda r: r.label)
def test_every_file_write_is_allowed_exactly_to_the_roles_that_may_make_it(cache, role, caplog):
    for name, (write, needs) in WRITES.items():
        _seed(cache)
        before = _disk(cache)
        may = role >= needs if needs is not None else role is Role.ADMIN
        if may:
            write(cache, _as(role, "alice"))
            assert _disk(cache) != before, name
        else:
            with caplog.at_level(logging.WARNING, logger="dialogue.access"):
                with pytest.raises(AccessRefused, match="^Not allowed: "):
                    write(cache, _as(role, "alice"))
            assert _disk(cache) == before, f"{name}: a refused write changed the disk"
            assert "alice@lab.example" in caplog.records[-1].getMessage(), name


def test_a_coder_replaces_and_removes_their_own_upload(cache):
    bob = _as(Role.CODER, "bob")
    save_upload("codraw", "bobs.jsonl", b"{}\n", actor=bob, cache_root=cache)
    assert (upload_dir("codraw", cache) / "bobs.jsonl").read_bytes() == b"{}\n"
    assert upload_owner("codraw", "bobs", cache) == "bob"
    assert remove_upload("codraw", "bobs", actor=bob, cache_root=cache)
    assert upload_owner("codraw", "bobs", cache) is None


def test_a_sidecar_cannot_be_planted_by_upload(cache):
    with pytest.raises(ValueError, match=r"\.meta\.json\) is not uploaded in the browser"):
        save_upload("codraw", "bobs.meta.json", b'{"description": "mine now"}', actor=_as(Role.ADMIN, "alice"),
                    cache_root=cache)


def test_the_local_user_of_a_server_reachable_from_elsewhere_writes_nothing(cache):
    outsider = Identity.local_read_only("this server is reachable from other machines without sign-in")
    for name, (write, _) in WRITES.items():
        before = _disk(cache)
        with pytest.raises(AccessRefused, match="reachable from other machines"):
            write(cache, outsider)
        assert _disk(cache) == before, name
    for action in Action:
        assert not outsider.may(action)
    assert all(Identity.local("x").may(action, "someone") for action in Action)


def test_reloading_the_shared_caches_is_an_admins(monkeypatch):
    from ui import cached

    emptied = []
    monkeypatch.setattr(cached.st.cache_data, "clear", lambda: emptied.append("data"))
    for role in (Role.VIEWER, Role.CODER, Role.ADJUDICATOR):
        with pytest.raises(AccessRefused, match="needs the admin role"):
            cached.reload_all(_as(role, "alice"))
    assert emptied == []
    cached.reload_all(_as(Role.ADMIN, "alice"))
    cached.reload_all(Identity.local())
    assert emptied == ["data", "data"]


# -- every write in the code is checked, or named here with the reason no person's write reaches it ----------

# What writes a file, removes one or empties a cache: these methods of a path, these functions of os and shutil,
# open() for writing, and clear() on a cache (Streamlit's, or a function of the file cached by a decorator).
PATH_WRITES = {"write_bytes", "write_text", "unlink", "rmdir", "touch", "rename", "replace", "symlink_to"}
MODULE_WRITES = {("os", "replace"), ("os", "remove"), ("os", "unlink"), ("os", "rename"), ("os", "rmdir"),
                 ("shutil", "rmtree"), ("shutil", "move"), ("shutil", "copy"), ("shutil", "copyfile"),
                 ("shutil", "copytree")}
CHECKS = {"check", "acting", "attributed", "allowed", "reload_all", "save_upload", "remove_upload", "_write_owner"}
UNCHECKED = {
    # derived data the app builds from the configured sources, never from what a person typed or sent
    "data_access/cache.py": "the Parquet cache of the configured sources (rebuilt from them, never a person's write)",
    "data_access/corpora.py": "the demo corpora generated into the cache folder, and its own lru caches",
    "data_access/layers/load.py": "the demo layers generated into the cache folder",
    "data_access/runs/demo.py": "the demo runs generated into the cache folder",
    "corpora/codraw/data/demo.py": "the demo corpus",
    "corpora/gos/data/demo.py": "the demo corpus",
    "corpora/minecraft/data/demo.py": "the demo corpus",
    "corpora/minecraft/data/bap.py": "the CLI's conversion into a path the local user names",
    "corpora/codraw/data/writer.py": "collected games written into a folder its caller names (the export checks who)",
    "corpora/gos/data/writer.py": "collected games written into a folder its caller names (the export checks who)",
    "corpora/minecraft/data/writer.py": "collected games written into a folder its caller names (the export checks who)",
    "data_access/sql_console.py": "the SQL console's read-only copy of the corpus's tables, in its private folder",
    "data_access/sql_process.py": "the SQL console's private folder of that copy (made, and removed when it closes)",
    "data_access/runs/__init__.py:_write_owner": "the uploader's record, written by save_upload after its check",
    "data_access/live.py:exported_collection": "the finished live games every reader may see, exported into the "
                                               "cache folder (each event was checked in the store as it was written)",
    "data_access/live.py:_drop_older_exports": "the same exports: those of an earlier set of finished games",
    "data_access/store/notes.py:_deliver": "exports into a path given by the Python API or CLI caller (pages take bytes)",
    "data_access/play/runs.py:write_person_runs": "people's runs written from finished plays, each checked in the store "
                                                  "where it was saved (data_access/store/plays.py)",
    "data_access/play/scoring.py:scored_run": "a play's run lines in a private temporary folder, read back and removed",
}


def _is_path_write(call: ast.Call, cached: set[str]) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == "open" and _opens_for_writing(call)
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value
    if isinstance(owner, ast.Name) and (owner.id, func.attr) in MODULE_WRITES:
        return True
    if func.attr in ("clear", "cache_clear"):
        return (isinstance(owner, ast.Attribute) and owner.attr in ("cache_data", "cache_resource")) or (
            isinstance(owner, ast.Name) and owner.id in cached)
    if isinstance(owner, (ast.Call, ast.Subscript)) or (isinstance(owner, ast.Name) and owner.id == "dataclasses"):
        return False  # a frame's rename, dataclasses.replace: not a path
    # a path's own method: replace and rename only with one argument that is not a string (str.replace has two)
    if func.attr in ("replace", "rename"):
        return len(call.args) == 1 and not isinstance(call.args[0], ast.Constant)
    return func.attr in PATH_WRITES


def _opens_for_writing(call: ast.Call) -> bool:
    modes = [*call.args[1:2], *[k.value for k in call.keywords if k.arg == "mode"]]
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax") for m in modes)


def _cached_functions(tree: ast.Module) -> set[str]:
    """Functions of the module whose decorator caches them (Streamlit's caches, functools)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                text = ast.unparse(decorator)
                if "cache" in text:
                    names.add(node.name)
    return names


def _functions_that_write(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    cached = _cached_functions(tree)
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    top = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    for name, body in [("<module>", top), *[(f.name, f.body) for f in functions]]:
        calls = [n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Call)]
        if any(_is_path_write(c, cached) for c in calls):
            called = {c.func.attr if isinstance(c.func, ast.Attribute) else getattr(c.func, "id", "") for c in calls}
            keywords = {k.arg for c in calls for k in c.keywords}
            yield name, called | keywords


def test_every_write_in_the_code_is_checked_or_named():
    unnamed = []
    for folder in ("data_access", "ui", "pages", "corpora"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative in UNCHECKED:
                continue
            for function, names in _functions_that_write(path):
                if f"{relative}:{function}" in UNCHECKED or names & CHECKS or "actor" in names:
                    continue
                unnamed.append(f"{relative}:{function}")
    assert not unnamed, ("these functions write (a file, or a cache every session shares) without checking who "
                         "writes: check with data_access.access, or name them in UNCHECKED with the reason: "
                         + ", ".join(unnamed))
