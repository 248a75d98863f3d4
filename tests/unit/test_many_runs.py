"""Many runs at once (issue 27, docs/benchmarks.md "Many runs"): a cached CoDraw run keeps no copy of its
predicted scenes (they are read on demand into one bounded pool), what the Runs page needs of every run is
computed once and equals what the full frames give, and the leaderboard's one-matrix bootstrap gives every
run the p-value of its own paired bootstrap."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from data_access.corpora import load_path
from data_access.runs import HEAVY_FRAMES_KEPT, HEAVY_POOL, RunFrames, frame_part, load_run, summarize
from data_access.runs.analysis import metric_table, units
from data_access.runs.demo import demo_runs
from data_access.runs.leaderboard import below_p_value, below_p_values, unit_splits


def codraw_runs(tmp_path, count: int):
    """``count`` CoDraw runs (the demo's noisy run, each with every x moved by its own offset), cached."""
    corpus = load_path("codraw", None, cache_root=tmp_path)
    lines = demo_runs("codraw", tmp_path)["noisy"].read_text().splitlines()
    files = []
    for number in range(count):
        file = tmp_path / f"run-{number}.jsonl"
        with open(file, "w") as out:
            for line in lines:
                row = json.loads(line)
                fields = row["scene"].split(",")
                for k in range(int(fields[0]) if row["scene"] else 0):
                    fields[1 + 8 * k + 4] = str(min(500, float(fields[1 + 8 * k + 4]) + number))
                out.write(json.dumps({**row, "scene": ",".join(fields)}) + "\n")
        files.append(file)
    return corpus, files


def test_cached_runs_keep_their_rounds_in_one_bounded_pool_and_read_them_back_exactly(tmp_path):
    corpus, files = codraw_runs(tmp_path, HEAVY_FRAMES_KEPT + 3)
    built = {file: load_run(corpus, file, cache_root=tmp_path / "cache", use_cache=False).frames["rounds"]
             for file in files}
    HEAVY_POOL.clear()
    loaded = [load_run(corpus, file, cache_root=tmp_path / "cache") for file in files]  # scored and cached
    loaded = [load_run(corpus, file, cache_root=tmp_path / "cache") for file in files]  # read from the cache
    assert all(run.from_cache and isinstance(run.frames, RunFrames) for run in loaded)
    for run, file in zip(loaded, files):
        pd.testing.assert_frame_equal(run.frames["rounds"], built[file])
        assert len(HEAVY_POOL._frames) <= HEAVY_FRAMES_KEPT
        assert "rounds" not in run.frames._lazy._frames  # never kept by the run itself
    part = frame_part(loaded[0].frames, "rounds", ["score_final"])
    pd.testing.assert_frame_equal(part, built[files[0]][["score_final"]])


def test_a_run_just_scored_lets_its_rounds_go_once_they_are_cached(tmp_path):
    corpus, files = codraw_runs(tmp_path, 1)
    run = load_run(corpus, files[0], cache_root=tmp_path / "cache")
    assert not run.from_cache and isinstance(run.frames, RunFrames)
    assert "rounds" not in run.frames._lazy._frames


def test_a_run_just_scored_keeps_no_reference_to_the_frames_it_was_built_with(tmp_path, monkeypatch):
    """The lazy frames keep the entry's rebuild callback: what it built must not stay reachable through it
    (before, every run scored cold kept all of its frames, and 50 runs took the leaderboard to 4.4 GB)."""
    import gc
    import weakref

    import data_access.runs as runs_package

    corpus, files = codraw_runs(tmp_path, 1)
    module = runs_package.run_module("codraw")
    built_rounds: list = []

    def build(path, loaded):
        frames, skipped = original(path, loaded)
        built_rounds.append(weakref.ref(frames["rounds"]))
        return frames, skipped

    original = module.build
    monkeypatch.setattr(module, "build", build)
    run = load_run(corpus, files[0], cache_root=tmp_path / "cache")
    gc.collect()
    assert built_rounds and built_rounds[0]() is None
    assert len(run.frames["rounds"]) > 0  # read back from the cache when asked for


def test_what_the_page_needs_is_the_same_from_the_pool_as_from_the_full_frames(tmp_path):
    corpus, files = codraw_runs(tmp_path, 2)
    for file in files:
        load_run(corpus, file, cache_root=tmp_path / "cache")
        lean = load_run(corpus, file, cache_root=tmp_path / "cache")
        full = load_run(corpus, file, cache_root=tmp_path / "cache", use_cache=False)
        assert not isinstance(full.frames, RunFrames)
        pd.testing.assert_frame_equal(metric_table(lean), metric_table(full))
        for humans in (False, True):
            pd.testing.assert_frame_equal(units(lean, humans), units(full, humans))
        assert summarize(lean) == summarize(full)
        pd.testing.assert_series_equal(unit_splits(lean, units(lean)), unit_splits(full, units(full)))
        # each call has its own copy: changing one leaves the run's memo as it was
        mine = units(lean)
        mine["value"] = -1.0
        assert (units(lean)["value"] != -1.0).all()


@pytest.mark.parametrize("corpus_name", ["codraw", "minecraft", "gos"])
def test_the_one_matrix_bootstrap_gives_each_run_its_own_bootstraps_p_value(tmp_path, corpus_name):
    corpus = load_path(corpus_name, None, cache_root=tmp_path)
    runs = [load_run(corpus, file, cache_root=tmp_path) for file in demo_runs(corpus_name, tmp_path).values()]
    best = units(runs[0])
    others = {"second": units(runs[1]), "half": units(runs[1]).iloc[::2].reset_index(drop=True),
              "reversed": units(runs[1]).iloc[::-1].reset_index(drop=True), "itself": best.copy(),
              "one unit": best.head(1)}
    together = below_p_values(best, others, corpus_name, samples=600)
    for name, other in others.items():
        n, p = below_p_value(best, other, corpus_name, samples=600)
        assert together[name][0] == n
        assert (p is None and together[name][1] is None) or together[name][1] == pytest.approx(p, abs=1e-12), name
    assert together["one unit"] == (1, None) and together["itself"][1] == 1.0


def test_the_pool_keeps_the_most_recently_used_frames():
    HEAVY_POOL.clear()
    for number in range(HEAVY_FRAMES_KEPT + 2):
        HEAVY_POOL.get(("entry", number), lambda number=number: pd.DataFrame({"x": np.arange(number)}))
    HEAVY_POOL.get(("entry", 2), lambda: pytest.fail("frame 2 is still kept"))
    assert HEAVY_POOL.peek(("entry", 0)) is None and HEAVY_POOL.peek(("entry", 1)) is None
    assert len(HEAVY_POOL._frames) == HEAVY_FRAMES_KEPT
    HEAVY_POOL.clear()
