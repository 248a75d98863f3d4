"""The value types every layer shares, at the very bottom of data_access: what a load reports (``SourceError``,
``PluginError``, ``SkippedRecord``, ``SkippedRecords``), a loaded corpus, a loaded model run, a published layer's content and the
layer loaded as the app shows it (``LoadedLayer``), and a corpus's provenance. This module imports nothing of the project but the input budgets, so that
every other module, the corpus contract and the registry included, can name these types without a cycle."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

from .budgets import SKIPPED_KEPT

if TYPE_CHECKING:  # pandas is imported by whoever builds frames; the CLI starts faster without it here
    import pandas as pd

# progress(message, fraction in [0, 1] or None)
ProgressCallback = Callable[[str, Optional[float]], None]


def no_progress(message: str, fraction: Optional[float] = None) -> None:
    """Progress sink for callers that do not show progress."""


def staged_progress(progress: ProgressCallback, start: float, end: float) -> ProgressCallback:
    """``progress`` for one stage of a longer task: the stage's fractions (0..1) mapped onto ``start``..``end``
    of the whole, and each message ending in the whole's percentage, the number its bar shows, so that the
    text never claims more than the bar (a bar still moving towards its value said "Read 8 of 8 games" at 1%)."""
    def report(message: str, fraction: Optional[float] = None) -> None:
        share = start + (end - start) * min(max(float(fraction or 0.0), 0.0), 1.0)
        progress(f"{message} ({int(share * 100)}% of the load)", share)
    return report


class FramesByName(Mapping):
    """A corpus's frames by name, each made when first asked for (``cache.LazyFrames`` reads it from the
    Parquet cache, ``tables.BuiltFrames`` converts it from Arrow). Subclasses set ``_names`` and implement
    ``__getitem__``; a pickled copy (e.g. by st.cache_data) is a plain dict of every frame."""

    _names: list[str]

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __reduce__(self):
        return (dict, (dict(self.items()),))


class SourceError(Exception):
    """A whole source cannot be loaded (missing path, not JSON, wrong layout...).

    The message always names the file so that the UI and the CLI can show it as one line."""

    def __init__(self, path: Path | str, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class PluginError(ValueError):
    """A corpus plugin cannot be used: its package cannot be imported, lacks a member of the corpus contract, or
    its ``build_frames`` gave something else than the frames. The message names the plugin and says why."""

    def __init__(self, corpus: str, problem: str):
        self.corpus = corpus
        self.problem = problem
        super().__init__(f"the corpus plugin {corpus!r} cannot be used: {problem}")


@dataclass(frozen=True)
class SkippedRecord:
    """One broken unit (a round, a line, a game...) that was left out while everything else loaded."""

    record: str  # where: file plus record key / line number
    reason: str

    def as_dict(self) -> dict:
        return {"record": self.record, "reason": self.reason}


class SkippedRecords(list):
    """The skipped records of one input, bounded: the first ``keep`` of them, and ``total``, how many there
    were in all. Every reader collects into one (a file of eight million bad lines costs a counter, not
    eight million records); it is a list of what it kept, so it is shown, pickled and iterated as before.
    ``left_off`` = total - kept. Extending it with another SkippedRecords carries over that one's left-off count."""

    def __init__(self, records: Iterable[SkippedRecord] = (), keep: int = SKIPPED_KEPT, total: Optional[int] = None):
        super().__init__()
        self.keep = keep
        self.total = 0
        self.extend(records)
        if total is not None:
            self.total = max(int(total), len(self))

    def append(self, record: SkippedRecord) -> None:
        self.total += 1
        if len(self) < self.keep:
            super().append(record)

    def extend(self, records: Iterable[SkippedRecord]) -> None:
        extra = records.left_off if isinstance(records, SkippedRecords) else 0
        for record in records:
            self.append(record)
        self.total += extra

    @property
    def full(self) -> bool:
        """Whether a further record would only be counted (callers may then skip describing it)."""
        return len(self) >= self.keep

    def count_more(self, n: int = 1) -> None:
        """Count ``n`` skipped records without describing them (the list is full)."""
        self.total += n

    @property
    def left_off(self) -> int:
        return self.total - len(self)

    def __reduce__(self):
        return (_restore_skipped, (list(self), self.keep, self.total))


def _restore_skipped(records, keep, total) -> SkippedRecords:
    return SkippedRecords(records, keep, total)


def skipped_total(skipped: Iterable[SkippedRecord]) -> int:
    """How many records were skipped in all (a plain list: its length)."""
    return skipped.total if isinstance(skipped, SkippedRecords) else len(list(skipped))


def skipped_report(skipped: Iterable[SkippedRecord]) -> dict:
    """The CLI keys: ``skipped`` (the records kept, as before) and ``skipped_total`` (all of them)."""
    kept = list(skipped)
    return {"skipped": [s.as_dict() for s in kept], "skipped_total": skipped_total(skipped)}


def describe_unexpected(exc: BaseException) -> str:
    """An unexpected error as one readable phrase: never "unexpected MemoryError:" with nothing after it."""
    if isinstance(exc, MemoryError):
        return "ran out of memory while reading it (is it far larger than such a file can be?)"
    text = str(exc).strip()
    return f"unexpected {type(exc).__name__}: {text}" if text else f"unexpected {type(exc).__name__}"


# ``<corpus>@<collection>`` names a second source of a corpus (its games collected live: ``sources.py``).
SOURCE_MARK = "@"


def source_name(corpus: str, collection: Optional[str]) -> str:
    """A source's name: the corpus's, or ``<corpus>@<collection>`` for a collection beside it."""
    return f"{corpus}{SOURCE_MARK}{collection}" if collection else corpus


@dataclass
class LoadedCorpus:
    """A corpus as the app and the CLI see it: its frames plus where and how it was loaded."""

    corpus: str
    source: str  # the path, as given
    is_demo: bool
    frames: Mapping[str, pd.DataFrame]  # a dict, cache.LazyFrames (a cache hit) or tables.BuiltFrames (just built)
    skipped: list[SkippedRecord] = field(default_factory=SkippedRecords)  # bounded (SkippedRecords)
    load_seconds: float = 0.0
    from_cache: bool = False
    assets: Optional[str] = None  # clip-art / image folder, when configured
    cache_note: Optional[str] = None  # why the frames were not cached (e.g. a read-only cache folder)
    # its corpus package (a ``contract.CorpusPackage``, resolved once by the registry): what everything below the
    # app's edge asks about the corpus, instead of looking its name up again
    package: Any = field(default=None, repr=False, compare=False)
    collection: Optional[str] = None  # a collection beside the corpus (``sources.COLLECTED``), None: the corpus

    @property
    def source_name(self) -> str:
        """What links and keys name the source by: the corpus, or ``<corpus>@<collection>``."""
        return source_name(self.corpus, self.collection)

    @property
    def dialogs(self) -> pd.DataFrame:
        return self.frames["dialogs"]

    @property
    def utterances(self) -> pd.DataFrame:
        return self.frames["utterances"]


@dataclass(frozen=True)
class Provenance:
    """Where to obtain a corpus (and its images or clip art) and how to cite it: the Data page, the README."""

    obtain: str  # markdown, our own text
    assets: str  # markdown: the images / clip art and what the app shows without them
    licence: str
    citations: tuple[str, ...]  # BibTeX entries


@dataclass
class LayerContent:
    """A layer read and linked to its corpus (``AnnotationLayer.layer_content``), before ``load`` times it."""

    annotations: Any  # pandas.DataFrame in the common annotation form (see data_access.layers)
    figures: dict  # the layer-summary figures
    rows: Optional[Any] = None  # every row of the file with its alignment, for a layer aligned by text (codraw-icr)
    skipped: list[SkippedRecord] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


@dataclass
class LoadedRun:
    """A model run read, matched to its corpus and scored (``runs.load_run``)."""

    corpus: str
    name: str
    source: str  # the run file
    frames: Mapping  # codraw: rounds, dialogs; minecraft: samples; gos: messages; all: unmatched
    skipped: list[SkippedRecord] = field(default_factory=SkippedRecords)  # bounded: the first N and the total
    from_cache: bool = False
    load_seconds: float = 0.0
    is_demo: bool = False
    cache_note: Optional[str] = None  # why the run's frames were not cached (e.g. a read-only cache folder)
    # its corpus's package (``contract.CorpusPackage``), as the loaded corpus it was matched to carries it
    package: Any = field(default=None, repr=False, compare=False)
    # small results derived from the frames once (metric rows, units), never modified: ``memoized``
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    def memoized(self, key, compute: Callable):
        """``compute()`` the first time ``key`` is asked for, then the same object (the frames never change)."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    @property
    def unmatched(self):
        return self.frames["unmatched"]


@dataclass
class LoadedLayer:
    """A layer linked to its corpus, as the app shows it (picklable for st.cache_data)."""

    layer: str
    path: str
    is_demo: bool
    annotations: "pd.DataFrame"  # pandas.DataFrame in the common annotation form (see data_access.layers)
    figures: dict  # the layer-summary figures
    rows: "object" = None  # codraw-icr: every row with its alignment (ROW_COLUMNS); None for gos-mentions
    skipped: list[SkippedRecord] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    load_seconds: float = 0.0
