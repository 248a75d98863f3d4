"""Minecraft statistics on a hand-made game whose F1 at every state is known, and on the real games."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from corpora.minecraft.data import figures as minecraft
from data_access.common import LoadedCorpus


def dialogs() -> pd.DataFrame:
    # g1's target maps built (x, z) to gold (-x + 1, -z): a 180° rotation and a shift of 1 in x.
    return pd.DataFrame({
        "corpus": "minecraft", "dialog_id": ["g1", "g2", "g3"], "split": ["train", "test", "warmup"],
        "n_steps": [4, 2, 0], "n_utterances": [4, 2, 0], "duration_s": [100.0, 50.0, 30.0],
        "config": ["C1", "C2", "C3"], "placements": [4, 1, 0], "removals": [2, 0, 0],
        "gold_blocks": [2, 1, 0], "outcome_match": [True, False, False], "outcome_f1": [1.0, 0.0, np.nan],
        "align_rotation": [180, 0, 0], "align_dx": [1, 0, 0], "align_dz": [0, 0, 0],
    })


def states() -> pd.DataFrame:
    return pd.DataFrame({"game": ["g1"] * 5 + ["g2"] * 2, "idx": [0, 1, 2, 3, 4, 0, 1],
                         "n_blocks": [0, 1, 2, 1, 2, 0, 1]})


def actions() -> pd.DataFrame:
    rows = [("g1", 1, "placement", 0, 1, 0, "red"), ("g1", 2, "placement", 2, 1, 0, "red"),
            ("g1", 3, "removal", 2, 1, 0, "red"), ("g1", 4, "placement", 1, 1, 0, "red"),
            ("g2", 1, "placement", 0, 1, 0, "blue")]
    return pd.DataFrame(rows, columns=["game", "state_idx", "kind", "x", "y", "z", "color"])


def gold() -> pd.DataFrame:
    return pd.DataFrame({"config": ["C1", "C1", "C2"], "x": [0, 1, 0], "y": [1, 1, 1], "z": [0, 0, 0],
                         "color": ["red", "red", "red"]})


def corpus() -> LoadedCorpus:
    return LoadedCorpus("minecraft", "demo", True, {"dialogs": dialogs(), "states": states(), "actions": actions(), "gold": gold()})


def test_state_f1_under_the_final_alignment():
    per_state = minecraft.state_f1(dialogs(), states(), actions(), gold())
    g1 = per_state[per_state["game"] == "g1"]
    assert g1["matched"].tolist() == [0, 1, 1, 1, 2]
    assert g1["f1"].tolist() == pytest.approx([0, 2 / 3, 0.5, 2 / 3, 1.0])
    assert g1["progress"].tolist() == [0, 0.25, 0.5, 0.75, 1.0]
    # g2 placed a blue block where the target wants a red one: no match; g3 has no target at all.
    assert per_state[per_state["game"] == "g2"]["f1"].tolist() == [0.0, 0.0]
    assert "g3" not in set(per_state["game"])


def test_f1_progress_takes_the_last_state_at_or_before_each_point():
    per_state = minecraft.state_f1(dialogs(), states(), actions(), gold())
    curve = minecraft.f1_progress(per_state, points=3)
    assert curve[curve["game"] == "g1"]["f1"].tolist() == pytest.approx([0.0, 0.5, 1.0])
    curve = minecraft.f1_progress(per_state, points=5)
    assert curve[curve["game"] == "g1"]["f1"].tolist() == pytest.approx([0, 2 / 3, 0.5, 2 / 3, 1.0])


def test_action_duration_and_outcome_tables():
    actions_table = minecraft.action_table(dialogs()).set_index("dialog_id")
    assert actions_table.loc["g1", "actions_per_utterance"] == 1.5
    assert np.isnan(actions_table.loc["g3", "actions_per_utterance"])
    durations = minecraft.duration_table(dialogs()).set_index("dialog_id")
    assert durations.loc["g1", "seconds_per_utterance"] == 25.0
    outcomes = minecraft.outcome_stats(dialogs()).set_index("split")
    assert list(outcomes.index) == ["train", "test"]  # g3 has no target
    assert outcomes.loc["train", "match_rate"] == 1.0 and outcomes.loc["test", "mean_f1"] == 0.0


def test_builders_follow_the_split_filter():
    loaded = corpus()
    assert minecraft.placements_removals_chart(loaded, ("test",)).data["dialog_id"].tolist() == ["g2"]
    assert "over 2 games" in minecraft.duration_chart(loaded, ("train", "test")).caption
    chart = minecraft.f1_progress_chart(loaded, ("train",))
    assert set(chart.data["split"]) == {"train"} and "over 1 game with a target" in chart.caption
    assert minecraft.outcome_chart(loaded, ("warmup",)).empty


@pytest.mark.shared
def test_final_state_f1_equals_the_loader_outcome_on_the_real_games(shared_data, real_cache):
    from data_access.corpora import load_path

    loaded = load_path("minecraft", shared_data / "minecraft", cache_root=real_cache)
    frames = loaded.frames
    per_state = minecraft.state_f1(loaded.dialogs, frames["states"], frames["actions"], frames["gold"])
    final = per_state.sort_values("idx").groupby("game")["f1"].last()
    expected = loaded.dialogs.set_index("dialog_id").loc[final.index, "outcome_f1"]
    assert np.allclose(final.to_numpy(), expected.to_numpy())
    assert len(final) == len(loaded.dialogs)
