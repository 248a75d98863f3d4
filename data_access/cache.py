"""Parquet cache of parsed frames, so that every start after the first skips parsing.

An entry is a folder ``<cache>/<corpus>-<key>/`` with one Parquet file per frame and a ``manifest.json``
written last. The key hashes the source's identity (path, size, modification and inode change time of every
file the loader reads: through symbolic links, and in the whole folder a file or sub-folder given stands for)
and a hash of the code that builds the frames (``corpora.frames_version``), so a changed source or code
simply misses the cache. The manifest holds the size and SHA-256 of every frame file, and a frame is only
used after its bytes match: an entry that cannot be read back completely or exactly (partial write, a
flipped byte) is deleted and rebuilt from the source, never trusted. A cache folder that cannot be written
is no error: the frames are built in memory, and ``cached_build`` says why they were not cached (the caller
tells the user once).

Frames of a hit are read lazily (``LazyFrames``): a summary that needs only ``dialogs`` never reads the
much larger per-round frames.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import stat
import tempfile
import weakref
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Optional

from .registry import CorpusAttribute
from .types import FramesByName, SkippedRecord, SkippedRecords, skipped_total

if TYPE_CHECKING:  # imported where frames are read, so that checking for a cache hit stays light
    import pandas as pd

MANIFEST = "manifest.json"


def _file_entry(name: str, st: os.stat_result) -> list:
    # (size, mtime_ns) alone misses an edit of the same size whose mtime was put back (cp -p, rsync -t,
    # touch -r, tar x all restore it). The inode's change time cannot be set from user space: writing the
    # content, utime() and a rename onto the file all set it to "now". So a restored mtime still changes the
    # key, for the price of one field of the stat already made. Its cost: a chmod, chown or hard link of a
    # source file also changes it, which only means one rebuild (a cold load), never stale data. Hashing the
    # content instead was measured (2 busy cores): the 11 MB CoDraw .json.gz costs 3 ms (crc32) to 14 ms
    # (blake2b) warm, the 155 MB uncompressed file 56-200 ms, against a 0.17 s warm load; the first and last
    # 1 MB (2.5 ms) miss an edit in the middle. The change time catches the same cases at no cost.
    return [name, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _link_text(path: str) -> str:
    """What a link that cannot be followed (a loop, a dangling link) points at, or why it cannot be read."""
    try:
        return "-> " + os.readlink(path)
    except OSError as exc:
        return f"unreadable ({errno.errorcode.get(exc.errno or 0, exc.errno)})"


def source_fingerprint(path: Path) -> list:
    """[relative path, size, mtime_ns, ctime_ns] of the file, or of every file below the folder, sorted.

    Symbolic links are followed, as the loaders follow them (the Minecraft loader reads game folders linked
    into ``logs/<date>/logs/``). Each real folder is walked once: a folder reached again (a second link to it,
    or a link back to one of its ancestors: a loop) is one entry naming where it was walked, so a loop ends
    and an edit inside a linked folder still changes the fingerprint. A link that cannot be followed (a loop
    of links, a dangling link) is one entry with its link text."""
    path = Path(path)
    try:
        st = os.stat(path)
    except OSError:
        return [[path.name, _link_text(str(path))]]
    if not stat.S_ISDIR(st.st_mode):
        return [_file_entry(path.name, st)]
    entries: list = []
    walked = {(st.st_dev, st.st_ino): "."}  # each real folder -> where below ``path`` it is walked
    pending = [(str(path), "")]
    while pending:  # a stack, not recursion: a deep tree must not exhaust Python's recursion limit
        folder, relative = pending.pop()
        try:
            with os.scandir(folder) as listing:
                children = sorted(listing, key=lambda child: child.name)
        except OSError as exc:
            entries.append([relative or ".", f"unreadable folder ({errno.errorcode.get(exc.errno or 0, exc.errno)})"])
            continue
        for child in children:
            name = os.path.join(relative, child.name) if relative else child.name
            try:
                child_st = child.stat()  # follows a link
            except OSError:
                entries.append([name, _link_text(child.path)])
                continue
            if stat.S_ISDIR(child_st.st_mode):
                identity = (child_st.st_dev, child_st.st_ino)
                if identity in walked:
                    entries.append([name, "same folder as " + walked[identity]])
                else:
                    walked[identity] = name
                    pending.append((child.path, name))
            else:
                entries.append(_file_entry(name, child_st))
    entries.sort(key=lambda entry: entry[0])  # relative paths are unique
    return entries


# corpus name -> its package's ``source_root``: an entry is keyed by the corpus's name
_SOURCE_ROOTS = CorpusAttribute("source_root")


def source_root(corpus: str, path: Path) -> Path:
    """The file or folder the loader of ``corpus`` actually reads when given ``path`` (the corpus package's
    ``source_root``: A Game Of Sorts given as one of its six files means its folder, Minecraft given as
    ``<root>/logs`` means its root): the key must cover every file the frames come from. A path the loader
    refuses, or an unknown corpus, is returned as it is (the load then reports it)."""
    path = Path(path)
    try:
        return Path(_SOURCE_ROOTS[corpus](path))
    except Exception:  # noqa: BLE001 - only the key is computed here; the loader names the problem
        return path


def cache_key(corpus: str, path: Path, code_version: str | int) -> str:
    """The entry's key: the source's identity and the version (hash) of the code that builds the frames."""
    identity = {
        "corpus": corpus,
        "path": os.path.realpath(path),  # not Path.resolve(): it raises RuntimeError on a symlink loop
        "code": code_version,
        "files": source_fingerprint(source_root(corpus, path)),
    }
    return hashlib.sha1(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]


def entry_dir(cache_root: Path, corpus: str, key: str) -> Path:
    return Path(cache_root) / f"{corpus}-{key}"


Build = Callable[[], "tuple[dict[str, pd.DataFrame], list[SkippedRecord]]"]


class LazyFrames(FramesByName):
    """The frames of one cache entry, each read from Parquet the first time it is asked for.

    A file that turns out to be unreadable then (damage the size check could not see) makes the whole
    entry be rebuilt from the source. Pickling (e.g. by st.cache_data) reads every frame and yields a
    plain dict, so a pickled copy never depends on the cache folder."""

    def __init__(self, entry: Path, digests: dict[str, dict], rebuild: Build):
        self._entry, self._names, self._rebuild = entry, list(digests), rebuild
        self._digests = digests
        self._frames: dict[str, pd.DataFrame] = {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._names:
            raise KeyError(name)
        if name not in self._frames:
            import pandas as pd
            import pyarrow as pa

            try:
                # Arrow's own BufferReader, never a Python file object such as io.BytesIO: reading through
                # one with Arrow's thread pool can abort or hang the interpreter at exit (apache/arrow
                # #34314, #50482); it aborted a CI run of the command line.
                data = pa.BufferReader(verified_bytes(self._entry, name, self._digests[name]))
                self._frames[name] = pd.read_parquet(data)
            except Exception:  # noqa: BLE001 - any damage means "rebuild"; the source is still there
                shutil.rmtree(self._entry, ignore_errors=True)
                frames, _skipped = self._rebuild()
                self._frames, self._names = dict(frames), list(frames)
        return self._frames[name]

    @property
    def entry(self) -> Path:
        """The cache entry's folder."""
        return self._entry

    def row_counts(self) -> dict[str, int]:
        """Rows per frame, from the manifest (a frame is read only for an entry written without them)."""
        return {name: int(self._digests[name]["rows"]) if "rows" in self._digests[name] else len(self[name])
                for name in self._names}

    def columns(self, name: str, names: list[str]) -> dict[str, list]:
        """Some columns of one frame as Python lists (missing values None), read with pyarrow alone while
        the frame is not in memory: a warm command-line summary then never imports pandas."""
        if name in self._frames or name not in self._names:
            return frame_columns(self[name], names)
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            # ParquetFile, not read_table: read_table goes through pyarrow.dataset, which imports pandas.
            data = pa.BufferReader(verified_bytes(self._entry, name, self._digests[name]))
            table = pq.ParquetFile(data).read(columns=list(names), use_threads=False)
        except Exception:  # noqa: BLE001 - damage: read the frame the usual way, which rebuilds the entry
            return frame_columns(self[name], names)
        return {column: table.column(column).to_pylist() for column in names}



def frame_columns(frame: "pd.DataFrame", names: list[str]) -> dict[str, list]:
    """The columns of a frame as Python lists, missing values (NaN, NA, None) as None: converted exactly as
    the cache writes them, so figures computed from them are the same cold and warm."""
    import pyarrow as pa

    table = pa.Table.from_pandas(frame[list(names)], preserve_index=False)
    return {column: table.column(column).to_pylist() for column in names}


def read_columns(frames: Mapping, name: str, names: list[str]) -> dict[str, list]:
    """``names`` of frame ``name`` as lists: from a cache hit or frames just built as Arrow tables without
    pandas, else from the pandas frames in memory."""
    from .tables import BuiltFrames

    if isinstance(frames, (LazyFrames, BuiltFrames)):
        return frames.columns(name, names)
    return frame_columns(frames[name], names)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def verified_bytes(entry: Path, name: str, expected: dict) -> bytes:
    """The bytes of one frame file; ValueError unless their size and SHA-256 are the manifest's."""
    data = (entry / f"{name}.parquet").read_bytes()
    if len(data) != expected["size"] or _digest(data) != expected["sha256"]:
        raise ValueError(f"{entry / name}.parquet does not match its checksum")
    return data


def _manifest_digest(manifest: dict) -> str:
    body = {k: v for k, v in manifest.items() if k != "digest"}
    return _digest(json.dumps(body, sort_keys=True).encode())


def read_entry(entry: Path, rebuild: Optional[Build] = None) -> Optional[tuple[Mapping[str, pd.DataFrame], list[SkippedRecord]]]:
    """The cached frames (read lazily), or None when the entry is missing or visibly damaged (then removed).

    ``rebuild`` is called if a frame file proves unreadable when it is first read."""
    manifest_path = entry / MANIFEST
    if not manifest_path.is_file():
        return None
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("digest") != _manifest_digest(manifest):
            raise ValueError(f"{manifest_path} does not match its checksum")
        for name, expected in manifest["frames"].items():
            file = entry / f"{name}.parquet"
            if file.stat().st_size != expected["size"] or not isinstance(expected["sha256"], str):
                raise ValueError(f"{file} has the wrong size")
        skipped = SkippedRecords([SkippedRecord(s["record"], s["reason"]) for s in manifest["skipped"]],
                                 total=manifest.get("skipped_total"))
    except Exception:  # noqa: BLE001 - any damage means "rebuild"; the source is still there
        shutil.rmtree(entry, ignore_errors=True)
        return None

    def fail_rebuild():
        raise ValueError(f"{entry}: a cached frame is unreadable")

    return LazyFrames(entry, dict(manifest["frames"]), rebuild or fail_rebuild), skipped


def write_entry(entry: Path, frames: Mapping[str, pd.DataFrame], skipped: Iterable[SkippedRecord]) -> Optional[str]:
    """Write all frames into a temporary folder and rename it into place, so readers never see half an entry.

    Returns None, or why the entry could not be written (a read-only or full cache folder must not stop
    the app: the frames are still in memory)."""
    from .tables import BuiltFrames

    tmp = None
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=entry.name + ".", dir=entry.parent))

        def write(name: str) -> dict:
            file = tmp / f"{name}.parquet"
            if isinstance(frames, BuiltFrames):  # Arrow tables as built, encoded in memory and hashed there
                import pyarrow as pa
                import pyarrow.parquet as pq

                sink = pa.BufferOutputStream()
                table = frames.table(name)
                pq.write_table(table, sink)
                data = sink.getvalue()
                file.write_bytes(data)
                rows = table.num_rows
            else:
                frames[name].to_parquet(file, index=False)
                data = file.read_bytes()
                rows = len(frames[name])
            # The row count too: the Data page shows it without reading any frame.
            return {"size": len(data), "sha256": _digest(data), "rows": int(rows)}

        # Arrow encodes and compresses without the GIL, so two frames are written at a time.
        with ThreadPoolExecutor(max_workers=2) as pool:
            digests = dict(zip(frames, pool.map(write, list(frames))))
        manifest = {"frames": digests, "skipped": [s.as_dict() for s in skipped], "skipped_total": skipped_total(skipped)}
        manifest["digest"] = _manifest_digest(manifest)
        (tmp / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        if entry.exists():
            shutil.rmtree(entry, ignore_errors=True)
        os.replace(tmp, entry)
        return None
    except OSError as exc:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        return f"the cache folder {entry.parent} cannot be written ({exc.strerror or exc}); loaded without caching"


def cached_build(
    cache_root: Path,
    corpus: str,
    path: Path,
    code_version: str,
    build: Build,
    problems: Optional[list[str]] = None,
) -> tuple[Mapping[str, pd.DataFrame], list[SkippedRecord], bool]:
    """Frames from the cache when the source and schema are unchanged, else built and cached.

    Returns (frames, skipped, from_cache); why the frames could not be cached is appended to ``problems``."""
    entry = entry_dir(cache_root, corpus, cache_key(corpus, path, code_version))
    problems = [] if problems is None else problems

    def rebuild():
        frames, skipped = build()
        if type(frames) is dict:
            frames = FramesDict(frames)  # so that ``entry_of`` can tell these frames by a weak reference
        problem = write_entry(entry, frames, skipped)
        if problem:
            problems.append(problem)
        else:
            _remember_entry(frames, entry)
        return frames, skipped

    hit = read_entry(entry, rebuild)
    if hit is not None:
        return hit[0], hit[1], True
    frames, skipped = rebuild()
    return frames, skipped, False


# --------------------------------------------------------------------------------------- cached summaries
# Small figures computed from a corpus's frames (e.g. the Overview's counts and distributions) kept beside
# its frames, so that a page showing only them reads a small file instead of every frame after a restart.
# A summary lives in its entry's folder, so a rebuilt entry (changed source or frame code) drops it; its
# name includes a hash of the code computing it, so changed summary code misses it too.
SUMMARIES = "summaries"
_written: "dict[int, tuple[weakref.ref, Path]]" = {}  # frames just built and written -> their entry


class FramesDict(dict):
    """A plain dict of frames that can be referred to weakly (a ``dict`` cannot)."""


def _remember_entry(frames: Mapping, entry: Path) -> None:
    key = id(frames)

    def forget(_gone: object) -> None:
        _written.pop(key, None)

    try:
        ref = weakref.ref(frames, forget)
    except TypeError:  # not referable weakly: its summaries are computed, and kept from the next start on
        return
    _written[id(frames)] = (ref, entry)


def entry_of(frames: Mapping) -> Optional[Path]:
    """The cache entry holding ``frames`` (a cache hit, or frames this process just built and cached), or None."""
    if isinstance(frames, LazyFrames):
        return frames.entry
    written = _written.get(id(frames))
    return written[1] if written is not None and written[0]() is frames else None


def row_counts(frames: Mapping) -> dict[str, int]:
    """Rows per frame: from the manifest for a cache hit, else by counting the frames in memory."""
    if isinstance(frames, LazyFrames):
        return frames.row_counts()
    return {name: len(frame) for name, frame in frames.items()}


def _summary_file(entry: Path, name: str) -> Path:
    if not name or any(c not in "abcdefghijklmnopqrstuvwxyz0123456789_-." for c in name) or name.startswith("."):
        raise ValueError(f"not a summary name: {name!r}")
    return entry / SUMMARIES / f"{name}.json"


def read_summary(entry: Path, name: str) -> Optional[dict]:
    """The summary ``name`` stored in ``entry``, or None when absent or damaged (a damaged one is removed)."""
    file = _summary_file(entry, name)
    try:
        stored = json.loads(file.read_text(encoding="utf-8"))
        if stored.get("digest") != _digest(json.dumps(stored["value"], sort_keys=True).encode()):
            raise ValueError(f"{file} does not match its checksum")
        return stored["value"]
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a damaged summary is recomputed
        file.unlink(missing_ok=True)
        return None


def write_summary(entry: Path, name: str, value: dict) -> bool:
    """Store a JSON-able summary in ``entry`` (atomically); False when the folder cannot be written."""
    file = _summary_file(entry, name)
    if not (entry / MANIFEST).is_file():
        return False  # the entry is gone (rebuilt meanwhile): nothing to attach the summary to
    try:
        file.parent.mkdir(exist_ok=True)
        body = json.dumps({"value": value, "digest": _digest(json.dumps(value, sort_keys=True).encode())})
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=file.parent, prefix=file.name + ".",
                                         delete=False) as out:
            out.write(body)
        os.replace(out.name, file)
        return True
    except OSError:
        return False
