"""One vocabulary (data_access.common.GLOSSARY) on every page: Overview counts messages, Data counts rounds,
replay steps and messages, Browse explains its count columns with the glossary's words."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from data_access.common import COLUMN_HELP, GLOSSARY

from .conftest import open_page


def metrics_of(at: AppTest) -> list[dict[str, str]]:
    """Per corpus (in page order) label → value of the Data page's metrics."""
    per_corpus, current = [], None
    for metric in at.metric:
        if metric.label == "Dialogs":
            current = {}
            per_corpus.append(current)
        if current is not None:
            current[metric.label] = metric
        if metric.label == "Skipped records":  # the corpus's last metric; later sections have their own
            current = None
    return [{label: m.value for label, m in group.items()} for group in per_corpus]


def column_help(at: AppTest, index: int = 0) -> dict[str, str]:
    """Column name → the help text the table shows in its header."""
    config = json.loads(at.dataframe[index].proto.columns)
    return {name: value.get("help") for name, value in config.items() if isinstance(value, dict)}


def test_overview_counts_messages_never_turns():
    at = open_page("overview")
    table = at.dataframe[0].value
    assert "messages" in table.columns and "turns" not in table.columns
    assert column_help(at)["messages"] == COLUMN_HELP["messages"]
    assert GLOSSARY["message"] in COLUMN_HELP["messages"]
    assert not any("turn" in c.value.lower() for c in at.caption)


def test_data_page_counts_rounds_replay_steps_and_messages():
    at = open_page("data")
    codraw, gos, minecraft = metrics_of(at)
    assert [label for label in codraw] == ["Dialogs", "Rounds", "Replay steps", "Messages", "Load time", "Skipped records"]
    assert minecraft["Rounds"] == "–"  # Minecraft games have no rounds
    assert codraw["Rounds"] == codraw["Replay steps"]  # a CoDraw replay step is a round
    assert int(gos["Rounds"].replace(",", "")) == 4 * int(gos["Dialogs"].replace(",", ""))
    helps = [m.proto.help for m in at.metric[:18] if m.label in ("Rounds", "Replay steps", "Messages")]
    assert len(helps) == 9 and all(helps)


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
def test_codraw_messages_and_rounds_are_labelled_on_the_full_corpus(shared_data, monkeypatch):
    """The two CoDraw figures a new user saw as "turns": 141,844 messages (Overview), 77,502 rounds (Data)."""
    monkeypatch.setenv("CODRAW_DATA", str(shared_data / "codraw" / "CoDraw_1_0.json.gz"))
    overview = open_page("overview", timeout=300, corpora="codraw")
    row = overview.dataframe[0].value.set_index("corpus").loc["CoDraw"]
    assert row["messages"] == 141_844
    data = open_page("data", timeout=300)
    codraw = metrics_of(data)[0]
    assert (codraw["Rounds"], codraw["Messages"]) == ("77,502", "141,844")
