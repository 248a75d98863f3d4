"""Word statistics on the full corpora: filtered concordances, frequency lists, collocations and keyness, after
the index is built, on the real corpora (all three, about 145,000 messages) and on ten times CoDraw.

    python benchmarks/words.py [--shared ../shared/data] [--factor 10] [--skip-scaled] [--out benchmarks/results/words.json]

Each side runs in its own process: load the corpora (through the Parquet cache), build the word index as the
app does (``WordCorpus.build``, n-gram tables included), then time every operation (median of ``--repeat``
runs, each with other words or filters) against a baseline measured in the same process: one bare pandas pass
over the text column (``str.len``). Targets (issue 30): ≤ 0.5 s on the real corpora, ≤ 1.5 s on ten times
CoDraw. The generated corpus is ``benchmarks/scale.py``'s (every dialog repeated under new keys).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import write_corpora  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable

MEASURE = r"""
import json, statistics, sys, time
import pandas as pd
from data_access.contract import optional
from data_access.corpora import corpus_module, load_path
from data_access.words import collocation, concordance, frequency, keyness
from data_access.words.corpus import WordCorpus
from data_access.words.subcorpus import Filters

sources = json.loads(sys.argv[1])
repeat = int(sys.argv[2])
loaded = {name: load_path(name, path) for name, path in sources.items()}
utterances = pd.concat([l.utterances for l in loaded.values()], ignore_index=True)
started = time.perf_counter()
rounds = {n: outcomes(l) for n, l in loaded.items() if (outcomes := optional(corpus_module(n), "round_outcomes"))}
corpus = WordCorpus.build(utterances, {n: l.dialogs for n, l in loaded.items()}, rounds)
build_s = time.perf_counter() - started

def median(action, variants):
    times = []
    for variant in (variants * repeat)[: max(repeat, len(variants))]:
        started = time.perf_counter()
        action(variant)
        times.append(time.perf_counter() - started)
    return statistics.median(times)

baseline = median(lambda _: utterances["text"].str.len().sum(), [0, 1, 2])
filters = [Filters(roles=("Drawer",)), Filters(roles=("Teller",), score_min=4.0, score_max=5.0),
           Filters(splits=("train",)), Filters(roles=("Teller", "Architect", "Player A"))]
words = ["tree", "left", "girl", "the", "sun", "small"]
masks = [corpus.mask(f) for f in filters]
pairs = list(zip(words, masks * 2))
operations = {
    "mask": median(lambda f: corpus.mask(f), filters),
    "concordance": median(lambda p: concordance.lines(corpus.index, concordance.concordance(
        corpus.index, p[0], corpus.mask(Filters(roles=("Drawer",))), ("R1", "R2", "R3")), 0, 100), pairs),
    "frequency_words": median(lambda m: frequency.frequency_list(corpus.index, m, 1, top=100), masks),
    "frequency_2grams": median(lambda m: frequency.frequency_list(corpus.index, m, 2, top=100), masks),
    "frequency_3grams": median(lambda m: frequency.frequency_list(corpus.index, m, 3, top=100), masks),
    "collocations": median(lambda p: collocation.collocates(corpus.index, p[0], p[1], 5, 3, 200), pairs),
    "keyness": median(lambda i: keyness.keyness(corpus.index, masks[i], masks[(i + 1) % len(masks)], 1, 3, 100),
                      list(range(len(masks)))),
}
print(json.dumps({"messages": len(utterances), "tokens": len(corpus.index), "types": len(corpus.index.vocab),
                  "index_build_s": round(build_s, 3), "baseline_s": round(baseline, 4),
                  "operations": {k: {"s": round(v, 4), "ratio": round(v / baseline, 2)} for k, v in operations.items()}}))
"""


def measure(sources: dict, cache: Path, repeat: int, target: float) -> dict:
    result = subprocess.run([PY, "-c", MEASURE, json.dumps({k: str(v) for k, v in sources.items()}), str(repeat)],
                            cwd=ROOT, env={**os.environ, "DIALOGUE_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)},
                            capture_output=True, text=True, check=True)
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    slowest = max(v["s"] for v in figures["operations"].values())
    return {**figures, "slowest_s": slowest, "target_s": target, "met": slowest <= target}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--factor", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-scaled", action="store_true", help="only the real corpora")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "words.json")
    args = parser.parse_args()
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        real = {"codraw": args.shared / "codraw", "gos": args.shared / "game-of-sorts",
                "minecraft": args.shared / "minecraft"}
        results["real"] = measure(real, work / "cache", args.repeat, 0.5)
        if not args.skip_scaled:
            writer = multiprocessing.get_context("spawn").Process(
                target=write_corpora, args=(args.shared / "codraw" / "CoDraw_1_0.json.gz", work, args.factor))
            writer.start()
            writer.join()
            if writer.exitcode != 0:
                raise SystemExit(f"generating the corpora failed (exit {writer.exitcode})")
            scaled = {"codraw": work / f"codraw-{args.factor}x.json"}
            results["scaled"] = {"factor": args.factor, **measure(scaled, work / "cache", args.repeat, 1.5)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
