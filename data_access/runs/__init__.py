"""Model runs: a model's output over one corpus, read, matched to the corpus, scored with the corpus's own
metric and cached in Parquet like the corpora (see docs/formats.md, "Model runs").

``load_run(corpus, path)`` is the one entry point: it reads the run file with the corpus's run scoring
(``contract.RunScoring``, e.g. the ``codraw``, ``gos`` or ``minecraft`` module of this package), scores it against the loaded corpus and caches the frames under a
key of the run file's identity and the corpus's cache key, so a changed run file or corpus rebuilds.
``available_runs(corpus_name, is_demo)`` lists the runs of a corpus: the demo runs (when the corpus is the
built-in demo), the files under ``DIALOGUE_RUNS_DIR/<corpus>/``, the uploads and the people's plays
(``plays_dir``: one run ``person:<name>`` per person, written from the store by ``data_access.play.runs``).

Many runs at once (docs/benchmarks.md, "Many runs"): a cached run's frames are read from Parquet when first
asked for (``RunFrames``), and the frames its scoring calls heavy (``HEAVY_FRAMES``: CoDraw's rounds, with
every predicted scene: 64 MB a run over the whole corpus) are never kept per run but in one bounded pool for the
whole process (``HEAVY_FRAMES_KEPT``), since only the Replay needs them and for at most four runs at a time.
What the Runs page needs of every run (its metric rows, its units) is small and computed once per run
(``LoadedRun.memo``), from only the columns it needs (``frame_part``).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Optional, Sequence

from .. import cache
from ..contract import UNSCORED, package_of, scoring_of
from ..registry import CORPUS_NAMES, CorpusAttribute
from ..scoring.lines import RUN_SCHEMA_VERSION, RUN_SUFFIXES, frame_part, run_name  # noqa: F401 - frame_part re-exported
from ..types import FramesByName, LoadedCorpus, LoadedRun, SkippedRecords, SourceError

if TYPE_CHECKING:
    import pandas as pd

    from ..access import Identity
    from ..contract import RunScoring

RUNS_VARIABLE = "DIALOGUE_RUNS_DIR"
SIDECAR_SUFFIX = ".meta.json"  # ``<run>.meta.json`` describes the run beside it (runs.leaderboard reads it)  # runs of corpus <name> are read from its sub-folder <name>/


HEAVY_FRAMES_KEPT = 6  # heavy frames in memory at once, all runs together: the Replay shows up to four runs


class _HeavyPool:
    """The heavy frames of every run, the most recently used ``capacity`` kept (threads of the app's sessions
    share it, hence the lock)."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self._frames: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple, load: Callable[[], "pd.DataFrame"]) -> "pd.DataFrame":
        with self._lock:
            if key in self._frames:
                self._frames.move_to_end(key)
                return self._frames[key]
            frame = load()
            self._frames[key] = frame
            while len(self._frames) > self.capacity:
                self._frames.popitem(last=False)
            return frame

    def peek(self, key: tuple) -> Optional["pd.DataFrame"]:
        with self._lock:
            return self._frames.get(key)

    def clear(self) -> None:
        with self._lock:
            self._frames.clear()


HEAVY_POOL = _HeavyPool(HEAVY_FRAMES_KEPT)


def heavy_frames(corpus) -> tuple[str, ...]:
    """The frames of a run of the corpus that ``corpus`` carries (a loaded corpus or run) that only a replay
    needs and that are large (its scoring's optional ``HEAVY_FRAMES``)."""
    return tuple(getattr(scoring_of(corpus), "HEAVY_FRAMES", ()))


class RunFrames(FramesByName):
    """The frames of a cached run (a ``cache.LazyFrames``): light frames read once and kept, heavy ones read
    through ``HEAVY_POOL`` (so 50 runs never hold 50 copies of every predicted scene); ``part`` reads some
    columns of a frame without keeping the frame."""

    def __init__(self, lazy, heavy: Sequence[str]):
        self._lazy, self._heavy = lazy, tuple(heavy)
        self._names = list(lazy)

    def _key(self, name: str) -> tuple:
        return (str(self._lazy.entry), name)

    def __getitem__(self, name: str) -> "pd.DataFrame":
        if name not in self._heavy or name not in self._names:
            return self._lazy[name]
        return HEAVY_POOL.get(self._key(name), lambda: self._read(name, None))

    def _read(self, name: str, columns: Optional[list[str]]) -> "pd.DataFrame":
        """Frame ``name`` (or only ``columns`` of it) from its verified Parquet file, not kept by ``_lazy``; a
        damaged file is read the lazy frames' way, which rebuilds the entry."""
        import pandas as pd
        import pyarrow as pa

        try:
            data = pa.BufferReader(cache.verified_bytes(self._lazy.entry, name, self._lazy._digests[name]))
            return pd.read_parquet(data, columns=columns)
        except Exception:  # noqa: BLE001 - any damage means "rebuild", as cache.LazyFrames does
            frame = self._lazy[name]
            return frame if columns is None else frame[columns]

    def part(self, name: str, columns: Sequence[str]) -> "pd.DataFrame":
        """Only ``columns`` of frame ``name``: from memory when the frame is there, else read from Parquet."""
        columns = list(columns)
        if name not in self._heavy:
            return self._lazy[name][columns]
        held = HEAVY_POOL.peek(self._key(name))
        return held[columns] if held is not None else self._read(name, columns)


def run_module(corpus: str) -> RunScoring:
    """The run scoring of corpus ``corpus`` (its package's ``run_scoring()``)."""
    if corpus not in CORPUS_NAMES:
        raise ValueError(f"unknown corpus {corpus!r}; expected one of {', '.join(CORPUS_NAMES)}")
    return _SCORINGS[corpus]


# corpus name -> its run scoring, for what names a corpus (a value at hand gives its own: ``scoring_of``)
_SCORINGS: "Mapping[str, RunScoring]" = CorpusAttribute("run_scoring", lambda run_scoring: run_scoring(), missing=UNSCORED)


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
    module = scoring_of(corpus)
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

        heavy = heavy_frames(corpus)
        hit = cache.read_entry(entry, rebuild)
        if hit is not None:
            frames, skipped = RunFrames(hit[0], heavy), hit[1]
            for frame_name in frames:  # read (and verified) now, as before: a damaged entry is rebuilt at load
                if frame_name not in heavy:
                    frames[frame_name]
            if rebuilt:
                frames, skipped = rebuilt[0]
            from_cache = not rebuilt
        else:
            frames, skipped = rebuild()
            written = cache.read_entry(entry, rebuild) if heavy and not problems else None
            if written is not None:  # the heavy frames just built are let go, read again when needed
                frames = RunFrames(written[0], heavy)
        # The lazy frames keep ``rebuild`` (to rebuild a damaged entry later), and with it this list: emptied,
        # so a run scored now does not keep every frame it was built with (50 runs scored cold held 4.4 GB).
        rebuilt.clear()
    else:
        frames, skipped = build()
    return LoadedRun(corpus.corpus, name or run_name(path), str(path), frames, SkippedRecords(skipped), from_cache,
                     time.perf_counter() - started, is_demo, problems[0] if problems else None,
                     package=package_of(corpus))


def summarize(run: LoadedRun) -> dict:
    """The JSON object ``python -m data_access run-summary`` prints."""
    return scoring_of(run).summary(run.frames, run.skipped, run.name)


def runs_dir() -> Optional[Path]:
    value = os.environ.get(RUNS_VARIABLE, "").strip()
    return Path(value).expanduser() if value else None


def is_run_file(path: Path) -> bool:
    name = path.name.lower()
    return (path.is_file() and not name.startswith(".") and not name.endswith(SIDECAR_SUFFIX)
            and any(name.endswith(s) for s in RUN_SUFFIXES))


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


def plays_dir(corpus: str, cache_root: Optional[Path] = None) -> Path:
    """Where the people's plays of ``corpus`` are kept as runs (``person:<name>.jsonl``; docs/play.md), beside the
    uploads: written from the store by ``data_access.play.write_person_runs``, listed here like any run folder."""
    from ..sources import cache_dir

    return Path(cache_root or cache_dir()) / "plays" / corpus


def upload_file_name(file_name: str) -> str:
    """The name an uploaded file is kept under: its base name with anything but letters, digits, ``.``, ``_``
    and ``-`` made ``_``; ValueError when it is no run file name, or a run's sidecar (``<run>.meta.json``)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(file_name).name).strip("._") or "run"
    if not any(name.lower().endswith(s) for s in RUN_SUFFIXES):
        raise ValueError(f"{file_name}: a run file ends in {', '.join(RUN_SUFFIXES)}")
    if name.lower().endswith(SIDECAR_SUFFIX):
        raise ValueError(f"{file_name}: a run's description ({SIDECAR_SUFFIX}) is not uploaded in the browser; it "
                         "lies beside a configured run file (docs/formats.md)")
    return name


def save_upload(corpus: str, file_name: str, data: bytes, *, actor: "Identity", cache_root: Optional[Path] = None,
                taken: Iterable[str] = ()) -> Path:
    """Keep an uploaded run file under its (sanitised) name for ``actor``; returns its path. ValueError for a
    bad name (a sidecar ``*.meta.json`` included: it would describe someone else's run), for more bytes than
    an upload may have (``budgets.UPLOAD``) and for a run name in ``taken`` (the demo and configured runs: an
    upload never hides one, nor is hidden by one). ``AccessRefused`` unless ``actor`` may add a run, or, when
    an earlier upload of the same run name (any suffix) is there, replace it: their own, or an admin.
    ``replaces_upload`` says beforehand whether one will be replaced."""
    from ..access import Action, check
    from ..budgets import UPLOAD

    name = upload_file_name(file_name)
    if len(data) > UPLOAD.max_bytes:
        raise ValueError(f"{file_name}: {len(data):,} bytes, more than an uploaded run may have ({UPLOAD.max_bytes:,})")
    stem = run_name(name)
    if stem in set(taken):
        raise ValueError(f"{file_name}: a run named “{stem}” already exists (a demo or configured run); rename the "
                         "file before uploading it")
    folder = upload_dir(corpus, cache_root)
    earlier = [f for f in folder.iterdir() if is_run_file(f) and run_name(f) == stem] if folder.is_dir() else []
    if earlier:
        check(actor, Action.CHANGE_RUN, owner=upload_owner(corpus, stem, cache_root) or "",
              what=f"replacing the uploaded run “{stem}”")
    else:
        check(actor, Action.ADD_RUN, what=f"uploading the run “{stem}”")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    tmp = folder / f".{name}.{os.getpid()}.{threading.get_ident()}.part"
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)  # never half a run under its name, whatever stops the write
    finally:
        tmp.unlink(missing_ok=True)
    for old in earlier:
        if old.name != name:
            old.unlink(missing_ok=True)  # x.json uploaded again as x.jsonl: one run of that name, the new one
    _write_owner(_owners_dir(corpus, cache_root), stem, actor)
    return path


def _owners_dir(corpus: str, cache_root: Optional[Path]) -> Path:
    """Who uploaded each run of ``corpus``: beside the corpora's upload folders, in a hidden one of its own."""
    return upload_dir(corpus, cache_root).parent / ".owners" / corpus


def _write_owner(owners: Path, stem: str, actor: "Identity") -> None:
    owners.mkdir(parents=True, exist_ok=True)
    record = owners / f"{stem}.json"
    tmp = owners / f".{stem}.{os.getpid()}.{threading.get_ident()}.part"
    tmp.write_text(json.dumps({"coder": actor.coder, "who": actor.who, "at": time.time()}), encoding="utf-8")
    os.replace(tmp, record)


def upload_owner(corpus: str, run: str, cache_root: Optional[Path] = None) -> Optional[str]:
    """The coder name of whoever uploaded ``run`` (the local user's: the name they coded as, maybe ""), or None
    when nobody is on record (an upload made before uploads had owners: only an admin changes it)."""
    record = _owners_dir(corpus, cache_root) / f"{run}.json"
    try:
        if record.stat().st_size > 4096:  # the app writes a few dozen bytes; anything else is not its record
            return None
        coder = json.loads(record.read_text(encoding="utf-8")).get("coder")
    except (OSError, ValueError, AttributeError):
        return None
    return coder if isinstance(coder, str) else None


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


def remove_upload(corpus: str, name: str, *, actor: "Identity", cache_root: Optional[Path] = None) -> bool:
    """Delete the run uploaded in the browser under ``name`` (only an upload, never a configured run file);
    False when there is no such upload. ``AccessRefused`` unless it is ``actor``'s own upload or they are an
    admin."""
    from ..access import Action, check

    file = folder_runs(upload_dir(corpus, cache_root)).get(name)
    if file is None:
        return False
    check(actor, Action.CHANGE_RUN, owner=upload_owner(corpus, name, cache_root) or "",
          what=f"removing the uploaded run “{name}”")
    file.unlink(missing_ok=True)
    (_owners_dir(corpus, cache_root) / f"{name}.json").unlink(missing_ok=True)
    return True


def available_runs(corpus: str, is_demo: bool, cache_root: Optional[Path] = None) -> dict[str, tuple[Path, bool]]:
    """name -> (file, is_demo): the demo runs of a demo corpus, then ``DIALOGUE_RUNS_DIR/<corpus>/*``, then
    the runs uploaded in the browser, then the people's plays (a name already taken keeps its first file;
    ``run_name_collisions`` says which files were left out)."""
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
    folders = ([root / corpus] if root is not None else []) + [upload_dir(corpus, cache_root),
                                                                plays_dir(corpus, cache_root)]
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


__all__ = ["LoadedRun", "load_run", "RunFrames", "frame_part", "heavy_frames", "HEAVY_POOL", "summarize", "available_runs", "folder_runs", "run_name", "runs_dir",
           "upload_dir", "plays_dir", "save_upload", "remove_upload", "RUNS_VARIABLE", "run_name_collisions", "replaces_upload",
           "upload_file_name", "upload_owner", "SIDECAR_SUFFIX"]
