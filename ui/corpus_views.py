"""The corpus-specific parts of the app's UI, in one place: per corpus package, its Replay section, the compact
details of a replay state (Compare, Present), its transcript lines, and its extras on the Data and Browse
pages. A corpus without an entry here (one registered with ``corpora.register``) gets the generic ones, which
need nothing but the corpus contract (``data_access.contract``): adding a corpus needs no change here.

Entries are keyed by the corpus package itself, never by its name."""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Callable, Optional, cast

from data_access import codraw, gos, minecraft
from data_access.corpora import corpus_module
from ui import replay_codraw, replay_generic, replay_gos, replay_minecraft, replay_state


def _nothing(name: str) -> None:
    """No extra for this corpus."""


@dataclass(frozen=True)
class CorpusViews:
    replay_section: Callable[[str], None] = replay_generic.show  # the Replay page's section, show(name)
    # Compare and Present: what is shown under a state's picture, details(name, dialog_id, step, round)
    state_details: Callable[[str, str, int, Optional[int]], None] = replay_state.no_details
    # the transcript of a state: lines(name, dialog_id, step, round), as snapshots.step_messages gives them
    dialog_lines: Callable = replay_state.step_lines
    data_note: Callable[[str], None] = _nothing  # the Data page, under the corpus's source
    browse_extra: Callable[[str], None] = _nothing  # the Browse page, under the table's downloads


def _gos_data_note(name: str) -> None:
    from ui.provenance import gos_placeholder_note

    gos_placeholder_note(name)


def _bap_download(name: str) -> None:
    from ui.minecraft_export import bap_samples_download

    bap_samples_download(name)


VIEWS: dict[ModuleType, CorpusViews] = {
    codraw: CorpusViews(replay_codraw.show, replay_state.codraw_details),
    gos: CorpusViews(replay_gos.show, replay_state.gos_details, replay_state.gos_lines, data_note=_gos_data_note),
    minecraft: CorpusViews(replay_minecraft.show, replay_state.minecraft_details, browse_extra=_bap_download),
}
GENERIC = CorpusViews()


def views(name: str) -> CorpusViews:
    """The UI parts of corpus ``name`` (the generic ones for a corpus without its own)."""
    package = cast(ModuleType, corpus_module(name))  # the module itself is the key
    return VIEWS.get(package, GENERIC)


def replays_in_rounds(name: str) -> bool:
    """Whether corpus ``name`` is replayed within rounds, so a step's notes, labels and exports keep its round
    (the package's ``REPLAY_IN_ROUNDS``)."""
    return corpus_module(name).REPLAY_IN_ROUNDS
