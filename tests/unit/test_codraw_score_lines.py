"""CoDraw's run lines scored in memory (``scoring.score_lines``, what a Done on the Play page scores its play with)
give the frames of the run file read and scored whole (``scoring.build``), every figure and dtype: on every dialog of
the demo corpus (each round's two metrics and the original metric's seven terms as a play shows them) and on a
sample of real dialogs; lines ``build`` would skip or not match are left to it (None)."""
from __future__ import annotations

import random

import pandas as pd
import pytest

from corpora.codraw.data import play as codraw_play
from corpora.codraw.data import scoring
from data_access import corpora
from data_access.play import run_text
from data_access.types import LoadedRun


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    package = corpora.corpus_module("codraw")
    folder = tmp_path_factory.mktemp("demo-codraw")
    package.write_demo(folder)
    return corpora.load_path("codraw", package.demo_source(folder), cache_root=tmp_path_factory.mktemp("cache"))


def _built(loaded, lines, tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text(run_text(lines), encoding="utf-8")
    frames, skipped = scoring.build(path, loaded)
    assert skipped == []
    return frames


def _assert_same(loaded, lines, tmp_path):
    in_memory, read = scoring.score_lines(loaded, lines), _built(loaded, lines, tmp_path)
    assert in_memory is not None
    assert set(in_memory) == set(read)
    for name in read:
        pd.testing.assert_frame_equal(in_memory[name], read[name], check_exact=True)
    return in_memory, read


def _human_lines(loaded, dialog_id: str, rounds=None):
    """The human Drawer's canvases of the dialog as a play's run lines, each with the human's reply."""
    n_steps = codraw_play.step_count(loaded, dialog_id, codraw_play.ROLE)
    moves = [codraw_play.human_move(loaded, dialog_id, codraw_play.ROLE, step) for step in range(1, n_steps + 1)]
    lines = codraw_play.run_lines(loaded, dialog_id, codraw_play.ROLE, moves)
    return lines if rounds is None else lines[:rounds]


def test_every_demo_dialog_scores_alike_every_round_and_every_term(demo, tmp_path):
    dialogs = codraw_play.playable(demo)
    assert len(dialogs) >= 5
    # every round of every dialog in one run (one file read): each round's scene, both metrics, the final drawings;
    # the demo runs' canvases: the target drawn a part a round, and the human's jittered, some pieces dropped
    for lines in scoring.demo_runs(demo.frames).values():
        in_memory, read = _assert_same(demo, lines, tmp_path)
        assert set(in_memory["dialogs"]["dialog_id"]) >= set(dialogs)
        assert in_memory["rounds"]["score_final"].notna().sum() > 100
    in_memory, read = _assert_same(demo, [line for d in dialogs[:3] for line in _human_lines(demo, d)], tmp_path)
    # the step's figures (both metrics, the original metric's seven terms) of every round of a few dialogs, as a
    # Done shows them, from each
    for dialog_id in dialogs[:3]:
        for step in range(1, codraw_play.step_count(demo, dialog_id, codraw_play.ROLE) + 1):
            figures = [codraw_play.step_figures(demo, LoadedRun("codraw", "play", "", frames), dialog_id,
                                                codraw_play.ROLE, step) for frames in (in_memory, read)]
            assert len(figures[0]) == 2 + 7 and _plain(figures[0]) == _plain(figures[1])


def test_a_play_cut_short_and_several_dialogs_at_once_score_alike(demo, tmp_path):
    first, second = codraw_play.playable(demo)[:2]
    _assert_same(demo, _human_lines(demo, first, rounds=2), tmp_path)
    # rounds of two dialogs interleaved, an empty canvas in the last round: the final drawing is the round before
    lines = _human_lines(demo, second) + _human_lines(demo, first, rounds=1)
    lines[len(lines) - 2] = {**lines[-2], "scene": ""}
    in_memory, _read = _assert_same(demo, list(reversed(lines)), tmp_path)
    assert list(in_memory["dialogs"]["dialog_id"]) == sorted({first, second})


def test_lines_build_would_skip_or_not_match_are_left_to_it(demo):
    dialog_id = codraw_play.playable(demo)[0]
    lines = _human_lines(demo, dialog_id, rounds=2)
    assert scoring.score_lines(demo, lines) is not None
    for changed in ({**lines[0], "round": lines[1]["round"]},  # a second prediction of a round
                    {**lines[0], "round": 999},  # a round the dialog lacks
                    {**lines[0], "dialog_id": "no-such-dialog"},
                    {**lines[0], "scene": "3,not a scene"},
                    {**lines[0], "round": True}, {**lines[0], "msg_d": float("nan")},
                    {**lines[0], "data": {"d": {}}}):
        assert scoring.score_lines(demo, [changed, lines[1]]) is None, changed
    assert scoring.score_lines(demo, []) is None


def _plain(figures):
    """Figures with NaN as None, so that two lists of them compare equal where both lack a value."""
    return [tuple(None if value != value else value for value in figure) for figure in figures]


@pytest.mark.shared
def test_real_dialogs_score_alike(shared_data, real_cache, tmp_path):
    loaded = corpora.load_path("codraw", shared_data / "codraw" / "CoDraw_1_0.json.gz", cache_root=real_cache)
    dialogs = random.Random(49).sample(codraw_play.playable(loaded), 50)
    lines = [line for dialog_id in dialogs for line in _human_lines(loaded, dialog_id)]
    in_memory, _read = _assert_same(loaded, lines, tmp_path)
    assert len(in_memory["dialogs"]) == 50
    # as the stored original metric: the human's own canvases score what the game stored, round by round
    rounds = in_memory["rounds"]
    assert rounds["score_original"].notna().sum() > 300


def test_a_done_scores_its_play_in_memory_with_the_score_of_its_run_file(demo, monkeypatch, tmp_path):
    from data_access.play import score_moves

    dialog_id = codraw_play.playable(demo)[0]
    lines = _human_lines(demo, dialog_id)
    moves = [codraw_play.human_move(demo, dialog_id, codraw_play.ROLE, step) for step in range(1, len(lines) + 1)]
    from_file = scoring.dialog_scores(LoadedRun("codraw", "play", "", _built(demo, lines, tmp_path)))

    def no_file(path, corpus):
        raise AssertionError("a Done wrote and read a run file")

    monkeypatch.setattr(scoring, "build", no_file)
    run, score = score_moves(demo, dialog_id, codraw_play.ROLE, moves)
    assert run.source == "" and score.score == float(from_file["score"].iloc[0]) and score.units == 1
