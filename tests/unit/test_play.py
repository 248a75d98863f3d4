"""Playing a recorded dialog (issue 49), below the browser, for every corpus that can be played, on its demo corpus:
the human's own moves, checked by the corpus's rules, score what the human scored at every step; the score shown is
the score of the play's run file read back by the corpus's own run scoring (``load_run``, as the Runs page reads any
run); a finished play becomes the run ``person:<name>`` that the run listing offers; a step is saved only through
the rules and the store (a bad move, a step out of order, a viewer are refused, nothing written)."""
from __future__ import annotations

import math

import pytest

from data_access import corpora
from data_access.access import AccessRefused, Identity, Role
from data_access.contract import PlayRules, play_members, play_rules_of, scoring_of
from data_access.play import person_run_name, run_text, score_moves, submit_step, write_person_runs
from data_access.play.game import PlayUnavailable, start, steps_of
from data_access.registry import CORPUS_NAMES
from data_access.runs import available_runs, load_run, plays_dir
from data_access.store import PlayConflict, Store

PLAYED = [name for name in CORPUS_NAMES if play_rules_of(corpora.corpus_module(name)) is not None]
ALICE = Identity(coder="alice", role=Role.CODER, email="alice@lab.example", signed_in=True)
VIEWER = Identity(coder="vera", role=Role.VIEWER, email="vera@lab.example", signed_in=True)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    cache = tmp_path_factory.mktemp("play-cache")
    loaded = {}
    for name in PLAYED:
        package = corpora.corpus_module(name)
        folder = tmp_path_factory.mktemp(f"demo-{name}")
        package.write_demo(folder)
        loaded[name] = corpora.load_path(name, package.demo_source(folder), cache_root=cache)
    return loaded


def test_every_built_in_corpus_can_be_played_and_honours_the_rules():
    assert set(PLAYED) >= {"minecraft"}
    for name in PLAYED:
        rules = play_rules_of(corpora.corpus_module(name))
        assert isinstance(rules, PlayRules)
        assert all(hasattr(rules, member) for member in play_members())


def _human_play(loaded, dialog_id: str):
    rules = play_rules_of(loaded)
    seat = rules.seats(loaded, dialog_id)[0]
    moves = []
    for step in range(1, rules.step_count(loaded, dialog_id, seat) + 1):
        move = rules.human_move(loaded, dialog_id, seat, step)
        assert rules.checked_move(loaded, dialog_id, seat, step, move, moves) == move  # the normal form already
        moves.append(move)
    return rules, seat, moves


@pytest.mark.parametrize("name", PLAYED)
def test_the_humans_moves_score_the_humans_score_at_every_step(demo, name):
    loaded = demo[name]
    rules = play_rules_of(loaded)
    for dialog_id in rules.playable(loaded)[:3]:
        _, seat, moves = _human_play(loaded, dialog_id)
        for step in range(1, len(moves) + 1):
            _, score = score_moves(loaded, dialog_id, seat, moves[:step])
            headline, yours, human = score.figures[0]
            assert yours == pytest.approx(human, abs=1e-9, nan_ok=True), (dialog_id, step, headline)
            view = rules.step_view(loaded, dialog_id, seat, step, moves[:step - 1])
            assert view["step"] == step


@pytest.mark.parametrize("name", PLAYED)
def test_the_score_shown_is_the_run_files_score(demo, name, tmp_path):
    loaded = demo[name]
    rules = play_rules_of(loaded)
    dialog_id = rules.playable(loaded)[0]
    _, seat, moves = _human_play(loaded, dialog_id)
    for step in sorted({1, len(moves)}):
        _, score = score_moves(loaded, dialog_id, seat, moves[:step])
        path = tmp_path / f"person:alice-{step}.jsonl"
        path.write_text(run_text(rules.run_lines(loaded, dialog_id, seat, moves[:step])), encoding="utf-8")
        run = load_run(loaded, path, cache_root=tmp_path / "cache")  # read back as the Runs page reads any run
        assert len(run.skipped) == 0 and len(run.unmatched) == 0
        scores = scoring_of(loaded).dialog_scores(run)
        independent = scores.loc[scores["dialog_id"] == dialog_id, "score"]
        if math.isnan(score.score):
            assert independent.empty or math.isnan(float(independent.iloc[0]))
        else:
            assert float(independent.iloc[0]) == pytest.approx(score.score, abs=1e-12)


@pytest.mark.parametrize("name", PLAYED)
def test_a_finished_play_is_the_run_person_name(demo, name, tmp_path, monkeypatch):
    monkeypatch.setenv("DIALOGUE_CACHE_DIR", str(tmp_path / "cache"))
    loaded = demo[name]
    store = Store(tmp_path / "notes.sqlite3", sign_in=True)
    rules = play_rules_of(loaded)
    dialog_id = rules.playable(loaded)[0]
    _, seat, moves = _human_play(loaded, dialog_id)
    play = start(store, loaded, dialog_id, seat, actor=ALICE)
    for step, move in enumerate(moves, start=1):
        play = submit_step(store, loaded, play, step, move, actor=ALICE)
    assert play.finished
    written = write_person_runs(store, loaded, plays_dir(name))
    assert [path.name for path in written] == ["person:alice.jsonl"]
    runs = available_runs(name, is_demo=False)
    assert person_run_name("alice") in runs
    run = load_run(loaded, runs["person:alice"][0], name="person:alice", cache_root=tmp_path / "cache")
    assert run.name == "person:alice" and len(scoring_of(loaded).units(run)) > 0
    assert write_person_runs(store, loaded, plays_dir(name))[0].stat().st_mtime_ns == written[0].stat().st_mtime_ns


@pytest.mark.parametrize("name", PLAYED)
def test_a_step_is_saved_only_through_the_rules_and_the_store(demo, name, tmp_path):
    loaded = demo[name]
    store = Store(tmp_path / "notes.sqlite3", sign_in=True)
    rules = play_rules_of(loaded)
    dialog_id = rules.playable(loaded)[0]
    seat = rules.seats(loaded, dialog_id)[0]
    with pytest.raises(AccessRefused):
        start(store, loaded, dialog_id, seat, actor=VIEWER)
    with pytest.raises(PlayUnavailable):
        steps_of(loaded, dialog_id, "no such seat")
    with pytest.raises(PlayUnavailable):
        steps_of(loaded, "no such dialog", seat)
    play = start(store, loaded, dialog_id, seat, actor=ALICE)
    for bad in (None, "move", [1, 2], {"unexpected": True}, {"actions": "x"}, {"image_id": 3}, {"canvas": 5}):
        with pytest.raises(ValueError):
            submit_step(store, loaded, play, 1, bad, actor=ALICE)
    human = rules.human_move(loaded, dialog_id, seat, 1)
    with pytest.raises(PlayConflict):
        submit_step(store, loaded, play, 2, human, actor=ALICE)
    with pytest.raises(AccessRefused):
        submit_step(store, loaded, play, 1, human, actor=VIEWER)
    assert store.plays.moves(play.id) == []
    submit_step(store, loaded, play, 1, human, actor=ALICE)
    assert store.plays.moves(play.id) == [human]
