"""The corpus-specific parts of the app's UI, found as a corpus's data is: each corpus unit brings its views (a
module whose ``VIEWS`` is a ``CorpusViews``), declared in the entry point group ``dialogue_dashboard.views`` under
the corpus's name, as its data package is in ``dialogue_dashboard.corpora`` (``data_access.registry``). The views of
the built-in corpora are ``corpora.<name>.views``, found the same way (and named in ``BUILT_IN_VIEWS``, so that a
checkout run without installing it has them too). A corpus without views, or whose views cannot be imported, gets
the generic parts, which need nothing but the corpus contract; a broken views module is recorded in
``VIEWS_PROBLEMS`` (the Data page says it).

Each part is imported when it is first called (``lazy``): the Data and Browse pages need one small extra per
corpus, not the replay sections of every corpus (importing those took 0.3–0.6 s of the first page after a
restart)."""
from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass
from typing import Any, Callable, Optional

import pandas as pd

from data_access.corpus import Corpus

VIEWS_GROUP = "dialogue_dashboard.views"
BUILT_IN_VIEWS = ("corpora.codraw.views", "corpora.gos.views", "corpora.minecraft.views")  # corpora.<name>.views
# views modules that failed to import or hold no ``VIEWS``: corpus name -> why (the Data page says it)
VIEWS_PROBLEMS: dict[str, str] = {}


def lazy(module: str, function: str) -> Callable:
    """``module.function``, imported at its first call."""
    def call(*args, **kwargs):
        return getattr(importlib.import_module(module), function)(*args, **kwargs)

    call.__qualname__ = call.__name__ = f"{module}.{function}"
    call.target = (module, function)  # type: ignore[attr-defined]
    return call


def _nothing(*args, **kwargs) -> None:
    """No extra for this corpus."""


def _unchanged(corpus: Corpus, table: pd.DataFrame) -> pd.DataFrame:
    """No filter of the corpus's own: the table as it is."""
    return table


def _no_marks(corpus: Corpus, dialog_id: str) -> tuple[int, ...]:
    """No step a layer marks."""
    return ()


@dataclass(frozen=True)
class DurationsView:
    """A corpus's part of the Durations page (``ui.analysis.durations``). ``splits`` is None when the corpus did not
    load, the splits chosen in its filter otherwise (``()`` for a corpus without a split filter)."""

    tab: str  # its tab's name (in the URL as ``view=``)
    charts: Callable[[Corpus, Optional[tuple]], list]  # its charts (built with ``charts.build``)
    show: Callable[[Corpus, list, Optional[tuple]], None]  # how its tab lays them out
    split_label: Optional[str] = None  # the label of its split filter; None: the corpus has no splits to filter
    summary_note: Callable[[Corpus, list, Optional[tuple]], None] = _nothing  # under the summary's findings


def _as_it_is(corpus: Corpus, setup: dict) -> dict:
    """The play rules' setup as the browser gets it, unchanged."""
    return setup


@dataclass(frozen=True)
class PlayView:
    """A corpus's game on the Play page (``ui.play``): the browser part of playing one of its dialogs, drawn by the
    page's game component (``ui/assets/play.js``, the shell every game shares: step, score, Done, the run file).
    ``script()`` is the game's JavaScript, which defines ``createGame(area, shell)`` (docs/play.md says what it is
    given and returns), ``style()`` its CSS, ``setup(corpus, setup)`` the rules' setup as the browser gets it (e.g.
    its pictures as media URLs, ``play_media_url``)."""

    script: Callable[[], str]
    style: Callable[[], str] = lambda: ""  # noqa: E731 - a default of the dataclass
    setup: Callable[[Corpus, dict], dict] = _as_it_is
    done_label: str = "Done"  # the step's Done control ("Done with this round", "LOCK")
    reply: bool = False  # a reply field beside it, kept with the step (CoDraw's Drawer may answer the Teller)


def _nothing_more(corpus: Corpus, loaded: Any, item: str) -> dict:
    """A live game drawn from the store's setup alone."""
    return {}


@dataclass(frozen=True)
class LiveView:
    """A corpus's live game on the Play page (``ui.play.live``, issue 50): each role's screen when two people play
    each other. ``script()`` defines ``createLiveGame(area, live)`` (docs/play.md, "Playing live"), which may draw with
    the corpus's own ``createGame`` of ``PlayView.script`` (sent with it); ``style()`` its CSS; ``setup(corpus,
    loaded, item)`` what the browser draws the item with beyond the store's setup (pictures as media URLs, the
    palette, the colours)."""

    script: Callable[[], str]
    style: Callable[[], str] = lambda: ""  # noqa: E731 - a default of the dataclass
    setup: Callable[[Corpus, Any, str], dict] = _nothing_more


@dataclass(frozen=True)
class CorpusViews:
    """A corpus's UI parts. Each is called with the resolved corpus (``data_access.corpus.Corpus``) first; every
    one has a generic default, so a corpus's views give only what they change."""

    replay_section: Callable[[Corpus], None] = lazy("ui.replay.generic", "show")  # the Replay page's, show(corpus)
    # the generic Replay section's step player (a corpus without a section of its own): one step as the player
    # shows it, step_view(corpus, dialog_id, step, round) -> PlayerStep (pictures, facts, event; by default the
    # contract's snapshot), the timeline, step_timeline(corpus, dialog_id, round, n_steps) -> a TimelineEntry per
    # step (by default the words said), and what its bars and marks mean (step_legend)
    step_view: Callable = lazy("ui.replay.generic", "snapshot_step")
    step_timeline: Callable = lazy("ui.replay.generic", "said_timeline")
    step_legend: str = ""
    # Compare and Present: what is shown under a state's picture, details(corpus, dialog_id, step, round), and
    # computing the neighbouring steps' details ahead, prefetch(corpus, dialog_id, step, round, n_steps)
    state_details: Callable[[Corpus, str, int, Optional[int]], None] = lazy("ui.replay.state", "no_details")
    prefetch_details: Callable[[Corpus, str, int, Optional[int], int], None] = lazy("ui.replay.state", "no_prefetch")
    # the transcript of a state: lines(corpus, dialog_id, step, round), as snapshots.step_messages gives them
    dialog_lines: Callable = lazy("ui.replay.state", "step_lines")
    data_note: Callable[[Corpus], None] = _nothing  # the Data page, under the corpus's source
    browse_extra: Callable[[Corpus], None] = _nothing  # the Browse page, under the table's downloads
    browse_filter: Callable[[Corpus, pd.DataFrame], pd.DataFrame] = _unchanged  # Browse: columns and a filter of its own
    search_extra: Callable[[Corpus, str, bool], None] = _nothing  # Search: extra results (corpus, query, case)
    # the steps of a dialog a published layer marks in a transcript (CoDraw's CR rounds): marks(corpus, dialog_id)
    transcript_marks: Callable[[Corpus, str], tuple[int, ...]] = _no_marks
    # ... of a slice's dialogs for its LaTeX transcripts: marks(corpus, selection) -> dialog -> steps, or None
    slice_marks: Callable[[Corpus, object], Optional[dict]] = _nothing
    # the Data page's figures of a published layer of the corpus, report(corpus, name, figures, unmatched), and
    # its downloads, exports(corpus, name, file_name)
    layer_report: Callable[[Corpus, str, dict, list], None] = _nothing
    layer_exports: Callable[[Corpus, str, str], None] = _nothing
    # the Replay's model-run panel: one run's view, panel(corpus, view, dialog_id, step), or several side by side,
    # side_by_side(corpus, views, dialog_id, step) (a view is what the corpus's ``RunScoring.replay_view`` gives)
    run_panel: Callable = lazy("ui.runs.panels", "step_view_panel")
    run_side_by_side: Callable = lazy("ui.runs.panels", "step_views_side_by_side")
    # ... and its pictures beside the humans' in the step player: pictures(corpus, view, step) -> [(caption, PNG
    # bytes or None: the caption says why there is none)]
    run_pictures: Callable = lazy("ui.runs.panels", "step_view_pictures")
    # the corpus's analysis page: its file in pages/ (the Slices page links a slice to it; None: no page) and its
    # body, analysis(corpus)
    analysis_page: Optional[str] = None
    analysis: Optional[Callable[[Corpus], None]] = None
    durations: Optional[DurationsView] = None  # its part of the Durations page (None: none)
    play: Optional[PlayView] = None  # its game on the Play page (None: the corpus is not played in the browser)
    live: Optional[LiveView] = None  # its live game of two people (None: not played live in the browser)


GENERIC = CorpusViews()
_found: dict[object, CorpusViews] = {}  # by the corpus's package (a test may register another of a name)


def _views_modules() -> dict[str, str]:
    """corpus name -> the module of its views: the built-in ones, then every entry point of ``VIEWS_GROUP``."""
    modules = {path.split(".")[1]: path for path in BUILT_IN_VIEWS}
    try:
        entries = importlib.metadata.entry_points(group=VIEWS_GROUP)
    except Exception as exc:  # noqa: BLE001 - broken metadata of another distribution must not stop the app
        VIEWS_PROBLEMS["*"] = f"the installed entry points cannot be read ({exc})"
        return modules
    for entry in entries:
        modules.setdefault(entry.name, entry.value)
    return modules


_MODULES = _views_modules()


def views_of(corpus: Corpus) -> CorpusViews:
    """The UI parts of a resolved corpus: its views' ``VIEWS``, the generic ones for a corpus without views (or
    whose views cannot be used: ``VIEWS_PROBLEMS`` says why)."""
    if corpus.package in _found:
        return _found[corpus.package]
    module_name = _MODULES.get(corpus.package.NAME) or getattr(corpus.package, "VIEWS_MODULE", None)
    views = GENERIC
    if module_name:
        try:
            found = getattr(importlib.import_module(module_name), "VIEWS", None)
        except Exception as exc:  # noqa: BLE001 - a plugin's own bug is reported as the plugin's, by its name
            VIEWS_PROBLEMS[corpus.name] = f"{module_name} cannot be imported ({type(exc).__name__}: {exc})"
        else:
            if isinstance(found, CorpusViews):
                views = found
            else:
                VIEWS_PROBLEMS[corpus.name] = f"{module_name} has no VIEWS (a CorpusViews)"
    _found[corpus.package] = views
    return views


def replays_in_rounds(corpus: Corpus) -> bool:
    """Whether ``corpus`` is replayed within rounds, so a step's notes, labels and exports keep its round (the
    package's ``REPLAY_IN_ROUNDS``)."""
    return bool(corpus.package.REPLAY_IN_ROUNDS)
