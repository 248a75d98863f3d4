"""Reading helpers shared by both layers: forgiving per line, strict per file."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, TypeGuard

from ..common import SourceError
from ..safe_io import LIMITS, read_capped, without_bom


def read_lines(path: Path | str) -> Iterator[tuple[int, str | None, str]]:
    """(1-based line number, decoded text or None when not UTF-8, problem) of every non-empty line.

    Raises SourceError naming the file when it is missing, a folder, or unreadable."""
    path = Path(path)
    if not path.exists():
        raise SourceError(path, "does not exist")
    if not path.is_file():
        raise SourceError(path, "is not a file")
    data = without_bom(read_capped(path, LIMITS["layer"], "layer file"))  # a device or a huge sparse file is refused
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            continue
        try:
            yield number, raw.decode("utf-8"), ""
        except UnicodeDecodeError as exc:
            yield number, None, f"not UTF-8 ({exc.reason} at byte {exc.start})"


def is_int(value) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
