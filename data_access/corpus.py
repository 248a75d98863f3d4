"""A corpus as one value: ``Corpus`` is a corpus resolved once (its package from the registry, its title, where its
files are, the key its cache entry has) and, when asked, loaded (its frames through the Parquet cache). The app's
edge makes one from the URL and hands it down; the Python API (``dialogue_dashboard.open_corpus``,
docs/python-api.md) gives the same value to a notebook. ``Run`` is a model run over it, read and scored.

Everything it offers is the pure functions the pages use (snapshots, the replay view model, deep links, the
layers, the word index, the run statistics), so a notebook sees exactly what the app shows."""
from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from . import corpora
from .contract import CorpusPackage, RunScoring, layers_of, package_scoring
from .links import replay_link
from .registry import corpus_module
from .sources import (
    COLLECTED,
    COLLECTIONS_VARIABLE,
    Source,
    collection_source,
    configured_collections,
    configured_source,
    split_source_name,
)
from .types import LoadedCorpus, LoadedRun

if TYPE_CHECKING:
    import pandas as pd
    from PIL import Image

    from .layers.load import LoadedLayer
    from .words.corpus import WordCorpus


def collection_title(title: str, collection: Optional[str]) -> str:
    """How a source is titled: the corpus's title, and its collection's name in brackets ("CoDraw (collected)")."""
    return f"{title} ({collection})" if collection else title


@dataclass(frozen=True)
class Corpus:
    """One corpus, resolved: ``name`` (its registry name, or ``<corpus>@collected`` for its collection beside it:
    what links, keys and store rows name it by), ``source`` (its files, or the demo corpus when ``source.path`` is
    None). Equal and hashable by these two, so caches may key on it. Its frames are loaded the first time they are
    asked for, once per value."""

    name: str
    source: Source
    package: CorpusPackage = field(compare=False, repr=False)

    @classmethod
    def resolve(cls, name: str, path: Optional[Path | str] = None, assets: Optional[Path | str] = None) -> "Corpus":
        """The corpus ``name`` at ``path``; with ``path`` unset, where the environment points (``CODRAW_DATA``...)
        or the built-in demo corpus. ``<corpus>@collected`` names the corpus's collection (its games collected
        live): at ``path``, or where ``DIALOGUE_COLLECTIONS`` points. Raises ValueError for a name that is not a
        registered corpus, or a collection with no path."""
        corpus_name, collection = split_source_name(name)
        package = corpus_module(corpus_name)
        if collection is not None:
            if collection != COLLECTED:
                raise ValueError(f"{package.TITLE} has no collection {collection!r}; its collection is {COLLECTED!r}")
            found = Path(path) if path is not None else configured_collections()[0].get(corpus_name)
            if found is None:
                raise ValueError(f"{package.TITLE} (collected) needs a path: {COLLECTIONS_VARIABLE} names none")
            return cls.of_source(collection_source(package, found.expanduser()))
        if path is None:
            return cls(name, configured_source(package), package)
        return cls(name, Source(name, Path(path).expanduser(), Path(assets).expanduser() if assets else None, package),
                   package)

    @classmethod
    def of_source(cls, source: Source) -> "Corpus":
        """The corpus read from ``source`` (a collection's too), named as the source is."""
        return cls(source.name, source, source.package)

    # -- what the corpus is --------------------------------------------------------------------------------
    @property
    def title(self) -> str:
        return collection_title(self.package.TITLE, self.source.collection)

    @property
    def short_title(self) -> str:
        return collection_title(self.package.SHORT_TITLE, self.source.collection)

    @property
    def collection(self) -> Optional[str]:
        """The collection beside the corpus this is (``COLLECTED``), None for the corpus itself."""
        return self.source.collection

    @property
    def is_demo(self) -> bool:
        return self.source.is_demo

    @property
    def scoring(self) -> RunScoring:
        """How this corpus's model runs are read and scored (``contract.RunScoring``; ``contract.UNSCORED`` for a
        corpus that scores none)."""
        return package_scoring(self.package)

    # -- its frames ----------------------------------------------------------------------------------------
    @functools.cached_property
    def loaded(self) -> LoadedCorpus:
        """The corpus loaded (through the Parquet cache); raises ``SourceError`` naming the file that failed."""
        return corpora.load_source(self.source)

    @property
    def frames(self) -> Mapping[str, "pd.DataFrame"]:
        """Every frame the app shows, by its documented name (the package's ``FRAMES``)."""
        return self.loaded.frames

    @property
    def dialogs(self) -> "pd.DataFrame":
        return self.loaded.dialogs

    @property
    def utterances(self) -> "pd.DataFrame":
        return self.loaded.utterances

    @property
    def skipped(self) -> list:
        """The records left out while loading (``SkippedRecord``: where, why), the first 1,000 of them."""
        return self.loaded.skipped

    # -- the replay ----------------------------------------------------------------------------------------
    def dialog_ids(self) -> list[str]:
        from . import snapshots  # pictures (PIL) only when asked for: the app's edge makes Corpus values

        return snapshots.dialog_ids(self.loaded)

    def step_count(self, dialog_id: str, round: Optional[int] = None) -> int:
        """Replay steps of the dialog (of its round, for a corpus that replays within rounds)."""
        from . import snapshots

        return snapshots.step_count(self.loaded, dialog_id, round)

    def step(self, dialog_id: str, step: int, round: Optional[int] = None) -> Any:
        """The replay's view model of one step (the package's ``ReplayStep``), or None for an unknown dialog."""
        return self.package.replay_step(self.loaded, dialog_id, step, round)

    def picture(self, dialog_id: str, step: int, round: Optional[int] = None) -> "Image.Image":
        """The picture of the state after ``step`` (a PIL image), as Compare, Present and the exports show it."""
        from . import snapshots

        return snapshots.snapshot(self.loaded, dialog_id, step, round)

    def messages(self, dialog_id: str, step: int, round: Optional[int] = None) -> "pd.DataFrame":
        """The messages said at ``step`` (turn, speaker, role, text)."""
        from . import snapshots

        return snapshots.step_messages(self.loaded, dialog_id, step, round)

    def link(self, dialog_id: str, step: Optional[int] = None, round: Optional[int] = None, base: str = "") -> str:
        """The Replay page's deep link to the step (``base``: the app's address, e.g. ``http://localhost:8501``)."""
        return base.rstrip("/") + replay_link(self.name, dialog_id, turn=step, round=round)

    # -- what is read beside it ----------------------------------------------------------------------------
    @functools.cached_property
    def _layers_read(self) -> dict[str, tuple[tuple, "LoadedLayer"]]:
        """layer name -> (its file's path and stat stamp when read, the layer read)."""
        return {}

    def layer(self, layer: Optional[str] = None) -> "LoadedLayer":
        """A published annotation layer over this corpus (the package's ``LAYERS``; the first by default), from
        ``DIALOGUE_LAYERS_DIR`` or, over the demo corpus, the generated demo layer. Read once, and again only when
        its file changes (a layer of the full corpus takes seconds to read and link). Raises ValueError when the
        corpus has no such layer or its file is not configured, SourceError naming the file when it cannot be
        read."""
        from .layers.load import configured_layer, load_layer

        names = layers_of(self.package)
        name = layer or (names[0] if names else None)
        if name is None or name not in names:
            raise ValueError(f"{self.title} has no layer {layer!r}; its layers: {', '.join(names) or 'none'}")
        found = configured_layer(name, self.source)
        if found.path is None:
            raise ValueError(found.reason or f"{name}: no file")
        stamp = _file_stamp(Path(found.path))
        kept = self._layers_read.get(name)
        if kept is None or kept[0] != stamp:
            kept = (stamp, load_layer(name, self.loaded, found.path, is_demo=found.is_demo))
            self._layers_read[name] = kept
        return kept[1]

    def slice(self, text: str, annotations: Optional["pd.DataFrame"] = None,
              notes: Optional["pd.DataFrame"] = None) -> "SliceResult":
        """The dialogs the slice ``text`` keeps (its grammar and features: docs/slices.md), evaluated as the app
        evaluates it: on the dialogs with their derived features, the features of the layers this corpus has
        configured (``layer``), and, for ``score(RUN)`` / ``gap(RUN)``, the runs ``runs()`` offers.
        ``annotations`` and ``notes`` (the store's ``coding.annotations()`` and ``notes.notes()``) are what
        ``code(…)`` and ``tag(…)`` test; without them those tests find nothing. Raises ``SliceError`` (a
        ValueError) when the text is not a slice or cannot be used on this corpus, saying why."""
        from .slices import describe, parse, select, slice_data, unparse
        from .slices.subcorpus import restrict
        from .slices.tree import tests

        node = parse(text)
        base = slice_data(self.loaded, layers=self._slice_layers())
        calls = {test.feature.name for test in tests(node) if test.feature.args is not None}
        runs, step_runs = self._run_columns() if calls & {"score", "gap"} else ({}, {})
        data = base.with_extras(runs=runs, step_runs=step_runs, annotations=annotations, notes=notes)
        kept = select(node, data)
        ids = tuple(str(d) for d in base.dialogs["dialog_id"].to_numpy()[kept.dialogs])
        steps = data.steps.keys(kept.steps) if kept.steps is not None else None
        counted = (len(steps), len(ids)) if steps is not None else (len(ids), None)
        return SliceResult(unparse(node), ids, restrict(self.loaded, ids, steps).frames,
                           describe(node, self.title, *counted), steps)

    def _slice_layers(self) -> dict:
        """The layers a slice's features come from: each of ``LAYERS`` whose file is configured and reads."""
        from .types import SourceError

        read = {}
        for name in layers_of(self.package):
            try:
                read[name] = self.layer(name)
            except (ValueError, SourceError):  # not configured, or unreadable: its features are absent, as in the app
                continue
        return read

    def _run_columns(self) -> tuple[dict[str, "pd.DataFrame"], dict[str, "pd.DataFrame"]]:
        """run name -> its Browse columns (score, gap), and -> its scores per step, for ``score(RUN)`` and
        ``gap(RUN)`` in a dialog and a step slice."""
        from .runs.browse_columns import run_columns, step_run_scores

        opened = {name: self.open_run(path).loaded for name, path in self.runs().items()}
        return ({name: run_columns(self.loaded, run) for name, run in opened.items()},
                {name: step_run_scores(self.loaded, run) for name, run in opened.items()})

    def word_index(self) -> "WordCorpus":
        """The Words page's token index and message facts over this corpus's messages."""
        from .words.corpus import WordCorpus

        return WordCorpus.build(self.utterances, {self.name: self.dialogs})

    def runs(self) -> dict[str, Path]:
        """The runs the Runs page offers for this corpus, name -> file: the demo runs over the demo corpus, and the
        files under ``DIALOGUE_RUNS_DIR/<corpus>/``."""
        from .runs import available_runs

        return {name: Path(path) for name, (path, _uploaded) in available_runs(self.name, self.is_demo).items()}

    def open_run(self, path: Path | str, name: Optional[str] = None) -> "Run":
        """A model run over this corpus (a file in the run format, docs/formats.md), read and scored."""
        return Run.open(self, path, name)


def _file_stamp(path: Path) -> tuple:
    """What changes when the file at ``path`` is written again (or replaced): its path, size, times and inode."""
    try:
        found = path.stat()
    except OSError:
        return (str(path),)
    return (str(path), found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino)


@dataclass(frozen=True)
class SliceResult:
    """A slice evaluated on a corpus (``Corpus.slice``): ``text``, the slice in its canonical form (what a link's
    ``slice=`` holds); ``ids``, the ids of the dialogs it keeps, in the corpus's order; ``frames``, every frame of
    the corpus narrowed to those dialogs (each frame cut when first read; a step slice's step frames to its moments);
    ``description``, the slice in words with its count, as the pages say it; ``steps``, a step slice's moments
    (dialog_id, round, turn; None for a dialog slice), ``ids`` then the dialogs with at least one."""

    text: str
    ids: tuple[str, ...]
    frames: Mapping[str, "pd.DataFrame"] = field(repr=False)
    description: str
    steps: Optional["pd.DataFrame"] = field(default=None, repr=False)  # a step slice's moments (dialog_id, round, turn)

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class Run:
    """A model run read, matched to its corpus and scored; ``loaded`` is what the Runs page holds."""

    corpus: Corpus
    loaded: LoadedRun

    @classmethod
    def open(cls, corpus: Corpus, path: Path | str, name: Optional[str] = None) -> "Run":
        from .runs import load_run

        return cls(corpus, load_run(corpus.loaded, Path(path), name))

    @property
    def name(self) -> str:
        return self.loaded.name

    @property
    def frames(self) -> Mapping[str, "pd.DataFrame"]:
        return self.loaded.frames

    def metric_table(self) -> "pd.DataFrame":
        """The Runs page's metric table: run, split, metric, n, value and its 95 % interval."""
        from .runs.analysis import metric_table

        return metric_table(self.loaded)

    def units(self, humans: bool = False) -> "pd.DataFrame":
        """One row per unit the run is scored on (``humans``: the humans' values on the same units)."""
        from .runs.analysis import units

        return units(self.loaded, humans)

    def summary(self) -> dict:
        """What ``python -m data_access run-summary`` prints."""
        from .runs import summarize

        return summarize(self.loaded)

    def view(self, dialog_id: str, step: int, round: Optional[int] = None) -> Any:
        """The run at one replay step, as the Replay shows it beside the humans (None: not in the corpus)."""
        return self.corpus.scoring.replay_view(self.corpus.loaded, self.loaded, dialog_id, step, round)
