"""Figures of FORMATS B.3/B.8 checked on the real Minecraft subset in ../shared (skipped when absent)."""
from __future__ import annotations

import pytest

from corpora.minecraft.data import build_frames, iter_bap_samples

pytestmark = pytest.mark.shared
C63_GAME = "B42-A12-C63-1523304955372"


@pytest.fixture
def real(shared_data):
    return shared_data / "minecraft", build_frames(shared_data / "minecraft", lambda *a: None)


def test_the_c63_game_has_the_documented_figures(real):
    _, (frames, skipped) = real
    assert skipped == []
    game = frames["dialogs"].set_index("dialog_id").loc[C63_GAME]
    assert (game["split"], game["n_states"], game["n_utterances"], game["architect_utterances"]) == ("train", 19, 8, 4)
    assert (game["placements"], game["removals"], game["final_blocks"], game["gold_blocks"]) == (8, 2, 6, 6)
    assert game["outcome_match"] and game["duration_s"] == pytest.approx(119.2, abs=0.1)
    assert (game["align_dx"], game["align_dz"]) == (1, -1)
    samples = frames["bap_samples"]
    assert list(samples.loc[samples["game"] == C63_GAME, "sample_id"]) == [3, 9, 15]
    assert frames["utterances"].set_index("dialog_id").loc[C63_GAME, "text"].iloc[0] == "start with a blue tower 5 high"


def test_subset_invariants_of_formats_b3(real):
    _, (frames, _) = real
    dialogs = frames["dialogs"]
    assert set(dialogs.loc[dialogs["split"] == "warmup", "config"]) <= {"C3", "C17", "C32", "C38"}
    # after dropping glitch states no step adds more than 3 blocks or removes more than 1
    per_step = frames["actions"].groupby(["game", "state_idx", "kind"]).size()
    assert per_step.xs("placement", level="kind").max() <= 3 and per_step.xs("removal", level="kind").max() <= 1
    assert dialogs["outcome_match"].mean() > 0.8  # 521 of 547 on the full corpus


def test_full_sample_dicts_agree_with_the_frame(real):
    root, (frames, _) = real
    samples = frames["bap_samples"]
    for split in ("train", "val", "test"):
        full = list(iter_bap_samples(root, split, perspective=False))
        expected = samples[samples["split"] == split]
        assert [(s["orig_experiment_id"], s["sample_id"]) for s in full] == list(zip(expected["game"], expected["sample_id"]))


def test_the_augmented_copies_load_and_match(shared_data):
    frames, skipped = build_frames(shared_data / "minecraft-augmented", lambda *a: None)
    dialogs = frames["dialogs"]
    assert skipped == [] and len(dialogs) == 10 and dialogs["from_aug_data"].all() and dialogs["outcome_match"].all()
    assert (dialogs["n_states"] == 19).all() and set(dialogs["split"]) == {"train"}
    assert set(frames["bap_samples"]["orig_experiment_id"]) == {C63_GAME}
    assert sorted(set(frames["bap_samples"]["sample_id"])) == [3, 9, 15]
