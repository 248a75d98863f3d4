"""Parquet cache of parsed frames, so that every start after the first skips parsing.

An entry is a folder ``<cache>/<corpus>-<key>/`` with one Parquet file per frame and a ``manifest.json``
written last. The key hashes the source's identity (path, size and modification time of every file in
it) and the corpus's frame-schema version, so a changed source or schema simply misses the cache. An entry
that cannot be read back completely (partial write, corrupt file) is deleted and rebuilt, never trusted.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Optional

import pandas as pd

from .common import SkippedRecord

MANIFEST = "manifest.json"


def source_fingerprint(path: Path) -> list:
    """(relative path, size, mtime_ns) of the file, or of every file below the folder, sorted."""
    path = Path(path)
    if path.is_file():
        st = path.stat()
        return [[path.name, st.st_size, st.st_mtime_ns]]
    entries = []
    for root, _dirs, files in os.walk(path):
        for name in files:
            full = os.path.join(root, name)
            try:
                st = os.stat(full)
            except OSError:
                continue
            entries.append([os.path.relpath(full, path), st.st_size, st.st_mtime_ns])
    entries.sort()
    return entries


def cache_key(corpus: str, path: Path, schema_version: int) -> str:
    identity = {
        "corpus": corpus,
        "path": str(Path(path).resolve()),
        "schema": schema_version,
        "files": source_fingerprint(path),
    }
    return hashlib.sha1(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]


def entry_dir(cache_root: Path, corpus: str, key: str) -> Path:
    return Path(cache_root) / f"{corpus}-{key}"


def read_entry(entry: Path) -> Optional[tuple[dict[str, pd.DataFrame], list[SkippedRecord]]]:
    """The cached frames, or None when the entry is missing or damaged (a damaged one is removed)."""
    manifest_path = entry / MANIFEST
    if not manifest_path.is_file():
        return None
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        frames = {}
        for name, size in manifest["frames"].items():
            file = entry / f"{name}.parquet"
            if file.stat().st_size != size:
                raise ValueError(f"{file} has the wrong size")
            frames[name] = pd.read_parquet(file)
        skipped = [SkippedRecord(s["record"], s["reason"]) for s in manifest["skipped"]]
        return frames, skipped
    except Exception:  # noqa: BLE001 - any damage means "rebuild"; the source is still there
        shutil.rmtree(entry, ignore_errors=True)
        return None


def write_entry(entry: Path, frames: dict[str, pd.DataFrame], skipped: Iterable[SkippedRecord]) -> None:
    """Write all frames into a temporary folder and rename it into place, so readers never see half an entry."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=entry.name + ".", dir=entry.parent))
    try:
        sizes = {}
        for name, frame in frames.items():
            file = tmp / f"{name}.parquet"
            frame.to_parquet(file, index=False)
            sizes[name] = file.stat().st_size
        manifest = {"frames": sizes, "skipped": [s.as_dict() for s in skipped]}
        (tmp / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        if entry.exists():
            shutil.rmtree(entry, ignore_errors=True)
        os.replace(tmp, entry)
    except OSError:
        # A read-only or full cache folder must not stop the app: the frames are still in memory.
        shutil.rmtree(tmp, ignore_errors=True)


def cached_build(
    cache_root: Path,
    corpus: str,
    path: Path,
    schema_version: int,
    build: Callable[[], tuple[dict[str, pd.DataFrame], list[SkippedRecord]]],
) -> tuple[dict[str, pd.DataFrame], list[SkippedRecord], bool]:
    """Frames from the cache when the source and schema are unchanged, else built and cached.

    Returns (frames, skipped, from_cache)."""
    entry = entry_dir(cache_root, corpus, cache_key(corpus, path, schema_version))
    hit = read_entry(entry)
    if hit is not None:
        return hit[0], hit[1], True
    frames, skipped = build()
    write_entry(entry, frames, skipped)
    return frames, skipped, False
