"""The real A Game Of Sorts corpus reproduces the figures in FORMATS.md and the paper."""
from __future__ import annotations

import numpy as np
import pytest

from corpora.gos.data import replay_step, summarize
from data_access.corpora import load_path


@pytest.fixture(scope="module")
def real(real_cache):
    from pathlib import Path

    folder = Path(__file__).resolve().parents[3] / "shared" / "data" / "game-of-sorts"
    if not folder.is_dir():
        pytest.skip("../shared/data/game-of-sorts is not present")
    return load_path("gos", folder, cache_root=real_cache)


@pytest.mark.shared
def test_summary_matches_the_published_figures(shared_data, real):
    summary = summarize(real)
    expected = {"games": 5, "interactions": 15, "rounds": 60, "messages": 1800, "lock_events": 1310,
                "rounds_fully_ranked": 60, "mismatches": 29, "manual_unlocks": 57,
                "messages_not_referring_to_an_image": 775, "skipped": []}
    assert {k: summary[k] for k in expected} == expected
    assert summary["mean_round_seconds"] == pytest.approx(724.4, abs=0.05)
    assert summary["median_round_seconds"] == pytest.approx(648.0, abs=0.05)
    assert summary["mean_interaction_seconds"] == pytest.approx(3131, abs=0.5)


@pytest.mark.shared
def test_interaction_lengths_match_the_paper(shared_data, real):
    lengths = real.dialogs["duration_s"].to_numpy()
    assert lengths.mean() == pytest.approx(52 * 60 + 10, abs=1.5)  # "52 min 10 s"
    assert np.std(lengths) == pytest.approx(11 * 60 + 22, abs=1.5)  # "SD 11 min 22 s", population SD
    assert real.dialogs["n_messages"].mean() == 120.0


@pytest.mark.shared
def test_ranks_locks_and_layouts_match_formats(shared_data, real):
    frames = real.frames
    assert len(frames["ranks"]) == 540
    assert frames["lock_events"]["lock_event_type"].value_counts().to_dict() == {
        "lock": 1195, "unlock automatic": 58, "unlock manual": 57}
    assert frames["lock_events"]["produced_rank"].notna().sum() == 540
    first = frames["ranks"][(frames["ranks"]["interaction_id"] == "61bcbb1fe90a3cc04fda05de")
                            & (frames["ranks"]["round"] == 1)]
    assert list(first["image_id"])[:3] == ["6073742955_261d650954_o", "16373314089_5bcf18dbc5_o", "3963807163_8cff60a9a9_o"]
    assert (frames["messages"]["in_round"] == (frames["messages"]["ranks_so_far"] < 9)).all()
    by_round = frames["rounds"].groupby("round")["duration_s"].mean().round(0)
    assert list(by_round) == [1130, 639, 594, 534]
    assert len(frames["layouts"]) == 1080 and frames["images"]["url"].ne("").sum() == 45
    survey = frames["survey"]
    assert len(survey[survey["level"] == "interaction"]) == 120 and survey["username"].nunique() == 14


@pytest.mark.shared
def test_the_readme_example_round_replays(shared_data, real):
    view = replay_step(real, "61bcbb1fe90a3cc04fda05de", 10_000, 1)
    assert view.round_complete and len(view.ranks) == 9
    assert view.comparison.shape == (9, 4) and len(view.agreement) == 2
