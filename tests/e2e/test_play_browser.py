"""The Play page in Chromium on the demo corpora (issue 49), one server for the file: a whole dialog of each corpus
played with mouse and keyboard as a person plays it, replaying the human's own moves, so that the score shown equals
the human's at every step and the score of the downloaded run file as the corpus's run scoring reads it; a Done runs
the game alone (its fragment), not the page; a reload, a closed tab and a server restart mid-dialog lose no completed
step; two tabs of one person cannot fork a play. The logic below the page is tested in tests/unit/test_play.py and
tests/unit/test_store_plays.py; a viewer's refusal in the browser is in tests/e2e/test_sign_in.py."""
from __future__ import annotations

import pytest

from data_access.corpora import demo_path, load_path
from data_access.store import Store

from .conftest import AppServer, wait_for_app
from .playing import (
    blocks_drawn_in_order,
    codraw_human_canvases,
    codraw_scores,
    done,
    drag_on_the_canvas,
    draw_canvas,
    exported,
    figure,
    gos_pair_ranks,
    independent_score,
    lock,
    minecraft_human_actions,
    open_play,
    place_and_remove_with_the_mouse,
    runs_asked,
    score_of,
    step_of,
    type_commands,
    wait_step,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def play_app(tmp_path_factory):
    """The demo app of this file (its store is read by the tests; the last test restarts it)."""
    workdir = tmp_path_factory.mktemp("play-app")
    server = AppServer(workdir)
    server.workdir = workdir
    yield server
    server.stop()


@pytest.fixture(scope="module")
def minecraft():
    return load_path("minecraft", demo_path("minecraft"))


@pytest.fixture(scope="module")
def codraw():
    return load_path("codraw", demo_path("codraw"))


@pytest.fixture(scope="module")
def gos():
    return load_path("gos", demo_path("gos"))


def play_codraw_as_the_human(page, loaded, dialog_id: str) -> None:
    """Every round of ``dialog_id`` drawn as the human Drawer drew it (positions in whole pixels, truncated as the game
    did), with their reply; after each round the original metric the game stored is the human's exactly, both metrics
    are those of the corpus's one-pair metric functions on the canvas drawn, and the score shown is the paper's."""
    rounds = loaded.frames["rounds"].set_index(["dialog_id", "round"])
    for number, (canvas, reply) in enumerate(codraw_human_canvases(loaded, dialog_id), start=1):
        draw_canvas(page, canvas)
        page.locator(".pl-reply").fill(reply + (" " + "x" * 400 if number == 1 else ""))  # a long word: wrapped
        done(page)
        assert step_of(page) == number + 1
        assert page.locator(".cd-chat").evaluate("chat => chat.scrollWidth <= chat.clientWidth")
        paper, original = codraw_scores(loaded, dialog_id, number, canvas) if canvas else (None, None)
        yours, human = figure(page, "the original metric the game stored")
        if not canvas:  # an empty canvas is no drawing, the human's was empty too
            assert yours is None and human is None
            continue
        assert yours == pytest.approx(original, abs=1e-9) and yours == pytest.approx(human, abs=1e-9)
        assert human == pytest.approx(float(rounds.loc[(dialog_id, number), "score_original"]), abs=1e-9)
        shown, human_paper = figure(page, "scene similarity after this round (paper's metric)")
        assert shown == pytest.approx(paper, abs=1e-9) and score_of(page) == pytest.approx(paper, abs=1e-12)
        if all(float(c["y"]) == round(float(c["y"])) for c in canvas):  # no rounding between the two metrics here
            assert human_paper == pytest.approx(float(rounds.loc[(dialog_id, number), "score_final"]), abs=1e-9)


def _longest_game(loaded) -> str:
    sizes = loaded.frames["bap_samples"].groupby("game").size()
    return str(sizes.sort_values(ascending=False, kind="stable").index[0])


def test_minecraft_a_whole_game_as_the_human_builder(play_app, page, minecraft, tmp_path):
    game = _longest_game(minecraft)
    steps = minecraft_human_actions(minecraft, game)
    asked = runs_asked(page)
    open_play(page, play_app.url, "minecraft", game, name="ann")
    assert step_of(page) == 1 and score_of(page) is None
    assert page.locator(".st-key-play_page_run_box").count() == 1  # drawn, for a Done without an answer ...
    assert page.locator(".st-key-play_page_run_box").is_hidden()  # ... and hidden by play.css
    blocks_drawn_in_order(page)
    for number, commands in enumerate(steps, start=1):
        place_and_remove_with_the_mouse(page)
        type_commands(page, commands)
        before = len(asked)
        done(page)
        assert step_of(page) == number + 1
        assert score_of(page) == pytest.approx(1.0)  # the human Builder's own actions: net-action F1 1
        assert asked[before:] and all(asked[before:]), "a Done runs the game's fragment alone, not the page"
    assert page.locator("[data-play][data-play-finished]").count() == 1
    run_file = exported(page, tmp_path)
    assert run_file.name in ("person:ann.jsonl", "person_ann.jsonl")  # Chromium writes ":" in a file name as "_"
    assert independent_score(minecraft, run_file, game, tmp_path / "cache") == pytest.approx(score_of(page), abs=1e-12)
    play = Store(play_app.notes_db).plays.latest("minecraft", game, "Builder", "ann")
    assert play.finished and play.steps_done == len(steps)
    page.get_by_text("Open the Replay with your play beside the humans").click()
    wait_for_app(page)
    assert "run=person%3Aann" in page.url or "run=person:ann" in page.url


def test_two_tabs_of_one_person_cannot_fork_a_play(play_app, page, minecraft):
    game = _longest_game(minecraft)
    steps = minecraft_human_actions(minecraft, game)
    open_play(page, play_app.url, "minecraft", game, name="tabs")
    other = page.context.new_page()
    try:
        open_play(other, play_app.url, "minecraft", game, name="tabs")
        assert step_of(other) == 1
        type_commands(page, steps[0])
        done(page)
        other.locator("[data-play-command]").fill("place red 0 1 0")
        other.locator("[data-play-command]").press("Enter")
        other.locator("[data-play-done]").click()  # step 1 again, from the tab that did not see it saved
        wait_step(other, 2)  # refused: the tab now shows the play as the store has it
        assert "moved on in another tab" in other.locator(".pl-message").inner_text()
    finally:
        other.close()
    play = Store(play_app.notes_db).plays.latest("minecraft", game, "Builder", "tabs")
    moves = Store(play_app.notes_db).plays.moves(play.id)
    assert play.steps_done == 1 and len(moves) == 1 and all("red" not in str(move) for move in moves)


def test_codraw_a_whole_dialog_as_the_human_drawer(play_app, page, codraw, tmp_path):
    dialogs = codraw.dialogs
    dialog_id = str(dialogs[dialogs["target_scene"].notna()].sort_values(["n_rounds", "dialog_id"])["dialog_id"].iloc[0])
    open_play(page, play_app.url, "codraw", dialog_id, name="dora", extra="&human=1")
    assert step_of(page) == 1 and page.locator(".cd-palette [data-clipart]").count() == 58 + 2 * 35 - 2
    drag_on_the_canvas(page, "s_3s.png")  # the sun: onto the empty canvas, across it, and away
    play_codraw_as_the_human(page, codraw, dialog_id)
    assert "The human's move at round" in page.locator(".pl-human-move").inner_text()
    run_file = exported(page, tmp_path)
    assert independent_score(codraw, run_file, dialog_id, tmp_path / "cache") == pytest.approx(score_of(page), abs=1e-12)


def test_gos_a_whole_interaction_as_a_player(play_app, page, gos, tmp_path):
    interaction = str(gos.dialogs["dialog_id"].iloc[0])
    open_play(page, play_app.url, "gos", interaction, name="gil")
    assert page.locator("[data-image-id]").count() == 9
    for round_ranks in gos_pair_ranks(gos, interaction):
        for image in round_ranks:
            lock(page, image)
            if step_of(page) > 2:  # two ranks or more: the pair's own order agrees with itself
                assert score_of(page) == pytest.approx(1.0)
                assert figure(page, "rank correlation so far (Spearman, mean over rounds)") == (pytest.approx(1.0), 1.0)
    assert page.locator("[data-play][data-play-finished]").count() == 1
    run_file = exported(page, tmp_path)
    assert independent_score(gos, run_file, interaction, tmp_path / "cache") == pytest.approx(1.0)


def test_a_reload_a_closed_tab_and_a_server_restart_lose_no_step(play_app, page, minecraft):
    game = _longest_game(minecraft)
    steps = minecraft_human_actions(minecraft, game)
    assert len(steps) >= 3
    open_play(page, play_app.url, "minecraft", game, name="rita")
    type_commands(page, steps[0])
    done(page)
    page.reload()
    wait_for_app(page)
    wait_step(page, 2)
    assert score_of(page) == pytest.approx(1.0)
    type_commands(page, steps[1])
    done(page)
    page.close()
    again = page.context.new_page()
    open_play(again, play_app.url, "minecraft", game, name="rita")
    assert step_of(again) == 3
    play_app.stop()  # the server goes down and comes back on the same port with the same store
    restarted = AppServer(play_app.workdir, port=play_app.port)
    play_app.process, play_app.log = restarted.process, restarted.log
    again.reload()
    wait_for_app(again)
    wait_step(again, 3)
    type_commands(again, steps[2])
    done(again)
    play = Store(play_app.notes_db).plays.latest("minecraft", game, "Builder", "rita")
    assert play.steps_done == 3
