"""The Play page in Chromium on the full corpora of ../shared (issue 49; skipped without them), one server for the
file, in a 1280×720 window: a whole dialog of each corpus played with mouse and keyboard as the human played it
(CoDraw with the real clip art), so that the score shown after every step equals the human's (the original metric
the game stored for each round, the pair's own ranks, the human Builder's net-action F1 of 1) and the downloaded
run file scores the same by the corpus's run scoring. The shortest dialogs are played: what a longer one adds is
more of the same steps, and the demo corpora's whole dialogs are played in tests/e2e/test_play_browser.py."""
from __future__ import annotations

import pytest

from data_access.corpora import load_path
from data_access.store import Store

from .conftest import AppServer
from .playing import (
    codraw_human_canvases,
    codraw_scores,
    done,
    draw_canvas,
    exported,
    figure,
    gos_pair_ranks,
    independent_score,
    lock,
    minecraft_human_actions,
    open_play,
    score_of,
    step_of,
    type_commands,
)

pytestmark = pytest.mark.e2e

SOURCES = {"codraw": ("CODRAW_DATA", "codraw/CoDraw_1_0.json.gz"), "gos": ("GAME_OF_SORTS_DATA", "game-of-sorts"),
           "minecraft": ("MINECRAFT_DATA", "minecraft")}


@pytest.fixture(scope="module")
def shared_play(tmp_path_factory, browser):
    """(the server on ../shared, a 1280×720 browser profile, the three corpora as the tests read them)."""
    from tests.conftest import SHARED_DATA

    if not all((SHARED_DATA / path).exists() for _, path in SOURCES.values()):
        pytest.skip("../shared/data is not present")
    workdir = tmp_path_factory.mktemp("play-shared")
    # the corpora read here build the server's Parquet cache too (its first page then parses nothing)
    loaded = {name: load_path(name, SHARED_DATA / path, cache_root=workdir / "cache")
              for name, (_, path) in SOURCES.items()}
    env = {variable: str(SHARED_DATA / path) for variable, path in SOURCES.values()}
    env["CODRAW_CLIPART"] = str(SHARED_DATA / "codraw" / "clipart")
    server = AppServer(workdir, env)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    yield server, context, loaded
    context.close()
    server.stop()


@pytest.fixture
def small_page(shared_play):
    tab = shared_play[1].new_page()
    yield tab
    tab.close()


def test_codraw_a_whole_dialog_as_the_human_drawer_on_the_full_corpus(shared_play, small_page, tmp_path):
    server, _, loaded = shared_play
    codraw = loaded["codraw"]
    rounds = codraw.frames["rounds"]
    scored = rounds.groupby("dialog_id")["score_original"].apply(lambda s: bool(s.notna().all()))
    dialogs = codraw.dialogs[codraw.dialogs["target_scene"].notna()
                             & codraw.dialogs["dialog_id"].map(scored).fillna(False).astype(bool)]
    dialog_id = str(dialogs.sort_values(["n_rounds", "dialog_id"])["dialog_id"].iloc[0])  # test_09329, 3 rounds
    by_round = rounds.set_index(["dialog_id", "round"])
    open_play(small_page, server.url, "codraw", dialog_id, name="dora")
    assert small_page.locator(".cd-palette [data-clipart]").count() == 58 + 2 * 35 - 2
    for number, (canvas, reply) in enumerate(codraw_human_canvases(codraw, dialog_id), start=1):
        draw_canvas(small_page, canvas)
        small_page.locator(".pl-reply").fill(reply)
        done(small_page)
        assert step_of(small_page) == number + 1
        paper, original = codraw_scores(codraw, dialog_id, number, canvas)
        yours, human = figure(small_page, "the original metric the game stored")
        assert yours == pytest.approx(original, abs=1e-9) and human == pytest.approx(yours, abs=1e-9)
        assert human == pytest.approx(float(by_round.loc[(dialog_id, number), "score_original"]), abs=1e-9)
        assert score_of(small_page) == pytest.approx(paper, abs=1e-12)
    assert small_page.locator("[data-play][data-play-finished]").count() == 1
    run_file = exported(small_page, tmp_path)
    assert independent_score(codraw, run_file, dialog_id, tmp_path / "cache") == pytest.approx(score_of(small_page),
                                                                                             abs=1e-12)


def test_gos_a_whole_interaction_as_a_player_on_the_full_corpus(shared_play, small_page, tmp_path):
    server, _, loaded = shared_play
    gos = loaded["gos"]
    interaction = str(sorted(gos.dialogs["dialog_id"])[0])
    open_play(small_page, server.url, "gos", interaction, name="gil")
    assert small_page.locator("[data-image-id]").count() == 9
    for round_ranks in gos_pair_ranks(gos, interaction):
        for image in round_ranks:
            lock(small_page, image)
    assert small_page.locator("[data-play][data-play-finished]").count() == 1
    assert score_of(small_page) == pytest.approx(1.0)  # the pair's own ranks agree with themselves
    run_file = exported(small_page, tmp_path)
    assert independent_score(gos, run_file, interaction, tmp_path / "cache") == pytest.approx(1.0)


def test_minecraft_a_whole_game_as_the_human_builder_on_the_full_corpus(shared_play, small_page, tmp_path):
    server, _, loaded = shared_play
    minecraft = loaded["minecraft"]
    sizes = minecraft.frames["bap_samples"].groupby("game").size()
    game = str(sizes[sizes >= 3].sort_values(kind="stable").index[0])
    steps = minecraft_human_actions(minecraft, game)
    open_play(small_page, server.url, "minecraft", game, name="mia")
    for number, commands in enumerate(steps, start=1):
        type_commands(small_page, commands)
        done(small_page)
        assert step_of(small_page) == number + 1 and score_of(small_page) == pytest.approx(1.0)
    yours, human = figure(small_page, "final structure against the target (block F1)")
    assert yours == pytest.approx(human, abs=1e-12)  # the human's structure, built by the human's actions
    run_file = exported(small_page, tmp_path)
    assert independent_score(minecraft, run_file, game, tmp_path / "cache") == pytest.approx(1.0, abs=1e-12)
    play = Store(server.notes_db).plays.latest("minecraft", game, "Builder", "mia")
    assert play.finished and play.steps_done == len(steps)
