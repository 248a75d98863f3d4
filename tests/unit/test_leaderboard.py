"""The leaderboard: its figures are run-summary's run by run, its "below the best" agrees with a plain paired
bootstrap written here, Holm's correction by hand, and the CLI's JSON, skipped files, sidecars and exit codes."""
from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from data_access.corpora import corpus_module, demo_path, load_path
from data_access.runs import load_run, summarize
from data_access.runs.analysis import metric_table, units
from data_access.runs.demo import demo_runs
from data_access.runs.leaderboard import ALPHA, folder_leaderboard, holm, unit_splits

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ["codraw", "gos", "minecraft"]
PAGE_METRIC = {"codraw": "final score (paper's metric)", "minecraft": "net-action F1", "gos": "F1"}


def runs_folder(tmp_path: Path, corpus: str) -> Path:
    """The two demo runs and a third generated one: the noisy run on every other dialog only."""
    folder = tmp_path / "runs"
    folder.mkdir()
    runs = demo_runs(corpus, tmp_path)
    for file in runs.values():
        (folder / file.name).write_bytes(file.read_bytes())
    key = corpus_module(corpus).run_scoring().LINE_KEYS[0]
    lines = runs["noisy"].read_text().splitlines()
    dialogs = sorted({json.loads(line)[key] for line in lines})
    kept = set(dialogs[::2])
    (folder / "half.jsonl").write_text("\n".join(line for line in lines if json.loads(line)[key] in kept) + "\n")
    return folder


def summary_figures(corpus: str, summary: dict) -> dict[str, tuple[int, float]]:
    """split -> (units, score) as run-summary prints them."""
    if corpus == "codraw":
        return {s: (f["dialogs"], f["mean_final_score"]) for s, f in summary["splits"].items()}
    if corpus == "minecraft":
        return {s: (f["samples"], f["net_action_f1"]) for s, f in summary["splits"].items()}
    return {"all": (summary["scored_messages"], summary["f1"])}


@pytest.mark.parametrize("corpus", CORPORA)
def test_the_figures_are_run_summarys_run_by_run(tmp_path, corpus):
    loaded = load_path(corpus, None, cache_root=tmp_path)
    folder = runs_folder(tmp_path, corpus)
    board = folder_leaderboard(loaded, folder, cache_root=tmp_path)
    assert [entry["run"] for entry in board["runs"]] != [] and board["skipped"] == []
    assert {entry["run"] for entry in board["runs"]} == {"baseline", "noisy", "half"}
    for entry in board["runs"]:
        run = load_run(loaded, next(folder.glob(entry["run"] + ".*")), cache_root=tmp_path)
        summary = summarize(run)
        expected = summary_figures(corpus, summary)
        table = metric_table(run)
        table = table[table["run"] == entry["run"]]
        assert set(entry["splits"]) == set(expected)
        for split, (n, score) in expected.items():
            figures = entry["splits"][split]
            assert figures["units"] == n and figures["score"] == pytest.approx(score, abs=1e-12)
            # the interval is the Runs page's (its runs x metrics row for this run, split and metric)
            [page] = table[(table["split"] == split) & (table["metric"] == PAGE_METRIC[corpus])].itertuples()
            assert page.n == n and page.value == pytest.approx(score, abs=1e-12)
            for mine, theirs in ((figures["low"], page.low), (figures["high"], page.high)):
                assert (mine is None and math.isnan(theirs)) or mine == pytest.approx(theirs, abs=1e-12)
        assert entry["units"] == sum(n for n, _ in expected.values())
    for split in board["runs"][0]["splits"]:  # ranks follow the scores
        ranked = sorted((e["splits"][split]["rank"], -e["splits"][split]["score"]) for e in board["runs"] if split in e["splits"])
        assert [rank for rank, _ in ranked][0] == 1 and ranked == sorted(ranked, key=lambda r: r[1])


def plain_statistic(rows: list[dict], corpus: str) -> float:
    if corpus == "minecraft":
        tp, fp, fn = (sum(r[c] for r in rows) for c in ("tp", "fp", "fn"))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return sum(r["value"] for r in rows) / len(rows)


def plain_p_value(best: list[dict], other: list[dict], corpus: str, resamples: int = 2000) -> float:
    """The share of paired resamples (python's own random) where the best does not beat the other run."""
    other_by_unit = {r["unit"]: r for r in other}
    pairs = [(r, other_by_unit[r["unit"]]) for r in best if r["unit"] in other_by_unit]
    rng = random.Random(12345)
    not_better = 0
    for _ in range(resamples):
        drawn = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        if plain_statistic([b for b, _ in drawn], corpus) - plain_statistic([o for _, o in drawn], corpus) <= 0:
            not_better += 1
    return (1 + not_better) / (1 + resamples)


@pytest.mark.parametrize("corpus", CORPORA)
def test_below_the_best_agrees_with_a_plain_paired_bootstrap(tmp_path, corpus):
    loaded = load_path(corpus, None, cache_root=tmp_path)
    folder = runs_folder(tmp_path, corpus)
    board = folder_leaderboard(loaded, folder, cache_root=tmp_path)
    runs = {entry["run"]: load_run(loaded, next(folder.glob(entry["run"] + ".*")), cache_root=tmp_path)
            for entry in board["runs"]}
    decisions = 0
    for split in {s for entry in board["runs"] for s in entry["splits"]}:
        rows = {}
        for name, run in runs.items():
            frame = units(run)
            part = frame[(unit_splits(run, frame) == split).to_numpy()]
            if len(part):
                rows[name] = part.to_dict("records")
        best = max(rows, key=lambda name: (plain_statistic(rows[name], corpus), name))
        p_values = {name: plain_p_value(rows[best], rows[name], corpus) for name in rows if name != best
                    and len({r["unit"] for r in rows[best]} & {r["unit"] for r in rows[name]}) >= 2}
        # Holm by hand: the i-th smallest p times (m - i), kept monotone
        ordered = sorted(p_values, key=p_values.get)
        adjusted, running = {}, 0.0
        for i, name in enumerate(ordered):
            running = max(running, min(1.0, (len(ordered) - i) * p_values[name]))
            adjusted[name] = running
        for entry in board["runs"]:
            figures = entry["splits"].get(split)
            if figures is None:
                continue
            assert figures["best"] == best
            if entry["run"] in adjusted:
                assert figures["p"] == pytest.approx(p_values[entry["run"]], abs=0.03)
                assert figures["below_best"] == (adjusted[entry["run"]] < ALPHA), (split, entry["run"], figures)
                decisions += 1
            else:
                assert figures["below_best"] is False
    assert decisions >= 2


def test_holm_multiplies_the_smallest_p_by_the_number_of_tests_and_stays_monotone():
    adjusted = holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.5})
    assert adjusted == pytest.approx({"a": 0.04, "c": 0.09, "b": 0.09, "d": 0.5})


def run_cli(*args, cache):
    env = {"DIALOGUE_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "data_access", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_cli_prints_the_runs_in_rank_order_lists_what_it_skipped_and_reads_sidecars(tmp_path):
    folder = runs_folder(tmp_path, "codraw")
    (folder / "notes.md").write_text("not a run\n")
    (folder / "minecraft.jsonl").write_text(json.dumps({"game": "g", "sample_id": 1, "actions": []}) + "\n")
    (folder / "noisy.meta.json").write_text(json.dumps({"model": "<b>jitter</b>", "date": "2026-12-01",
                                                        "link": "https://example.org/x", "extra": 1}))
    result = run_cli("leaderboard", "codraw", demo_path("codraw", tmp_path), folder, cache=tmp_path)
    assert result.returncode == 0, result.stderr
    board = json.loads(result.stdout)
    assert {"runs", "skipped"} <= set(board)
    for entry in board["runs"]:
        assert {"run", "units", "splits", "below_best"} <= set(entry)
        for figures in entry["splits"].values():
            assert {"units", "score", "low", "high"} <= set(figures)
    assert {s["file"] for s in board["skipped"]} == {"notes.md", "minecraft.jsonl"}
    assert "Minecraft" in next(s["reason"] for s in board["skipped"] if s["file"] == "minecraft.jsonl")
    noisy = next(entry for entry in board["runs"] if entry["run"] == "noisy")
    assert noisy["meta"] == {"model": "<b>jitter</b>", "date": "2026-12-01", "link": "https://example.org/x"}


def test_a_folder_without_a_run_exits_2_with_one_line(tmp_path):
    folder = tmp_path / "nothing"
    folder.mkdir()
    (folder / "readme.txt").write_text("hello\n")
    corpus = demo_path("codraw", tmp_path)
    for args in ((corpus, folder), (corpus, tmp_path / "missing"), (tmp_path / "missing.json", folder)):
        result = run_cli("leaderboard", "codraw", *args, cache=tmp_path)
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
        assert result.stdout == ""


@pytest.mark.shared
def test_the_real_codraw_corpus_as_a_run_ties_the_humans_and_a_degraded_copy_ranks_below(shared_data, tmp_path, real_cache):
    codraw = shared_data / "codraw" / "CoDraw_1_0.json.gz"
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "humans-copy.json.gz").symlink_to(codraw)  # the corpus layout: its abs_d are the human canvases
    # the degraded copy: the human canvases jittered, with clip art dropped and flipped (the demo's "noisy" rule)
    frames = load_path("codraw", codraw, cache_root=real_cache).frames
    noisy = corpus_module("codraw").run_scoring().demo_runs(frames)["noisy"]
    (folder / "degraded.jsonl").write_text("\n".join(json.dumps(line) for line in noisy) + "\n")
    result = run_cli("leaderboard", "codraw", codraw, folder, cache=real_cache)
    assert result.returncode == 0, result.stderr
    board = json.loads(result.stdout)
    assert [entry["run"] for entry in board["runs"]] == ["humans-copy", "degraded"] and board["skipped"] == []
    copy, degraded = board["runs"]
    for split, figures in copy["splits"].items():
        assert figures["score"] == pytest.approx(figures["humans"]) and figures["rank"] == 1
        assert degraded["splits"][split]["rank"] == 2 and degraded["splits"][split]["below_best"] is True
    assert round(copy["splits"]["test"]["score"], 2) == 4.17 and copy["units"] == 9993


def test_a_broken_sidecar_is_listed_as_skipped_and_its_run_still_ranked(tmp_path):
    folder = runs_folder(tmp_path, "gos")
    (folder / "baseline.meta.json").write_text("{not json")
    (folder / "noisy.meta.json").write_text(json.dumps(["a", "list"]))
    board = folder_leaderboard(load_path("gos", None, cache_root=tmp_path), folder, cache_root=tmp_path)
    assert {e["run"] for e in board["runs"]} == {"baseline", "noisy", "half"}
    assert all(e["meta"] is None for e in board["runs"])
    reasons = {s["file"]: s["reason"] for s in board["skipped"]}
    assert set(reasons) == {"baseline.meta.json", "noisy.meta.json"}
    assert "not a JSON sidecar" in reasons["baseline.meta.json"] and "not list" in reasons["noisy.meta.json"]


def test_a_sidecar_is_checked_by_size_before_it_is_read(tmp_path):
    """A 1.5 GB sidecar was read whole before 64 kB of it was kept (the leaderboard went from 150 MB to 1.7 GB);
    one over the sidecar budget is now refused from its size, and nothing of it is held."""
    import tracemalloc

    from data_access import budgets
    from data_access.runs.leaderboard import read_meta

    huge = tmp_path / "big.meta.json"
    with huge.open("wb") as out:  # sparse: 200 MB on disk costs nothing to write
        out.write(b'{"model": "m", "description": "')
        out.truncate(200 * 1024 * 1024)
    tracemalloc.start()
    try:
        meta, problem = read_meta(huge)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, peak
    assert meta is None and problem is not None
    assert problem.startswith("is 200.0 MB, more than a run sidecar can be (1.0 MB)"), problem
    assert budgets.BUDGETS["sidecar"].max_bytes == 1024 * 1024


def test_a_sidecar_with_a_long_description_is_cut_not_refused(tmp_path):
    from data_access.runs.leaderboard import META_MAX_CHARS, read_meta

    sidecar = tmp_path / "run.meta.json"
    sidecar.write_text(json.dumps({"model": "m", "description": "d" * 70_000, "date": "2026-12-01"}))
    meta, problem = read_meta(sidecar)
    assert problem is None
    assert meta == {"model": "m", "date": "2026-12-01", "description": "d" * (META_MAX_CHARS - 1) + "…"}
    assert len(meta["description"]) == META_MAX_CHARS
