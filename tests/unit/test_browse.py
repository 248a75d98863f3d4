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
