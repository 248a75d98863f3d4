"""The corpus contract: what every corpus package (``data_access.codraw``, ``.gos``, ``.minecraft``) provides.

The rest of the app never imports a corpus package by hand: ``corpora.corpus_module(name)`` returns it typed
as ``CorpusPackage``, and loading, caching, the CLI, Compare, Present and the exports only use what is
declared here. ``tests/unit/test_contract.py`` checks every package against it (members and signatures).

A package's modules play the same roles in every corpus:

=============  ==================================================================================
reader.py      reading the raw files (the corpus's own field names stay here)
frames.py      ``build_frames``: the frames, common columns first (``common.DIALOG_COLUMNS``,
               ``common.UTTERANCE_COLUMNS``), then the corpus's own frames
view.py        ``replay_step`` / ``step_count`` / ``snapshot`` / ``dialog_labels``: the replay view model
render.py      pictures of a state (PIL images, plotly figures)
summary.py     ``summarize``: the figures ``python -m data_access summary`` prints
demo.py        ``write_demo`` / ``demo_source``: the generated demo corpus in the real file format
=============  ==================================================================================

Corpus-specific extras (CoDraw's ``metrics``/``scenes``, A Game Of Sorts' ``ranking``/``agreement``, Minecraft's
``blocks``/``bap``) live beside them and are used by that corpus's own pages only.

Optional capabilities are declared in ``OPTIONAL`` and looked up with ``optional(package, name)``; a package
that lacks one simply does not offer the feature (no ``hasattr`` guessing elsewhere).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol, runtime_checkable

from .common import LoadedCorpus, ProgressCallback, SkippedRecord, no_progress

if TYPE_CHECKING:
    import pandas as pd
    from PIL import Image


@runtime_checkable
class CorpusPackage(Protocol):
    """A corpus package, as a module. Every member is required."""

    NAME: str  # the package name and key in common.CORPUS_NAMES
    DEMO_VERSION: int  # bump when demo.py writes different files
    REPLAY_IN_ROUNDS: bool  # the replay is stepped within rounds (A Game Of Sorts): links carry round=
    FRAMES: tuple[str, ...]  # the frames build_frames returns (always "dialogs" and "utterances")

    def build_frames(self, path: Path, progress: ProgressCallback = no_progress) -> tuple[dict[str, pd.DataFrame], list[SkippedRecord]]:
        """Parse the source at ``path``; raise ``SourceError`` when nothing can be loaded, list bad records."""

    def summarize(self, loaded: LoadedCorpus) -> dict:
        """The JSON object ``python -m data_access summary`` prints (keys are a public interface)."""

    def write_demo(self, folder: Path) -> None:
        """Write the generated demo corpus into ``folder`` (real file format, deterministic)."""

    def demo_source(self, folder: Path) -> Path:
        """The path to load inside a folder written by ``write_demo``."""

    def dialog_labels(self, loaded: LoadedCorpus) -> dict[str, str]:
        """dialog_id → the label a dialog picker shows, in the corpus's natural order."""

    def step_count(self, loaded: LoadedCorpus, dialog_id: str, round: Optional[int] = None) -> int:
        """Replay steps of the dialog (of its ``round`` when ``REPLAY_IN_ROUNDS``); 0 for an unknown dialog."""

    def replay_step(self, loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None) -> Any:
        """The picklable view model of one replay step (a ``ReplayStep`` dataclass of the package, with at least
        ``dialog_id``, ``step`` and ``n_steps``); the step is clamped to 1..n_steps; None for an unknown dialog."""

    def snapshot(self, loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None) -> Image.Image:
        """The picture of the state after ``step`` (for Compare, Present and the GIF / PNG exports)."""


class OptionalCapabilities(Protocol):
    """Members a corpus package may provide; ``optional(package, name)`` returns them or None."""

    def same_board_plays(self, loaded: LoadedCorpus, dialog_id: str, round: Optional[int]) -> list[tuple[str, int]]:
        """Other (dialog, round) plays of the same board (A Game Of Sorts), for Compare."""


OPTIONAL = ("same_board_plays",)


def optional(package: CorpusPackage, name: str) -> Optional[Callable]:
    """The optional capability ``name`` of ``package``, or None when the corpus does not offer it."""
    if name not in OPTIONAL:
        raise ValueError(f"{name!r} is not an optional corpus capability; expected one of {', '.join(OPTIONAL)}")
    return getattr(package, name, None)
