"""Coding queues: sampling (dialogs, turns, a step slice's moments), and the reason given when a sample is empty."""
from __future__ import annotations

import pytest

from data_access import slices
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


def test_a_step_slice_s_moments_are_sampled_lock_events_too(tmp_path):
    loaded = load_path("gos", demo_path("gos", tmp_path), cache_root=tmp_path)
    keys = slices.step_keys("steps(kind = lock)", slices.slice_data(loaded))
    moments = [(d, int(r), int(t)) for d, r, t in keys.itertuples(index=False)]
    items = sample_items(loaded, "moment", 5, seed=1, moments=moments)
    assert len(items) == 5 and all((p.dialog_id, p.round, p.step) in set(moments) for p in items)
    assert sample_items(loaded, "moment", 5, seed=1, moments=moments) == items  # seeded
    with pytest.raises(ValueError, match="moments"):
        sample_items(loaded, "moment", 5)
