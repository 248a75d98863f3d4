"""The installed dashboard: the Python API (``open_corpus``, ``open_run`` and the types they return; ``api.py``,
docs/python-api.md), the ``dialogue-dashboard`` command (``cli.py``) and, in a wheel, the app's own files
(``app.py``, ``server.py``, ``pages/`` and Streamlit's configuration under ``app/``). In a checkout the app's files
are the checkout's own, beside this package.

``import dialogue_dashboard as dd`` is light: the API's names are imported when first used (the command starts
without pandas)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent
API_NAMES = ("CORPUS_NAMES", "Corpus", "CorpusNames", "CorpusPackage", "ENTRY_POINT_GROUP", "LayerContent",
             "LoadedCorpus", "LoadedRun", "Place", "PluginError", "Provenance", "Run", "RunScoring", "SkippedRecord",
             "SliceError", "SliceResult", "SourceError", "corpora", "open_corpus", "open_run")


def app_folder() -> Path:
    """Where ``app.py``, ``server.py``, ``pages/`` and ``.streamlit/`` are: ``app/`` in an installed wheel,
    the checkout's root otherwise."""
    installed = PACKAGE / "app"
    return installed if (installed / "app.py").is_file() else PACKAGE.parent


def __getattr__(name: str) -> Any:
    if name in API_NAMES:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API_NAMES])
