"""Where each corpus comes from: the environment variables its package names, or the built-in demo corpus when
they are unset. A ``Source`` carries the package it was made for, so that its load asks the package, never the
registry, about the corpus."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import platformdirs

from .contract import CorpusPackage
from .registry import CorpusAttribute

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
    package: Any = field(default=None, repr=False, compare=False)  # its contract.CorpusPackage

    @property
    def is_demo(self) -> bool:
        return self.path is None


def _env_path(name: str) -> Optional[Path]:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def configured_source(package: CorpusPackage) -> Source:
    """Where the environment points for the corpus ``package`` (a ``contract.CorpusPackage``): its
    ``DATA_VARIABLE`` and ``ASSET_VARIABLE``; the demo corpus when the first is unset."""
    assets = _env_path(package.ASSET_VARIABLE) if package.ASSET_VARIABLE else None
    return Source(package.NAME, _env_path(package.DATA_VARIABLE), assets, package)


def configured_data_path(name: str) -> Optional[Path]:
    """Where the environment points for corpus ``name``'s files (its ``DATA_VARIABLE``); None: the demo corpus."""
    return _env_path(_DATA_VARIABLE[name])


_DATA_VARIABLE = CorpusAttribute("DATA_VARIABLE")  # a plain table the README's scan of variables reads too


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
