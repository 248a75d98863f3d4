"""Model-label imports (issue "Trust for a lab deployment", item 5): a file of 500,000 lines (the line budget)
read and imported into the store, and the Agreement page's read of what was imported, each in a process of its
own, with ratios against a baseline measured in the same run.

    python benchmarks/model_labels.py [--shared ../shared/data] [--lines 500000] [--backends sqlite,postgresql]
                                      [--out benchmarks/results/model_labels.json]

- The file: every round of the real CoDraw corpus (77,502) once per model, as many models as the lines need
  (seven for 500,000), each line a turn label on every other round and a span of the Teller's first words on
  every tenth (docs/formats.md, "Model labels"). Plain JSON Lines, about 60 MB, written to a temporary folder.
- Import: ``model_labels.read_file`` then ``import_labels`` into a fresh store (SQLite, and PostgreSQL when its
  server binaries are installed: a throw-away cluster as the store tests start), the corpus loaded from its
  Parquet cache first (as in the app, where it is already loaded). Wall time of each part and the process's
  peak memory when the import is done (the kernel's, the interpreter and the corpus included; ``peak_mb`` is the
  whole process's, the old full read at its end included). Targets: under 60 s, under 1 GB.
- Baseline, in the same run: the same import of a file of ``--baseline-lines`` (5,000) lines; the
  ``per_line_ratio`` is the big file's time per line over the baseline's (1 when linear in the lines; the
  quadratic import this replaces was 15 at 60,000 lines).
- The Agreement page's read: ``CodingStore.coded_labels(codebook)`` of the imported codebook (what
  pages/agreement.py reads on every run), median of three (wall and CPU seconds), beside the bare ``SELECT *``
  of the same rows (``fetchall``) as its floor, and once ``annotations(codebook=...)`` (every field, what the
  page read before). Target: under 2 s.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PY, ROOT, measure_with_memory  # noqa: E402

TARGET_IMPORT_S = 60.0
TARGET_PEAK_MB = 1024.0
TARGET_READ_S = 2.0

WRITE = r"""
import json, sys
from data_access.corpora import load_path
loaded = load_path("codraw", sys.argv[1], cache_root=sys.argv[2])
lines = int(sys.argv[4])
first = {}
for d, t, text in zip(loaded.utterances["dialog_id"].astype(str), loaded.utterances["turn"], loaded.utterances["text"]):
    if t == t and (d, int(t)) not in first:
        first[(d, int(t))] = str(text)
rounds = [(str(d), r) for d, n in zip(loaded.dialogs["dialog_id"], loaded.dialogs["n_steps"]) if n == n
          for r in range(1, int(n) + 1)]
written = 0
with open(sys.argv[3], "w") as out:
    model = 0
    while written < lines:
        for number, (dialog, round_) in enumerate(rounds):
            record = {"model": f"bench-{model}", "corpus": "codraw", "dialog": dialog, "round": round_,
                      "labels": ["CR"] if number % 2 else []}
            text = first.get((dialog, round_), "")
            if number % 10 == 0 and text:
                record["spans"] = [{"utterance": 0, "start": 0, "end": min(len(text), 12), "label": "refers-to",
                                    "referents": ["clipart:0"]}]
            out.write(json.dumps(record) + "\n")
            written += 1
            if written == lines:
                break
        model += 1
print(json.dumps({"lines": written}))
"""

IMPORT = r"""
import json, resource, statistics, sys, time
from data_access.coding import codebook as cb
from data_access.coding import model_labels as ml
from data_access.corpora import load_path
from data_access.store import CodingStore

corpus_path, cache, file, target = sys.argv[1:5]
loaded = load_path("codraw", corpus_path, cache_root=cache)
loaded_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
store = CodingStore(target)
book = store.save_codebook(cb.Codebook("bench", (cb.Label("CR", scope="turn"),
                                                 cb.Label("refers-to", scope="span", links_referents=True))))
started = time.perf_counter()
read = ml.read_file(file, book, lambda name: loaded)
parsed = time.perf_counter()
done = ml.import_labels(store, read)
imported = time.perf_counter()
figures = {"items": read.items, "annotations": len(read.annotations), "skipped": read.skipped_total,
           "parse_s": round(parsed - started, 3), "store_s": round(imported - parsed, 3),
           "import_s": round(imported - started, 3), "corpus_loaded_mb": round(loaded_mb, 1),
           "import_peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
del read, done
reads, floors, cpu = [], [], []
for _ in range(3):
    started, cpu_started = time.perf_counter(), time.process_time()
    frame = store.coded_labels(book.name)
    reads.append(time.perf_counter() - started)
    cpu.append(time.process_time() - cpu_started)
    started = time.perf_counter()
    with store.db.read() as cur:
        rows = cur.execute("SELECT * FROM annotations WHERE codebook = ? AND deleted_at IS NULL", [book.name]).fetchall()
    floors.append(time.perf_counter() - started)
    assert len(rows) == len(frame) == figures["annotations"], (len(rows), len(frame))
    del rows, frame
started = time.perf_counter()
every_field = len(store.annotations(codebook=book.name))  # the page's read before: every field, a link per row
figures.update(read_s=round(statistics.median(reads), 3), read_cpu_s=round(statistics.median(cpu), 3),
               select_s=round(statistics.median(floors), 3), annotations_s=round(time.perf_counter() - started, 3))
figures["read_ratio"] = round(figures["read_s"] / figures["select_s"], 2)
store.db.close() if hasattr(store.db, "close") else None
print(json.dumps(figures))
"""


def postgres_cluster():
    """A throw-away PostgreSQL cluster (the store tests' own), or None without the server binaries."""
    sys.path.insert(0, str(ROOT))
    from scripts.system_packages import postgres_bin_dir
    from tests.postgres import Cluster

    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        return None
    cluster = Cluster(bin_dir)
    cluster.start()
    return cluster


def measure(corpus: Path, cache: Path, file: Path, target: str) -> dict:
    result = measure_with_memory([PY, "-c", IMPORT, str(corpus), str(cache), str(file), target],
                                 {"PYTHONPATH": str(ROOT)})
    figures = json.loads(result["stdout"].strip().splitlines()[-1])
    return {**figures, "process_s": round(result["seconds"], 2), "peak_mb": round(result["peak_mb"], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--lines", type=int, default=500_000)
    parser.add_argument("--baseline-lines", type=int, default=5_000)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "model_labels.json")
    args = parser.parse_args()
    corpus = args.shared / "codraw"
    if not corpus.is_dir():
        raise SystemExit(f"{corpus}: no CoDraw corpus there (--shared)")
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "lines": args.lines,
                     "targets": {"import_s": TARGET_IMPORT_S, "peak_mb": TARGET_PEAK_MB, "read_s": TARGET_READ_S}}
    with tempfile.TemporaryDirectory() as work:
        work_dir = Path(work)
        cache = work_dir / "cache"
        files = {}
        for name, lines in (("baseline", args.baseline_lines), ("big", args.lines)):
            files[name] = work_dir / f"{name}.jsonl"
            measure_with_memory([PY, "-c", WRITE, str(corpus), str(cache), str(files[name]), str(lines)],
                                {"PYTHONPATH": str(ROOT)})
        results["file_mb"] = round(files["big"].stat().st_size / (1 << 20), 1)
        cluster = postgres_cluster() if "postgresql" in args.backends.split(",") else None
        try:
            for backend in args.backends.split(","):
                if backend == "postgresql" and cluster is None:
                    results[backend] = "skipped: no PostgreSQL server binaries"
                    continue
                measured = {}
                for name, file in files.items():
                    target = cluster.new_database() if backend == "postgresql" else str(work_dir / f"{name}.sqlite3")
                    measured[name] = measure(corpus, cache, file, target)
                big, base = measured["big"], measured["baseline"]
                per_line = (big["import_s"] / max(big["items"], 1)) / (base["import_s"] / max(base["items"], 1))
                results[backend] = {**measured, "per_line_ratio": round(per_line, 2),
                                    "met": big["import_s"] < TARGET_IMPORT_S and big["import_peak_mb"] < TARGET_PEAK_MB
                                    and big["read_s"] < TARGET_READ_S}
                print(json.dumps({backend: results[backend]}), flush=True)
        finally:
            if cluster is not None:
                cluster.stop()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
