"""The Parquet cache: a hit returns equal frames, a changed source or schema misses, damage is rebuilt."""
import os
import time

import pandas as pd
import pytest

from data_access import cache
from data_access.common import CORPUS_NAMES, SkippedRecord
from data_access.corpora import demo_path, load_path


def _frames():
    return {
        "dialogs": pd.DataFrame({"dialog_id": ["a", "b"], "n_steps": [3, 4], "scores": [[1.0, 2.0], []]}),
        "rounds": pd.DataFrame({"dialog_id": ["a"], "round": pd.array([1], "Int64"), "text": ["héllo <b>"]}),
    }


def _builder(counter):
    def build():
        counter.append(1)
        return _frames(), [SkippedRecord("f.json: x", "broken")]
    return build


def test_hit_returns_equal_frames_and_skipped(tmp_path):
    source = tmp_path / "corpus.json"
    source.write_text("{}")
    calls = []
    first = cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder(calls))
    second = cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder(calls))
    assert len(calls) == 1 and second[2] is True and first[2] is False
    for name, frame in first[0].items():
        pd.testing.assert_frame_equal(frame, second[0][name])
    assert second[1] == [SkippedRecord("f.json: x", "broken")]


def test_changed_source_or_schema_is_rebuilt(tmp_path):
    source = tmp_path / "corpus.json"
    source.write_text("{}")
    calls = []
    cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder(calls))
    source.write_text('{"changed": true}')
    os.utime(source, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder(calls))[2] is False
    assert cache.cached_build(tmp_path / "c", "codraw", source, 2, _builder(calls))[2] is False
    assert len(calls) == 3


def test_folder_source_notices_a_new_file(tmp_path):
    folder = tmp_path / "dialogs"
    folder.mkdir()
    (folder / "a.json").write_text("{}")
    key = cache.cache_key("codraw", folder, 1)
    (folder / "b.json").write_text("{}")
    assert cache.cache_key("codraw", folder, 1) != key


@pytest.mark.parametrize("damage", ["truncate_parquet", "garble_manifest", "delete_frame"])
def test_damaged_entry_is_rebuilt_not_trusted(tmp_path, damage):
    source = tmp_path / "corpus.json"
    source.write_text("{}")
    calls = []
    cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder(calls))
    entry = cache.entry_dir(tmp_path / "c", "codraw", cache.cache_key("codraw", source, 1))
    parquet = entry / "dialogs.parquet"
    if damage == "truncate_parquet":
        parquet.write_bytes(parquet.read_bytes()[:20])
    elif damage == "garble_manifest":
        (entry / cache.MANIFEST).write_text("{not json")
    else:
        parquet.unlink()
    frames, _skipped, from_cache = cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder(calls))
    assert from_cache is False and len(calls) == 2
    pd.testing.assert_frame_equal(frames["dialogs"], _frames()["dialogs"])
    assert cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder(calls))[2] is True


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_cached_and_fresh_corpus_frames_are_equal(tmp_path, name):
    path = demo_path(name, tmp_path)
    fresh = load_path(name, path, cache_root=tmp_path / "c")
    cached = load_path(name, path, cache_root=tmp_path / "c")
    assert not fresh.from_cache and cached.from_cache
    assert fresh.frames.keys() == cached.frames.keys()
    for frame in fresh.frames:
        pd.testing.assert_frame_equal(fresh.frames[frame], cached.frames[frame], check_dtype=True)
    assert fresh.skipped == cached.skipped


def test_frames_are_read_lazily_and_unreadable_content_triggers_a_rebuild(tmp_path):
    source = tmp_path / "corpus.json"
    source.write_text("{}")
    calls = []
    cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder(calls))
    entry = cache.entry_dir(tmp_path / "c", "codraw", cache.cache_key("codraw", source, 1))
    parquet = entry / "rounds.parquet"
    parquet.write_bytes(b"\0" * parquet.stat().st_size)  # same size, garbage content
    frames, _skipped, from_cache = cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder(calls))
    assert from_cache and len(calls) == 1
    pd.testing.assert_frame_equal(frames["dialogs"], _frames()["dialogs"])  # intact file: read as is
    pd.testing.assert_frame_equal(frames["rounds"], _frames()["rounds"])  # garbage: rebuilt from the source
    assert len(calls) == 2
    assert cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder(calls))[2] is True


def test_pickled_lazy_frames_are_a_plain_complete_dict(tmp_path):
    import pickle

    source = tmp_path / "corpus.json"
    source.write_text("{}")
    cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder([]))
    frames = cache.cached_build(tmp_path / "c", "codraw", source, 1, _builder([]))[0]
    copy = pickle.loads(pickle.dumps(frames))
    assert type(copy) is dict and set(copy) == {"dialogs", "rounds"}
