"""The dashboard as a Python library (docs/python-api.md): the objects the pages use, for a notebook or a script,
without Streamlit. ``open_corpus`` resolves and loads a corpus as the app does (the same Parquet cache, the same
frames); ``open_run`` reads and scores a model run over it. Every name here is stable."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from data_access.contract import CorpusPackage, RunScoring
from data_access.corpus import Corpus, Run, SliceResult
from data_access.links import Place
from data_access.registry import CORPUS_NAMES, ENTRY_POINT_GROUP, check_plugins
from data_access.slices import SliceError
from data_access.types import LayerContent, LoadedCorpus, LoadedRun, PluginError, Provenance, SkippedRecord, SourceError

__all__ = ["CORPUS_NAMES", "Corpus", "CorpusNames", "CorpusPackage", "ENTRY_POINT_GROUP", "LayerContent", "LoadedCorpus",
           "LoadedRun", "Place", "PluginError", "Provenance", "Run", "RunScoring", "SkippedRecord", "SliceError",
           "SliceResult", "SourceError", "corpora", "open_corpus", "open_run"]


class CorpusNames(list):
    """The names of the corpora that can be opened (a list of str), and ``broken``: the installed plugins that
    cannot be, name -> why (shown after the list when it is printed)."""

    def __init__(self, names: list[str], broken: dict[str, str]):
        super().__init__(names)
        self.broken = broken

    def __repr__(self) -> str:
        shown = super().__repr__()
        if not self.broken:
            return shown
        return shown + " and broken plugins: " + "; ".join(f"{name!r}: {why}" for name, why in self.broken.items())


def corpora() -> CorpusNames:
    """The names of every corpus this installation offers: the built-in ones, then installed plugins. A plugin
    that cannot be used (its package fails to import or misses a member of the contract) is left out and named in
    the result's ``broken``, with why."""
    broken = check_plugins()
    return CorpusNames(list(CORPUS_NAMES), broken)


def open_corpus(name: str, path: Optional[Path | str] = None, assets: Optional[Path | str] = None) -> Corpus:
    """The corpus ``name`` (one of ``corpora()``) at ``path`` (a file or folder in the corpus's format), loaded:
    its ``frames`` are the app's. ``path`` unset: the corpus the environment configures (``CODRAW_DATA``...) or
    the built-in demo corpus. ``assets``: its images or clip art. Raises ``SourceError`` naming the file when
    nothing of it can be read, ValueError for an unknown name, ``PluginError`` (a ValueError) naming the plugin
    when it cannot be used (its package fails to import, or its ``build_frames`` gives something else than the
    frames)."""
    corpus = Corpus.resolve(name, path, assets)
    corpus.loaded  # noqa: B018 - load now, so that a bad path fails here and not at the first frame
    return corpus


def open_run(corpus: Corpus, path: Path | str, name: Optional[str] = None) -> Run:
    """The model run in ``path`` over ``corpus``, read and scored with the corpus's own metric (the Runs page's
    frames, metric table and units); ``name`` defaults to the file's name without its suffix."""
    return corpus.open_run(path, name)
