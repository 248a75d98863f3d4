"""Model runs: a model's output over one corpus, read, matched to the corpus, scored with the corpus's own
metric and cached in Parquet like the corpora (see docs/formats.md, "Model runs").

``load_run(corpus, path)`` is the one entry point: it reads the run file with the corpus's run scoring
(``contract.RunScoring``, e.g. the ``codraw``, ``gos`` or ``minecraft`` module of this package), scores it against the loaded corpus and caches the frames under a
key of the run file's identity and the corpus's cache key, so a changed run file or corpus rebuilds.
``available_runs(corpus_name, is_demo)`` lists the runs of a corpus: the demo runs (when the corpus is the
built-in demo) and the files under ``DIALOGUE_RUNS_DIR/<corpus>/``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

from .. import cache
from ..common import CORPUS_NAMES, LoadedCorpus, SkippedRecord, SkippedRecords, SourceError
from .common import RUN_SCHEMA_VERSION, RUN_SUFFIXES, run_name

if TYPE_CHECKING:
    from ..contract import RunScoring

RUNS_VARIABLE = "DIALOGUE_RUNS_DIR"  # runs of corpus <name> are read from its sub-folder <name>/


@dataclass
class LoadedRun:
    corpus: str
    name: str
    source: str  # the run file
    frames: Mapping  # codraw: rounds, dialogs; minecraft: samples; gos: messages; all: unmatched
    skipped: list[SkippedRecord] = field(default_factory=SkippedRecords)  # bounded: the first N and the total
    from_cache: bool = False
    load_seconds: float = 0.0
    is_demo: bool = False
    cache_note: Optional[str] = None  # why the run's frames were not cached (e.g. a read-only cache folder)

    @property
    def unmatched(self):
        return self.frames["unmatched"]


def run_module(corpus: str) -> RunScoring:
    """The run scoring of corpus ``corpus`` (its package's ``run_scoring()``)."""
    if corpus not in CORPUS_NAMES:
        raise ValueError(f"unknown corpus {corpus!r}; expected one of {', '.join(CORPUS_NAMES)}")
    from ..corpora import corpus_module

    return corpus_module(corpus).run_scoring()


def _corpus_identity(corpus: LoadedCorpus) -> str:
    from ..corpora import frames_version

    return cache.cache_key(corpus.corpus, Path(corpus.source), frames_version(corpus.corpus))


def run_cache_key(corpus: LoadedCorpus, path: Path) -> str:
    identity = {"run": os.path.realpath(path), "files": cache.source_fingerprint(Path(path)),
                "corpus": _corpus_identity(corpus), "schema": RUN_SCHEMA_VERSION}
    return hashlib.sha1(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]


def load_run(corpus: LoadedCorpus, path: Path | str, name: Optional[str] = None, cache_root: Optional[Path] = None,
             use_cache: bool = True, is_demo: bool = False) -> LoadedRun:
    """Read, match and score one run of ``corpus``; raises SourceError (one line naming the file)."""
    from ..sources import cache_dir

    path = Path(path)
    module = run_module(corpus.corpus)
    started = time.perf_counter()

    def build():
        try:
            return module.build(path, corpus)
        except SourceError:
            raise
        except (OSError, UnicodeError, ValueError, EOFError) as exc:
            raise SourceError(path, f"cannot be read ({type(exc).__name__}: {exc})") from exc

    from ..safe_io import check_file

    check_file(path)  # a missing path, a folder, a FIFO or a device: one line naming it
    from_cache = False
    problems: list[str] = []
    if use_cache:
        entry = Path(cache_root or cache_dir()) / f"run-{corpus.corpus}-{run_cache_key(corpus, path)}"

        rebuilt: list = []

        def rebuild():
            # also called when a cached frame file proves damaged (its bytes fail their checksum): the entry
            # is rebuilt from the run file, as the corpus cache does, never blamed on the run
            built = build()
            rebuilt.append(built)
            problem = cache.write_entry(entry, *built)
            if problem:
                problems.append(problem)
            return built

        hit = cache.read_entry(entry, rebuild)
        if hit is not None:
            frames, skipped = {k: hit[0][k] for k in hit[0]}, hit[1]
            if rebuilt:
                frames, skipped = rebuilt[0]
            from_cache = not rebuilt
        else:
            frames, skipped = rebuild()
    else:
        frames, skipped = build()
    return LoadedRun(corpus.corpus, name or run_name(path), str(path), frames, SkippedRecords(skipped), from_cache,
                     time.perf_counter() - started, is_demo, problems[0] if problems else None)


def summarize(run: LoadedRun) -> dict:
    """The JSON object ``python -m data_access run-summary`` prints."""
    return run_module(run.corpus).summary(run.frames, run.skipped, run.name)


def runs_dir() -> Optional[Path]:
    value = os.environ.get(RUNS_VARIABLE, "").strip()
    return Path(value).expanduser() if value else None


def is_run_file(path: Path) -> bool:
    name = path.name.lower()
    return path.is_file() and not name.startswith(".") and any(name.endswith(s) for s in RUN_SUFFIXES)


def folder_runs(folder: Path, collisions: Optional[list[str]] = None) -> dict[str, Path]:
    """name -> file of every run file in ``folder`` (sorted by name). Two files of one name (``x.json`` beside
    ``x.jsonl``): the first in name order is the run, and the other is said in ``collisions`` (when given)."""
    runs: dict[str, Path] = {}
    if folder.is_dir():
        for file in sorted(folder.iterdir()):
            if is_run_file(file):
                name = run_name(file)
                if name in runs:
                    if collisions is not None:
                        collisions.append(f"{file.name} in {folder} is not used: the run name “{name}” is already "
                                          f"given by {runs[name].name} beside it; rename one of them")
                    continue
                runs[name] = file
    return runs


def upload_dir(corpus: str, cache_root: Optional[Path] = None) -> Path:
    """Where runs uploaded in the browser are kept (beside the Parquet cache), one folder per corpus."""
    from ..sources import cache_dir

    return Path(cache_root or cache_dir()) / "uploads" / corpus


def upload_file_name(file_name: str) -> str:
    """The name an uploaded file is kept under: its base name with anything but letters, digits, ``.``, ``_``
    and ``-`` made ``_``; ValueError when it is no run file name."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(file_name).name).strip("._") or "run"
    if not any(name.lower().endswith(s) for s in RUN_SUFFIXES):
        raise ValueError(f"{file_name}: a run file ends in {', '.join(RUN_SUFFIXES)}")
    return name


def save_upload(corpus: str, file_name: str, data: bytes, cache_root: Optional[Path] = None,
                taken: Iterable[str] = ()) -> Path:
    """Keep an uploaded run file under its (sanitised) name; returns its path. ValueError for a bad name, for
    more bytes than an upload may have (``budgets.UPLOAD``) and for a run name in ``taken`` (the demo and
    configured runs: an upload never hides one, nor is hidden by one). An earlier upload of the same run name
    (any suffix) is replaced; ``replaces_upload`` says beforehand whether one will be."""
    from ..budgets import UPLOAD

    name = upload_file_name(file_name)
    if len(data) > UPLOAD.max_bytes:
        raise ValueError(f"{file_name}: {len(data):,} bytes, more than an uploaded run may have ({UPLOAD.max_bytes:,})")
    stem = run_name(name)
    if stem in set(taken):
        raise ValueError(f"{file_name}: a run named “{stem}” already exists (a demo or configured run); rename the "
                         "file before uploading it")
    folder = upload_dir(corpus, cache_root)
    folder.mkdir(parents=True, exist_ok=True)
    for old in [f for f in folder.iterdir() if is_run_file(f) and run_name(f) == stem and f.name != name]:
        old.unlink(missing_ok=True)  # x.json uploaded again as x.jsonl: one run of that name, the new one
    path = folder / name
    path.write_bytes(data)
    return path


def replaces_upload(corpus: str, file_name: str, cache_root: Optional[Path] = None) -> Optional[str]:
    """The file name of the earlier upload that uploading ``file_name`` would replace, else None."""
    try:
        stem = run_name(upload_file_name(file_name))
    except ValueError:
        return None
    folder = upload_dir(corpus, cache_root)
    if not folder.is_dir():
        return None
    return next((f.name for f in sorted(folder.iterdir()) if is_run_file(f) and run_name(f) == stem), None)


def remove_upload(corpus: str, name: str, cache_root: Optional[Path] = None) -> bool:
    """Delete the run uploaded in the browser under ``name`` (only an upload, never a configured run file);
    False when there is no such upload."""
    file = folder_runs(upload_dir(corpus, cache_root)).get(name)
    if file is None:
        return False
    file.unlink(missing_ok=True)
    return True


def available_runs(corpus: str, is_demo: bool, cache_root: Optional[Path] = None) -> dict[str, tuple[Path, bool]]:
    """name -> (file, is_demo): the demo runs of a demo corpus, then ``DIALOGUE_RUNS_DIR/<corpus>/*``, then
    the runs uploaded in the browser (a name already taken keeps its first file; ``run_name_collisions``
    says which files were left out)."""
    return _runs_and_collisions(corpus, is_demo, cache_root)[0]


def run_name_collisions(corpus: str, is_demo: bool, cache_root: Optional[Path] = None) -> list[str]:
    """One message per run file left out because its run name is taken (shown on the Runs and Data pages)."""
    return _runs_and_collisions(corpus, is_demo, cache_root)[1]


def _runs_and_collisions(corpus: str, is_demo: bool, cache_root: Optional[Path]):
    runs: dict[str, tuple[Path, bool]] = {}
    collisions: list[str] = []
    if is_demo:
        from .demo import demo_runs

        runs.update({name: (file, True) for name, file in demo_runs(corpus, cache_root).items()})
    root = runs_dir()
    folders = ([root / corpus] if root is not None else []) + [upload_dir(corpus, cache_root)]
    for folder in folders:
        for name, file in folder_runs(folder, collisions).items():
            if name in runs:
                first = runs[name][0]
                collisions.append(f"{file.name} in {folder} is not used: the run name “{name}” is already given by "
                                  + ("a demo run" if runs[name][1] else f"{first.name} in {first.parent}")
                                  + "; rename one of them")
                continue
            runs[name] = (file, False)
    return runs, collisions


__all__ = ["LoadedRun", "load_run", "summarize", "available_runs", "folder_runs", "run_name", "runs_dir",
           "upload_dir", "save_upload", "remove_upload", "RUNS_VARIABLE", "run_name_collisions", "replaces_upload",
           "upload_file_name"]
