"""Coding queues: sampling, and the reason given when a sample is empty."""
from __future__ import annotations

from data_access.coding.queue import empty_sample_reason, sample_items
from data_access.corpora import demo_path, load_path


def test_a_filter_that_matches_nothing_samples_nothing_and_says_why():
    loaded = load_path("codraw", demo_path("codraw"))
    assert sample_items(loaded, "dialog", 10, contains="zzzzqqqxx") == []
    assert sample_items(loaded, "turn", 5, splits=["no-such-split"]) == []
    assert len(sample_items(loaded, "dialog", 2)) == 2
    reason = empty_sample_reason("dialog", (), "zzzzqqqxx")
    assert reason == "no dialog in this corpus has an utterance containing “zzzzqqqxx” (ignoring case)."
    assert empty_sample_reason("turn", (), "x").startswith("no turn in this corpus is in a dialog with an utterance")
    assert "in split(s) train, val" in empty_sample_reason("turn", ["train", "val"], None)
