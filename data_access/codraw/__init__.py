"""CoDraw (Kim et al., ACL 2019): a Teller describes a clip-art scene, a Drawer recreates it.

Implements ``data_access.contract.CorpusPackage``: reading the files (``reader``), the frames (``frames``),
the vectorised scene parser (``scenes``), both scene-similarity metrics (``metrics``), the scene renderer
(``render``), the replay view model (``view``), the corpus summary (``summary``) and the demo corpus (``demo``).

Everything heavy is imported on first use only: a start from the Parquet cache never needs the parser,
and the CLI can check for a cache hit (``corpora.frames_version``) before numpy and pandas are loaded.
"""
from __future__ import annotations

from pathlib import Path

from ..common import ProgressCallback, no_progress

NAME = "codraw"
DEMO_VERSION = 1
REPLAY_IN_ROUNDS = False  # a replay step is a round
FRAMES = ("dialogs", "rounds", "cliparts", "utterances")


def write_demo(folder: Path) -> None:
    """Write the generated demo corpus; see ``data_access.codraw.demo``."""
    from .demo import write_demo as write

    write(folder)


def demo_source(folder: Path) -> Path:
    from .demo import demo_source as source

    return source(folder)


def summarize(loaded) -> dict:
    """The figures the CLI prints; see ``data_access.codraw.summary``."""
    from .summary import summarize as summary

    return summary(loaded)


def build_frames(path: Path, progress: ProgressCallback = no_progress):
    """Parse a CoDraw source into its frames; see ``data_access.codraw.frames.build_frames``."""
    from .frames import build_frames as build

    return build(path, progress)


def step_count(loaded, dialog_id: str, round=None) -> int:
    """Replay steps of a dialog: its rounds."""
    from .view import step_count as count

    return count(loaded, dialog_id, round)


def snapshot(loaded, dialog_id: str, step: int, round=None):
    """Target and canvas after round ``step`` side by side (for ``data_access.snapshots``)."""
    from .view import snapshot as picture

    return picture(loaded, dialog_id, step, round)


def replay_step(loaded, dialog_id: str, step: int, round=None):
    """The replay view model of round ``step``; see ``data_access.codraw.view.replay_step``."""
    from .view import replay_step as view

    return view(loaded, dialog_id, step, round)


def dialog_labels(loaded) -> dict[str, str]:
    """dialog_id → "test_00009 · test · 7 rounds"."""
    return {row.dialog_id: f"{row.dialog_id} · {row.split} · {row.n_rounds} rounds"
            for row in loaded.dialogs[["dialog_id", "split", "n_rounds"]].itertuples(index=False)}


__all__ = ["NAME", "DEMO_VERSION", "REPLAY_IN_ROUNDS", "FRAMES", "build_frames", "summarize",
           "write_demo", "demo_source", "dialog_labels", "step_count", "replay_step", "snapshot"]
