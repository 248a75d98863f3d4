"""Benchmarks on the real full-size corpora, each measured as a whole process and reported as a ratio
against a baseline measured in the same run (so a slow or busy machine slows both sides alike).

    python benchmarks/run.py [--shared ../shared/data] [--repeat 3] [--out benchmarks/results/latest.json]
                             [--only codraw,codraw_uncompressed,minecraft]

Prints one JSON object. Targets: CoDraw cold ≤ 1.5x and warm ≤ 0.2x a bare ``json.load`` of the same file
(issue 15; each ratio is the median over rounds that run baseline, cold and warm in turn, with the CPU-time
ratio beside it), measured on both files (issue 29): the published ``CoDraw_1_0.json.gz`` (``codraw``; the
bare load decompresses it with Python's ``gzip``) and the ``CoDraw_1_0.json`` it holds (``codraw_uncompressed``,
written to a temporary folder for the run); Minecraft cold ≤ 2.0x a bare ``json.load`` of all its game files; one CoDraw canvas with
real clip art ≤ 10 ms median; the replay rerun after "Next" ≤ 0.3 s median. Peak memory (max RSS) of
every measured process is reported beside its time.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable

BARE_JSON_LOAD = """
import gzip, json, sys
path = sys.argv[1]
opener = gzip.open if path.endswith('.gz') else open
with opener(path, 'rb') as f:
    json.load(f)
"""

BARE_JSON_LOAD_ALL = """
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + '/logs/*/logs/*/postprocessed-observations.json')):
    with open(path, 'rb') as f:
        json.load(f)
"""

RENDER_CANVAS = """
import json, statistics, sys, time
from data_access.corpora import load_path
from corpora.codraw.data import render
loaded = load_path('codraw', sys.argv[1])
scene_ids = loaded.frames['cliparts']['scene_id'].drop_duplicates().sample(200, random_state=0).tolist()
by_scene = {k: g for k, g in loaded.frames['cliparts'].groupby('scene_id')}
render.render_scene(by_scene[scene_ids[0]], sys.argv[2])  # warm the sprite cache, as the app is after one canvas
times = []
for sid in scene_ids:
    started = time.perf_counter()
    render.render_scene(by_scene[sid], sys.argv[2])
    times.append(time.perf_counter() - started)
print(json.dumps({"median_ms": statistics.median(times) * 1000, "canvases": len(times)}))
"""

REPLAY_RERUN = """
import json, os, statistics, sys, time
from streamlit.testing.v1 import AppTest
corpus, dialog = sys.argv[1], sys.argv[2]
at = AppTest.from_file(os.path.join(sys.argv[3], 'app.py'), default_timeout=600)
at.switch_page('pages/replay.py')
at.query_params['corpus'] = corpus
at.query_params['dialog'] = dialog
at.query_params['turn'] = '1'
at.run()
assert not at.exception, at.exception
times = []
for _ in range(int(sys.argv[4])):
    nxt = [b for b in at.button if 'Next' in (b.label or '')][0]
    if nxt.disabled:
        prv = [b for b in at.button if 'Previous' in (b.label or '')][0]
        while not prv.disabled:
            prv.click().run(); prv = [b for b in at.button if 'Previous' in (b.label or '')][0]
        nxt = [b for b in at.button if 'Next' in (b.label or '')][0]
    started = time.perf_counter()
    nxt.click().run()
    times.append(time.perf_counter() - started)
    assert not at.exception, at.exception
print(json.dumps({"median_s": statistics.median(times), "reruns": len(times)}))
"""


def scaled_minecraft_corpus(source: Path, target: Path, games: int = 547) -> Path:
    """A corpus of ``games`` games made of symbolic links to the real game files (the shared copy holds a
    subset of the 547): the same bytes to parse, the full corpus's file count. Nothing is copied."""
    files = sorted(source.rglob("postprocessed-observations.json"))
    (target / "logs").mkdir(parents=True)
    os.symlink(source / "logs" / "splits.json", target / "logs" / "splits.json")
    os.symlink(source / "gold-configurations", target / "gold-configurations")
    for index in range(games):
        original = files[index % len(files)]
        experiment = original.parent.name
        prefix, stamp = experiment.rsplit("-", 1)
        folder = target / "logs" / original.parents[2].name / "logs" / f"{prefix}-{int(stamp) + index}"
        folder.mkdir(parents=True)
        os.symlink(original, folder / original.name)
    return target


def measure_with_memory(argv: list[str], env: dict | None = None) -> dict:
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=ROOT, env={**os.environ, **(env or {})},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Read pipes fully before reaping so a chatty child cannot block; wait4 then gives this child's rusage.
    stdout = process.stdout.read()
    stderr = process.stderr.read()
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:5])} failed ({process.returncode}): {stderr.decode()[-2000:]}")
    return {"seconds": seconds, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024,
            "stdout": stdout.decode()}


def interleaved(commands: dict, repeat: int, baseline: str) -> dict:
    """Each named command (argv, env, before_each) run once per round, in turn, ``repeat`` rounds; per name the
    median wall and CPU seconds, peak memory, and the median over rounds of its time / the baseline's time in
    the same round. On a machine whose speed drifts (a shared host), paired rounds keep the ratio honest where
    running all baselines first would not."""
    runs: dict = {name: [] for name in commands}
    for _ in range(repeat):
        for name, (argv, env, before_each) in commands.items():
            if before_each:
                before_each()
            runs[name].append(measure_with_memory(argv, env))
    out = {}
    for name, measured in runs.items():
        ratios = [m["seconds"] / b["seconds"] for m, b in zip(measured, runs[baseline])]
        cpu_ratios = [m["cpu_s"] / b["cpu_s"] for m, b in zip(measured, runs[baseline])]
        out[name] = {"seconds": statistics.median(m["seconds"] for m in measured),
                     "cpu_s": statistics.median(m["cpu_s"] for m in measured),
                     "peak_mb": max(m["peak_mb"] for m in measured), "stdout": measured[-1]["stdout"],
                     "ratio": round(statistics.median(ratios), 3), "cpu_ratio": round(statistics.median(cpu_ratios), 3),
                     "all_seconds": [m["seconds"] for m in measured]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reruns", type=int, default=15)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "latest.json")
    parser.add_argument("--only", type=lambda text: {k.strip() for k in text.split(",")},
                        default={"codraw", "codraw_uncompressed", "minecraft"},
                        help="comma-separated: codraw (the .json.gz), codraw_uncompressed (the .json), minecraft "
                             "(and the canvas and replay reruns); the CoDraw parts alone are merged into --out")
    args = parser.parse_args()
    codraw = args.shared / "codraw" / "CoDraw_1_0.json.gz"
    clipart = args.shared / "codraw" / "clipart"
    minecraft = args.shared / "minecraft"
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}

    with tempfile.TemporaryDirectory() as work:
        cache = os.path.join(work, "cache")
        os.makedirs(cache)
        env = {"DIALOGUE_CACHE_DIR": cache}

        def clear() -> None:
            shutil.rmtree(cache, ignore_errors=True)
            os.makedirs(cache)
        summary = [PY, "-m", "data_access", "summary"]

        # Both files of the corpus: the published .json.gz and the .json it holds (written to the temporary
        # folder, never kept), each against a bare json.load of that same file. For each, baseline, cold (empty
        # cache) and warm (the cache the cold run just filled) in turn each round.
        plain = Path(work) / "CoDraw_1_0.json"
        with gzip.open(codraw, "rb") as packed, open(plain, "wb") as unpacked:
            shutil.copyfileobj(packed, unpacked, 1 << 24)
        for key, source in (("codraw", codraw), ("codraw_uncompressed", plain)):
            if key not in args.only:
                continue
            runs = interleaved({
                "baseline": ([PY, "-c", BARE_JSON_LOAD, str(source)], None, None),
                "cold": (summary + ["codraw", str(source)], env, clear),
                "warm": (summary + ["codraw", str(source)], env, None),
            }, args.repeat, "baseline")
            baseline, cold, warm = (runs[k] for k in ("baseline", "cold", "warm"))
            results[key] = {
                "file": source.name, "file_mb": round(source.stat().st_size / 1e6),
                "baseline_json_load_s": round(baseline["seconds"], 3), "baseline_peak_mb": round(baseline["peak_mb"]),
                "baseline_cpu_s": round(baseline["cpu_s"], 3),
                "cold_s": round(cold["seconds"], 3), "cold_peak_mb": round(cold["peak_mb"]), "cold_cpu_s": round(cold["cpu_s"], 3),
                "cold_ratio": cold["ratio"], "cold_cpu_ratio": cold["cpu_ratio"], "cold_target": 1.5,
                "cold_runs_s": [round(x, 3) for x in cold["all_seconds"]],
                "baseline_runs_s": [round(x, 3) for x in baseline["all_seconds"]],
                "warm_s": round(warm["seconds"], 3), "warm_peak_mb": round(warm["peak_mb"]),
                "warm_ratio": warm["ratio"], "warm_cpu_ratio": warm["cpu_ratio"], "warm_target": 0.2,
            }
        plain.unlink()
        if "minecraft" not in args.only:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            _write(args.out, results)
            return

        mc = interleaved({"baseline": ([PY, "-c", BARE_JSON_LOAD_ALL, str(minecraft)], None, None),
                          "cold": (summary + ["minecraft", str(minecraft)], env, clear)}, args.repeat, "baseline")
        mc_baseline, mc_cold = mc["baseline"], mc["cold"]
        results["minecraft"] = {
            "games": len(list(minecraft.rglob("postprocessed-observations.json"))),
            "baseline_json_load_s": round(mc_baseline["seconds"], 3), "baseline_peak_mb": round(mc_baseline["peak_mb"]),
            "cold_s": round(mc_cold["seconds"], 3), "cold_peak_mb": round(mc_cold["peak_mb"]),
            "cold_ratio": mc_cold["ratio"], "cold_cpu_ratio": mc_cold["cpu_ratio"], "cold_target": 2.0,
        }

        scaled = scaled_minecraft_corpus(minecraft, Path(cache).parent / "minecraft-547")
        timed = interleaved({"baseline": ([PY, "-c", BARE_JSON_LOAD_ALL, str(scaled)], None, None),
                             "cold": (summary + ["minecraft", str(scaled)], env, clear)}, args.repeat, "baseline")
        scaled_baseline, scaled_cold = timed["baseline"], timed["cold"]
        results["minecraft_scaled_to_547_games"] = {
            "baseline_json_load_s": round(scaled_baseline["seconds"], 3),
            "cold_s": round(scaled_cold["seconds"], 3), "cold_peak_mb": round(scaled_cold["peak_mb"]),
            "cold_ratio": scaled_cold["ratio"], "cold_cpu_ratio": scaled_cold["cpu_ratio"], "cold_target": 2.0,
        }

        render = measure_with_memory([PY, "-c", RENDER_CANVAS, str(codraw), str(clipart)], env)
        results["codraw_canvas"] = {**json.loads(render["stdout"]), "target_ms": 10.0,
                                    "peak_mb": round(render["peak_mb"])}

        real_env = {**env, "CODRAW_DATA": str(codraw), "CODRAW_CLIPART": str(clipart),
                    "GAME_OF_SORTS_DATA": str(args.shared / "game-of-sorts"), "MINECRAFT_DATA": str(minecraft)}
        first_game = sorted(p.parent.name for p in minecraft.rglob("postprocessed-observations.json"))[0]
        replay = {}
        for corpus, dialog in (("codraw", "test_00009"), ("gos", "61bcbb1fe90a3cc04fda05de"), ("minecraft", first_game)):
            run = measure_with_memory([PY, "-c", REPLAY_RERUN, corpus, dialog, str(ROOT), str(args.reruns)], real_env)
            replay[corpus] = {**json.loads(run["stdout"].strip().splitlines()[-1]), "peak_mb": round(run["peak_mb"])}
        results["replay_rerun_after_next"] = {**replay, "target_s": 0.3}

    args.out.parent.mkdir(parents=True, exist_ok=True)
    _write(args.out, results)


def _write(out: Path, results: dict) -> None:
    """Write the results; a run of only some parts keeps the other parts of the file it updates."""
    if out.is_file() and not {"minecraft", "replay_rerun_after_next"} <= results.keys():
        try:
            results = {**json.loads(out.read_text()), **results}
        except ValueError:
            pass
    out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
