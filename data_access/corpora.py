"""The one entry point for loading a corpus: resolves demo vs. real source, uses the Parquet cache,
times the load and turns every whole-source failure into a ``SourceError`` that names the file.

Each corpus package (``corpora.codraw.data``, ``.gos``, ``.minecraft``, and any package added with
``register``) implements the contract in ``data_access.contract.CorpusPackage``. The loader works on a ``Source``,
which carries its package; the functions that take a corpus's name (``load_path``, ``load_configured``,
``demo_path``, ``frames_version``) are the command line's, the tests' and a notebook's way in, and resolve it with
the registry once.
"""
from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Callable, NoReturn, Optional, cast

from . import cache, registry
from .contract import CorpusPackage
from .registry import CorpusAttribute, corpus_module
from .sources import Source, cache_dir, configured_source
from .types import (
    FramesByName,
    LoadedCorpus,
    PluginError,
    ProgressCallback,
    SkippedRecord,
    SkippedRecords,
    SourceError,
    no_progress,
    staged_progress,
)

# Modules outside a corpus package that shape its frames: the common schema, the cache format, file reading.
FRAME_CODE = ("types.py", "common.py", "cache.py", "readahead.py", "safe_io.py")

register, unregister, registered = registry.register, registry.unregister, registry.registered


def frames_version(name: str, root: Optional[Path] = None) -> str:
    """A hash of the code that builds corpus ``name``'s frames: every .py file of its package plus ``FRAME_CODE``
    (by default wherever the package is installed; below ``root``, a checkout's root, its ``corpora/<name>/data``
    and ``data_access``). It is part of the Parquet cache key, so editing that code rebuilds the cache by itself
    (no version number to remember to bump)."""
    if root is None:
        return _installed_version(name, str(_PACKAGE_FILES[name]))
    return _code_hash(Path(root) / "corpora" / name / "data", Path(root) / "data_access")


# corpus name -> the file of its package (``__init__.py``), wherever it is installed
_PACKAGE_FILES = CorpusAttribute("__file__")


@functools.lru_cache(maxsize=None)
def _installed_version(name: str, package_file: str) -> str:
    # the package's own folder wherever it is installed (a plugin's anywhere), with the shared frame code
    return _code_hash(Path(package_file).parent, Path(__file__).parent)


def _code_hash(package: Path, frame_code_root: Path) -> str:
    files = [(file, package.parent) for file in sorted(package.rglob("*.py"))]
    files += [(frame_code_root / f, frame_code_root) for f in FRAME_CODE if (frame_code_root / f).is_file()]
    digest = hashlib.sha1()
    for file, base in files:
        digest.update(file.relative_to(base).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


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
    return demo_folder(corpus_module(name), cache_root)


def demo_folder(module: CorpusPackage, cache_root: Optional[Path] = None) -> Path:
    """``demo_path`` of the corpus package ``module``."""
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
    module = _package(source)
    cache_root = Path(cache_root or cache_dir())
    path = demo_folder(module, cache_root) if source.is_demo or source.path is None else Path(source.path)
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
        except SystemExit as exc:  # a plugin's code must not end the app or a notebook's process
            raise PluginError(module.NAME, f"its build_frames raised SystemExit ({exc})") from exc
        checked = checked_frames(module, built)
        if use_cache:
            staged_progress(progress, BUILD_SHARE, 1.0)("Writing the Parquet cache", 0.0)
        return checked

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
        package=module,
        collection=source.collection,
    )


def checked_frames(module: CorpusPackage, built: object) -> tuple[Mapping, list]:
    """What ``module.build_frames`` returned, if it is what the contract asks for: a pair (the frames by name, at
    least the package's ``FRAMES``, each a pandas frame; the list of skipped records). Else a ``PluginError``
    saying what came instead, so that a plugin's mistake reads as such, not as an error deep in the cache."""
    import pandas as pd

    def refuse(problem: str) -> NoReturn:
        raise PluginError(module.NAME, f"its build_frames returned {problem}, not (frames, skipped records)")

    if not isinstance(built, tuple) or len(built) != 2:
        refuse(f"a {type(built).__name__}" + (f" of {len(built)}" if isinstance(built, tuple) else ""))
    frames, skipped = built
    if not isinstance(frames, Mapping):
        refuse(f"a {type(frames).__name__} as its frames")
    missing = [name for name in module.FRAMES if name not in frames]
    if missing:
        refuse(f"frames without {', '.join(missing)}")
    if not isinstance(frames, FramesByName):  # the loaders' own lazy frames make pandas frames when asked
        wrong = [name for name, frame in frames.items() if not isinstance(frame, pd.DataFrame)]
        if wrong:
            refuse(f"{', '.join(wrong)} as a {type(frames[wrong[0]]).__name__}")
    if not isinstance(skipped, list) or not all(isinstance(record, SkippedRecord) for record in skipped):
        refuse(f"a {type(skipped).__name__} as its skipped records")
    return frames, skipped


def _package(source: Source) -> CorpusPackage:
    if source.package is None:
        raise ValueError(f"the source of {source.corpus!r} was made without its corpus package "
                         "(sources.configured_source, or Source(name, path, assets, package))")
    return source.package


NO_PLACE = "—"
# the rows of a frame of places name their corpus: these read its package's members by that name
_STEP_UNITS = CorpusAttribute("STEP_UNIT")
_REPLAY_IN_ROUNDS = CorpusAttribute("REPLAY_IN_ROUNDS")


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

    step_is_round = {name: _STEP_UNITS.get(name) == "round" and not _REPLAY_IN_ROUNDS.get(name)
                     for name in set(frame["corpus"]) if isinstance(name, str)}
    rounds = [turn if step_is_round.get(corpus) else round_
              for corpus, round_, turn in zip(frame["corpus"], frame["round"], frame["turn"])]
    return frame.assign(round=[text(v) for v in rounds], turn=[text(v) for v in frame["turn"]])


def load_configured(name: str, progress: ProgressCallback = no_progress) -> LoadedCorpus:
    """The corpus the environment points at (or the demo corpus)."""
    return load_source(configured_source(corpus_module(name)), progress=progress)


def load_path(name: str, path: Optional[Path | str], cache_root: Optional[Path] = None) -> LoadedCorpus:
    """Corpus ``name`` read from ``path`` (None: its demo corpus)."""
    package = corpus_module(name)
    return load_source(Source(name, Path(path) if path else None, None, package), cache_root=cache_root)


def is_cached(source: Source, cache_root: Optional[Path] = None) -> bool:
    """Whether loading ``source`` would be served from the Parquet cache (so no progress is needed)."""
    module = _package(source)
    cache_root = Path(cache_root or cache_dir())
    path = demo_folder(module, cache_root) if source.is_demo or source.path is None else Path(source.path)
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
