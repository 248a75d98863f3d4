"""The one entry point for loading a corpus: resolves demo vs. real source, uses the Parquet cache,
times the load and turns every whole-source failure into a ``SourceError`` that names the file.

Each corpus package (``data_access.codraw``, ``.gos``, ``.minecraft``, and any package added with
``register``) implements the contract in ``data_access.contract.CorpusPackage``.
"""
from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import importlib
import os
import shutil
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterator, Optional, cast

from . import cache
from .common import CORPUS_NAMES, LoadedCorpus, ProgressCallback, SkippedRecords, SourceError, no_progress, staged_progress
from .contract import CorpusPackage
from .sources import Source, cache_dir, configured_source

# Modules outside a corpus package that shape its frames: the common schema, the cache format, file reading.
FRAME_CODE = ("common.py", "cache.py", "readahead.py", "safe_io.py")

# Corpus packages registered from outside ``data_access`` (a test's corpus, a lab's own), by name.
_registered: dict[str, ModuleType] = {}


def register(package: ModuleType) -> CorpusPackage:
    """Add a corpus package that implements ``contract.CorpusPackage``: every page, the CLI, the runs and the
    exports offer it from then on, after the built-in corpora. Raises ValueError for a package that misses
    a member of the contract or whose ``NAME`` is taken."""
    from .contract import missing_members

    missing = missing_members(package)
    if missing:
        raise ValueError(f"{package.__name__} is not a corpus package: it lacks {', '.join(missing)}")
    name = package.NAME
    if name in CORPUS_NAMES:
        raise ValueError(f"a corpus named {name!r} is already registered")
    _registered[name] = package
    CORPUS_NAMES.append(name)
    return cast(CorpusPackage, package)


def unregister(name: str) -> None:
    """Remove a corpus added with ``register`` (the built-in corpora stay)."""
    if name in _registered:
        del _registered[name]
        CORPUS_NAMES.remove(name)
        _installed_version.cache_clear()


@contextlib.contextmanager
def registered(package: ModuleType) -> Iterator[CorpusPackage]:
    """``register(package)`` for the duration of a ``with`` block (tests)."""
    corpus = register(package)
    try:
        yield corpus
    finally:
        unregister(package.NAME)


def frames_version(name: str, root: Optional[Path] = None) -> str:
    """A hash of the code that builds corpus ``name``'s frames: every .py file of its package plus
    ``FRAME_CODE`` (below ``root``, by default this package). It is part of the Parquet cache key, so editing
    that code rebuilds the cache by itself (no version number to remember to bump)."""
    return _installed_version(name) if root is None else _code_hash(name, Path(root))


@functools.lru_cache(maxsize=None)
def _installed_version(name: str) -> str:
    if name in _registered:  # a package outside data_access: its own folder, with the shared frame code
        folder = Path(str(_registered[name].__file__)).parent
        return _code_hash(folder.name, folder.parent, Path(__file__).parent)
    return _code_hash(name, Path(__file__).parent)


def _code_hash(name: str, root: Path, frame_code_root: Optional[Path] = None) -> str:
    shared = frame_code_root or root
    files = [(file, root) for file in sorted((root / name).rglob("*.py"))]
    files += [(shared / f, shared) for f in FRAME_CODE if (shared / f).is_file()]
    digest = hashlib.sha1()
    for file, base in files:
        digest.update(file.relative_to(base).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def corpus_module(name: str) -> CorpusPackage:
    """The package of corpus ``name`` (one of ``CORPUS_NAMES``), typed by the corpus contract."""
    if name not in CORPUS_NAMES:
        raise ValueError(f"unknown corpus {name!r}; expected one of {', '.join(CORPUS_NAMES)}")
    if name in _registered:
        return cast(CorpusPackage, _registered[name])
    return cast(CorpusPackage, importlib.import_module(f"data_access.{name}"))


_fallback_root: Optional[Path] = None


def _private_temp_root() -> Path:
    """A folder of this process's own for the demo corpora when the cache folder cannot be written."""
    global _fallback_root
    if _fallback_root is None:
        _fallback_root = Path(tempfile.mkdtemp(prefix="dialogue-dashboard-"))
        atexit.register(shutil.rmtree, _fallback_root, True)
    return _fallback_root


def demo_path(name: str, cache_root: Optional[Path] = None) -> Path:
    """The generated demo corpus of ``name``, written on first use (atomically, so parallel starts agree).

    When the cache folder cannot be written, the demo goes to a temporary folder of this process."""
    module = corpus_module(name)
    try:
        return _write_demo(module, Path(cache_root or cache_dir()) / "demo")
    except OSError:
        return _write_demo(module, _private_temp_root() / "demo")


def _write_demo(module: CorpusPackage, root: Path) -> Path:
    folder = root / f"{module.NAME}-v{module.DEMO_VERSION}"
    if not folder.is_dir():
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=root))
        module.write_demo(tmp)
        try:
            os.replace(tmp, folder)
        except OSError:  # another process won the race; its copy is identical
            shutil.rmtree(tmp, ignore_errors=True)
    return module.demo_source(folder)


BUILD_SHARE = 0.9  # of a first load: parsing the source; the rest is writing the Parquet cache


def load_source(
    source: Source,
    cache_root: Optional[Path] = None,
    progress: ProgressCallback = no_progress,
    use_cache: bool = True,
) -> LoadedCorpus:
    """Load one corpus; raises SourceError (naming the file) when nothing of it can be loaded."""
    module = corpus_module(source.corpus)
    cache_root = Path(cache_root or cache_dir())
    path = demo_path(source.corpus, cache_root) if source.is_demo or source.path is None else Path(source.path)
    if not path.exists():
        raise SourceError(path, "does not exist")
    started = time.perf_counter()

    # Parsing is 90% of a first load, writing the Parquet cache the rest; "Ready" only once both are over, so
    # that no report claims the end while the cache is still being written.
    def build():
        try:
            built = module.build_frames(path, staged_progress(progress, 0.0, BUILD_SHARE))
        except SourceError:
            raise
        except (OSError, UnicodeError, ValueError, EOFError) as exc:
            raise SourceError(path, f"cannot be read ({type(exc).__name__}: {exc})") from exc
        if use_cache:
            staged_progress(progress, BUILD_SHARE, 1.0)("Writing the Parquet cache", 0.0)
        return built

    problems: list[str] = []
    if use_cache:
        frames, skipped, from_cache = cache.cached_build(cache_root, source.corpus, path, frames_version(source.corpus), build,
                                                         problems)
    else:
        (frames, skipped), from_cache = build(), False
    if not from_cache:
        progress("Ready (100%)", 1.0)
    return LoadedCorpus(
        corpus=source.corpus,
        source=str(path),
        is_demo=source.is_demo,
        frames=frames,
        skipped=SkippedRecords(skipped),
        load_seconds=time.perf_counter() - started,
        from_cache=from_cache,
        assets=str(source.assets) if source.assets else None,
        cache_note=problems[0] if problems else None,
    )


NO_PLACE = "—"


def shown_places(frame):
    """``frame`` (columns ``corpus``, ``round``, ``turn``) with its round and step as a reader reads them, as text:
    where a corpus's replay step is a round (CoDraw, whose notes and codes store the round as the step) the
    round is the step; a round or step a place has not (a Minecraft game has no rounds, a dialog note no step)
    is "—", not "None"."""
    if not {"corpus", "round", "turn"} <= set(frame.columns):
        return frame

    def text(value) -> str:
        try:
            missing = value is None or value != value or str(value) == "<NA>"
        except (TypeError, ValueError):
            missing = True
        return NO_PLACE if missing else str(int(value))

    step_is_round = {name: corpus_module(name).STEP_UNIT == "round" and not corpus_module(name).REPLAY_IN_ROUNDS
                     for name in set(frame["corpus"]) if isinstance(name, str)}
    rounds = [turn if step_is_round.get(corpus) else round_
              for corpus, round_, turn in zip(frame["corpus"], frame["round"], frame["turn"])]
    return frame.assign(round=[text(v) for v in rounds], turn=[text(v) for v in frame["turn"]])


def load_configured(name: str, progress: ProgressCallback = no_progress) -> LoadedCorpus:
    """The corpus the environment points at (or the demo corpus)."""
    return load_source(configured_source(name), progress=progress)


def load_path(name: str, path: Optional[Path | str], cache_root: Optional[Path] = None) -> LoadedCorpus:
    return load_source(Source(name, Path(path) if path else None, None), cache_root=cache_root)


def is_cached(source: Source, cache_root: Optional[Path] = None) -> bool:
    """Whether loading ``source`` would be served from the Parquet cache (so no progress is needed)."""
    cache_root = Path(cache_root or cache_dir())
    path = demo_path(source.corpus, cache_root) if source.is_demo or source.path is None else Path(source.path)
    if not path.exists():
        return False
    entry = cache.entry_dir(cache_root, source.corpus, cache.cache_key(source.corpus, path, frames_version(source.corpus)))
    return (entry / cache.MANIFEST).is_file()


def cached_summary(loaded: LoadedCorpus, name: str, compute: Callable[[], dict]) -> dict:
    """A small JSON-able summary of ``loaded`` (``compute()``), kept in its Parquet cache entry: later starts
    read it back instead of reading the frames it is computed from. ``name`` must change with the code
    that computes it (include a hash of that code). Without a cache entry it is simply computed."""
    return cast(dict, cached_summary_if_any(loaded, name, compute))


def cached_summary_if_any(loaded: LoadedCorpus, name: str, compute: Callable[[], Optional[dict]]) -> Optional[dict]:
    """``cached_summary`` of a ``compute()`` that may give None (it could not be computed, e.g. a run file that
    failed): then nothing is kept, so it is tried again next time."""
    entry = cache.entry_of(loaded.frames)
    if entry is not None:
        found = cache.read_summary(entry, name)
        if found is not None:
            return found
    value = compute()
    if entry is not None and value is not None:
        cache.write_summary(entry, name, value)
    return value


def frame_row_counts(loaded: LoadedCorpus) -> dict[str, int]:
    """Rows per frame of ``loaded``, from the cache manifest when it came from the cache (no frame is read)."""
    return cache.row_counts(loaded.frames)
