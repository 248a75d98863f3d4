"""AppTest runs of the Minecraft replay section on the generated demo corpus."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from .conftest import run_function

GAME = "B1-A2-C1-1523304955000"  # the demo's tower game: 9 utterances, removals at step 3


def replay_script():
    from corpora.minecraft.views.replay import show
    from ui.shell.corpus_edge import resolve

    show(resolve("minecraft"))


def open_replay(**params) -> AppTest:
    return run_function(replay_script, corpus="minecraft", **params)


def plotly_figures(at: AppTest) -> list[dict]:
    return [json.loads(element.proto.spec) for element in at.get("plotly_chart")]


from tests.app.transcript_lines import player_captions, transcript_texts  # noqa: E402


def test_a_deep_link_shows_build_and_target_in_3d_and_the_transcript_so_far():
    at = open_replay(dialog=GAME, turn="3", view3d="1")  # the 3-D view is one URL parameter away
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
    at.toggle(key="minecraft_show_all").set_value(True).run()  # the first toggle is the 3-D view's
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


def test_a_step_shows_two_pictures_drawn_on_the_server_and_no_3d_chart():
    at = open_replay(dialog=GAME, turn="3")
    assert not at.exception and not at.get("plotly_chart")
    captions = player_captions(at)
    assert len(captions) == 2
    assert captions[0].startswith("Build after message 3") and "removed in this step" in captions[0]
    assert captions[1].startswith("Target, aligned")
    assert "view3d" not in at.query_params


def test_the_3d_toggle_shows_the_3d_view_and_keeps_it_in_the_url():
    at = open_replay(dialog=GAME, turn="3")
    at.toggle(key="minecraft_view3d").set_value(True).run()
    assert not at.exception
    assert at.query_params["view3d"] == "1"
    assert len(plotly_figures(at)) == 2 and not at.get("image")
    at.toggle(key="minecraft_view3d").set_value(False).run()
    assert "view3d" not in at.query_params and len(player_captions(at)) == 2


def test_the_3d_view_keeps_its_camera_from_step_to_step_of_one_game():
    at = open_replay(dialog=GAME, turn="3", view3d="1")
    revisions = {figure["layout"]["uirevision"] for figure in plotly_figures(at)}
    at.slider[0].set_value(4).run()
    assert at.query_params["turn"] == "4"
    after = plotly_figures(at)
    assert after[0]["layout"]["title"]["text"] == "Build after message 4"
    assert revisions == {figure["layout"]["uirevision"] for figure in after} == {f"minecraft:{GAME}"}
