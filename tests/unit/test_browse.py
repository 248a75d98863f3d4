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
