"""The Parquet cache key follows the code that builds the frames: a hash of the corpus package's sources
(plus the shared modules that shape frames), never a version number someone has to remember to bump."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from data_access import corpora
from data_access.common import CORPUS_NAMES

PACKAGE = Path(corpora.__file__).parent
ROOT = PACKAGE.parent


def _copy_tree(root: Path) -> Path:
    """The parts of a checkout that frames_version reads (each corpus's data part, data_access's frame code),
    copied under ``root``."""
    for name in CORPUS_NAMES:
        shutil.copytree(ROOT / "corpora" / name / "data", root / "corpora" / name / "data",
                        ignore=shutil.ignore_patterns("__pycache__"))
    (root / "data_access").mkdir(parents=True)
    for file in (*corpora.FRAME_CODE, "notes.py"):
        if (PACKAGE / file).is_file():
            shutil.copy(PACKAGE / file, root / "data_access" / file)
    return root


def test_each_corpus_has_its_own_stable_version():
    versions = {name: corpora.frames_version(name) for name in CORPUS_NAMES}
    assert len(set(versions.values())) == len(CORPUS_NAMES)
    assert all(corpora.frames_version(name, ROOT) == version for name, version in versions.items())


def test_editing_the_code_that_builds_frames_changes_the_version(tmp_path):
    root = _copy_tree(tmp_path / "checkout")
    before = {name: corpora.frames_version(name, root) for name in CORPUS_NAMES}
    frames = root / "corpora" / "gos" / "data" / "frames.py"
    frames.write_text(frames.read_text() + "\n# changed\n")
    after = {name: corpora.frames_version(name, root) for name in CORPUS_NAMES}
    assert after["gos"] != before["gos"]
    assert after["codraw"] == before["codraw"] and after["minecraft"] == before["minecraft"]
    common = root / "data_access" / "common.py"
    common.write_text(common.read_text() + "\n# the common schema changed\n")
    assert all(corpora.frames_version(name, root) != after[name] for name in CORPUS_NAMES)


def test_code_that_does_not_build_frames_leaves_the_version_alone(tmp_path):
    root = _copy_tree(tmp_path / "checkout")
    before = corpora.frames_version("codraw", root)
    (root / "data_access" / "notes.py").write_text("# notes are not frames\n")
    assert corpora.frames_version("codraw", root) == before


def test_a_new_code_version_misses_the_cache_and_rebuilds(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = corpora.load_path("minecraft", None, cache_root=cache)
    again = corpora.load_path("minecraft", None, cache_root=cache)
    assert (first.from_cache, again.from_cache) == (False, True)
    monkeypatch.setattr(corpora, "frames_version", lambda name, root=None: "edited-code")
    rebuilt = corpora.load_path("minecraft", None, cache_root=cache)
    assert rebuilt.from_cache is False
    assert rebuilt.dialogs["dialog_id"].tolist() == first.dialogs["dialog_id"].tolist()
    assert corpora.load_path("minecraft", None, cache_root=cache).from_cache is True


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_no_hand_bumped_schema_version_is_left(name):
    assert not hasattr(corpora.corpus_module(name), "SCHEMA_VERSION")
