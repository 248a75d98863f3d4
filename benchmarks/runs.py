"""Benchmarks of model runs (issue 12) on the real corpora, each a whole process, ratios measured in the same run.

    python benchmarks/runs.py [--shared ../shared/data] [--repeat 3] [--out benchmarks/results/runs.json]

- CoDraw: ``run-summary`` of a run covering all 77,502 rounds (the human canvases as JSON Lines, written to a
  temporary folder) with the corpus already cached, as in the app, against the time the dashboard needs to
  score the human corpus itself (``summary codraw`` from an empty cache: parse, then both metrics on every
  round). Target ≤ 1.5x. The run in the corpus's own layout (the corpus file itself) is measured too.
- Minecraft: ``run-summary`` of a 1,616-sample run (the size of the test split) on the corpus scaled to 547
  games the way ``benchmarks/run.py`` does (symbolic links to the shared games), corpus cached. Target ≤ 2 s.
  Beside it, in the same rounds, its floor (Python starting and importing pandas and pyarrow) and the
  scoring alone inside a process that has already loaded the corpus, as in the app.
- Replay: switching the run shown in the CoDraw replay (AppTest, real corpus) after each run's first load.
  Target ≤ 0.3 s median.
"""
from __future__ import annotations

import argparse
import glob
import gzip
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PY, ROOT, interleaved, measure_with_memory, scaled_minecraft_corpus  # noqa: E402

REPLAY_SWITCH = """
import json, os, statistics, sys, time
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(os.path.join(sys.argv[1], 'app.py'), default_timeout=900)
at.switch_page('pages/replay.py')
at.query_params.update({'corpus': 'codraw', 'dialog': 'test_00009', 'turn': '5', 'run': 'copy'})
at.run()
assert not at.exception, at.exception
at.selectbox(key='replay_run').select('perturbed').run()  # first load of the second run
times = []
for name in ['copy', 'perturbed'] * int(sys.argv[2]):
    started = time.perf_counter()
    at.selectbox(key='replay_run').select(name).run()
    times.append(time.perf_counter() - started)
    assert not at.exception, at.exception
print(json.dumps({"median_s": statistics.median(times), "switches": len(times)}))
"""

IMPORT_FLOOR = "import pandas, pyarrow.parquet, orjson"

SCORE_IN_PROCESS = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from data_access.corpora import load_path
from data_access.runs import load_run, summarize
corpus = load_path('minecraft', sys.argv[2])
started = time.perf_counter()
summarize(load_run(corpus, sys.argv[3]))
print(json.dumps({"seconds": round(time.perf_counter() - started, 3)}))
"""


def write_codraw_runs(corpus: Path, folder: Path) -> tuple[Path, Path]:
    """The human canvases of every round as a JSON Lines run, and a copy with every x shifted by 20 px."""
    data = json.load(gzip.open(corpus) if corpus.suffix == ".gz" else open(corpus))
    copy, shifted = folder / "copy.jsonl", folder / "perturbed.jsonl"
    with open(copy, "w") as a, open(shifted, "w") as b:
        for key, dialog in data["data"].items():
            for index, turn in enumerate(dialog["dialog"]):
                scene = turn.get("abs_d", "") or ""
                a.write(json.dumps({"dialog_id": key, "round": index + 1, "scene": scene}) + "\n")
                fields = scene.split(",")
                for k in range(int(fields[0]) if scene else 0):
                    x = 1 + 8 * k + 4
                    if fields[x] != "-10000" and fields[x + 1] != "-10000":
                        fields[x] = str(min(500, float(fields[x]) + 20))
                b.write(json.dumps({"dialog_id": key, "round": index + 1, "scene": ",".join(fields)}) + "\n")
    return copy, shifted


def write_minecraft_run(corpus: Path, path: Path, cache: str, size: int = 1616) -> int:
    """A run of the first ``size`` BAP samples (test split first) predicting the gold actions, one of them shifted."""
    sys.path.insert(0, str(ROOT))
    os.environ["DIALOGUE_CACHE_DIR"] = cache
    from data_access.corpora import load_path

    samples = load_path("minecraft", corpus).frames["bap_samples"]
    order = {"test": 0, "val": 1, "train": 2}
    samples = samples.sort_values("split", key=lambda s: s.map(order), kind="stable").head(size)
    with open(path, "w") as out:
        for game, sample_id, text in zip(samples["game"], samples["sample_id"], samples["next_actions"]):
            actions = [{"action": "place" if a[0] == "putdown" else "remove", "x": a[1] + (i == 0), "y": a[2], "z": a[3],
                        "color": a[4]} for i, a in enumerate(json.loads(text))]
            out.write(json.dumps({"game": game, "sample_id": int(sample_id), "actions": actions}) + "\n")
    return len(samples)


def in_own_process(function, *args):
    """``function(*args)`` in a separate interpreter: a measured child's peak memory (ru_maxrss) counts what
    it inherited at fork, so this process must never hold a corpus itself."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(function, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--switches", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "runs.json")
    args = parser.parse_args()
    codraw = args.shared / "codraw" / "CoDraw_1_0.json.gz"
    minecraft = args.shared / "minecraft"
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}

    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        cache = str(work / "cache")
        os.makedirs(cache)
        env = {"DIALOGUE_CACHE_DIR": cache}

        def clear_all() -> None:
            shutil.rmtree(cache, ignore_errors=True)
            os.makedirs(cache)

        def clear_runs() -> None:  # the corpus stays cached, as in the app
            for entry in glob.glob(os.path.join(cache, "run-*")):
                shutil.rmtree(entry, ignore_errors=True)

        copy, shifted = in_own_process(write_codraw_runs, codraw, work)
        # In turn each round: the human scoring from an empty cache (which leaves the corpus cached), then the
        # two runs with the corpus cached and no run cached, as in the app.
        timed = interleaved({
            "human": ([PY, "-m", "data_access", "summary", "codraw", str(codraw)], env, clear_all),
            "jsonl": ([PY, "-m", "data_access", "run-summary", "codraw", str(codraw), str(copy)], env, clear_runs),
            "layout": ([PY, "-m", "data_access", "run-summary", "codraw", str(codraw), str(codraw)], env, clear_runs),
        }, args.repeat, "human")
        human, run_jsonl, run_layout = timed["human"], timed["jsonl"], timed["layout"]
        summary = json.loads(run_jsonl["stdout"])
        results["codraw"] = {
            "rounds_in_run": sum(1 for _ in open(copy)), "scored_rounds": summary["scored_rounds"],
            "human_scoring_cold_s": round(human["seconds"], 3),
            "run_jsonl_s": round(run_jsonl["seconds"], 3), "run_jsonl_peak_mb": round(run_jsonl["peak_mb"]),
            "run_jsonl_ratio": run_jsonl["ratio"], "run_jsonl_cpu_ratio": run_jsonl["cpu_ratio"],
            "run_corpus_layout_s": round(run_layout["seconds"], 3), "run_corpus_layout_ratio": run_layout["ratio"],
            "run_corpus_layout_cpu_ratio": run_layout["cpu_ratio"], "target_ratio": 1.5,
        }

        scaled = scaled_minecraft_corpus(minecraft, work / "minecraft-547")
        measure_with_memory([PY, "-m", "data_access", "summary", "minecraft", str(scaled)], env)  # fill the corpus cache
        run_path = work / "minecraft-run.jsonl"
        n = in_own_process(write_minecraft_run, scaled, run_path, cache)
        # Beside the whole process, in the same rounds: its floor (starting Python and importing what any
        # run-summary imports) and the scoring alone in a warm process, which is what the app pays.
        timed = interleaved({
            "floor": ([PY, "-c", IMPORT_FLOOR], env, None),
            "run": ([PY, "-m", "data_access", "run-summary", "minecraft", str(scaled), str(run_path)], env, clear_runs),
            "in_process": ([PY, "-c", SCORE_IN_PROCESS, str(ROOT), str(scaled), str(run_path)], env, clear_runs),
        }, args.repeat, "floor")
        mc, floor = timed["run"], timed["floor"]
        results["minecraft_scaled_to_547_games"] = {
            "samples_in_run": n, "scored_samples": json.loads(mc["stdout"])["scored_samples"],
            "run_s": round(mc["seconds"], 3), "peak_mb": round(mc["peak_mb"]), "target_s": 2.0,
            "import_floor_s": round(floor["seconds"], 3),
            "scoring_in_process_s": json.loads(timed["in_process"]["stdout"].strip().splitlines()[-1])["seconds"],
        }

        runs_dir = work / "runs"
        (runs_dir / "codraw").mkdir(parents=True)
        os.symlink(copy, runs_dir / "codraw" / "copy.jsonl")
        os.symlink(shifted, runs_dir / "codraw" / "perturbed.jsonl")
        real_env = {**env, "CODRAW_DATA": str(codraw), "CODRAW_CLIPART": str(args.shared / "codraw" / "clipart"),
                    "DIALOGUE_RUNS_DIR": str(runs_dir)}
        switch = measure_with_memory([PY, "-c", REPLAY_SWITCH, str(ROOT), str(args.switches)], real_env)
        results["replay_run_switch"] = {**json.loads(switch["stdout"].strip().splitlines()[-1]), "target_s": 0.3,
                                        "peak_mb": round(switch["peak_mb"])}

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
