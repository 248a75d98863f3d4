"""The app's own static files beside this module: the JavaScript and CSS of its page parts, each in a file of
its own (so that editors, linters and diffs see them as what they are) and read once when the module using it
is imported, and the favicon (``ui.shell.router``)."""
from __future__ import annotations

from pathlib import Path

_FOLDER = Path(__file__).resolve().parent


def asset_text(name: str) -> str:
    """The text of ``ui/assets/<name>`` (e.g. ``transcript.css``)."""
    return (_FOLDER / name).read_text(encoding="utf-8")
