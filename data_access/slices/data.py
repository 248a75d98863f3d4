"""What a slice is evaluated against (``SliceData``), for one corpus: the dialog table with the analysis pages' and
the layers' per-dialog features, the step table (built when a step slice first needs it, then shared), and what is
loaded beside the corpus (runs, codes, notes, utterances). ``slice_data`` makes it from a loaded corpus."""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Optional

import pandas as pd

from ..common import LoadedCorpus
from ..contract import package_of
from ..search import SearchIndex
from .features import derived_features, layer_features
from .grammar import SliceError
from .steps import StepTable, build_steps


class _Lazy:
    """A value built on first use by one thread, then shared (the step table, shared by every session)."""

    def __init__(self, build: Optional[Callable[[], StepTable]]):
        self.build = build
        self.lock = threading.Lock()
        self.value: Optional[StepTable] = None

    def get(self) -> Optional[StepTable]:
        if self.value is None and self.build is not None:
            with self.lock:
                if self.value is None:
                    self.value = self.build()
        return self.value


@dataclass(eq=False)
class SliceData:
    """What a slice is evaluated against, for one corpus."""

    corpus: str
    title: str
    dialogs: pd.DataFrame  # one row per dialog: dialog_id, the corpus's columns, derived and layer features
    runs: Mapping[str, pd.DataFrame] = field(default_factory=dict)  # run -> runs.browse_columns.run_columns
    annotations: Optional[pd.DataFrame] = None  # CodingStore.annotations (None: no store)
    notes: Optional[pd.DataFrame] = None  # NotesStore.notes (None: no store)
    utterances: Optional[pd.DataFrame] = None
    search_index: Optional[Callable[[], SearchIndex]] = None  # a shared index of ``utterances`` (else built once)
    step_runs: Mapping[str, pd.DataFrame] = field(default_factory=dict)  # run -> runs.browse_columns.step_run_scores
    step_source: Optional[_Lazy] = field(default=None, repr=False)  # the step table, built when first asked for
    paired_items: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # the package's PAIRED_ITEMS
    _index: Optional[SearchIndex] = field(default=None, repr=False)

    def index(self) -> SearchIndex:
        if self._index is None:
            if self.search_index is not None:
                self._index = self.search_index()
            elif self.utterances is None:
                raise SliceError(f"text tests need the utterances of {self.title}, which are not loaded here")
            else:
                self._index = SearchIndex.build(self.utterances)
        return self._index

    @property
    def steps(self) -> StepTable:
        """The corpus's step table (``SliceError`` where it cannot be built here)."""
        table = self.step_source.get() if self.step_source is not None else None
        if table is None:
            raise SliceError(f"the replay steps of {self.title} are not loaded here, so a step slice cannot be used")
        return table

    def with_extras(self, **extras) -> "SliceData":
        """A copy with ``extras`` (runs, step_runs, annotations, notes, search_index) set, sharing the step table."""
        return replace(self, _index=None, **extras)

    @functools.cached_property
    def ids(self) -> pd.Index:
        return pd.Index(self.dialogs["dialog_id"].astype(str))

    def columns(self) -> list[str]:
        """The features a bare name may test on a dialog."""
        return [c for c in self.dialogs.columns if c != "corpus"]

    def step_columns(self) -> list[str]:
        """The features a bare name may test on a step (the step table's columns)."""
        return list(self.steps.frame.columns)


def slice_data(loaded: LoadedCorpus, *, layers: Optional[Mapping[str, object]] = None,
               runs: Optional[Mapping[str, pd.DataFrame]] = None, annotations: Optional[pd.DataFrame] = None,
               notes: Optional[pd.DataFrame] = None, search_index: Optional[Callable[[], SearchIndex]] = None,
               step_runs: Optional[Mapping[str, pd.DataFrame]] = None) -> SliceData:
    """``SliceData`` of a loaded corpus: its dialogs frame with the corpus's derived features (``features.derived_features``) and
    those of each loaded layer (``layers``: layer name -> ``LoadedLayer``) joined by dialog id; its step table
    (``steps.build_steps``, with the layers' step features) is built the first time a step slice needs it."""
    dialogs = loaded.dialogs.copy(deep=False)
    if "players" in dialogs.columns:  # lists: tested by membership; keep them as tuples (hashable, comparable)
        dialogs["players"] = dialogs["players"].map(lambda p: tuple(p) if hasattr(p, "__iter__") and not isinstance(p, str) else p)
    ids = pd.Index(dialogs["dialog_id"].astype(str))
    extra = [derived_features(loaded)] + [layer_features(name, layer) for name, layer in (layers or {}).items()]
    for frame in extra:
        for column in frame.columns:
            if column not in dialogs.columns:
                dialogs[column] = frame[column].reindex(ids).to_numpy()
    steps = _Lazy(lambda: build_steps(loaded, ids, layers))
    package = package_of(loaded)
    return SliceData(loaded.corpus, package.TITLE, dialogs.reset_index(drop=True),
                     dict(runs or {}), annotations, notes, loaded.utterances, search_index, dict(step_runs or {}),
                     steps, dict(getattr(package, "PAIRED_ITEMS", {})))


__all__ = ["SliceData", "slice_data"]
