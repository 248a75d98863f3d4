"""Where each corpus comes from: the environment variables its package names, or the built-in demo corpus when
they are unset; and a corpus's collection beside it (issue 50: games collected live, in the corpus's own files),
named in ``DIALOGUE_COLLECTIONS`` or exported from the store. A ``Source`` carries the package it was made for,
so that its load asks the package, never the registry, about the corpus."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import platformdirs

from .contract import CorpusPackage
from .registry import CorpusAttribute
from .types import SOURCE_MARK, source_name

# corpus name -> the variables naming its files and its images / clip art (None: it has none), as each corpus
# package declares them (its ``DATA_VARIABLE`` and ``ASSET_VARIABLE``).
DATA_VARIABLES: Mapping[str, str] = CorpusAttribute("DATA_VARIABLE")
ASSET_VARIABLES: Mapping[str, Optional[str]] = CorpusAttribute("ASSET_VARIABLE")
APP_NAME = "dialogue-dashboard"
# A corpus's collection (its collected games, read by its own reader) is a second source of the corpus, named
# ``<corpus>@<collection>`` (the URL's ``corpus=codraw@collected``, the caches' keys, the store's rows).
COLLECTIONS_VARIABLE = "DIALOGUE_COLLECTIONS"  # corpus=path entries, separated as PATH is (os.pathsep)
COLLECTED = "collected"
MAX_COLLECTIONS_CHARS = 8_192  # the variable as read (a path per corpus)


@dataclass(frozen=True)
class Source:
    corpus: str
    path: Optional[Path]  # None means the built-in demo corpus
    assets: Optional[Path]  # clip art (CoDraw) or image folder (A Game Of Sorts)
    package: Any = field(default=None, repr=False, compare=False)  # its contract.CorpusPackage
    collection: Optional[str] = None  # a collection beside the corpus (COLLECTED); None: the corpus itself

    @property
    def is_demo(self) -> bool:
        return self.path is None

    @property
    def name(self) -> str:
        """The source's name: the corpus's, or ``<corpus>@<collection>`` for a collection beside it."""
        return source_name(self.corpus, self.collection)


def split_source_name(name: str) -> tuple[str, Optional[str]]:
    """(the corpus, the collection or None) that a source's name (``codraw``, ``codraw@collected``) names."""
    corpus, mark, collection = name.partition(SOURCE_MARK)
    return corpus, (collection if mark else None)


def configured_collections() -> tuple[dict[str, Path], list[str]]:
    """corpus name -> the folder or file of its collection, as ``DIALOGUE_COLLECTIONS`` lists them (``corpus=path``
    entries separated by ``os.pathsep``), and one line per entry that is not ``corpus=path``."""
    text = os.environ.get(COLLECTIONS_VARIABLE, "")[:MAX_COLLECTIONS_CHARS]
    found: dict[str, Path] = {}
    problems: list[str] = []
    for entry in (e.strip() for e in text.split(os.pathsep)):
        name, mark, path = entry.partition("=")
        if not entry:
            continue
        if not mark or not name.strip() or not path.strip():
            problems.append(f"{COLLECTIONS_VARIABLE}: {entry[:200]!r} is not corpus=path")
            continue
        found[name.strip()] = Path(path.strip()).expanduser()
    return found, problems


def collection_source(package: CorpusPackage, path: Path) -> Source:
    """The collection of ``package``'s corpus at ``path``, with the corpus's images or clip art (its
    ``ASSET_VARIABLE``): the games were played over the corpus's own items."""
    assets = _env_path(package.ASSET_VARIABLE) if package.ASSET_VARIABLE else None
    return Source(package.NAME, Path(path), assets, package, COLLECTED)


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
