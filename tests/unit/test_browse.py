"""Browse table and its URL-borne filters."""
import pandas as pd

from data_access.browse import DialogFilter, apply_filter, dialog_table


def _dialogs():
    return pd.DataFrame({
        "corpus": "codraw", "dialog_id": ["train_00001", "train_00002", "val_00003"],
        "split": ["train", "train", "val"], "n_steps": [3, 10, 7], "n_utterances": [6, 20, 14],
        "duration_s": [float("nan")] * 3, "final_score": [4.0, 3.0, 2.5], "peek_round": pd.array([2, None, 3], "Int64"),
    })


def test_table_has_note_counts_and_links():
    table = dialog_table(_dialogs(), "codraw", pd.Series({"train_00002": 4}))
    assert table.set_index("dialog_id")["notes"].to_dict() == {"train_00001": 0, "train_00002": 4, "val_00003": 0}
    assert table["replay"].iloc[2] == "/replay?corpus=codraw&dialog=val_00003"
    assert "final_score" in table.columns and "corpus" not in table.columns


def test_filters_combine():
    table = dialog_table(_dialogs(), "codraw", pd.Series({"val_00003": 1}))
    assert list(apply_filter(table, DialogFilter(splits=("train",)))["dialog_id"]) == ["train_00001", "train_00002"]
    assert list(apply_filter(table, DialogFilter(min_steps=5, max_steps=8))["dialog_id"]) == ["val_00003"]
    assert list(apply_filter(table, DialogFilter(id_contains="00002"))["dialog_id"]) == ["train_00002"]
    assert list(apply_filter(table, DialogFilter(only_with_notes=True))["dialog_id"]) == ["val_00003"]
    assert len(apply_filter(table, DialogFilter())) == 3


def test_natural_order_is_split_then_id_in_numeric_order():
    dialogs = pd.DataFrame({"corpus": "codraw", "dialog_id": ["val_2", "train_10", "test_1", "train_9", "train_100"],
                            "split": ["val", "train", "test", "train", "train"], "n_steps": [1] * 5})
    table = dialog_table(dialogs, "codraw")
    assert list(table["dialog_id"]) == ["train_9", "train_10", "train_100", "val_2", "test_1"]
    games = pd.DataFrame({"corpus": "minecraft", "dialog_id": ["B10-A1", "B2-A1", "B2-A10", "B2-A3"],
                          "split": ["train"] * 4, "n_steps": [1] * 4})
    assert list(dialog_table(games, "minecraft")["dialog_id"]) == ["B2-A1", "B2-A3", "B2-A10", "B10-A1"]


def test_game_of_sorts_object_ids_are_in_order_of_creation():
    # digit runs compared as numbers put 61bcbb1f… (61, bcbb, …) before 619d2f0a… (619, …), created weeks earlier
    ids = ["61bcbb1fe90a3cc04fda05de", "619d2f0ae90a3cc04fda0001", "7e50000000000000000000aa", "61bcbb20e90a3cc04fda0000"]
    interactions = pd.DataFrame({"corpus": "gos", "dialog_id": ids, "split": "all", "n_steps": [1] * 4})
    assert list(dialog_table(interactions, "gos")["dialog_id"]) == sorted(ids)


def test_range_filters_apply_to_any_numeric_column():
    from data_access.browse import numeric_columns, parse_range

    table = dialog_table(_dialogs(), "codraw")
    assert {"n_steps", "n_utterances", "final_score", "peek_round", "notes"} <= set(numeric_columns(table))
    assert "duration_s" not in numeric_columns(table)  # all empty: nothing to filter on
    rule = DialogFilter(ranges=(("final_score", 2.6, None), ("peek_round", None, 2)))
    assert list(apply_filter(table, rule)["dialog_id"]) == ["train_00001"]  # a missing peek fails a peek range
    assert parse_range("2..4.5") == (2.0, 4.5) and parse_range("..300") == (None, 300.0) and parse_range("x") is None


def test_every_shown_column_has_help():
    from data_access.browse import COLUMN_HELP, COMMON_COLUMNS, EXTRA_COLUMNS

    assert set(COMMON_COLUMNS) | {c for cs in EXTRA_COLUMNS.values() for c in cs} | {"notes", "replay"} <= set(COLUMN_HELP)


def test_note_counts_go_into_a_new_frame_and_the_shared_table_stays_as_it_was():
    from data_access.browse import ordered_dialog_table, with_note_counts

    ordered = ordered_dialog_table(_dialogs(), "codraw")
    before = ordered.copy()
    table = with_note_counts(ordered, pd.Series({"train_00002": 4}))
    pd.testing.assert_frame_equal(table, dialog_table(_dialogs(), "codraw", pd.Series({"train_00002": 4})))
    assert list(table.columns[-2:]) == ["notes", "replay"] and "notes" not in ordered.columns
    table.loc[0, "final_score"] = -1.0  # a page changing its frame
    pd.testing.assert_frame_equal(ordered, before)


# --- a range in a link (audit: nan crashed the page, 30..3 silently showed nothing) -------------------------

import math  # noqa: E402

import pytest  # noqa: E402

from data_access.browse import fit_range, parse_range  # noqa: E402


@pytest.mark.parametrize("text, expected", [
    ("2..4.5", (2.0, 4.5)), ("..300", (None, 300.0)), ("5..", (5.0, None)), (" 3 .. 10 ", (3.0, 10.0)),
    ("-1.5..+2e1", (-1.5, 20.0)), (".5..1.", (0.5, 1.0)),
    ("30..3", (30.0, 3.0)),  # reversed: parsed as written, fit_range swaps it
])
def test_parse_range_reads_decimal_ends(text, expected):
    assert parse_range(text) == expected


@pytest.mark.parametrize("text", [
    None, "", "x", "5", "..", " .. ", "1..2..3", "1...5", "a..b", "3..x",
    "nan..5", "3..nan", "nan..nan", "NaN..", "inf..", "..inf", "-inf..5", "..Infinity",
    "²..5", "3..²", "٣..5", "３..5", "1_0..20", "0x10..", "3e..", "--3..",
])
def test_parse_range_refuses_what_is_no_range_of_decimal_numbers(text):
    assert parse_range(text) is None


def test_parse_range_reads_numbers_past_a_float_as_infinite_ends():
    assert parse_range("1e999..") == (math.inf, None)
    assert parse_range("..-1e999") == (None, -math.inf)
    low, high = parse_range("9" * 400 + "..")
    assert low == math.inf and high is None


def _fit(text, low=1.0, high=30.0, integral=True):
    return fit_range(parse_range(text), f"n_steps={text}", "replay steps", low, high, integral)


@pytest.mark.parametrize("text, value", [("3..10", (3.0, 10.0)), ("5..", (5.0, 30.0)), ("..5", (1.0, 5.0)),
                                         ("1..30", (1.0, 30.0))])
def test_a_well_formed_range_is_used_as_written_without_a_warning(text, value):
    assert _fit(text) == (type(_fit(text)))(value, "")


def test_no_range_in_the_link_is_no_filter_and_no_warning():
    linked = fit_range(None, None, "replay steps", 1, 30, True)
    assert linked.value is None and linked.warning == ""


@pytest.mark.parametrize("text", ["nan..5", "3..nan", "nan..nan", "inf..", "-inf..5", "..", "²..5", "1...5"])
def test_a_malformed_range_is_ignored_with_a_warning(text):
    linked = _fit(text)
    assert linked.value is None
    assert f"n_steps={text}" in linked.warning and "ignored" in linked.warning


def test_a_reversed_range_is_swapped_with_a_warning():
    linked = _fit("30..3")
    assert linked.value == (3.0, 30.0)
    assert "reversed" in linked.warning and "3..30" in linked.warning


@pytest.mark.parametrize("text, value", [("-5..999", (1.0, 30.0)), ("..1e999", (1.0, 30.0)), ("3..1e999", (3.0, 30.0)),
                                         ("-1e999..7", (1.0, 7.0)), ("0..7", (1.0, 7.0))])
def test_an_end_past_the_values_is_opened_with_a_warning(text, value):
    linked = _fit(text)
    assert linked.value == value
    assert "reaches past" in linked.warning and "the same dialogs" in linked.warning


@pytest.mark.parametrize("text", ["100..200", "31..", "..0", "1e999..", "..-1e999", "9" * 400 + "..", "2.2..2.8"])
def test_a_range_no_value_can_be_in_is_ignored_with_a_warning_not_clamped(text):
    linked = _fit(text)
    assert linked.value is None and "ignored" in linked.warning


def test_a_reversed_range_past_the_values_says_both():
    linked = _fit("200..100")
    assert linked.value is None and "reversed" in linked.warning and "ignored" in linked.warning
    linked = _fit("999..5")
    assert linked.value == (5.0, 30.0) and "reversed" in linked.warning and "reaches past" in linked.warning


def test_fractional_ends_on_whole_numbers_round_inwards_with_a_warning():
    linked = _fit("2.5..7.5")
    assert linked.value == (3.0, 7.0) and "whole numbers" in linked.warning
    assert _fit("3.0..7.0").warning == ""  # the same numbers, nothing to say


def test_a_float_column_keeps_fractional_ends():
    linked = _fit("2.25..4.5", low=0.0, high=5.0, integral=False)
    assert linked == type(linked)((2.25, 4.5), "")
    linked = _fit("2.25..9", low=0.0, high=4.97, integral=False)
    assert linked.value == (2.25, 4.97) and "reaches past" in linked.warning


def test_a_constant_column_range_either_filters_nothing_or_is_ignored():
    linked = _fit("1..5", low=3.0, high=3.0)
    assert linked.value == (3.0, 3.0) and "filters nothing" in linked.warning
    linked = _fit("4..5", low=3.0, high=3.0)
    assert linked.value is None and "ignored" in linked.warning


def test_a_long_link_is_cut_in_the_warning():
    linked = _fit("x" * 100_000)
    assert linked.value is None and len(linked.warning) < 300 and "…" in linked.warning
