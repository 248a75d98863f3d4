"""Two generated runs per demo corpus, ``baseline`` (a simple rule-based model) and ``noisy`` (the human
behaviour corrupted), so that the runs pages work with nothing configured: each corpus's run scoring writes
their lines (``RunScoring.demo_runs``, which says what its two runs are), this module writes them to files once.
Both are deterministic functions of the demo corpus (fixed seeds, frames in their stored order).
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional

from ..contract import CorpusPackage, scoring_of
from ..registry import corpus_module
from ..types import LoadedCorpus

DEMO_RUNS_VERSION = 1
RUN_NAMES = ("baseline", "noisy")


def write_demo_runs(loaded: LoadedCorpus, folder: Path) -> None:
    """The demo runs of the loaded corpus, written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, lines in scoring_of(loaded).demo_runs(loaded.frames).items():
        with open(folder / f"{name}.jsonl", "w", encoding="utf-8") as out:
            for line in lines:
                out.write(json.dumps(line) + "\n")


def demo_runs(corpus: str, cache_root: Optional[Path] = None) -> dict[str, Path]:
    """name -> file of the demo runs of corpus ``corpus`` (written on first use, atomically)."""
    return demo_run_files(corpus_module(corpus), cache_root)


def demo_run_files(package: CorpusPackage, cache_root: Optional[Path] = None) -> dict[str, Path]:
    """``demo_runs`` of the corpus package ``package``."""
    from ..corpora import load_source
    from ..sources import Source, cache_dir

    root = Path(cache_root or cache_dir()) / "demo"
    folder = root / f"runs-{package.NAME}-v{DEMO_RUNS_VERSION}"
    if not folder.is_dir():
        loaded = load_source(Source(package.NAME, None, None, package), cache_root=cache_root)
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=root))
        write_demo_runs(loaded, tmp)
        try:
            os.replace(tmp, folder)
        except OSError:  # another process won the race; its files are identical
            shutil.rmtree(tmp, ignore_errors=True)
    return {name: folder / f"{name}.jsonl" for name in RUN_NAMES}
