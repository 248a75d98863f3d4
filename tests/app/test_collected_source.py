"""A corpus's collection beside it (issue 50): the games collected live open as a source of their own, ``corpus=
minecraft@collected``, offered in the corpus picker as "… (collected)" beside the released corpus once a game has
finished, from the store's finished games (exported into the cache) or from the path ``DIALOGUE_COLLECTIONS`` names;
Browse lists the collected game with a Replay link that keeps the collection, the Replay steps through it and the
corpus's analysis page draws it, while the released corpus stays as it was."""
from __future__ import annotations

import os

import pytest
import streamlit as st

from data_access import live
from data_access.registry import corpus_module
from data_access.store import Store
from tests.app.transcript_lines import transcript_texts

from .conftest import open_page

TARGET = [[0, 1, 0, "blue"], [0, 2, 0, "blue"], [1, 1, 0, "red"]]


def _finished_game(store: Store) -> int:
    """One Minecraft game two people played on this machine (the local user, without sign-in), finished."""
    package = corpus_module("minecraft")
    game, token = live.create(store, package, "C7", "Architect", {"roles": {"Architect": {"target": TARGET}}},
                              player="ann")
    store.live_games.join(token, player="ben")
    live.send(store, package, game.id, "a1", "message", {"text": "two blue blocks, one on the other"}, player="ann")
    live.send(store, package, game.id, "b1", "place", {"x": 0, "y": 1, "z": 0, "color": "blue"}, player="ben")
    live.send(store, package, game.id, "b2", "message", {"text": "like this?"}, player="ben")
    store.live_games.finish(game.id, player="ann")
    return game.id


@pytest.fixture
def store():
    opened = Store(os.environ["DIALOGUE_NOTES_DB"])
    yield opened
    opened.close()


def test_the_stores_finished_games_open_beside_the_released_corpus_in_browse_and_the_replay(store):
    released = open_page("browse", corpus="minecraft")
    assert released.segmented_control(key="browse_corpus").options == [  # no game finished: no collection
        "CoDraw", "A Game Of Sorts", "Minecraft Collaborative Building"]
    _finished_game(store)
    st.cache_data.clear()  # the picker asks the store at most every AVAILABLE_TTL_S seconds: as that long later
    at = open_page("browse", corpus="minecraft@collected")
    picker = at.segmented_control(key="browse_corpus")
    assert picker.value == "minecraft@collected" and "Minecraft Collaborative Building (collected)" in picker.options
    table = at.dataframe[0].value
    assert len(table) == 1 and table["dialog_id"].iloc[0].endswith("-C7-" + table["dialog_id"].iloc[0].split("-")[-1])
    assert table["replay"].iloc[0].startswith("/replay?corpus=minecraft%40collected&dialog=")
    dialog = table["dialog_id"].iloc[0]

    replay = open_page("replay", corpus="minecraft@collected", dialog=dialog, turn="3")
    assert not replay.error, [e.value for e in replay.error]
    assert replay.query_params["corpus"] == "minecraft@collected"
    texts = transcript_texts(replay)
    assert "two blue blocks, one on the other" in texts and "like this?" in texts

    outcomes = open_page("minecraft_outcomes", corpus="minecraft@collected")  # the corpus's analysis page
    assert not outcomes.error and any("over 1 game" in m.value for m in outcomes.markdown)

    again = open_page("browse", corpus="minecraft")  # the released corpus: its own dialogs, its own cache entry
    assert dialog not in set(again.dataframe[0].value["dialog_id"]) and len(again.dataframe[0].value) > 1


def test_a_collection_named_in_the_environment_opens_and_a_bad_path_or_link_is_said_in_one_line(store, tmp_path,
                                                                                              monkeypatch):
    game = _finished_game(store)
    path = live.export(store, corpus_module("minecraft"), [game], tmp_path / "study-1")
    monkeypatch.setenv("DIALOGUE_COLLECTIONS", f"minecraft={path}")
    at = open_page("browse", corpus="minecraft@collected")
    assert len(at.dataframe[0].value) == 1 and not at.error
    monkeypatch.setenv("DIALOGUE_COLLECTIONS", os.pathsep.join([f"minecraft={tmp_path / 'absent'}", "lego=x", "junk"]))
    bad = open_page("browse", corpus="minecraft@collected")
    said = [e.value.replace("\\", "") for e in bad.error]  # markdown escapes
    assert any(f"{tmp_path / 'absent'}: does not exist" in e and "(collected)" in e for e in said), said
    warned = [w.value.replace("\\", "") for w in bad.warning]
    assert any("'lego' is not a corpus" in w for w in warned) and any("'junk' is not corpus=path" in w for w in warned)
    unknown = open_page("browse", corpus="codraw@collected")  # no CoDraw game finished, none named
    assert unknown.segmented_control(key="browse_corpus").value == "codraw"
    assert any("collection" in w.value and "CoDraw" in w.value for w in unknown.warning)
