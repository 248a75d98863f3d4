"""The dashboard as a Python library (docs/python-api.md): the objects the pages use, for a notebook or a script,
without Streamlit. ``open_corpus`` resolves and loads a corpus as the app does (the same Parquet cache, the same
frames); ``open_run`` reads and scores a model run over it. Every name here is stable."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from data_access.contract import CorpusPackage, RunScoring
from data_access.corpus import Corpus, Run
from data_access.links import Place
from data_access.registry import CORPUS_NAMES, ENTRY_POINT_GROUP
from data_access.types import LayerContent, LoadedCorpus, LoadedRun, Provenance, SkippedRecord, SourceError

__all__ = ["CORPUS_NAMES", "Corpus", "CorpusPackage", "ENTRY_POINT_GROUP", "LayerContent", "LoadedCorpus", "LoadedRun",
           "Place", "Provenance", "Run", "RunScoring", "SkippedRecord", "SourceError", "corpora", "open_corpus",
           "open_run"]


def corpora() -> list[str]:
    """The names of every corpus this installation offers: the built-in ones, then installed plugins."""
    return list(CORPUS_NAMES)


def open_corpus(name: str, path: Optional[Path | str] = None, assets: Optional[Path | str] = None) -> Corpus:
    """The corpus ``name`` (one of ``corpora()``) at ``path`` (a file or folder in the corpus's format), loaded:
    its ``frames`` are the app's. ``path`` unset: the corpus the environment configures (``CODRAW_DATA``...) or
    the built-in demo corpus. ``assets``: its images or clip art. Raises ``SourceError`` naming the file when
    nothing of it can be read, ValueError for an unknown name."""
    corpus = Corpus.resolve(name, path, assets)
    corpus.loaded  # noqa: B018 - load now, so that a bad path fails here and not at the first frame
    return corpus


def open_run(corpus: Corpus, path: Path | str, name: Optional[str] = None) -> Run:
    """The model run in ``path`` over ``corpus``, read and scored with the corpus's own metric (the Runs page's
    frames, metric table and units); ``name`` defaults to the file's name without its suffix."""
    return corpus.open_run(path, name)
