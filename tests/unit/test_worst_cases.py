"""Worst cases first: the ranking (worst score or largest shortfall first, ties in a fixed order), the step of
each corpus where a run differs most from the humans, and the case list a link carries, on hand-made frames
whose answers are worked out by hand."""
from __future__ import annotations

from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pandas as pd
import pytest

from corpora.codraw.data import scoring as codraw_runs
from corpora.gos.data import scoring as gos_runs
from corpora.minecraft.data import scoring as minecraft_runs
from data_access.runs import LoadedRun, worst_cases
from data_access.runs.worst_cases import (
    MAX_CASES,
    MAX_CASES_CHARS,
    at_worst_steps,
    capped,
    case_link,
    case_params,
    decode_cases,
    encode_cases,
    ranked_cases,
)


def _units(values: dict[str, float], **extra) -> pd.DataFrame:
    return pd.DataFrame({"unit": list(values), "dialog_id": list(values), "value": list(values.values()), **extra})


def test_without_a_comparison_the_lowest_score_comes_first():
    table = ranked_cases(_units({"a": 3.0, "b": 1.0, "c": 2.0, "d": 0.5}))
    assert table["unit"].tolist() == ["d", "b", "c", "a"]
    assert table["rank"].tolist() == [1, 2, 3, 4]
    assert table["other"].isna().all() and table["gap"].isna().all()
    assert list(table.columns[:len(worst_cases.CASE_COLUMNS)]) == worst_cases.CASE_COLUMNS


def test_with_a_comparison_the_largest_shortfall_comes_first_on_shared_units_only():
    a = _units({"a": 3.0, "b": 1.0, "c": 2.0, "x": 0.0})
    b = _units({"a": 4.5, "b": 1.5, "c": 1.0, "y": 9.0})  # x and y are not shared
    table = ranked_cases(a, b)
    # gaps a −1.5, b −0.5, c +1.0: a first although b's own score is lower
    assert table["unit"].tolist() == ["a", "b", "c"]
    assert table["gap"].tolist() == pytest.approx([-1.5, -0.5, 1.0])
    assert table["other"].tolist() == [4.5, 1.5, 1.0]


def test_ties_fall_to_the_own_score_then_the_errors_then_the_unit_id():
    a = _units({"q": 1.0, "p": 2.0, "r": 1.0, "s": 1.0})
    b = _units({"q": 2.0, "p": 3.0, "r": 2.0, "s": 2.0})  # every gap −1
    assert ranked_cases(a, b)["unit"].tolist() == ["q", "r", "s", "p"]  # own score 1 before 2; then by id
    # the same in any input order
    assert ranked_cases(a.iloc[::-1], b.sample(frac=1, random_state=3))["unit"].tolist() == ["q", "r", "s", "p"]
    # micro-F1 units: F1 0 with nothing to do ranks after F1 0 with errors
    samples = _units({"g#1": 0.0, "g#2": 0.0, "g#3": 0.0}, tp=[0, 0, 0], fp=[0, 3, 1], fn=[0, 2, 1])
    assert ranked_cases(samples)["unit"].tolist() == ["g#2", "g#3", "g#1"]


def test_at_worst_steps_replaces_the_units_own_turn_and_keeps_it_for_an_unknown_unit():
    cases = ranked_cases(_units({"a": 1.0, "b": 2.0}, turn=pd.array([7, 8], dtype="Int64")))
    steps = pd.DataFrame({"unit": ["a"], "turn": pd.array([3], dtype="Int64"), "round": pd.array([pd.NA], dtype="Int64")})
    placed = at_worst_steps(cases, steps)
    assert placed["turn"].tolist() == [3, 8]


# --------------------------------------------------------------------------- the step of largest difference

def _run(corpus: str, **frames) -> LoadedRun:
    return LoadedRun(corpus=corpus, name="model", source="model.jsonl", frames={**frames, "unmatched": pd.DataFrame()})


def test_codraw_opens_a_dialog_at_the_round_furthest_below_the_human():
    rounds = pd.DataFrame({
        "dialog_id": ["d1"] * 4 + ["d2"] * 3 + ["d3"],
        "round": [1, 2, 3, 4, 1, 2, 3, 1],
        "score_final": [1.0, 2.0, np.nan, 3.0, 2.0, 2.0, 4.0, 1.0],
        "human_score_final": [1.5, 4.5, 3.0, 3.5, 3.0, 3.0, 4.0, np.nan],
    })
    # d1: gaps −0.5, −2.5, −3.0 (round 3 left empty counts as 0), −0.5 → round 3
    # d2: gaps −1, −1, 0 → the earlier of the tied rounds, 1
    # d3: no human score in its only round → its final drawing's round
    dialogs = pd.DataFrame({"dialog_id": ["d1", "d2", "d3"], "final_score": [3.0, 4.0, 1.0],
                            "final_round": pd.array([4, 3, 1], dtype="Int64"), "human_final_score": [3.5, 4.0, np.nan],
                            "human_final_round": pd.array([4, 3, pd.NA], dtype="Int64")})
    steps = codraw_runs.worst_steps(SimpleNamespace(frames={}), _run("codraw", rounds=rounds, dialogs=dialogs))
    assert dict(zip(steps["unit"], steps["turn"])) == {"d1": 3, "d2": 1, "d3": 1}
    assert steps["round"].isna().all()


def test_codraw_opens_where_the_model_drew_something_beside_the_human():
    """Issue 47: a case opened at a round where the model's canvas is empty shows nothing of the model's; among the
    rounds it drew something, the one furthest below the human, unless it drew nothing in the whole dialog."""
    rounds = pd.DataFrame({
        "dialog_id": ["d1"] * 4 + ["d2"] * 2,
        "round": [1, 2, 3, 4, 1, 2],
        "has_drawing": [True, True, False, True, False, False],
        "score_final": [1.0, 2.0, np.nan, 3.0, np.nan, np.nan],
        "human_score_final": [1.5, 4.5, 3.0, 3.5, 1.0, 3.0],
    })
    # d1: round 3 (−3.0) is empty: among the drawn rounds, round 2 (−2.5); d2 drew nothing: round 2 (−3.0)
    dialogs = pd.DataFrame({"dialog_id": ["d1", "d2"], "final_score": [3.0, 0.0], "final_round": pd.array([4, 2], dtype="Int64"),
                            "human_final_score": [3.5, 3.0], "human_final_round": pd.array([4, 2], dtype="Int64")})
    steps = codraw_runs.worst_steps(SimpleNamespace(frames={}), _run("codraw", rounds=rounds, dialogs=dialogs))
    assert dict(zip(steps["unit"], steps["turn"])) == {"d1": 2, "d2": 2}


def test_game_of_sorts_opens_a_message_at_its_own_step_and_round():
    messages = pd.DataFrame({"interaction_id": ["i", "i", "i"], "round_number": [1, 2, 2], "message_number": [1, 1, 2],
                             "gold_empty": [False, False, True], "f1": [0.5, 0.0, np.nan]})
    steps_frame = pd.DataFrame({"interaction_id": ["i"] * 5, "round": [1, 1, 2, 2, 2],
                                "kind": ["move", "message", "message", "move", "message"],
                                "message_number": [np.nan, 1, 1, np.nan, 2], "step": [1, 2, 1, 2, 3]})
    steps = gos_runs.worst_steps(SimpleNamespace(frames={"steps": steps_frame}), _run("gos", messages=messages))
    # the message with empty gold is no unit
    assert steps[["unit", "turn", "round"]].values.tolist() == [["i|1|1", 2, 1], ["i|2|1", 1, 2]]


def test_minecraft_opens_a_sample_at_the_utterance_it_follows():
    samples = pd.DataFrame({"game": ["g", "g", "h"], "sample_id": [4, 9, 4], "tp": [1, 0, 2], "fp": [0, 1, 0],
                            "fn": [1, 1, 0], "f1": [0.67, 0.0, 1.0]})
    bap = pd.DataFrame({"game": ["g", "g", "h", "h"], "sample_id": [4, 9, 4, 5], "turn": [3, 11, 2, 6]})
    steps = minecraft_runs.worst_steps(SimpleNamespace(frames={"bap_samples": bap}), _run("minecraft", samples=samples))
    assert dict(zip(steps["unit"], steps["turn"])) == {"g#4": 3, "g#9": 11, "h#4": 2}
    assert steps["round"].isna().all()


# ---------------------------------------------------------------------------------------- the list in a link

def test_the_case_list_reads_back_with_commas_and_percent_signs_in_ids():
    ids = ["plain", "with,comma", "50%", "game#3", "i|1|2"]
    text = encode_cases(ids)
    assert text.count(",") == len(ids) - 1
    assert decode_cases(text) == ids
    assert decode_cases(None) == [] and decode_cases("") == [] and decode_cases(",a,,a,b") == ["a", "b"]


def test_the_case_list_is_capped_by_count_and_by_length():
    many = [f"dialog_{i:05d}" for i in range(500)]
    assert capped(many) == many[:MAX_CASES]
    assert decode_cases(",".join(many)) == many[:MAX_CASES]  # a hand-made link is bounded too
    long = ["x" * 400 + str(i) for i in range(50)]
    kept = capped(long)
    assert 0 < len(kept) < 50 and len(encode_cases(long)) <= MAX_CASES_CHARS
    assert len(",".join(kept + [long[len(kept)]])) > MAX_CASES_CHARS


def test_a_case_link_opens_the_dialog_at_its_step_with_the_list_and_the_run():
    case = pd.Series({"dialog_id": "i", "turn": 3, "round": 2})
    params = case_params("gos", case, "noisy", "i|1|1,i|2|1", 2, "gold", in_rounds=True)
    query = parse_qs(urlsplit(case_link(params)).query)
    assert {k: v[0] for k, v in query.items()} == {"corpus": "gos", "dialog": "i", "round": "2", "turn": "3",
                                                   "run": "noisy", "cases": "i|1|1,i|2|1", "case": "2", "vs": "gold"}
    no_rounds = case_params("codraw", pd.Series({"dialog_id": "d", "turn": 4, "round": pd.NA}), "a", "d", 1, None,
                            in_rounds=False)
    assert "round" not in no_rounds and "vs" not in no_rounds and no_rounds["turn"] == "4"


def test_a_step_slice_keeps_the_cases_that_open_at_its_moments():
    cases = pd.DataFrame({"unit": ["a|1|2", "a|2|2", "b|1|5", "c|1|1", "d"], "dialog_id": ["a", "a", "b", "c", "d"],
                          "round": pd.array([1, 2, 1, 1, None], dtype="Int64"),
                          "turn": pd.array([2, 2, 5, 1, None], dtype="Int64")})
    moments = pd.DataFrame({"dialog_id": ["a", "b", "d"], "round": pd.array([2, 1, 1], dtype="Int64"),
                            "turn": [2, 5, 1]})
    # the round counts where the moments have rounds (a|1|2 is another round's step 2); no step: at no moment
    assert worst_cases.at_moments(cases, moments).tolist() == [False, True, True, False, False]
    # a corpus without rounds: dialog and turn only
    flat = moments.assign(round=pd.array([None] * 3, dtype="Int64"))
    assert worst_cases.at_moments(cases, flat).tolist() == [True, True, True, False, False]
    assert not worst_cases.at_moments(cases, flat.iloc[:0]).any()
