"""AppTest runs of the Minecraft replay section on the generated demo corpus."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from .conftest import run_function

GAME = "B1-A2-C1-1523304955000"  # the demo's tower game: 9 utterances, removals at step 3


def replay_script():
    from ui.replay_minecraft import show

    show("minecraft")


def open_replay(**params) -> AppTest:
    return run_function(replay_script, corpus="minecraft", **params)


def plotly_figures(at: AppTest) -> list[dict]:
    return [json.loads(element.proto.spec) for element in at.get("plotly_chart")]


from tests.app.transcript_lines import transcript_texts  # noqa: E402


def test_a_deep_link_shows_build_and_target_in_3d_and_the_transcript_so_far():
    at = open_replay(dialog=GAME, turn="3")
    assert at.selectbox[0].value == GAME
    assert at.slider[0].value == 3
    figures = plotly_figures(at)
    assert len(figures) == 2
    build, target = figures
    assert {trace["type"] for trace in build["data"]} >= {"mesh3d", "cone"}
    assert build["layout"]["title"]["text"] == "Build after message 3"
    assert any("removed this step (2)" == trace.get("name") for trace in build["data"])
    assert any("missing" in (trace.get("name") or "") for trace in target["data"])
    texts = transcript_texts(at)
    assert "knock out levels 2 and 4" in texts
    assert "like that?" not in texts  # utterance 8 is hidden at step 3
    assert at.query_params["turn"] == "3"
    removals = at.dataframe[0].value
    assert list(removals["kind"]) == ["removal", "removal"]


def test_showing_the_whole_game_reveals_later_utterances():
    at = open_replay(dialog=GAME, turn="3")
    at.toggle[0].set_value(True).run()
    assert not at.exception
    assert "like that?" in transcript_texts(at)


def test_a_turn_beyond_the_end_warns_and_shows_the_last_utterance():
    at = open_replay(dialog=GAME, turn="99")
    assert any("99" in w.value and "showing the last message, 9" in w.value for w in at.warning)
    assert at.slider[0].value == 9
    assert at.query_params["turn"] == "9"


def test_a_malformed_turn_warns_and_starts_at_the_first_utterance():
    at = open_replay(dialog=GAME, turn="abc")
    assert any("“abc”" in w.value for w in at.warning)
    assert at.slider[0].value == 1
