"""A slice's dialogs as a corpus of their own (every frame cut to them, never written to the corpus's cache entry)
and the slice against the rest (means, difference, bootstrap interval)."""
from __future__ import annotations

import math

import numpy as np

from data_access import cache
from data_access.corpora import demo_path, load_path
from data_access.slices.subcorpus import contrast, contrast_of, restrict


def test_restrict_cuts_every_frame_that_names_its_dialogs():
    loaded = load_path("gos", demo_path("gos"))
    ids = loaded.dialogs["dialog_id"].tolist()[:2]
    cut = restrict(loaded, ids)
    assert cut.dialogs["dialog_id"].tolist() == ids
    assert set(cut.frames["messages"]["interaction_id"]) == set(ids)
    assert len(cut.frames["images"]) == len(loaded.frames["images"])  # not a per-dialog frame
    assert cache.entry_of(cut.frames) is None  # a summary of the cut is never kept as the corpus's
    assert len(loaded.dialogs) == 6  # the corpus itself is untouched


def test_restrict_cuts_minecraft_frames_by_game():
    loaded = load_path("minecraft", demo_path("minecraft"))
    ids = loaded.dialogs["dialog_id"].tolist()[:3]
    cut = restrict(loaded, ids)
    assert set(cut.frames["actions"]["game"]) <= set(ids) and set(cut.frames["states"]["game"]) == set(ids)


def test_a_step_slice_cuts_the_step_frames_to_its_moments():
    """Issue 46, item 2: an analysis page's step-level figures are drawn on the moments (a CoDraw round, a Minecraft
    message with the Builder's actions after it), the other frames on the moments' dialogs."""
    from data_access import slices

    codraw = load_path("codraw", demo_path("codraw"))
    keys = slices.step_keys("steps(round_score > 2)", slices.slice_data(codraw))
    cut = restrict(codraw, keys["dialog_id"], keys)
    rounds = codraw.frames["rounds"]
    wanted = rounds[rounds["score_final"] > 2]
    assert 0 < len(cut.frames["rounds"]) == len(wanted) < len(rounds)
    assert sorted(zip(cut.frames["rounds"]["dialog_id"], cut.frames["rounds"]["round"])) == sorted(
        zip(wanted["dialog_id"], wanted["round"]))
    assert set(cut.dialogs["dialog_id"]) == set(keys["dialog_id"])  # not a step frame: the moments' dialogs
    minecraft = load_path("minecraft", demo_path("minecraft"))
    keys = slices.step_keys("steps(removals > 0)", slices.slice_data(minecraft))
    actions = restrict(minecraft, keys["dialog_id"], keys).frames["actions"]
    assert len(actions) > 0 and set(zip(actions["game"], actions["turn"])) == set(zip(keys["dialog_id"], keys["turn"]))


def test_contrast_is_slice_minus_rest_with_an_interval_around_it():
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(1.0, 1.0, 400), rng.normal(0.0, 1.0, 600), [np.nan] * 5])
    kept = np.arange(len(values)) < 400
    found = contrast(values, kept)
    assert (found.n_slice, found.n_rest) == (400, 600)
    assert math.isclose(found.difference, np.nanmean(values[:400]) - np.nanmean(values[400:]))
    assert found.low < found.difference < found.high and found.separated
    assert 0.1 < found.high - found.low < 0.3  # about 2 × 1.96 × sqrt(1/400 + 1/600) = 0.25
    assert "slice" in found.describe() and "bootstrap" in found.method
    same = contrast(np.ones(10), np.arange(10) < 5)
    assert same.difference == 0 and not same.separated
    lonely = contrast([1.0, 2.0, 3.0], [True, False, False])
    assert math.isnan(lonely.low) and lonely.n_slice == 1


def test_contrast_of_the_dialog_table():
    loaded = load_path("codraw", demo_path("codraw"))
    dialogs = loaded.dialogs
    ids = dialogs.loc[dialogs["split"] == "train", "dialog_id"]
    found = contrast_of(dialogs, "final_score", ids)
    train = dialogs["split"] == "train"
    assert math.isclose(found.mean_slice, dialogs.loc[train, "final_score"].mean())
    assert math.isclose(found.mean_rest, dialogs.loc[~train, "final_score"].mean())
    assert contrast_of(dialogs, "no_such_column", ids) is None


def test_selected_bars_are_ranges_of_their_feature():
    from data_access.slices import Feature, unparse
    from data_access.slices.builders import bars_node

    gain = Feature("peek_gain")
    assert unparse(bars_node(gain, [-0.1, -1.2, -0.3], 0.25)) == (
        "peek_gain >= -1.25 and peek_gain < -1 or peek_gain >= -0.5 and peek_gain < 0")
    # across bars that hold nothing the selection is one range
    assert unparse(bars_node(gain, [-0.1, -1.2, -0.3], 0.25, every=[-0.1, -1.2, -0.3, 0.4])) == (
        "peek_gain >= -1.25 and peek_gain < 0")
    assert unparse(bars_node(Feature("final_score"), [4.1], 0.25, start=-2.0)) == "final_score >= 4 and final_score < 4.25"
    assert bars_node(gain, [float("nan")], 0.25) is None
