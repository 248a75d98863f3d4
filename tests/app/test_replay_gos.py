"""AppTest runs of the A Game Of Sorts replay section on the generated demo corpus."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.transcript_lines import player_captions, player_data

from .conftest import run_function


def replay_script():
    from corpora.gos.views.replay import show
    from ui.shell.corpus_edge import resolve

    show(resolve("gos"))


def open_replay(**params) -> AppTest:
    return run_function(replay_script, corpus="gos", **params)


def first_dialog() -> str:
    return open_replay().selectbox[0].value


def image_captions(at: AppTest) -> list[str]:
    """The pictures of the step shown: the step player's (``ui.replay.step_player``)."""
    return player_captions(at)


def shown_step(at: AppTest) -> dict:
    (data,) = player_data(at)
    return data["steps"][str(data["step"])]


def test_a_deep_link_shows_both_boards_and_the_ranks_so_far():
    dialog = first_dialog()
    at = open_replay(dialog=dialog, round="2", turn="5")
    assert at.selectbox[0].value == dialog
    assert at.radio[0].value == 2
    assert at.slider[0].value == 5
    captions = image_captions(at)
    assert [c.split(":")[0] for c in captions] == ["Player A", "Player B"]
    table = shown_step(at)["table"]
    assert table["title"].startswith("Ranks so far")
    assert table["columns"] == ["rank", "image", "at step", "time"]
    assert all(int(row[2]) <= 5 for row in table["rows"])
    assert at.query_params["round"] == "2" and at.query_params["turn"] == "5"
    assert not at.warning


def test_a_bad_round_gives_a_warning_and_round_one():
    dialog = first_dialog()
    at = open_replay(dialog=dialog, round="9")
    assert any("round “9”" in w.value for w in at.warning)
    assert at.radio[0].value == 1
    assert len(image_captions(at)) == 2


def test_stepping_to_the_end_shows_the_final_ranking_comparison():
    dialog = first_dialog()
    at = open_replay(dialog=dialog, round="1", turn="1")
    at.slider[0].set_value(at.slider[0].max).run()
    assert not at.exception
    assert any(sub.value.startswith("Final ranking") for sub in at.subheader)
    comparison = next(d.value for d in at.dataframe if "rank" in d.value.columns and "image" not in d.value.columns)
    assert list(comparison["rank"]) == list(range(1, 10))
    assert at.query_params["turn"] == str(int(at.slider[0].max))


def test_changing_round_starts_the_new_round_at_step_one_and_updates_the_url():
    dialog = first_dialog()
    at = open_replay(dialog=dialog, round="2", turn="7")
    at.radio[0].set_value(3).run()
    assert not at.exception
    assert at.slider[0].value == 1
    assert at.query_params["round"] == "3" and at.query_params["turn"] == "1"
