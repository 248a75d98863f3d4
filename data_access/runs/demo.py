"""Two generated runs per demo corpus, so that the runs pages work with nothing configured; each corpus's run
scoring writes their lines (``RunScoring.demo_runs``), this module writes them to files once.

Both are deterministic functions of the demo corpus (fixed seeds, frames in their stored order). The built-in
corpora's:
- ``baseline``: a simple rule-based model. CoDraw: after round r of n it has drawn the first ⌈r·T/n⌉
  target cliparts at their target depth, unflipped, on a 100-pixel grid. Minecraft: the gold actions
  without their removals. Game Of Sorts: every in-round message refers to the image ranked next.
- ``noisy``: the human behaviour corrupted. CoDraw: the human canvas with positions jittered (σ = 30 px),
  10 % of cliparts dropped and 15 % flipped. Minecraft: gold actions shifted by one cell (25 %), recoloured
  (15 %), plus a stray removal (30 % of samples, usually infeasible). Game Of Sorts: the gold images with
  20 % swapped for another board image and an image named for 25 % of messages whose gold is empty.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional

from ..registry import corpus_module

DEMO_RUNS_VERSION = 1
RUN_NAMES = ("baseline", "noisy")


def write_demo_runs(corpus: str, frames, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, lines in corpus_module(corpus).run_scoring().demo_runs(frames).items():
        with open(folder / f"{name}.jsonl", "w", encoding="utf-8") as out:
            for line in lines:
                out.write(json.dumps(line) + "\n")


def demo_runs(corpus: str, cache_root: Optional[Path] = None) -> dict[str, Path]:
    """name -> file of the demo runs of ``corpus`` (written on first use, atomically)."""
    from ..corpora import load_source
    from ..sources import Source, cache_dir

    root = Path(cache_root or cache_dir()) / "demo"
    folder = root / f"runs-{corpus}-v{DEMO_RUNS_VERSION}"
    if not folder.is_dir():
        loaded = load_source(Source(corpus, None, None), cache_root=cache_root)
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=root))
        write_demo_runs(corpus, loaded.frames, tmp)
        try:
            os.replace(tmp, folder)
        except OSError:  # another process won the race; its files are identical
            shutil.rmtree(tmp, ignore_errors=True)
    return {name: folder / f"{name}.jsonl" for name in RUN_NAMES}
