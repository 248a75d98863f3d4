"""The corpus-specific parts of the app's UI, in one place (the one registry of per-corpus UI): per corpus
package, its Replay section, the compact details of a replay state (Compare, Present), its transcript lines, its
model-run panels in the Replay, its extras on the Data and Browse pages, and the module of its own charts (its
analysis pages, handed to them by ``ui.charts``) with the page that draws them. A corpus without an entry here (one
registered with ``corpora.register``) gets the generic ones, which need nothing but the corpus contract
(``data_access.contract``): adding a corpus needs no change here.

Entries are keyed by the corpus package itself, never by its name. Each part is imported when it is first
called: the Data and Browse pages need one small extra per corpus, not the replay sections of every corpus
(importing those took 0.3–0.6 s of the first page after a restart)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Callable, Optional, cast

from data_access import codraw, gos, minecraft
from data_access.corpus import Corpus


def _nothing(corpus: Corpus) -> None:
    """No extra for this corpus."""


def _lazy(module: str, function: str) -> Callable:
    """``module.function``, imported at its first call."""
    def call(*args, **kwargs):
        return getattr(importlib.import_module(module), function)(*args, **kwargs)

    call.__qualname__ = call.__name__ = f"{module}.{function}"
    call.target = (module, function)  # type: ignore[attr-defined]
    return call


@dataclass(frozen=True)
class CorpusViews:
    """Each part is called with the resolved corpus (``data_access.corpus.Corpus``) first."""
    replay_section: Callable[[Corpus], None] = _lazy("ui.replay_generic", "show")  # the Replay page's, show(corpus)
    # Compare and Present: what is shown under a state's picture, details(corpus, dialog_id, step, round)
    state_details: Callable[[Corpus, str, int, Optional[int]], None] = _lazy("ui.replay_state", "no_details")
    # the transcript of a state: lines(corpus, dialog_id, step, round), as snapshots.step_messages gives them
    dialog_lines: Callable = _lazy("ui.replay_state", "step_lines")
    data_note: Callable[[Corpus], None] = _nothing  # the Data page, under the corpus's source
    browse_extra: Callable[[Corpus], None] = _nothing  # the Browse page, under the table's downloads
    # the Replay's model-run panel: one run's view, panel(corpus, view, dialog_id, step), or several side by side,
    # side_by_side(corpus, views, dialog_id, step) (a view is what the corpus's ``RunScoring.replay_view`` gives)
    run_panel: Callable = _lazy("ui.run_panels", "step_view_panel")
    run_side_by_side: Callable = _lazy("ui.run_panels", "step_views_side_by_side")
    # the module of the corpus's own chart builders (``<package>.figures``), None for a corpus without pages of its own
    figures: Optional[str] = None
    # the page of those charts (the Slices page links a slice to it), None for a corpus without one
    analysis_page: Optional[str] = None


def _gos_data_note(corpus: Corpus) -> None:
    from ui.provenance import gos_placeholder_note

    gos_placeholder_note(corpus)


def _bap_download(corpus: Corpus) -> None:
    from ui.minecraft_export import bap_samples_download

    bap_samples_download(corpus)


def _run_panels(module: str) -> dict[str, Callable]:
    return {"run_panel": _lazy(module, "panel"), "run_side_by_side": _lazy(module, "side_by_side")}


VIEWS: dict[ModuleType, CorpusViews] = {
    codraw: CorpusViews(_lazy("ui.replay_codraw", "show"), _lazy("ui.replay_state", "codraw_details"),
                        **_run_panels("ui.run_panels_codraw"), figures="data_access.codraw.figures",
                        analysis_page="pages/codraw_scores.py"),
    gos: CorpusViews(_lazy("ui.replay_gos", "show"), _lazy("ui.replay_state", "gos_details"),
                     _lazy("ui.replay_state", "gos_lines"), data_note=_gos_data_note,
                     **_run_panels("ui.run_panels_gos"), figures="data_access.gos.figures",
                     analysis_page="pages/gos_outcomes.py"),
    minecraft: CorpusViews(_lazy("ui.replay_minecraft", "show"), _lazy("ui.replay_state", "minecraft_details"),
                           browse_extra=_bap_download, **_run_panels("ui.run_panels_minecraft"),
                           figures="data_access.minecraft.figures", analysis_page="pages/minecraft_outcomes.py"),
}
GENERIC = CorpusViews()


def views_of(corpus: Corpus) -> CorpusViews:
    """The UI parts of a resolved corpus (the generic ones for a corpus without its own)."""
    return VIEWS.get(cast(ModuleType, corpus.package), GENERIC)  # the module itself is the key


def replays_in_rounds(corpus: Corpus) -> bool:
    """Whether ``corpus`` is replayed within rounds, so a step's notes, labels and exports keep its round (the
    package's ``REPLAY_IN_ROUNDS``)."""
    return bool(corpus.package.REPLAY_IN_ROUNDS)
