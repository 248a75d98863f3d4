"""Slices (issue 37): the grammar's round trip and bounds, parse errors with their position, evaluation of every
kind of test on a tiny hand-made corpus (columns of each kind, missing values, runs, codes, notes, text), the
description in words, and the demo CoDraw corpus through ``slice_data`` with its published layer."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from data_access import slices
from data_access.corpora import load_path
from data_access.layers.load import demo_layer_path, load_layer
from data_access.runs.browse_columns import column_name
from data_access.slices import (
    MAX_CHARS,
    MAX_DEPTH,
    MAX_TESTS,
    SliceData,
    SliceError,
    SliceSyntaxError,
    canonical,
    describe,
    dialog_ids,
    evaluate,
    parse,
    unparse,
)

IDS = ["d1", "d2", "d3", "d4"]


@pytest.fixture
def tiny() -> SliceData:
    dialogs = pd.DataFrame({
        "corpus": "tiny", "dialog_id": IDS, "split": ["train", "train", "val", "test"],
        "n_rounds": [3, 8, 5, 1],
        "peek_gain": [-0.5, 1.25, np.nan, 0.0],
        "crs": pd.array([2, 0, pd.NA, 1], dtype="Int64"),
        "outcome_match": [True, False, True, False],
        "started_at": pd.to_datetime(["2021-01-01", "2021-06-01", "2022-01-01", None], utc=True),
        "players": [("ann", "bo"), ("bo", "cy"), ("ann", "cy"), ()],
    })
    utterances = pd.DataFrame({
        "corpus": "tiny", "dialog_id": ["d1", "d1", "d2", "d3", "d4"], "round": pd.array([pd.NA] * 5, dtype="Int64"),
        "turn": [1, 2, 1, 1, 1], "speaker": ["T", "D", "T", "D", "D"], "role": ["Teller", "Drawer", "Teller", "Drawer", "Drawer"],
        "text": ["a tree on the left", "which tree?", "left of the sun", "is it big?", "ok"], "time_s": np.nan,
    })
    annotations = pd.DataFrame({
        "corpus": "tiny", "dialog_id": ["d1", "d1", "d2", "d3"], "kind": "label", "deleted_at": None,
        "label": ["CR", "CR", "CR", "other"], "codebook": "book", "layer": ["coding", "coding", "gold", "coding"],
        "coder": ["ann", "bo", "gold", "ann"],
    })
    notes = pd.DataFrame({"dialog_id": ["d2", "d2", "d4"], "tags": [["repair"], ["repair", "odd"], ["odd"]]})
    runs = {"base": pd.DataFrame({column_name("base", "score"): [0.2, 0.9], column_name("base", "gap"): [-0.3, 0.1]},
                                 index=pd.Index(["d1", "d3"], name="dialog_id"))}
    return SliceData("tiny", "Tiny", dialogs, runs, annotations, notes, utterances)


def kept(text: str, data: SliceData) -> list[str]:
    return dialog_ids(text, data)


# ------------------------------------------------------------------------------------------ grammar

@pytest.mark.parametrize("text, expected", [
    ("crs and peek_gain < 0", "crs and peek_gain < 0"),
    ("  crs   AND_x", "crs"),  # a name after a test is an error; replaced below
])
def test_canonical_form_is_one_spacing(text, expected):
    if "AND_x" in text:
        with pytest.raises(SliceSyntaxError):
            parse(text)
        return
    assert canonical(text) == expected


@pytest.mark.parametrize("text", [
    "crs and peek_gain<0",
    "(a or b) and not (c and d)",
    "a or b and c",
    "not not a",
    'split in (train, "val set", 3, -2.5, 1e3, true) or code(CR, "", book)',
    're("\\bleft\\b", Drawer) and text("say \\"hi\\"")',
    "score(\"my run\") >= 0.25 and gap(x) != -1",
    "a and (b and (c and d))",
    "x = \"and\"",
])
def test_parse_print_round_trip(text):
    tree = parse(text)
    printed = unparse(tree)
    assert parse(printed) == tree
    assert unparse(parse(printed)) == printed


def test_precedence_and_flattening():
    assert parse("a or b and c") == slices.Or((parse("a"), slices.And((parse("b"), parse("c")))))
    assert unparse(parse("(a or b) and c")) == "(a or b) and c"
    assert unparse(parse("a and (b and c)")) == "a and b and c"
    assert unparse(parse("not (a or b)")) == "not (a or b)"


@pytest.mark.parametrize("text, position, words", [
    ("crs and", 7, "expected a feature"),
    ("peek_gain <", 11, "expected a value"),
    ("(crs", 4, "expected “)”"),
    ('text("open', 5, "not closed"),
    ("crs § 2", 4, "unexpected character"),
    ("split in ()", 10, "at least one value"),
    ("crs crs", 4, "expected “and”, “or” or the end"),
    ("", 0, "empty"),
    ("n = 1e999", 4, "too large"),
])
def test_parse_errors_name_the_position(text, position, words):
    with pytest.raises(SliceSyntaxError) as error:
        parse(text)
    assert error.value.position == position
    assert words in str(error.value) and f"at character {position + 1}" in str(error.value)


def test_bounds_on_length_depth_and_tests():
    with pytest.raises(SliceSyntaxError, match="characters long"):
        parse("a or " * (MAX_CHARS // 5) + "a")
    with pytest.raises(SliceSyntaxError, match="nests deeper"):
        parse("(" * (MAX_DEPTH + 1) + "a" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(SliceSyntaxError, match="nests deeper"):
        parse("not " * (MAX_DEPTH + 1) + "a")
    parse("(" * MAX_DEPTH + "a" + ")" * MAX_DEPTH)  # at the bound: fine
    with pytest.raises(SliceSyntaxError, match="more than"):
        parse(" or ".join(["a"] * (MAX_TESTS + 1)))
    # the hostile forms recursion would choke on stop at the bound, quickly, with a message
    with pytest.raises(SliceSyntaxError):
        parse("(" * 5000)


# ------------------------------------------------------------------------------------------ evaluation

def test_numbers_with_missing_values(tiny):
    assert kept("peek_gain < 0", tiny) == ["d1"]
    assert kept("peek_gain >= 0", tiny) == ["d2", "d4"]
    assert kept("not peek_gain < 0", tiny) == ["d2", "d3", "d4"]  # no value: the comparison is false
    assert kept("crs != 0", tiny) == ["d1", "d4"]
    assert kept("crs = 0", tiny) == ["d2"]  # annotated without a CR, not the dialog outside the layer
    assert kept("peek_gain is not null", tiny) == ["d1", "d2", "d4"]  # the 0 gain of d4 kept (issue 46, item 5)
    assert kept("peek_gain is null", tiny) == ["d3"] and kept("not peek_gain is null", tiny) == ["d1", "d2", "d4"]
    assert kept("n_rounds in (1, 5)", tiny) == ["d3", "d4"]


def test_text_bool_time_and_list_columns(tiny):
    assert kept("split = train", tiny) == ["d1", "d2"]
    assert kept("split != train", tiny) == ["d3", "d4"]
    assert kept("split in (val, test)", tiny) == ["d3", "d4"]
    assert kept("outcome_match", tiny) == ["d1", "d3"]
    assert kept("outcome_match = false", tiny) == ["d2", "d4"]
    assert kept('started_at >= "2021-06-01"', tiny) == ["d2", "d3"]
    assert kept("players = ann", tiny) == ["d1", "d3"]
    assert kept("players in (cy)", tiny) == ["d2", "d3"]


def test_and_or_not(tiny):
    assert kept("split = train and crs > 0 or n_rounds = 5", tiny) == ["d1", "d3"]
    assert kept("not (split = train or crs > 0)", tiny) == ["d3"]


@pytest.mark.parametrize("text", ["peek_gain", "crs", "n_rounds and split = train", "not crs", "score(base)",
                                  "gap(base) or crs > 0"])
def test_a_bare_number_is_refused_naming_the_explicit_forms(tiny, text):
    """Issue 46, item 5: "crs > 0 and peek_gain" kept the dialogs with a non-zero gain and silently dropped those
    whose gain is exactly 0; a bare number is now refused, with the two forms that say what is meant."""
    with pytest.raises(SliceError) as error:
        evaluate(text, tiny)
    name = text.split()[-1] if text.startswith("not") else text.split()[0]
    assert f"{name} != 0" in str(error.value) and f"{name} is not null" in str(error.value)


def test_runs_codes_notes_and_text(tiny):
    assert kept("score(base) > 0.5", tiny) == ["d3"]
    assert kept("gap(base) < 0", tiny) == ["d1"]
    assert kept("code(CR)", tiny) == ["d1"]  # the gold layer counts only when asked for
    assert kept("code(CR) >= 2", tiny) == ["d1"]
    assert kept("code(CR, bo)", tiny) == ["d1"]
    assert kept("code(CR, gold)", tiny) == ["d2"]
    assert kept("code(other, \"\", nobook)", tiny) == []
    assert kept("tag(Repair)", tiny) == ["d2"]
    assert kept("tag(repair) >= 2 or tag(odd) and not tag(repair)", tiny) == ["d2", "d4"]
    assert kept("text(tree)", tiny) == ["d1"]
    assert kept("text(left, teller)", tiny) == ["d1", "d2"]
    assert kept('re("\\?$", Drawer)', tiny) == ["d1", "d3"]
    assert kept('text("which tree") or re("\\?", Drawer) and n_rounds > 1', tiny) == ["d1", "d3"]


@pytest.mark.parametrize("text, words", [
    ("nothing > 1", "Tiny has no feature “nothing”"),
    ("peek_gain < abc", "peek_gain is a number; abc is not"),
    ("outcome_match > 1", "true or false"),
    ("started_at > \"not a time\"", "is a time"),
    ("score(other) > 0", "no run “other”"),
    ("score > 0", "needs its arguments"),
    ("frob(1)", "is not a test"),
    ("code()", "does not fit"),
    ("text(x, Nobody)", "no role “Nobody”"),
    ("re(\"(?=x)\")", "re("),
    ("players < ann", "is a list"),
])
def test_evaluation_errors_say_what_is_wrong(tiny, text, words):
    with pytest.raises(SliceError) as error:
        evaluate(text, tiny)
    assert words in str(error.value)


def test_a_corpus_without_a_store_codes_nothing_and_says_no_run(tiny):
    bare = SliceData("tiny", "Tiny", tiny.dialogs, utterances=tiny.utterances)
    assert kept("code(CR)", bare) == [] and kept("tag(odd)", bare) == []
    with pytest.raises(SliceError, match=r"loaded: none"):
        evaluate("gap(base) < 0", bare)


def test_description():
    assert describe("crs > 0 and peek_gain < 0", "CoDraw", 221) == "CoDraw · CRs > 0 · peek gain < 0 · 221 dialogs"
    assert describe("peek_gain is not null and crs = 0") == "peek gain has a value · CRs = 0"
    assert describe("not outcome_match") == "not an exact build"
    assert describe("code(CR, gold) and text(\"?\", Drawer) and score(base) <= 0.5", count=1) == (
        "labelled CR by the gold · Drawer says “?” · base's score: ≤ 0.5 · 1 dialog")
    ids = slices.ids_slice([f"d{i}" for i in range(10)])
    assert describe(ids) == "one of 10 chosen dialogs"
    assert describe("split = train or (n_rounds > 2 and outcome_match)") == "split = train or rounds > 2 and exact build"


def test_ids_slice_round_trips_hostile_ids(tiny):
    hostile = ['d1', 'a "quoted" id', "back\\slash\\", "and", "7"]
    text = slices.ids_slice(hostile)
    assert parse(text).values == tuple(hostile)
    assert kept(text, tiny) == ["d1"]
    with pytest.raises(SliceError):
        slices.ids_slice([])


# ------------------------------------------------------------------------------------------ a loaded corpus

def test_the_demo_codraw_corpus_with_its_layer(tmp_path):
    loaded = load_path("codraw", None, cache_root=tmp_path)
    layer = load_layer("codraw-icr", loaded, demo_layer_path("codraw-icr", tmp_path), is_demo=True)
    data = slices.slice_data(loaded, layers={"codraw-icr": layer})
    from corpora.codraw.data.figures import peek_table
    from corpora.codraw.data.icr_analysis import cr_by_dialog

    gains = peek_table(loaded.dialogs).set_index("dialog_id")["gain"]
    crs = cr_by_dialog(layer).set_index("dialog_id")["crs"]
    expected = sorted(set(gains[gains < 0].index) & set(crs[crs > 0].index))
    assert sorted(dialog_ids("crs > 0 and peek_gain < 0", data)) == expected
    assert int(evaluate("peek_gain != 0", data).sum()) == int((gains != 0).sum())
    assert int(evaluate("peek_gain is not null", data).sum()) == len(gains)
    # every column of the dialog table is a feature
    for column in loaded.dialogs.columns:
        if column != "corpus":
            evaluate(f"{column} is not null", data)


# ------------------------------------------------------------------------------------------ builders

def test_browse_filters_and_a_chart_bar_become_slices(tiny):
    from data_access.slices.builders import browse_filter_node, ids_node, range_node

    node = browse_filter_node(splits=["train"], ranges=[("n_rounds", 3, None), ("base · score", None, 0.5)],
                              with_cr=True, label=("CR", "ann", ""),
                              run_columns={"base · score": ("base", "score")})
    assert unparse(node) == "split = train and n_rounds >= 3 and score(base) <= 0.5 and crs > 0 and code(CR, ann)"
    assert kept(unparse(node), tiny) == ["d1"]
    assert browse_filter_node() is None
    with pytest.raises(SliceError, match="no name"):
        browse_filter_node(ranges=[("odd column!", 1, 2)])
    bar = range_node(slices.Feature("peek_gain"), -0.5, 0.0, high_open=True)
    assert unparse(bar) == "peek_gain >= -0.5 and peek_gain < 0" and kept(unparse(bar), tiny) == ["d1"]
    assert kept(unparse(ids_node(["d4", "d2", "d4"])), tiny) == ["d2", "d4"]
