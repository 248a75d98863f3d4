"""Where each corpus comes from: the environment variables its package names, or the built-in demo corpus when
they are unset."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import platformdirs

from .common import CorpusAttribute
from .registry import corpus_module

# corpus name -> the variables naming its files and its images / clip art (None: it has none), as each corpus
# package declares them (its ``DATA_VARIABLE`` and ``ASSET_VARIABLE``).
DATA_VARIABLES: Mapping[str, str] = CorpusAttribute("DATA_VARIABLE")
ASSET_VARIABLES: Mapping[str, Optional[str]] = CorpusAttribute("ASSET_VARIABLE")
APP_NAME = "dialogue-dashboard"


@dataclass(frozen=True)
class Source:
    corpus: str
    path: Optional[Path]  # None means the built-in demo corpus
    assets: Optional[Path]  # clip art (CoDraw) or image folder (A Game Of Sorts)

    @property
    def is_demo(self) -> bool:
        return self.path is None


def _env_path(name: str) -> Optional[Path]:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def configured_source(corpus: str) -> Source:
    package = corpus_module(corpus)
    assets = _env_path(package.ASSET_VARIABLE) if package.ASSET_VARIABLE else None
    return Source(corpus, _env_path(package.DATA_VARIABLE), assets)


def cache_dir() -> Path:
    return _env_path("DIALOGUE_CACHE_DIR") or Path(platformdirs.user_cache_dir(APP_NAME))


def notes_db_path() -> Path:
    return _env_path("DIALOGUE_NOTES_DB") or Path(platformdirs.user_data_dir(APP_NAME)) / "notes.sqlite3"


def notes_db_target() -> "Path | str":
    """Where notes and annotations live: a ``postgresql://`` URL as given, else the SQLite path."""
    value = os.environ.get("DIALOGUE_NOTES_DB", "").strip()
    if value.lower().startswith(("postgresql://", "postgres://")):
        return value
    return notes_db_path()


def notes_db_display() -> str:
    """``notes_db_target()`` for display: without its password, whatever form it was written in."""
    from .store.redaction import redact

    return redact(notes_db_target())
