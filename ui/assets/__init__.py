"""The app's own static files beside this module: the JavaScript and CSS of its page parts, each in a file of
its own (so that editors, linters and diffs see them as what they are) and read once when the module using it
is imported, and the favicon (``ui.shell.router``)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Callable

_FOLDER = Path(__file__).resolve().parent


def asset_text(name: str) -> str:
    """The text of ``ui/assets/<name>`` (e.g. ``transcript.css``)."""
    return (_FOLDER / name).read_text(encoding="utf-8")


def packaged_asset(module_file: str, name: str) -> Callable[[], str]:
    """A reader of the file ``name`` beside ``module_file`` (a corpus views module's ``__file__``: its game's
    ``play.js``, ``live.css``...), read once, when first asked for."""
    path = Path(module_file).resolve().parent / name

    @lru_cache(maxsize=1)
    def text() -> str:
        return path.read_text(encoding="utf-8")

    return text
