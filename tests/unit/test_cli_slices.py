"""``python -m data_access slice`` and ``contrast`` (issue 46): exactly the keys the issue names, a step slice's ids
as [dialog_id, step] (with the round where the corpus replays in rounds), a SQL definition of any size, the runs,
layers and codes beside the corpus, and a bad slice refused in one stderr line (exit 2), never a traceback; the same
through ``dialogue-dashboard``."""
from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from data_access.__main__ import main
from data_access.corpora import demo_path, load_path
from data_access.layers.load import demo_layer_path
from data_access.runs.demo import demo_runs
from data_access.slices.contrast import contrast
from dialogue_dashboard.cli import main as dashboard


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("demo")


def _run(capsys, *args, entry=main) -> tuple[int, object]:
    status = entry([*map(str, args), "--compact"])
    out, err = capsys.readouterr()
    if status == 0:
        return status, json.loads(out)
    assert out == "" and err.count("\n") == 1 and err.startswith("error: "), err
    return status, err


def test_a_dialog_slice_and_a_step_slice(root, capsys):
    corpus = demo_path("minecraft", root)
    status, result = _run(capsys, "slice", "minecraft", corpus, "outcome_match = false")
    loaded = load_path("minecraft", corpus, cache_root=root)
    expected = loaded.dialogs.loc[~loaded.dialogs["outcome_match"], "dialog_id"].tolist()
    assert status == 0 and result == {"level": "dialog", "count": len(expected), "ids": expected}
    status, result = _run(capsys, "slice", "minecraft", corpus, "steps(role = Builder and first(dialog))")
    u = loaded.utterances
    first = u.loc[u.groupby("dialog_id")["turn"].idxmin()]
    expected_steps = {(d, int(t)) for d, t, r in zip(first["dialog_id"], first["turn"], first["role"]) if r == "Builder"}
    assert status == 0 and result["level"] == "step" and list(result) == ["level", "count", "ids"]
    assert {tuple(pair) for pair in result["ids"]} == expected_steps and result["count"] == len(expected_steps)


def test_a_corpus_in_rounds_names_the_round_of_each_step(root, capsys):
    corpus = demo_path("gos", root)
    status, result = _run(capsys, "slice", "gos", corpus, "steps(first(round))")
    rounds = load_path("gos", corpus, cache_root=root).frames["rounds"]
    assert status == 0 and sorted(map(tuple, result["ids"])) == sorted(
        (d, int(r), 1) for d, r in zip(rounds["interaction_id"], rounds["round"]))


def test_a_sql_definition_of_rounds_and_of_dialogs(root, capsys):
    corpus = demo_path("codraw", root)
    rounds = load_path("codraw", corpus, cache_root=root).frames["rounds"]
    high = rounds[rounds["score_final"] > 3]
    status, result = _run(capsys, "slice", "codraw", corpus, "sql:SELECT dialog_id, round FROM rounds WHERE score_final > 3")
    assert status == 0 and result["level"] == "step"
    assert sorted(map(tuple, result["ids"])) == sorted(zip(high["dialog_id"], high["round"].astype(int)))
    status, result = _run(capsys, "slice", "codraw", corpus, "  SQL:select distinct dialog_id from rounds where round > 6")
    assert status == 0 and result["level"] == "dialog" and set(result["ids"]) == set(rounds.loc[rounds["round"] > 6, "dialog_id"])


@pytest.mark.parametrize("slice_text, words", [
    ("peek_gain", "peek_gain != 0"),
    ("steps(nothing)", "no feature “nothing”"),
    ("crs > 0 and (", "expected"),
    ("sql:DROP TABLE dialogs", "Only queries"),
    ("sql:SELECT 1 AS one", "no dialog_id"),
    ("sql:SELECT dialog_id, turn FROM utterances", ""),  # fine: CoDraw's steps have no rounds
])
def test_a_bad_slice_is_one_line(root, capsys, slice_text, words):
    status, result = _run(capsys, "slice", "codraw", demo_path("codraw", root), slice_text)
    if not words:
        assert status == 0
    else:
        assert status == 2 and words in result


def test_contrast_prints_exactly_its_keys(root, capsys):
    corpus = demo_path("codraw", root)
    layers = root / "layers"
    layers.mkdir(exist_ok=True)
    shutil.copy(demo_layer_path("codraw-icr", root), layers / "icr-codraw-data.tsv")
    status, result = _run(capsys, "contrast", "codraw", corpus, "peek_gain", "peek_gain is not null and crs > 0", "rest",
                          "--layers", layers)
    assert status == 0 and list(result) == ["measure", "n_a", "n_b", "mean_a", "mean_b", "diff", "ci_low", "ci_high",
                                            "p", "paired"]
    d = load_path("codraw", corpus, cache_root=root).dialogs
    gain = (d["final_score"] - d["score_before_peek"]).where(d["peek_round"].notna())
    assert result["n_a"] + result["n_b"] == int(gain.notna().sum()) and result["paired"] is False
    status, result = _run(capsys, "contrast", "codraw", corpus, "round_score", "steps(peek)", "steps(not after_peek)")
    assert status == 0 and result["n_a"] > 0 and result["ci_low"] <= result["diff"] <= result["ci_high"]
    status, error = _run(capsys, "contrast", "codraw", corpus, "round_score", "steps(peek)", "split = train")
    assert status == 2 and "one level" in error


def test_resamples_are_bounded(root, capsys):
    """10^12 resamples ran out of memory (an array of that many means), said as if the corpus could not be read."""
    with pytest.raises(SystemExit) as exit:
        main(["contrast", "gos", str(demo_path("gos", root)), "mismatch", "steps(round = 1)", "rest",
              "--resamples", "1000000000000"])
    assert exit.value.code == 2 and "more than 100,000" in capsys.readouterr().err
    with pytest.raises(ValueError, match="between 1 and 100,000"):
        contrast("x", [1.0, 2.0], [3.0, 4.0], resamples=10**12)


def test_a_run_against_the_humans_is_paired_by_dialog(root, capsys):
    corpus = demo_path("codraw", root)
    runs = next(iter(demo_runs("codraw", root).values())).parent
    status, result = _run(capsys, "contrast", "codraw", corpus, "score(baseline)", "split = test", "humans", "--runs", runs)
    assert status == 0 and result["paired"] is True and result["n_a"] == result["n_b"] > 0
    status, error = _run(capsys, "contrast", "codraw", corpus, "final_score", "split = test", "humans")
    assert status == 2 and "score(RUN)" in error


def test_through_the_dashboard_command(root, capsys):
    status, result = _run(capsys, "slice", "gos", demo_path("gos", root), "steps(mismatch)", entry=dashboard)
    assert status == 0 and result["level"] == "step"
    status, result = _run(capsys, "contrast", "gos", demo_path("gos", root), "mismatch", "steps(round = 1)", "rest",
                          entry=dashboard)
    assert status == 0 and set(result) >= {"diff", "paired"}
    assert isinstance(pd.Series(result).to_dict(), dict)
