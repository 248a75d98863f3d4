"""What every run format shares: reading a run file line by line, the bookkeeping of unmatched and
skipped rows, and the one-line error for a file that is not a run of the expected corpus.

A *run* is a model's output over one corpus (see docs/formats.md, "Model runs"). Reading never raises for a
bad line: a line that is not JSON or lacks a required field is skipped and listed (``SkippedRecord``);
a line that names a dialog, round, sample or message the corpus does not have is *unmatched* and listed
too. Only a whole file that cannot be read, belongs to another corpus, or has no usable line raises
``SourceError`` (one line naming the file).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional

import orjson

if TYPE_CHECKING:
    import pandas as pd

from ..budgets import RUN
from ..registry import CORPUS_TITLES, CorpusAttribute
from ..safe_io import iter_lines, stream_lines
from ..types import SkippedRecord, SkippedRecords, SourceError

RUN_SCHEMA_VERSION = 1
RUN_SUFFIXES = (".jsonl.gz", ".json.gz", ".jsonl", ".json", ".txt", ".gz")
UNMATCHED_COLUMNS = ["file", "line", "record", "reason"]



def line_keys() -> dict[str, tuple[str, ...]]:
    """corpus -> the identifying keys of one line of its JSON Lines run (its scoring's ``LINE_KEYS``), to tell a
    wrong-corpus file apart."""
    return dict(_LINE_KEYS)


# the scoring of every registered corpus: a run's lines name no corpus, their keys tell it
_LINE_KEYS: Mapping[str, tuple[str, ...]] = CorpusAttribute("run_scoring", lambda scoring: tuple(scoring().LINE_KEYS))


def run_name(path: Path | str) -> str:
    """The default name of a run: its file name without the run suffix ("baseline.jsonl.gz" → "baseline")."""
    name = Path(path).name
    for suffix in RUN_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return Path(name).stem or name


RUN_LIMIT = RUN.max_bytes  # a run in the CoDraw corpus layout is as large as the corpus file (155 MB today)


def read_bytes(path: Path) -> bytes:
    """The file's bytes, gunzipped when it is gzip (by its magic number, whatever its name), without a byte order
    mark, within the run budget (``budgets.RUN``: bytes and lines, a gzip bomb refused while it inflates); a
    FIFO, device, folder, oversized file or gzip bomb is refused with one SourceError naming the file. Only for
    a run that is one JSON document (CoDraw's corpus layout, a Minecraft generated_sentences file): JSON Lines
    runs are read as a stream (``run_lines``)."""
    from .. import readahead
    from ..safe_io import check_lines, read_budgeted, without_bom

    data = readahead.take(path)  # a caller may have read and decompressed it already
    if data is None:
        return read_budgeted(path, RUN)
    check_lines(data, RUN.max_lines, path, RUN.what)
    return without_bom(data)


def run_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(1-based number, bytes) of every line of a run file, read as a stream within the run budget
    (``safe_io.stream_lines``): the memory of reading it is the rows its reader keeps and one line, never the
    whole content (the same refusals as ``read_bytes``, each one SourceError naming the file)."""
    from .. import readahead

    data = readahead.take(path)  # read ahead by a caller: its lines (nothing read ahead is left behind)
    if data is not None:
        from ..safe_io import check_lines, without_bom

        check_lines(data, RUN.max_lines, path, RUN.what)
        yield from iter_lines(without_bom(data))
        return
    yield from stream_lines(path, RUN)


class Lines:
    """Numbered lines with the first one already read put back in front; ``close`` closes the file under them."""

    def __init__(self, head: Optional[tuple[int, bytes]], rest: Iterator[tuple[int, bytes]]):
        self._head, self._rest = head, rest

    def __iter__(self) -> "Lines":
        return self

    def __next__(self) -> tuple[int, bytes]:
        if self._head is not None:
            head, self._head = self._head, None
            return head
        return next(self._rest)

    def close(self) -> None:
        self._head = None
        close = getattr(self._rest, "close", None)
        if close is not None:
            close()


def first_line(lines: Iterator[tuple[int, bytes]]) -> tuple[Optional[tuple[int, bytes]], Lines]:
    """The first line that is not blank, and every line from it on (itself included)."""
    for number, raw in lines:
        if raw.strip():
            return (number, raw), Lines((number, raw), lines)
    return None, Lines(None, lines)


@dataclass
class Line:
    number: int  # 1-based line number in the file
    record: dict


@dataclass
class Tally:
    """Where the rows of one run file went: skipped (malformed) and unmatched rows, with file and line."""

    file: str
    skipped: list[SkippedRecord] = field(default_factory=SkippedRecords)  # bounded: the first N and the total
    unmatched: list[dict] = field(default_factory=list)

    def skip(self, line: Optional[int], reason: str, record: str = "") -> None:
        if isinstance(self.skipped, SkippedRecords) and self.skipped.full:
            self.skipped.count_more()
            return
        where = f"{self.file}:{line}" if line is not None else self.file
        self.skipped.append(SkippedRecord(f"{where}{' ' + record if record else ''}", reason))

    def unmatch(self, line: Optional[int], record: str, reason: str) -> None:
        self.unmatched.append({"file": self.file, "line": line, "record": record, "reason": reason})

    def unmatched_frame(self):
        import pandas as pd

        frame = pd.DataFrame(self.unmatched, columns=UNMATCHED_COLUMNS)
        return frame.astype({"file": "str", "line": "Int64", "record": "str", "reason": "str"})


def json_lines(data: bytes | Iterable[tuple[int, bytes]], tally: Tally,
               too_long: Optional[Callable[[int], Optional[str]]] = None) -> Iterator[Line]:
    """Every line that is a JSON object, of the content ``data`` or of the numbered lines it gives (``run_lines``);
    blank lines are passed over, others skipped with a reason. ``too_long(size)``: why a line of ``size`` bytes
    is skipped before it is parsed (a line budget), or None."""
    for number, raw in iter_lines(data) if isinstance(data, bytes) else data:
        if too_long is not None and (reason := too_long(len(raw))):
            tally.skip(number, reason)
            continue
        raw = raw.strip()
        if not raw:
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            if isinstance(tally.skipped, SkippedRecords) and tally.skipped.full:
                tally.skipped.count_more()  # a file of junk lines costs a counter per line, not a message
            else:
                tally.skip(number, f"not JSON ({exc})")
            continue
        if not isinstance(value, dict):
            tally.skip(number, f"not a JSON object but {type(value).__name__}")
            continue
        yield Line(number, value)


def other_corpus(records: list[dict], corpus: str) -> Optional[str]:
    """The corpus whose run lines these look like, when it is not ``corpus`` (None if unclear)."""
    for other, keys in line_keys().items():
        if other == corpus:
            continue
        if records and sum(all(k in r for k in keys[:2]) for r in records) > len(records) / 2:
            return other
    return None


def prf(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    """Precision, recall, F1, each 0 when its denominator is 0 (the repository's ``compute_action_prf``)."""
    precision = tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = tp / (tp + fn) if tp + fn > 0 else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


def no_usable_line(path: Path | str, corpus: str, records: list[dict], total_lines: int, expected: str) -> SourceError:
    """The error for a file none of whose lines could be used, saying why as precisely as we can."""
    wrong = other_corpus(records, corpus)
    if wrong is not None:
        return SourceError(path, f"looks like a run of {CORPUS_TITLES[wrong]}, not of {CORPUS_TITLES[corpus]}")
    if total_lines == 0:
        return SourceError(path, f"holds no JSON object line; expected {expected}")
    return SourceError(path, f"has no usable line ({total_lines} read); expected {expected}")


def frame_part(frames: Mapping, name: str, columns: Sequence[str]) -> "pd.DataFrame":
    """``frames[name][columns]``, without reading (or keeping) the whole of a heavy frame of a cached run (whose
    frames offer ``part``: ``runs.RunFrames``)."""
    part = getattr(frames, "part", None)
    if part is not None:
        return part(name, columns)
    return frames[name][list(columns)]
