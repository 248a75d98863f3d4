"""A fourth corpus registered from outside (``tests/fixtures/tinycorpus``, nothing but the corpus contract) is
offered by every page: the general pages show it as they show the built-in corpora, the pages of another
corpus simply do not list it. Nothing of the app was changed to add it."""
from __future__ import annotations

import pytest

from data_access import corpora
from data_access.registry import CORPUS_NAMES
from tests.fixtures import tinycorpus
from tests.fixtures.tinycorpus import runs as tiny_runs

from .conftest import open_page

NAME, TITLE = tinycorpus.NAME, tinycorpus.TITLE
# Pages that must show the corpus, and the URL that opens them on it.
GENERAL = {"overview": {}, "browse": {"corpus": NAME}, "replay": {"corpus": NAME, "dialog": "t3", "turn": "2"},
           "search": {"q": "blue"}, "compare": {"corpus": NAME}, "present": {"corpus": NAME}, "notes": {},
           "data": {}, "runs": {"corpus": NAME, "view": "Compare two runs"},  # the view listing its dialogs
           "slices": {"corpus": NAME, "slice": "dialog_id = t3"},  # the slice's description names the corpus
           "play": {"corpus": NAME}}  # it says that the corpus, which brings no game, cannot be played
OTHERS = ("words", "codraw_scores", "durations", "gos_outcomes", "minecraft_outcomes", "codebooks", "coding_queue",
          "agreement")


def test_every_page_of_the_app_is_opened_here():
    import re
    from pathlib import Path

    app = (Path(__file__).resolve().parents[2] / "app.py").read_text(encoding="utf-8")
    assert set(re.findall(r'url_path="([a-z_]+)"', app)) == set(GENERAL) | set(OTHERS)


@pytest.fixture(autouse=True)
def tiny():
    if NAME in CORPUS_NAMES:  # installed as a plugin (test_corpus_plugin.py runs this module so): found, not added
        yield
        return
    with corpora.registered(tinycorpus):
        yield


def _text(at) -> str:
    parts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success"):
        parts += [str(element.value) for element in getattr(at, kind)]
    return "\n".join(parts)


@pytest.mark.parametrize("page", list(GENERAL))
def test_the_general_pages_offer_the_fourth_corpus(page):
    if page == "notes":
        from data_access.sources import notes_db_path
        from data_access.store import NotesStore

        NotesStore(notes_db_path()).add_note(NAME, "t3", "a note on the tiny corpus", turn=2)
    at = open_page(page, **GENERAL[page])
    assert not at.error, [e.value for e in at.error]
    shown = _text(at) + "\n".join(frame.value.to_csv() for frame in at.dataframe)
    shown += "\n".join(editor.value.to_csv() for editor in at.data_editor)
    shown += "\n".join(str(w.options) for w in (*at.selectbox, *at.multiselect))
    assert TITLE in shown or "t3" in shown, page


@pytest.mark.parametrize("page", OTHERS)
def test_the_other_pages_open_with_it_registered(page):
    at = open_page(page)
    assert not at.error, [e.value for e in at.error]


def test_replay_shows_the_plugins_own_steps_in_the_step_player_at_the_linked_turn():
    from tests.app.transcript_lines import player_captions, player_data
    from tests.fixtures.tinycorpus import views

    at = open_page("replay", corpus=NAME, dialog="t3", turn="2")
    assert (at.query_params["dialog"], at.query_params["turn"]) == ("t3", "2")
    (data,) = player_data(at)  # no Replay section of its own: the generic one, with the step player
    assert data["step"] == 2 and data["n"] == 4 and data["unit"] == "Turn"
    assert player_captions(at) == [views.CAPTION.format(speaker="Ann", text="blue it is")]  # its own picture
    assert data["steps"]["2"]["pictures"][0]["width"] == views.SIZE[0]  # shown at most at its own width
    assert [t["value"] for t in data["timeline"]] == [2.0, 3.0, 1.0, 1.0] and "the words of each turn" in data["legend"]


def test_a_corpus_without_views_gets_the_step_player_over_its_snapshots(monkeypatch):
    from tests.app.transcript_lines import player_captions, player_data
    from ui.shell import corpus_views

    monkeypatch.setitem(corpus_views._MODULES, NAME, "tests.fixtures.no_such_views")
    monkeypatch.setattr(corpus_views, "_found", {})
    monkeypatch.setattr(corpus_views, "VIEWS_PROBLEMS", {})
    at = open_page("replay", corpus=NAME, dialog="t3", turn="2")
    (data,) = player_data(at)
    assert player_captions(at) == ["After turn 2"] and data["steps"]["2"]["pictures"][0]["width"] == 320
    assert ["Said by", "Ann"] in data["steps"]["2"]["facts"]
    assert [t["value"] for t in data["timeline"]] == [2.0, 3.0, 1.0, 1.0]  # the words said at each turn


def test_runs_page_scores_the_tiny_demo_runs():
    at = open_page("runs", corpus=NAME, view="Runs × metrics")
    tables = [frame.value for frame in at.dataframe]
    metrics = next(t for t in tables if "metric" in t.columns)
    assert set(metrics["run"]) == {"baseline", "noisy"}
    assert metrics.loc[metrics["run"] == "baseline", "value"].eq(1.0).all()
    assert tiny_runs.METRIC_NOTE in _text(at)


def test_replay_shows_a_run_beside_the_tiny_dialog():
    at = open_page("replay", corpus=NAME, dialog="t1", turn="1", run="noisy")
    assert any(m.label == "exact match" for m in at.metric)
