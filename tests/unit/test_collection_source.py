"""A corpus's collection as a second source of the corpus (issue 50): named ``<corpus>@collected``, found where
``DIALOGUE_COLLECTIONS`` points (``corpus=path`` entries; a malformed entry said in one line), read by the corpus's
own reader under a name, a title and cache keys of its own, and the store's finished games exported once into the
cache folder (again when another game finishes)."""
from __future__ import annotations

import os

import pytest

from data_access import live
from data_access.common import CORPUS_TITLES, SourceError
from data_access.corpus import Corpus
from data_access.registry import corpus_module
from data_access.sources import COLLECTIONS_VARIABLE, configured_collections, split_source_name
from data_access.store import Store

TARGET = [[0, 1, 0, "blue"], [1, 1, 0, "red"]]


def _finish_a_game(store: Store, item: str = "C7") -> int:
    package = corpus_module("minecraft")
    game, token = live.create(store, package, item, "Architect", {"roles": {"Architect": {"target": TARGET}}},
                              player="ann")
    store.live_games.join(token, player="ben")
    live.send(store, package, game.id, f"{item}-a", "message", {"text": f"build {item}"}, player="ann")
    store.live_games.finish(game.id, player="ann")
    return game.id


@pytest.fixture
def store(tmp_path):
    opened = Store(tmp_path / "notes.sqlite3")
    yield opened
    opened.close()


def test_the_variable_lists_corpus_equals_path_and_says_which_entry_is_not(monkeypatch, tmp_path):
    monkeypatch.setenv(COLLECTIONS_VARIABLE, os.pathsep.join([f"minecraft={tmp_path}/a", "", "nonsense",
                                                              f" codraw = {tmp_path}/b ", "=x"]))
    found, problems = configured_collections()
    assert found == {"minecraft": tmp_path / "a", "codraw": tmp_path / "b"}
    assert len(problems) == 2 and "'nonsense' is not corpus=path" in problems[0]
    monkeypatch.setenv(COLLECTIONS_VARIABLE, "x" * 100_000)  # bounded: read up to its budget, one problem
    assert len(configured_collections()[1]) == 1
    assert split_source_name("codraw@collected") == ("codraw", "collected") and split_source_name("gos") == ("gos", None)


def test_a_collection_is_the_corpus_read_by_its_reader_under_a_name_title_and_key_of_its_own(store, tmp_path,
                                                                                             monkeypatch):
    path = live.export(store, corpus_module("minecraft"), [_finish_a_game(store)], tmp_path / "study")
    monkeypatch.setenv(COLLECTIONS_VARIABLE, f"minecraft={path}")
    collected, released = Corpus.resolve("minecraft@collected"), Corpus.resolve("minecraft")
    assert (collected.name, collected.collection, collected.package) == ("minecraft@collected", "collected",
                                                                         released.package)
    assert collected.title == f"{released.title} (collected)" and collected != released
    assert collected.utterances["text"].tolist() == ["build C7"]
    assert collected.loaded.source_name == "minecraft@collected" and collected.loaded.corpus == "minecraft"
    assert collected.link(collected.dialog_ids()[0]).startswith("/replay?corpus=minecraft%40collected&dialog=")
    assert CORPUS_TITLES["minecraft@collected"] == CORPUS_TITLES["minecraft"]  # the corpus's tables answer for it
    assert Corpus.resolve("minecraft@collected", path) == collected
    with pytest.raises(ValueError, match="no collection 'pilot'"):
        Corpus.resolve("minecraft@pilot")
    with pytest.raises(ValueError, match="needs a path"):
        Corpus.resolve("codraw@collected")
    with pytest.raises(SourceError, match="absent"):
        Corpus.resolve("minecraft@collected", tmp_path / "absent").dialog_ids()  # loads it


def test_the_stores_finished_games_are_exported_once_and_again_when_another_finishes(store, tmp_path):
    package = corpus_module("minecraft")
    assert live.exported_collection(store, package, tmp_path / "cache") is None  # no finished game: no collection
    _finish_a_game(store, "C7")
    first = live.exported_collection(store, package, tmp_path / "cache")
    stamp = first.stat().st_mtime_ns
    assert live.exported_collection(store, package, tmp_path / "cache") == first  # written once
    assert first.stat().st_mtime_ns == stamp
    _finish_a_game(store, "C8")
    second = live.exported_collection(store, package, tmp_path / "cache")
    assert second != first
    read, skipped = package.build_frames(second)
    assert skipped == [] and sorted(read["utterances"]["text"]) == ["build C7", "build C8"]
    assert not [p for p in (tmp_path / "cache" / "collections" / "minecraft").iterdir() if p.name.startswith(".")]
    _finish_a_game(store, "C9")
    third = live.exported_collection(store, package, tmp_path / "cache")
    exports = tmp_path / "cache" / "collections" / "minecraft"
    folders = sorted(p.name for p in exports.iterdir())
    assert folders == sorted(p.relative_to(exports).parts[0] for p in (second, third))  # the first one dropped


def test_a_collections_cache_key_is_its_own_and_gives_back_the_corpus_source_with_its_collection(store, tmp_path,
                                                                                                 monkeypatch):
    from ui.cache_keys import corpus_key, key_source

    path = live.export(store, corpus_module("minecraft"), [_finish_a_game(store)], tmp_path / "study")
    monkeypatch.setenv(COLLECTIONS_VARIABLE, f"minecraft={path}")
    collected, released = Corpus.resolve("minecraft@collected"), Corpus.resolve("minecraft")
    key = corpus_key(collected)
    assert key != corpus_key(released) and key.corpus == "minecraft@collected" and key.data == str(path)
    source = key_source(key)
    assert (source.corpus, source.collection, source.path, source.package) == (
        "minecraft", "collected", path, released.package)
