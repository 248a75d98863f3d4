"""Ten times the data: a CoDraw corpus ``--factor`` times the real one, generated from it, against the real one.

    python benchmarks/scale.py [--shared ../shared/data] [--factor 10] [--repeat 1] [--out benchmarks/results/scale.json]

The generated corpus repeats every real dialog ``factor`` times under new keys in the same split
(``train_00001`` stays, its copies are ``train_100001``, ``train_200001`` …), in the official single-file layout, written uncompressed to a temporary
folder next to an uncompressed copy of the real corpus (so both sides parse the same way; nothing is written
into the repository). Measured, each as a whole process (``benchmarks/run.py`` conventions):

- cold load (``summary codraw``, empty cache) of the real and the generated corpus, in turn each round: the
  time and peak-memory ratios. Targets (issue 15): time ≤ 10.5x, memory ≤ 10x the real corpus's.
- on the generated corpus, warm: the replay rerun after "Next" (AppTest, median; target ≤ 0.3 s), and word
  searches over all its utterances, each a word not searched before, after the search index is built as the
  Search page builds it (median; target ≤ 0.5 s).
"""
from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PY, REPLAY_RERUN, ROOT, interleaved, measure_with_memory  # noqa: E402

WORDS = ["tree", "girl", "left", "sun", "cloud", "bear", "hat", "small", "facing", "corner", "ball", "owl"]

SEARCH = """
import json, statistics, sys, time
from data_access.corpora import load_path
from data_access.search import SearchIndex
loaded = load_path('codraw', sys.argv[1])
started = time.perf_counter()
index = SearchIndex.build([loaded.utterances])
build_s = time.perf_counter() - started
times, hits = [], []
for word in sys.argv[2].split(','):
    started = time.perf_counter()
    result = index.search(word, mode='words', case_sensitive=False, whole_word=True, corpora=('codraw',), limit=0)
    times.append(time.perf_counter() - started)
    hits.append(result.total)
print(json.dumps({"utterances": len(index), "index_build_s": build_s, "median_s": statistics.median(times),
                  "max_s": max(times), "queries": len(times), "hits": dict(zip(sys.argv[2].split(','), hits))}))
"""


def copy_key(key: str, copy: int) -> str:
    """``train_00001`` for copy 0, ``train_300001`` for copy 3: the split prefix and a number, as real keys."""
    if copy == 0:
        return key
    split, number = key.split("_", 1)
    return f"{split}_{copy}{number}"


def write_corpora(source: Path, folder: Path, factor: int) -> tuple[Path, Path]:
    """The real corpus uncompressed, and the same ``factor`` times over under new keys."""
    with gzip.open(source) if source.suffix == ".gz" else open(source, "rb") as f:
        document = orjson.loads(f.read())
    real, scaled = folder / "codraw-1x.json", folder / f"codraw-{factor}x.json"
    real.write_bytes(orjson.dumps(document))
    dialogs = document["data"]
    document["data"] = {copy_key(key, copy): dialog for copy in range(factor) for key, dialog in dialogs.items()}
    scaled.write_bytes(orjson.dumps(document))
    return real, scaled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--factor", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--reruns", type=int, default=10)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "scale.json")
    args = parser.parse_args()
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "factor": args.factor}

    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        # Written by a separate interpreter: a child's peak memory (ru_maxrss) counts what it inherited at fork,
        # so this process must never hold the 1.5 GB document itself.
        writer = multiprocessing.get_context("spawn").Process(
            target=write_corpora, args=(args.shared / "codraw" / "CoDraw_1_0.json.gz", work, args.factor))
        writer.start()
        writer.join()
        if writer.exitcode != 0:
            raise SystemExit(f"generating the corpora failed (exit {writer.exitcode})")
        real, scaled = work / "codraw-1x.json", work / f"codraw-{args.factor}x.json"
        cache = work / "cache"

        def clear() -> None:
            shutil.rmtree(cache, ignore_errors=True)
            cache.mkdir()
        env = {"DIALOGUE_CACHE_DIR": str(cache)}
        summary = [PY, "-m", "data_access", "summary", "codraw", "--compact"]
        timed = interleaved({"real": (summary + [str(real)], env, clear),
                             "scaled": (summary + [str(scaled)], env, clear)}, args.repeat, "real")
        real_run, scaled_run = timed["real"], timed["scaled"]
        dialogs = json.loads(scaled_run["stdout"])
        results["cold_load"] = {
            "real_mb": round(real.stat().st_size / 2**20), "scaled_mb": round(scaled.stat().st_size / 2**20),
            "real_s": round(real_run["seconds"], 3), "scaled_s": round(scaled_run["seconds"], 3),
            "time_ratio": scaled_run["ratio"], "cpu_ratio": scaled_run["cpu_ratio"], "time_target": 10.5,
            "real_peak_mb": round(real_run["peak_mb"]), "scaled_peak_mb": round(scaled_run["peak_mb"]),
            "memory_ratio": round(scaled_run["peak_mb"] / real_run["peak_mb"], 3), "memory_target": 10.0,
            "scaled_summary": {k: dialogs[k] for k in ("dialogs", "rounds") if k in dialogs},
        }
        # The cache now holds the generated corpus (the last run of the interleaving): the warm app.
        real_env = {**env, "CODRAW_DATA": str(scaled)}
        # A measurement that fails is written down as failed (its last error line), the others are kept.
        try:
            replay = measure_with_memory([PY, "-c", REPLAY_RERUN, "codraw", "test_700009", str(ROOT), str(args.reruns)],
                                         real_env)
            results["replay_rerun_after_next"] = {**json.loads(replay["stdout"].strip().splitlines()[-1]),
                                                  "peak_mb": round(replay["peak_mb"]), "target_s": 0.3}
        except RuntimeError as exc:
            results["replay_rerun_after_next"] = {"error": str(exc).strip().splitlines()[-1], "target_s": 0.3}
        try:
            search = measure_with_memory([PY, "-c", SEARCH, str(scaled), ",".join(WORDS)], env)
            results["word_search"] = {**json.loads(search["stdout"].strip().splitlines()[-1]),
                                      "peak_mb": round(search["peak_mb"]), "target_s": 0.5}
        except RuntimeError as exc:
            results["word_search"] = {"error": str(exc).strip().splitlines()[-1], "target_s": 0.5}

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
