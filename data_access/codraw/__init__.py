"""CoDraw (Kim et al., ACL 2019): a Teller describes a clip-art scene, a Drawer recreates it.

Implements the corpus-module contract of ``data_access.corpora``: parsing (``parse``), the vectorised
scene parser (``scenes``), both scene-similarity metrics (``metrics``), the scene renderer (``render``),
the replay view model (``replay``), the corpus summary (``summary``) and the demo corpus (``demo``).

Everything heavy is imported on first use only: a start from the Parquet cache never needs the parser,
and the CLI can check for a cache hit (``SCHEMA_VERSION``) before numpy and pandas are loaded.
"""
from __future__ import annotations

from pathlib import Path

from ..common import ProgressCallback, no_progress

SCHEMA_VERSION = 2
DEMO_VERSION = 1


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
    """Parse a CoDraw source into its frames; see ``data_access.codraw.parse.build_frames``."""
    from .parse import build_frames as build

    return build(path, progress)


def step_count(loaded, dialog_id: str, round=None) -> int:
    """Replay steps of a dialog (for ``data_access.replay``)."""
    from .replay import step_count as count

    return count(loaded, dialog_id, round)


def snapshot(loaded, dialog_id: str, step: int, round=None):
    """Target and canvas after round ``step`` side by side (for ``data_access.replay``)."""
    from .replay import snapshot as picture

    return picture(loaded, dialog_id, step, round)


__all__ = ["SCHEMA_VERSION", "DEMO_VERSION", "build_frames", "summarize", "write_demo", "demo_source", "step_count",
           "snapshot"]
