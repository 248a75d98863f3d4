"""The Play page in Chromium on the full corpora of ../shared (issue 49; skipped without them), one server for the
file, in a 1280×720 window: a whole CoDraw dialog (with the real clip art) and Minecraft game, and a round of an A
Game Of Sorts interaction, played with mouse and keyboard as the humans played them, so that the score shown after
every step equals the human's (the original metric the game stored for each round, the pair's own ranks, the human
Builder's net-action F1 of 1) and the downloaded run file scores the same by the corpus's run scoring. Short
dialogs are played (CI's time): a longer one is more of the same steps, and the demo corpora's whole dialogs are
played in tests/e2e/test_play_browser.py."""
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
def shared_play(tmp_path_factory, browser, real_cache):
    """(the server on ../shared, a 1280×720 browser profile, the three corpora as the tests read them). The server
    reads the real corpora from the run's shared Parquet cache (``real_cache``: its entries linked into the server's
    own cache folder, where the server writes its plays' runs)."""
    from tests.conftest import SHARED_DATA

    if not all((SHARED_DATA / path).exists() for _, path in SOURCES.values()):
        pytest.skip("../shared/data is not present")
    workdir = tmp_path_factory.mktemp("play-shared")
    env = {variable: str(SHARED_DATA / path) for variable, path in SOURCES.values()}
    env["CODRAW_CLIPART"] = str(SHARED_DATA / "codraw" / "clipart")
    # started first, importing Streamlit while the corpora load here: it reads its cache at its first page only
    server = AppServer(workdir, env, ready=False)
    loaded = {name: load_path(name, SHARED_DATA / path, cache_root=real_cache) for name, (_, path) in SOURCES.items()}
    (workdir / "cache").mkdir()
    for entry in real_cache.iterdir():  # the corpora parsed once a run: the server's first page parses nothing
        if entry.is_dir() and entry.name.split("-")[0] in SOURCES:
            (workdir / "cache" / entry.name).symlink_to(entry, target_is_directory=True)
    server.wait_ready()
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
    dialog_id = "train_02487"  # of the dialogs of 3 rounds each with a stored score, one of the fewest pieces (3)
    mine = rounds[rounds["dialog_id"] == dialog_id]
    assert len(mine) == 3 and mine["score_original"].notna().all()
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


def test_gos_a_round_as_a_player_on_the_full_corpus(shared_play, small_page, tmp_path):
    """One round's nine ranks (an interaction's four rounds are the same steps again; the demo's whole interaction
    is played in test_play_browser.py)."""
    server, _, loaded = shared_play
    gos = loaded["gos"]
    interaction = str(sorted(gos.dialogs["dialog_id"])[0])
    open_play(small_page, server.url, "gos", interaction, name="gil")
    assert small_page.locator("[data-image-id]").count() == 9
    first_round = gos_pair_ranks(gos, interaction)[0]
    for image in first_round:
        lock(small_page, image)
    assert step_of(small_page) == len(first_round) + 1
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
