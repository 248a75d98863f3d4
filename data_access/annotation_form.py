"""What every published annotation layer shares, below the corpus packages that read them: the common annotation
form (``ANNOTATION_COLUMNS``, described in ``data_access.layers``), reading a layer file forgiving per line and
strict per file, the form a layer's content takes once linked to its corpus (``LayerContent``), and a text cut
at its annotated spans (``segments``)."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, Optional, Sequence, TypeGuard

from .budgets import LAYER
from .safe_io import stream_lines
from .types import LayerContent, SourceError

__all__ = ["ANNOTATION_COLUMNS", "LayerContent", "is_int", "read_lines", "segments"]

ANNOTATION_COLUMNS = ["corpus", "dialog_id", "round", "turn", "message", "role", "start", "end", "text", "label",
                      "referents", "source", "record"]


def read_lines(path: Path | str) -> Iterator[tuple[int, str | None, str]]:
    """(1-based line number, decoded text or None when not UTF-8, problem) of every non-empty line.

    Raises SourceError naming the file when it is missing, a folder, or unreadable."""
    path = Path(path)
    if not path.exists():
        raise SourceError(path, "does not exist")
    if not path.is_file():
        raise SourceError(path, "is not a file")
    # a device, a huge sparse file, a gzip bomb or more lines than a layer has are refused (budgets.LAYER);
    # read as a stream, so that what is held is the rows the layer keeps and one line, not the whole file
    for number, raw in stream_lines(path, LAYER):
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            continue
        try:
            yield number, raw.decode("utf-8"), ""
        except UnicodeDecodeError as exc:
            yield number, None, f"not UTF-8 ({exc.reason} at byte {exc.start})"


def is_int(value) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def segments(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[str, Optional[int]]]:
    """``text`` cut into (piece, index of the span covering it or None); spans that do not fit the text are
    left out (they are reported, never shifted). Where spans overlap, the innermost (latest-starting) wins."""
    owner: list[Optional[int]] = [None] * len(text)
    order = sorted(range(len(spans)), key=lambda i: (spans[i][0], -spans[i][1]))
    for i in order:
        start, end = spans[i]
        if 0 <= start < end <= len(text):
            for position in range(start, end):
                owner[position] = i
    pieces: list[tuple[str, Optional[int]]] = []
    for position, char in enumerate(text):
        if pieces and pieces[-1][1] == owner[position]:
            pieces[-1] = (pieces[-1][0] + char, owner[position])
        else:
            pieces.append((char, owner[position]))
    return pieces
