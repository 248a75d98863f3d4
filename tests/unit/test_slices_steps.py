"""Step slices (issue 46): the grammar's scoped forms and their levels, the step table's events in time (next, prev,
first, last), lifting and lowering, every call at the step level, on a tiny hand-made corpus with rounds; and the
step tables of the three demo corpora against an independent pandas computation of the same moments."""
from __future__ import annotations

import types

import numpy as np
import pandas as pd
import pytest

from data_access import slices
from data_access.corpora import load_path
from data_access.slices import SliceError, SliceSyntaxError, describe, evaluate, parse, select, unparse
from data_access.slices.steps import build_steps, said_per_step
from data_access.types import LoadedCorpus

DIALOGS = ["d1", "d2"]


def _package(step_features=None) -> types.ModuleType:
    package = types.ModuleType("tiny_corpus")
    package.NAME, package.TITLE = "tiny", "Tiny"  # type: ignore[attr-defined]
    if step_features is not None:
        package.step_features = step_features  # type: ignore[attr-defined]
    return package


def _steps(_loaded) -> pd.DataFrame:
    """Two dialogs: d1 with rounds 1 (steps 1-4) and 2 (steps 1-2), d2 with round 1 (steps 1-3); given unsorted."""
    rows = [("d2", 1, 3, "lock", 1), ("d1", 1, 1, "message", 0), ("d1", 1, 2, "lock", 0), ("d1", 1, 3, "message", 0),
            ("d1", 1, 4, "lock", 1), ("d1", 2, 1, "message", 0), ("d1", 2, 2, "lock", 1), ("d2", 1, 1, "message", 0),
            ("d2", 1, 2, "message", 0)]
    frame = pd.DataFrame(rows, columns=["dialog_id", "round", "turn", "kind", "mismatch"])
    frame["round"] = frame["round"].astype("Int64")
    frame["mismatch"] = frame["mismatch"].astype(bool)
    frame["gain"] = [0.0, 1.0, -1.0, 2.0, 0.0, np.nan, 3.0, 1.0, 0.5]
    return frame


@pytest.fixture
def tiny() -> slices.SliceData:
    utterances = pd.DataFrame({
        "corpus": "tiny", "dialog_id": ["d1", "d1", "d1", "d2", "d2"], "round": pd.array([1, 1, 2, 1, 1], dtype="Int64"),
        "turn": [1, 3, 1, 1, 2], "speaker": ["ann", "bo", "ann", "cy", "cy"],
        "role": ["Player A", "Player B", "Player A", "Player A", "Player A"],
        "text": ["the dog on the left?", "which dog", "left again", "no dog", "a cat?"], "time_s": np.nan,
    })
    dialogs = pd.DataFrame({"corpus": "tiny", "dialog_id": DIALOGS, "split": ["train", "test"],
                            "n_steps": [6, 3], "peek_gain": [0.5, np.nan]})
    loaded = LoadedCorpus("tiny", "tiny", False, {"dialogs": dialogs, "utterances": utterances}, package=_package(_steps))
    data = slices.slice_data(loaded)
    annotations = pd.DataFrame({"corpus": "tiny", "dialog_id": ["d1", "d1", "d2"], "round": pd.array([1, pd.NA, 1], dtype="Int64"),
                                "turn": pd.array([3, pd.NA, 2], dtype="Int64"), "kind": "label", "deleted_at": None,
                                "label": "CR", "codebook": "book", "layer": "coding", "coder": "ann"})
    notes = pd.DataFrame({"dialog_id": ["d1"], "round": pd.array([2], dtype="Int64"), "turn": pd.array([1], dtype="Int64"),
                          "tags": [["odd"]]})
    step_runs = {"base": pd.DataFrame({"dialog_id": ["d1", "d2"], "round": pd.array([1, 1], dtype="Int64"), "turn": [3, 2],
                                       "score": [0.25, 0.75], "humans": [1.0, 1.0]})}
    return data.with_extras(annotations=annotations, notes=notes, step_runs=step_runs)


def moments(text: str, data) -> list[tuple[str, int, int]]:
    kept = select(text, data)
    assert kept.level == "step" and kept.steps is not None
    keys = data.steps.keys(kept.steps)
    return [(d, int(r), int(t)) for d, r, t in keys.itertuples(index=False)]


# ------------------------------------------------------------------------------------------ grammar

@pytest.mark.parametrize("text", [
    "steps(role = Architect and next(1, removals > 0))",
    "has_step(mismatch) and split = train",
    "steps(dialog(peek_gain is not null and has_step(mismatch)) and prev(2, first(dialog)))",
    "not has_step(next(0, lock) or kind = message) or peek_gain is null",
    "steps = 3 and dialog = x",  # the bare names stay features
])
def test_scoped_forms_round_trip(text):
    assert unparse(parse(text)) == text and parse(unparse(parse(text))) == parse(text)


@pytest.mark.parametrize("text, position, words", [
    ("steps(a) and b", 10, "whole slice"),
    ("a and steps(b)", 7, "cannot be combined"),
    ("next(1, a)", 1, "inside steps"),
    ("dialog(a)", 1, "inside steps"),
    ("steps(has_step(a))", 7, "dialog(has_step"),
    ("steps(next(-1, a))", 12, "whole number"),
    ("steps(prev(2 a))", 14, "“,”"),
    ("x is", 5, "“null”"),
    ("x is not 3", 10, "“null”"),
])
def test_misplaced_scopes_are_refused_with_their_position(text, position, words):
    with pytest.raises(SliceSyntaxError) as error:
        parse(text)
    assert error.value.position + 1 == position and words in str(error.value)


def test_lift_lower_and_within_keep_the_level():
    step = parse("steps(mismatch)")
    assert unparse(slices.lift(step)) == "has_step(mismatch)" and slices.lift(parse("a = 1")) == parse("a = 1")
    assert unparse(slices.lower(parse("split = train"))) == "steps(dialog(split = train))"
    assert unparse(slices.within(step, parse("split = train"))) == "steps(mismatch and dialog(split = train))"
    assert unparse(slices.within(parse("a = 1"), parse("b = 2"))) == "a = 1 and b = 2"


# ------------------------------------------------------------------------------------------ the step table

def test_the_table_is_in_dialog_round_and_turn_order(tiny):
    table = tiny.steps
    assert [(d, int(r), int(t)) for d, r, t in table.keys().itertuples(index=False)] == [
        ("d1", 1, 1), ("d1", 1, 2), ("d1", 1, 3), ("d1", 1, 4), ("d1", 2, 1), ("d1", 2, 2),
        ("d2", 1, 1), ("d2", 1, 2), ("d2", 1, 3)]
    # who acted: taken from the messages where the corpus does not say (a step without a message: nobody)
    assert list(table.frame["role"]) == [("Player A",), (), ("Player B",), (), ("Player A",), (), ("Player A",),
                                         ("Player A",), ()]


def test_events_in_time_stay_within_their_round(tiny):
    assert moments("steps(mismatch)", tiny) == [("d1", 1, 4), ("d1", 2, 2), ("d2", 1, 3)]
    # next(1, …): at the step or the one after it, never across the round's end (d1 round 1 step 4 → round 2)
    assert moments("steps(kind = message and next(1, mismatch))", tiny) == [("d1", 1, 3), ("d1", 2, 1), ("d2", 1, 2)]
    assert moments("steps(next(0, mismatch))", tiny) == moments("steps(mismatch)", tiny)
    assert moments("steps(kind = message and next(5, mismatch))", tiny) == [
        ("d1", 1, 1), ("d1", 1, 3), ("d1", 2, 1), ("d2", 1, 1), ("d2", 1, 2)]
    assert moments("steps(prev(1, mismatch))", tiny) == [("d1", 1, 4), ("d1", 2, 2), ("d2", 1, 3)]
    assert moments("steps(kind = lock and prev(2, kind = message) and not mismatch)", tiny) == [("d1", 1, 2)]
    assert moments("steps(first(round))", tiny) == [("d1", 1, 1), ("d1", 2, 1), ("d2", 1, 1)]
    assert moments("steps(last(dialog))", tiny) == [("d1", 2, 2), ("d2", 1, 3)]
    assert moments("steps(last(round) and not last(dialog))", tiny) == [("d1", 1, 4)]


def test_a_huge_window_is_one_pass(tiny):
    assert moments("steps(next(9999999999999, mismatch) and first(round))", tiny) == [
        ("d1", 1, 1), ("d1", 2, 1), ("d2", 1, 1)]
    huge = "9" * 32  # the longest number a slice reads: past int64, once an OverflowError
    assert moments(f"steps(next({huge}, mismatch) and first(round))", tiny) == moments(
        "steps(next(9999999999999, mismatch) and first(round))", tiny)
    assert moments(f"steps(prev({huge}, mismatch))", tiny) == moments("steps(prev(99, mismatch))", tiny)


def test_lifting_and_lowering(tiny):
    kept = select("steps(gain > 1.5)", tiny)
    assert kept.dialogs.tolist() == [True, False] and int(kept.steps.sum()) == 2
    assert slices.dialog_ids("has_step(gain > 1.5)", tiny) == ["d1"]
    assert slices.dialog_ids("not has_step(mismatch and kind = lock)", tiny) == []
    assert moments("steps(dialog(split = test))", tiny) == [("d2", 1, 1), ("d2", 1, 2), ("d2", 1, 3)]
    assert moments("steps(dialog(has_step(gain >= 3)) and first(dialog))", tiny) == [("d1", 1, 1)]
    assert slices.step_keys("split = test", tiny)["turn"].tolist() == [1, 2, 3]


def test_calls_count_at_the_step(tiny):
    assert moments("steps(text(dog))", tiny) == [("d1", 1, 1), ("d1", 1, 3), ("d2", 1, 1)]
    assert moments('steps(re("\\?$", "Player A"))', tiny) == [("d1", 1, 1), ("d2", 1, 2)]
    assert moments("steps(role = \"Player B\")", tiny) == [("d1", 1, 3)]
    # a code on a step counts there; one on the whole dialog (no turn) on no step
    assert moments("steps(code(CR))", tiny) == [("d1", 1, 3), ("d2", 1, 2)]
    assert moments("steps(tag(odd))", tiny) == [("d1", 2, 1)]
    assert moments("steps(score(base) > 0.5)", tiny) == [("d2", 1, 2)]
    assert moments("steps(gap(base) < -0.5)", tiny) == [("d1", 1, 3)]


def test_a_code_s_count_and_a_run_s_score_are_measures_at_either_level(tiny):
    """Issue 46, item 3: a contrast's measure may be a code's count or a run's score, per dialog or per step."""
    from data_access.slices.measures import contrast_slices, measure_values

    assert measure_values("code(CR)", tiny, "dialog").tolist() == [2, 1]  # the whole-dialog code counts on d1
    per_step = measure_values("code(CR)", tiny, "step")
    assert per_step.sum() == 2 and len(per_step) == len(tiny.steps)
    scores = measure_values("score(base)", tiny, "step")
    assert sorted(scores[~np.isnan(scores)].tolist()) == [0.25, 0.75]
    result = contrast_slices(tiny, "code(CR)", 'steps(role = "Player B")', "rest", paired="none")
    assert (result.n_a, result.n_b, result.mean_a) == (1, len(tiny.steps) - 1, 1.0)


@pytest.mark.parametrize("text, words", [
    ("steps(gain)", "gain != 0"),  # a bare number, at the step level too
    ("steps(split = train)", "split is a dialog feature: in a step slice write dialog(split"),
    ("mismatch", "mismatch is a step feature"),
    ("first(dialog)", "tests steps"),
    ("steps(first(turn))", "does not fit"),
    ("steps(score(nothing) > 0)", "no run “nothing”"),
])
def test_level_errors_name_the_explicit_form(tiny, text, words):
    with pytest.raises(SliceError) as error:
        evaluate(text, tiny)
    assert words in str(error.value)


def test_a_corpus_without_rounds_has_no_first_of_a_round():
    loaded = LoadedCorpus("tiny", "tiny", False, {"dialogs": pd.DataFrame({"corpus": "tiny", "dialog_id": ["d"]}),
                                         "utterances": pd.DataFrame({
                                             "corpus": "tiny", "dialog_id": ["d", "d"], "round": pd.array([pd.NA] * 2, dtype="Int64"),
                                             "turn": [1, 2], "speaker": "s", "role": "r", "text": "x", "time_s": np.nan})},
                          package=_package())
    data = slices.slice_data(loaded)  # no step_features: its steps are its messages'
    assert len(data.steps) == 2 and data.steps.frame["role"].tolist() == [("r",), ("r",)]
    assert [(d, t) for d, _, t in data.steps.keys(evaluate("steps(first(dialog))", data)).itertuples(index=False)] == [("d", 1)]
    with pytest.raises(SliceError, match="not grouped in rounds"):
        evaluate("steps(first(round))", data)


def test_said_per_step_keeps_first_seen_order_and_many_speakers():
    rows = np.array([0, 0, 1, 2, 2, -1])
    values = pd.Series(["b", "a", "a", "b", "b", "c"])
    assert said_per_step(rows, values, 3).tolist() == [("b", "a"), ("a",), ("b",)]
    many = pd.Series([f"s{i}" for i in range(100)])
    said = said_per_step(np.zeros(100, dtype=np.int64), many, 1)
    assert said[0] == tuple(many)


def test_description_of_a_step_slice():
    assert describe("steps(role = Architect and next(1, removals > 0))", "Minecraft", 248, 32) == (
        "Minecraft · steps: role = Architect · removals > 0 at this step or the next 1 step · 248 steps in 32 dialogs")
    assert describe("has_step(mismatch) and not peek_gain is null") == (
        "has a step where a mismatched lock · not peek gain has no value")
    assert describe("steps(prev(2, lock) and first(round))") == (
        "steps: a lock at this step or the 2 steps before · first step of its round")


# ------------------------------------------------------------------------------------------ the demo corpora

@pytest.fixture(scope="module")
def demo_root(tmp_path_factory):
    return tmp_path_factory.mktemp("demo")


@pytest.mark.parametrize("corpus", ["codraw", "gos", "minecraft"])
def test_every_step_is_a_replay_step(corpus, demo_root):
    loaded = load_path(corpus, None, cache_root=demo_root)
    table = build_steps(loaded, pd.Index(loaded.dialogs["dialog_id"].astype(str)))
    package = loaded.package
    for dialog_id, group in table.frame.groupby("dialog_id", sort=False):
        rounds = group["round"].dropna().unique().tolist() or [None]
        for round_ in rounds:
            turns = group["turn"] if round_ is None else group.loc[group["round"] == round_, "turn"]
            count = package.step_count(loaded, dialog_id, None if round_ is None else int(round_))
            assert turns.min() >= 1 and turns.max() <= count, (dialog_id, round_)
            if corpus != "codraw":  # CoDraw: a round skipped while loading is no step
                assert len(turns) == count


def test_minecraft_architect_messages_followed_by_a_removal_against_pandas(demo_root):
    loaded = load_path("minecraft", None, cache_root=demo_root)
    data = slices.slice_data(loaded)
    found = set(map(tuple, slices.step_keys("steps(role = Architect and next(1, removals > 0))", data)[
        ["dialog_id", "turn"]].itertuples(index=False)))
    # independently: each game's messages, the removals after each (the last message taking the rest)
    utterances, actions = loaded.frames["utterances"], loaded.frames["actions"]
    expected = set()
    for game, said in utterances.groupby("dialog_id"):
        last = int(said["turn"].max())
        removed = actions[(actions["game"] == game) & (actions["kind"] == "removal")]
        turns = set(np.minimum(removed["turn"].to_numpy(), last)) - {0}
        for turn, role in zip(said["turn"], said["role"]):
            if role == "Architect" and (turn in turns or (turn + 1 in turns and turn + 1 <= last)):
                expected.add((game, int(turn)))
    assert found == expected and found


def test_codraw_step_features_against_the_rounds(demo_root):
    loaded = load_path("codraw", None, cache_root=demo_root)
    frame = build_steps(loaded, pd.Index(loaded.dialogs["dialog_id"].astype(str))).frame.set_index(["dialog_id", "turn"])
    rounds = loaded.frames["rounds"].set_index(["dialog_id", "round"])
    joined = frame.join(rounds[["score_final", "peeked", "msg_d"]].rename_axis(["dialog_id", "turn"]))
    assert np.allclose(joined["round_score"], joined["score_final"], equal_nan=True)
    assert (joined["peek"] == joined["peeked"]).all()
    assert (joined["drawer_words"] == joined["msg_d"].fillna("").str.split().str.len()).all()
    # the score change: the previous round's score, 0 before the first drawing
    first = frame.groupby(level=0).head(1)
    assert np.allclose(first["score_change"].dropna(), first["round_score"].dropna())


def test_a_minecraft_run_s_f1_at_each_step_against_its_samples(demo_root):
    """Issue 46, item 1: ``score(RUN)`` at a Minecraft step is the run's block F1 over the BAP samples placed at that
    step (micro: their true and false positives and negatives summed), computed here from the samples."""
    from data_access.contract import scoring_of
    from data_access.runs import load_run
    from data_access.runs.browse_columns import step_run_scores
    from data_access.runs.demo import demo_runs

    loaded = load_path("minecraft", None, cache_root=demo_root)
    run = load_run(loaded, demo_runs("minecraft", demo_root)["noisy"], cache_root=demo_root)
    scoring = scoring_of(run)
    placed = scoring.units(run).merge(scoring.worst_steps(loaded, run)[["unit", "turn"]], on="unit")
    sums = placed.groupby(["dialog_id", "turn"])[["tp", "fp", "fn"]].sum()
    expected = (2 * sums["tp"] / (2 * sums["tp"] + sums["fp"] + sums["fn"])).to_dict()
    found = step_run_scores(loaded, run)
    assert {(d, int(t)): s for d, t, s in zip(found["dialog_id"], found["turn"], found["score"])} == pytest.approx(expected)
    data = slices.slice_data(loaded, step_runs={"noisy": found})
    below = {key for key, value in expected.items() if value < 1}
    assert 0 < len(below) < len(expected)
    kept = slices.step_keys("steps(score(noisy) < 1)", data)
    assert set(zip(kept["dialog_id"], kept["turn"].astype(int))) == below
