"""Read a source file ahead, on a background thread, while the interpreter is still importing.

A command-line load spends its first ~0.5 s importing numpy, pyarrow and pandas, and the 155 MB CoDraw
source needs about 0.35 s to read and decompress (ISA-L's inflate, see ``safe_io``). Decompression and
file reads release the GIL, so the two overlap: the CLI starts ``read_ahead(path)`` before its heavy
imports, and the loader's ``take(path)`` then gets the bytes without waiting. Anything unusual (a folder,
an unreadable or damaged file) yields None, and the loader reads the file itself and reports the problem
as usual. No heavy imports here, by design.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Optional

from .safe_io import LIMITS, gunzip_capped, is_regular_file, read_budgeted, read_capped

_pending: dict[Path, tuple[threading.Thread, list]] = {}


def _read(path: Path, result: list, budget=None) -> None:
    try:
        if budget is not None:  # a run file: its own budget (data_access.budgets), refused early past it
            result.append(read_budgeted(path, budget))
            return
        raw = read_capped(path, LIMITS["codraw file"])
        result.append(gunzip_capped(raw, LIMITS["codraw file"], path) if raw[:2] == b"\x1f\x8b" else raw)
    except Exception:  # noqa: BLE001 - the loader reads again and reports the problem properly
        pass


def _key(path: Path | str) -> Path:
    # os.path.realpath, not Path.resolve(): on a symlink loop resolve() raises RuntimeError (Python 3.11),
    # which callers expecting OSError for an unreadable file do not catch; realpath just stops at the loop.
    return Path(os.path.realpath(path))


def read_ahead(path: Path | str, budget=None) -> None:
    """Start reading ``path`` (decompressed when it is gzip) unless it is not a plain file (a symlink loop,
    a missing path...: nothing is read, and the loader reports the problem when it reads the file itself).
    ``budget`` (a ``budgets.Budget``): read within it, as its loader will (default: a corpus file)."""
    path = _key(path)
    if path in _pending or not is_regular_file(path):
        return
    result: list = []
    thread = threading.Thread(target=_read, args=(path, result, budget), name="read-ahead", daemon=True)
    _pending[path] = (thread, result)
    thread.start()


def take(path: Path | str) -> Optional[bytes]:
    """The bytes read ahead for ``path`` (waiting for them if need be), or None when there are none."""
    entry = _pending.pop(_key(path), None)
    if entry is None:
        return None
    thread, result = entry
    thread.join()
    return result[0] if result else None
