"""Types shared by every corpus: load errors, skipped-record reports, the loaded-corpus bundle and the
common turn-level schema that lets browse, search and the overview treat all corpora alike."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

if TYPE_CHECKING:  # pandas is imported by whoever builds frames; the CLI starts faster without it here
    import pandas as pd

CORPUS_NAMES = ("codraw", "gos", "minecraft")
CORPUS_TITLES = {"codraw": "CoDraw", "gos": "A Game Of Sorts", "minecraft": "Minecraft Collaborative Building"}

# Every corpus builds an ``utterances`` frame with exactly these columns, one row per chat message.
# ``round`` is the A Game Of Sorts round (1..4) and <NA> for corpora without rounds; ``turn`` is the
# replay step (from 1) the message belongs to, so (corpus, dialog_id, round, turn) is a deep link.
UTTERANCE_COLUMNS = ["corpus", "dialog_id", "round", "turn", "speaker", "role", "text", "time_s"]
# Every corpus builds a ``dialogs`` frame that starts with these columns (more may follow).
DIALOG_COLUMNS = ["corpus", "dialog_id", "split", "n_turns", "n_utterances", "duration_s"]

# progress(message, fraction in [0, 1] or None)
ProgressCallback = Callable[[str, Optional[float]], None]


def no_progress(message: str, fraction: Optional[float] = None) -> None:
    """Progress sink for callers that do not show progress."""


class SourceError(Exception):
    """A whole source cannot be loaded (missing path, not JSON, wrong layout...).

    The message always names the file so that the UI and the CLI can show it as one line."""

    def __init__(self, path: Path | str, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


@dataclass(frozen=True)
class SkippedRecord:
    """One broken unit (a round, a line, a game...) that was left out while everything else loaded."""

    record: str  # where: file plus record key / line number
    reason: str

    def as_dict(self) -> dict:
        return {"record": self.record, "reason": self.reason}


@dataclass
class LoadedCorpus:
    """A corpus as the app and the CLI see it: its frames plus where and how it was loaded."""

    corpus: str
    source: str  # the path, as given
    is_demo: bool
    frames: Mapping[str, pd.DataFrame]  # a dict, or cache.LazyFrames reading each frame on first use
    skipped: list[SkippedRecord] = field(default_factory=list)
    load_seconds: float = 0.0
    from_cache: bool = False
    assets: Optional[str] = None  # clip-art / image folder, when configured
    cache_note: Optional[str] = None  # why the frames were not cached (e.g. a read-only cache folder)

    @property
    def dialogs(self) -> pd.DataFrame:
        return self.frames["dialogs"]

    @property
    def utterances(self) -> pd.DataFrame:
        return self.frames["utterances"]
