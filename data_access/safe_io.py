"""Reading corpus files without trusting them to be files: every reader goes through ``read_capped``.

A path given as a corpus file may be a FIFO (opening it blocks until someone writes), a device such as
``/dev/zero`` (it never ends), a sparse file of gigabytes (it eats memory, and a JSON decoder under a
memory limit may crash) or a folder. ``read_capped`` checks the file type before opening anything, opens
without blocking, and reads at most a limit chosen from what the format can need (generous multiples of
the real corpora); gzip data is decompressed under the same kind of limit. Every refusal is a
``SourceError`` whose one-line message names the file. Standard library only (the CLI's read-ahead
thread uses it while pandas is still importing).
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Optional

if TYPE_CHECKING:
    from .budgets import Budget

# ISA-L's inflate (python-isal) decompresses the 155 MB CoDraw file in about half zlib's time, with zlib's
# API and errors; the standard library's zlib is the fallback where the wheel is missing.
try:
    from isal import isal_zlib as zlib
except ImportError:  # pragma: no cover - isal is pinned in requirements.txt
    import zlib  # type: ignore[no-redef]  # the same API

from .types import SourceError

_BOM = b"\xef\xbb\xbf"


def without_bom(raw: bytes) -> bytes:
    """``raw`` without one leading UTF-8 byte order mark: it is UTF-8 too, but JSON parsers refuse it."""
    return raw[len(_BOM):] if raw.startswith(_BOM) else raw

from .budgets import GiB, MiB  # noqa: E402 - the units of the limits below

# What each format can need. The real files: CoDraw_1_0.json 155 MB (11 MB gzip), a per-dialog CoDraw
# file ~20 kB, the largest A Game Of Sorts file 1 MB, the largest Minecraft game file ~1.2 MB, a gold
# configuration 5 kB, splits.json 1 kB. The limits leave room for much larger releases.
LIMITS = {
    "codraw file": 4 * GiB,  # the single file, after decompression (ten times the real corpus is 1.5 GB)
    "codraw dialog": 16 * MiB,  # one per-dialog file
    "jsonl": 256 * MiB,  # one A Game Of Sorts JSON Lines file
    "text": 16 * MiB,  # README.md / get_images.sh beside the data
    "minecraft game": 128 * MiB,  # one postprocessed-observations.json
    "gold": 4 * MiB,  # one gold-configuration XML file
    "splits": 4 * MiB,  # logs/splits.json
    "image": 64 * MiB,  # one clip-art PNG or A Game Of Sorts photo
    "layer": 64 * MiB,  # one published annotation layer (the budget of budgets.LAYER)
}


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _size_text(n: int) -> str:
    return f"{n / GiB:.1f} GB" if n >= GiB else f"{n / MiB:.1f} MB" if n >= MiB else f"{n:,} bytes"


def check_file(path: Path | str) -> os.stat_result:
    """The file's status; SourceError when it does not exist or is not a regular file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise SourceError(path, "does not exist") from None
    except OSError as exc:
        raise SourceError(path, f"cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise SourceError(path, f"is {_kind(st.st_mode)}, not a regular file")
    return st


def is_regular_file(path: Path | str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def read_capped(path: Path | str, limit: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; never blocks, never reads more than that."""
    st = check_file(path)
    if st.st_size > limit:
        raise SourceError(path, f"is {_size_text(st.st_size)}, more than a {what} can be ({_size_text(limit)}); "
                                "is it the right file?")
    try:
        # O_NONBLOCK: should the path have become a FIFO since the check, opening it must not hang.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SourceError(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SourceError(path, f"is {_kind(st.st_mode)}, not a regular file")
        # One read of the whole file where it can (a regular file is read whole by one call up to 2 GB): a
        # list of pieces joined at the end would hold the file twice.
        first = os.read(fd, min(st.st_size, limit) + 1)
        chunks, total = [first], len(first)
        while first and total <= limit:
            chunk = os.read(fd, min(64 * MiB, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise SourceError(path, f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if total > limit:  # the file grew while being read
        raise SourceError(path, f"is more than a {what} can be ({_size_text(limit)})")
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def gunzip_capped(raw: bytes, limit: int, path: Path | str, what: str = "file",
                  max_lines: Optional[int] = None) -> bytes:
    """Decompress gzip data (all members) to at most ``limit`` bytes and ``max_lines`` lines; SourceError
    beyond either or when damaged. The input is fed in slices of 1 MB and the output taken in pieces of at
    most 16 MB, each checked as it comes, so a gzip bomb is refused one piece past its budget, never after
    inflating it whole (nor is the compressed input copied)."""
    out, total, lines = [], 0, 0
    view, position, size = memoryview(raw), 0, len(raw)
    try:
        while position < size:
            decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
            while True:
                chunk: bytes | memoryview
                if decompressor.unconsumed_tail:
                    chunk = decompressor.unconsumed_tail
                elif position < size:
                    chunk = view[position:position + _INPUT]
                    position += len(chunk)
                else:
                    break
                piece = decompressor.decompress(chunk, min(_PIECE, limit + 1 - total))
                out.append(piece)
                total += len(piece)
                if total > limit:
                    raise SourceError(path, f"decompresses to more than a {what} can be ({_size_text(limit)})")
                if max_lines is not None:
                    lines += piece.count(b"\n")
                    if lines > max_lines:
                        raise SourceError(path, f"decompresses to more than {max_lines:,} lines, more than a {what} "
                                                "can have")
                if decompressor.eof:
                    break
            if not decompressor.eof:
                raise SourceError(path, "is a damaged or truncated gzip file (compressed data ends early)")
            position -= len(decompressor.unused_data)  # the next member starts there
            padding_end = _NOT_ZERO.search(raw, position)  # gzip allows zero padding between members
            position = padding_end.start() if padding_end else size
    except zlib.error as exc:  # type: ignore[misc]  # isal's zlib.error is an exception class, untyped
        raise SourceError(path, f"is a damaged or truncated gzip file ({exc})") from None
    return b"".join(out)


_INPUT = 1 * MiB
_NOT_ZERO = re.compile(rb"[^\x00]")
_PIECE = 16 * MiB


def check_lines(data: bytes, max_lines: int, path: Path | str, what: str = "file") -> None:
    """SourceError when ``data`` holds more than ``max_lines`` lines (counted in C, before any is parsed)."""
    if data.count(b"\n") > max_lines:
        raise SourceError(path, f"has more than {max_lines:,} lines, more than a {what} can have")


def read_budgeted(path: Path | str, budget: "Budget") -> bytes:
    """The content of a file of the kind ``budget`` describes (``data_access.budgets``): at most its bytes on
    disk, gunzipped when it is gzip (by its magic number, whatever its name) within its bytes and lines,
    without a byte order mark. A FIFO, device, folder, oversized file or gzip bomb: one SourceError naming it."""
    data = read_capped(path, budget.max_bytes, budget.what)
    if data[:2] == b"\x1f\x8b":
        data = gunzip_capped(data, budget.max_bytes, path, budget.what, budget.max_lines)
    else:
        check_lines(data, budget.max_lines, path, budget.what)
    return without_bom(data)


def iter_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(1-based number, bytes without the newline) of every line, one at a time: ``data.split`` would make a
    list of every line at once (a gigabyte of newlines is a billion list entries)."""
    start, number, end_of_data = 0, 0, len(data)
    find = data.find
    while start < end_of_data:
        number += 1
        end = find(b"\n", start)
        if end < 0:
            yield number, data[start:]
            return
        yield number, data[start:end]
        start = end + 1


# A stream reads this much of the file at a time and inflates gzip data this much at a time: its own memory is
# one such piece and the line it is in the middle of, whatever the size of the file.
_STREAM_PIECE = 1 * MiB


def _file_pieces(fd: int, limit: int, path: Path | str, what: str) -> Iterator[bytes]:
    """The bytes of the open regular file ``fd``, a piece at a time, never more than ``limit`` of them."""
    total = 0
    while True:
        try:
            piece = os.read(fd, _STREAM_PIECE)
        except OSError as exc:
            raise SourceError(path, f"cannot be read ({exc.strerror or exc})") from None
        if not piece:
            return
        total += len(piece)
        if total > limit:  # the file grew while being read
            raise SourceError(path, f"is more than a {what} can be ({_size_text(limit)})")
        yield piece


def _inflated_pieces(pieces: Iterable[bytes], limit: int, path: Path | str, what: str) -> Iterator[bytes]:
    """Gzip data (every member, zero padding between them passed over) inflated a piece of at most
    ``_STREAM_PIECE`` bytes at a time; SourceError past ``limit`` bytes of content, or when damaged."""
    source = iter(pieces)
    pending = b""  # compressed input not fed yet (what followed a member's end)
    decompressor = None
    total = 0
    try:
        while True:
            if not pending:
                pending = next(source, b"")
                if not pending:
                    break
            if decompressor is None:
                pending = pending.lstrip(b"\0")  # gzip allows zero padding between members
                if not pending:
                    continue
                decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
            chunk, pending = pending, b""
            while chunk:
                content = decompressor.decompress(chunk, _STREAM_PIECE)
                total += len(content)
                if total > limit:
                    raise SourceError(path, f"decompresses to more than a {what} can be ({_size_text(limit)})")
                if content:
                    yield content
                if decompressor.eof:
                    pending = decompressor.unused_data  # the next member, or padding
                    decompressor = None
                    break
                chunk = decompressor.unconsumed_tail
        if decompressor is not None:
            raise SourceError(path, "is a damaged or truncated gzip file (compressed data ends early)")
    except zlib.error as exc:  # type: ignore[misc]  # isal's zlib.error is an exception class, untyped
        raise SourceError(path, f"is a damaged or truncated gzip file ({exc})") from None


def stream_lines(path: Path | str, budget: "Budget") -> Iterator[tuple[int, bytes]]:
    """(1-based number, bytes without the newline) of every line of a file of the kind ``budget`` describes,
    read (and gunzipped when it is gzip, by its magic number) a piece at a time: the whole content is never
    held, only the piece being split and the line it ends in the middle of. The same refusals as
    ``read_budgeted``, each one SourceError naming the file: a FIFO, device or folder, and a file over the byte
    budget, before anything is read; content past the byte budget, or more newlines than the line budget, as
    soon as the piece that passes it is read, before any of its lines is given (so the lines given before are
    at most the budget's). A leading byte order mark is dropped."""
    st = check_file(path)
    if st.st_size > budget.max_bytes:
        raise SourceError(path, f"is {_size_text(st.st_size)}, more than a {budget.what} can be "
                                f"({_size_text(budget.max_bytes)}); is it the right file?")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SourceError(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise SourceError(path, f"is {_kind(mode)}, not a regular file")
        pieces: Iterator[bytes] = _file_pieces(fd, budget.max_bytes, path, budget.what)
        first = next(pieces, b"")
        while 0 < len(first) < 2:  # too short to tell gzip's magic number yet
            more = next(pieces, b"")
            if not more:
                break
            first += more
        gzipped = first[:2] == b"\x1f\x8b"
        if gzipped:
            pieces = _inflated_pieces(_chained(first, pieces), budget.max_bytes, path, budget.what)
        else:
            pieces = _chained(first, pieces)
        too_many = (f"decompresses to more than {budget.max_lines:,} lines, more than a {budget.what} can have"
                    if gzipped else f"has more than {budget.max_lines:,} lines, more than a {budget.what} can have")
        yield from _split_lines(_without_leading_bom(pieces), budget.max_lines, path, too_many)
    finally:
        os.close(fd)


def _chained(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


def _without_leading_bom(pieces: Iterator[bytes]) -> Iterator[bytes]:
    head = b""
    for piece in pieces:
        head += piece
        if len(head) >= len(_BOM):
            break
    head = without_bom(head)
    if head:
        yield head
    yield from pieces


def _split_lines(pieces: Iterable[bytes], max_lines: int, path: Path | str, too_many: str) -> Iterator[tuple[int, bytes]]:
    """The lines of the content given in ``pieces``; SourceError (``too_many``) before giving any line of the
    piece whose newlines pass ``max_lines``. A line across pieces is joined once (its parts are kept in a list),
    so a long line costs its length, not its length times its number of pieces."""
    number, newlines = 0, 0
    parts: list[bytes] = []  # the line the last piece ended in the middle of
    for piece in pieces:
        newlines += piece.count(b"\n")
        if newlines > max_lines:
            raise SourceError(path, too_many)
        start, find = 0, piece.find
        end = find(b"\n")
        while end >= 0:
            number += 1
            line = piece[start:end]
            if parts:
                parts.append(line)
                line = b"".join(parts)
                parts = []
            yield number, line
            start = end + 1
            end = find(b"\n", start)
        if start < len(piece):
            parts.append(piece[start:] if start else piece)
    if parts:
        yield number + 1, b"".join(parts)
