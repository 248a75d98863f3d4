"""One vocabulary (data_access.common.GLOSSARY) on every page: Overview counts messages, Data counts rounds,
replay steps and messages, Browse explains its count columns with the glossary's words."""
from __future__ import annotations

import json
import math

import pytest
from streamlit.testing.v1 import AppTest

from data_access.common import COLUMN_HELP, GLOSSARY
from ui.widgets import md_escape

from .conftest import markdown_table, open_page


def data_counts(at: AppTest) -> dict[str, dict]:
    """Corpus → its row of the Data page's table of counts (as shown)."""
    return markdown_table(at).set_index("Corpus").to_dict("index")


def column_help(at: AppTest, index: int = 0) -> dict[str, str]:
    """Column name → the help text the table shows in its header."""
    config = json.loads(at.dataframe[index].proto.columns)
    return {name: value.get("help") for name, value in config.items() if isinstance(value, dict)}


def test_overview_counts_messages_never_turns():
    at = open_page("overview")
    table = markdown_table(at)
    assert "messages" in table.columns and "turns" not in table.columns
    glossary = next(m.value for m in at.markdown if m.value.startswith("- **"))
    assert md_escape(GLOSSARY["message"]) in glossary
    assert GLOSSARY["message"] in COLUMN_HELP["messages"]
    assert not any("turn" in c.value.lower() for c in at.caption)


def test_data_page_counts_rounds_replay_steps_and_messages():
    at = open_page("data")
    counts = data_counts(at)
    codraw, gos, minecraft = (counts[title] for title in ("CoDraw", "A Game Of Sorts", "Minecraft Collaborative Building"))
    assert list(codraw) == ["dialogs", "rounds", "replay steps", "messages", "load time (s)", "loaded from", "skipped records"]
    assert math.isnan(minecraft["rounds"])  # Minecraft games have no rounds: shown as "–"
    assert codraw["rounds"] == codraw["replay steps"]  # a CoDraw replay step is a round
    assert gos["rounds"] == 4 * gos["dialogs"]
    glossary = "\n".join(m.value for m in at.markdown if m.value.startswith("- **"))
    for term in ("round", "replay step", "message"):
        assert md_escape(GLOSSARY[term]) in glossary


@pytest.mark.parametrize("corpus", ["codraw", "gos", "minecraft"])
def test_browse_explains_each_count_with_the_glossary(corpus):
    at = open_page("browse", corpus=corpus)
    helps = column_help(at)
    assert helps["n_steps"] == COLUMN_HELP["n_steps"]
    assert helps["n_utterances"] == COLUMN_HELP["n_utterances"]
    table = at.dataframe[0].value
    assert ("n_rounds" in table.columns) == (corpus != "minecraft")
    steps_slider = [s for s in at.slider if s.label == "replay steps"]  # the range filter on n_steps
    assert len(steps_slider) == 1 and steps_slider[0].help == COLUMN_HELP["n_steps"]


@pytest.mark.shared
def test_codraw_messages_and_rounds_are_labelled_on_the_full_corpus(shared_data, real_cache, monkeypatch):
    """The two CoDraw figures a new user saw as "turns": 141,844 messages (Overview), 77,502 rounds (Data)."""
    monkeypatch.setenv("CODRAW_DATA", str(shared_data / "codraw" / "CoDraw_1_0.json.gz"))
    monkeypatch.setenv("DIALOGUE_CACHE_DIR", str(real_cache))  # the run's one parse of the full corpus
    overview = open_page("overview", timeout=300, corpora="codraw")
    row = markdown_table(overview).set_index("Corpus").loc["CoDraw"]
    assert row["messages"] == 141_844
    data = open_page("data", timeout=300)
    codraw = data_counts(data)["CoDraw"]
    assert (codraw["rounds"], codraw["messages"]) == (77_502, 141_844)
