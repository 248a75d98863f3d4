"""The corpus contract: everything the app needs from a corpus, in three Protocols.

- ``CorpusPackage``: a corpus package (``corpora.codraw.data``, ``.gos``, ``.minecraft``, or one added with
  ``corpora.register``), as a module. Loading, the cache, the CLI, every page, the coding, the exports and the
  figures use only what is declared here, never comparing a corpus name (``tests/unit/test_contract.py``).
- ``RunScoring``: what ``data_access.runs`` needs to read, score, compare and show a model run over the corpus;
  a package returns it from ``run_scoring()`` (the built-in ones are ``data_access.runs.<name>``).
- ``AnnotationLayer``: what loading a published annotation layer needs where the layers differ (a module of
  ``data_access.layers``); a layer belongs to the corpus whose ``LAYERS`` names it.
- ``PlayRules``: how a person plays one role of a recorded dialog against its recorded partner (the Play page);
  a package returns it from ``play_rules()``; a corpus without it cannot be played.
- ``LiveRules``: how two people play the corpus's game against each other and how their games are written in the
  corpus's own files (issue 50); a package returns it from ``live_rules()``; a corpus without it is not played live.
- ``OptionalCapabilities``: members a corpus may offer (``optional(package, name)``).

``registry.corpus_module(name)`` returns a package typed as ``CorpusPackage``; below the app's edge a value
carries it (``package_of``). The test checks every registered package against these Protocols (members, types and
signatures), and ``docs/architecture.md`` ("Writing a corpus plugin") lists every member.

A built-in package's modules play the same roles in every corpus:

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
``blocks``/``bap``) live beside them and are used by that corpus's own pages only (and by its ``RunScoring``).

Optional capabilities are declared in ``OPTIONAL`` and looked up with ``optional(package, name)``; a package
that lacks one simply does not offer the feature (no ``hasattr`` guessing elsewhere).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Literal, Optional, Protocol, Sequence, cast, runtime_checkable

from .types import LoadedCorpus, ProgressCallback, SkippedRecord, no_progress

if TYPE_CHECKING:
    import pandas as pd
    from PIL import Image

    from .types import LayerContent, LoadedRun, Provenance


# The columns of what a coded span can refer to at a place (``CorpusPackage.referents``; data_access.coding.referents).
REFERENT_COLUMNS = ["id", "name", "x", "y", "colour"]


def no_referents() -> "pd.DataFrame":
    """An empty referents frame (nothing is known to refer to at a place)."""
    import pandas as pd

    return pd.DataFrame({c: pd.Series(dtype="float64" if c in ("x", "y") else "str") for c in REFERENT_COLUMNS})


@runtime_checkable
class CorpusPackage(Protocol):
    """A corpus package, as a module. Every member is required."""

    NAME: str  # the package name and key in common.CORPUS_NAMES (URLs, cache entries, CLI arguments)
    TITLE: str  # how pages, exports and messages name the corpus ("A Game Of Sorts")
    SHORT_TITLE: str  # an axis label ("Game Of Sorts")
    DEMO_VERSION: int  # bump when demo.py writes different files
    REPLAY_IN_ROUNDS: bool  # the replay is stepped within rounds (A Game Of Sorts): links, notes and labels carry round=
    STEP_UNIT: str  # what one replay step is called in transcripts and captions ("round", "step", "message")
    EXPORT_STEP_UNIT: str  # ... and in the HTML replay export ("round", "step", "utterance")
    FRAMES: tuple[str, ...]  # the frames build_frames returns (always "dialogs" and "utterances")
    BROWSE_COLUMNS: Mapping[str, str]  # dialogs columns Browse shows after the common ones -> their help text
    DATA_VARIABLE: str  # the environment variable naming the corpus's files (unset: the demo corpus)
    ASSET_VARIABLE: Optional[str]  # ... naming its images / clip art, None when it has none
    PROVENANCE: Provenance  # where to obtain it, its licence and how to cite it (the Data page)
    EXPORT_BUDGET: int  # bytes one dialog's (round's) HTML replay export should stay under
    REFERENT_PLANE: ReferentPlane  # how the coding draws the referents to click

    def referents(self, loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]) -> pd.DataFrame:
        """What a span at this place can refer to: columns ``coding.referents.REFERENT_COLUMNS`` (id, name, x, y,
        colour), empty when nothing is known."""

    def referent_background(self, loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]) -> Any:
        """A picture (PIL image) to draw the referents over, in ``REFERENT_PLANE``'s coordinates, or None."""

    def source_root(self, path: Path) -> Path:
        """The file or folder the loader reads when given ``path`` (the cache key covers every file below it);
        may raise for a path the loader refuses (the key then covers ``path`` itself)."""

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


@dataclass(frozen=True)
class FeatureText:
    """How a slice's description and the documentation name a feature (a corpus's ``FEATURE_TEXTS``)."""

    label: str  # how a description names it: "peek gain"
    has: Optional[str] = None  # the bare feature in a description: "has a CR" (None: the label)
    lacks: Optional[str] = None  # its negation: "no CR" (None: "not " + the above)
    help: str = ""


@dataclass(frozen=True)
class ReferentPlane:
    """How a corpus's referents are drawn to be clicked (its ``REFERENT_PLANE``): the axis ranges of their x, y
    (None: fitted to the points; y runs downwards) and whether each point shows its name (else on hover)."""

    x_range: Optional[tuple[float, float]]
    y_range: Optional[tuple[float, float]]
    show_names: bool


@dataclass
class RunStepView:
    """A model run at one replay step, in the form any corpus can give: captioned pictures (PNG bytes), named
    scores and a note. The Replay page shows it as it is; a corpus with a richer view of its own (CoDraw's
    marked canvases...) returns that instead, and the app shows that one with the corpus's own panel."""

    dialog_id: str
    step: int
    run: str
    pictures: list[tuple[str, bytes]] = field(default_factory=list)  # (caption, PNG)
    scores: dict[str, float] = field(default_factory=dict)
    note: str = ""


@runtime_checkable
class RunScoring(Protocol):
    """What ``data_access.runs`` needs from a corpus to read, score, compare and show a model run over it, as a
    module (``corpora.codraw.data.scoring`` ...). A *unit* is what a run is scored on (a CoDraw dialog, a Minecraft
    BAP sample, an A Game Of Sorts message); ``units`` gives one row per unit with at least ``unit``,
    ``dialog_id``, ``turn`` and ``round`` (<NA> where the corpus has no rounds) and the values the statistic
    needs: ``value``, plus ``tp``, ``fp``, ``fn`` when ``UNIT_STATISTIC`` is "micro-f1"."""

    LINE_KEYS: tuple[str, ...]  # the identifying keys of one JSON Lines run line (to name a run of another corpus)
    HAS_HUMANS: bool  # the Runs page offers "humans" (``units(run, humans=True)``) to compare a run with
    UNIT_STATISTIC: Literal["mean", "micro-f1"]  # over units: the mean of ``value``, or micro F1 of tp/fp/fn
    STATISTIC_LABEL: str  # what that statistic is, for captions ("mean F1")
    METRIC_NOTE: str  # how the metric table is computed, under the table and in its LaTeX caption

    def build(self, path: Path, corpus: LoadedCorpus) -> tuple[dict[str, pd.DataFrame], list[SkippedRecord]]:
        """Read and score the run file at ``path`` against ``corpus``: its frames (always ``unmatched``) and the
        skipped lines; raise ``SourceError`` when nothing of it can be used."""

    def summary(self, frames: Mapping[str, pd.DataFrame], skipped: list[SkippedRecord], name: str) -> dict:
        """The JSON object ``python -m data_access run-summary`` prints (keys are a public interface)."""

    def demo_runs(self, frames: Mapping[str, pd.DataFrame]) -> dict[str, list[dict]]:
        """The lines of the generated demo runs (``runs.demo.RUN_NAMES``) over the demo corpus's frames."""

    def metric_rows(self, run: LoadedRun) -> list[tuple]:
        """Rows (run, split, metric, n, value, low, high) of the Runs page's metric table."""

    def units(self, run: LoadedRun, humans: bool = False) -> pd.DataFrame:
        """One row per unit of the run (of the humans on the same units when ``humans``)."""

    def dialog_scores(self, run: LoadedRun) -> pd.DataFrame:
        """One row per dialog the run scored (Browse's run columns): ``dialog_id``, ``units`` (how many of its
        units), ``score`` (the run's statistic over them) and ``humans`` (the humans' on the same units; NaN
        throughout when the corpus has no human figure, ``HAS_HUMANS`` false)."""

    def slice_features(self, corpus: LoadedCorpus, run: LoadedRun, base: pd.DataFrame) -> pd.DataFrame:
        """Per row of ``base`` (``units(run)``): the corpus's domain features, as text categories, one column each."""

    def unit_turns(self, corpus: LoadedCorpus) -> pd.DataFrame:
        """``unit`` -> replay ``turn`` for the links of units that do not carry their own turn (may be empty)."""

    # Optional: ``step_scores(run)``, dialog_id, round, turn, score, humans per step (else a step's units' statistic);
    # ``score_lines(corpus, lines)``, ``build``'s frames of a few dialogs' run lines in memory, or None (a play's Done).

    def worst_steps(self, corpus: LoadedCorpus, run: LoadedRun) -> pd.DataFrame:
        """One row per unit of ``units(run)``: ``unit`` and the replay ``turn`` (and ``round``, <NA> where the
        corpus has no rounds) where, within the unit, the run differs most from the humans (a CoDraw dialog's
        round whose score falls furthest below the human's; a unit of one step: that step). The Replay opens a
        worst case there (``runs.worst_cases``)."""

    def replay_view(self, corpus: LoadedCorpus, run: LoadedRun, dialog_id: str, turn: int, round: Optional[int] = None) -> Any:
        """The picklable view of the run at one replay step (a ``RunStepView`` or the corpus's own); None when the
        step is not in the corpus."""

    def run_pictures(self, corpus: LoadedCorpus, run: LoadedRun, dialog_id: str, round: Optional[int],
                     n_steps: int) -> list[Image.Image]:
        """One picture of the run's output per replay step 1..n_steps (the HTML export beside the humans)."""


@runtime_checkable
class PlayRules(Protocol):
    """How a person plays one role of a recorded dialog against its recorded partner, step by step (the Play page,
    ``data_access.play``), as a module (``corpora.codraw.data.play`` ...). A *seat* is the place a person takes (the
    Drawer; one of the two players, in that player's board layout; the Builder); a *step* is what one "Done" completes
    (a CoDraw round, one lock of A Game Of Sorts, one Minecraft BAP sample). A *move* is what the browser sends for a
    step, plain JSON: ``checked_move`` checks it (it is the browser's word, never trusted) and ``run_lines`` writes a
    play in the corpus's run format (docs/formats.md, "Model runs"), so that the corpus's ``RunScoring`` scores it
    exactly as it scores a model and the humans."""

    ROLE: str  # the role a person plays, as the page names it ("Drawer")
    STEP_UNIT: str  # one step, as the page names it ("round")
    SCORE_LABEL: str  # what the score shown is ("scene similarity, the paper's metric (max 5)")

    def playable(self, loaded: LoadedCorpus) -> list[str]:
        """The dialogs that can be played, in the corpus's natural order (a dialog without a step is not)."""

    def seats(self, loaded: LoadedCorpus, dialog_id: str) -> list[str]:
        """The seats of a dialog a person can take (empty for a dialog that cannot be played)."""

    def step_count(self, loaded: LoadedCorpus, dialog_id: str, seat: str) -> int:
        """How many steps a play of ``dialog_id`` from ``seat`` has; 0 for an unknown dialog or seat."""

    def setup(self, loaded: LoadedCorpus, dialog_id: str, seat: str) -> dict:
        """What the browser needs once per play, as plain JSON values (the pieces to play with, the boards...)."""

    def step_view(self, loaded: LoadedCorpus, dialog_id: str, seat: str, step: int, moves: Sequence[Any]) -> dict:
        """What the browser shows at ``step`` after the person's ``moves`` of the steps before it, as plain JSON
        values: the recorded dialog up to there, the state the step starts from, the human's move of the step
        before (shown on request after one's own)."""

    def checked_move(self, loaded: LoadedCorpus, dialog_id: str, seat: str, step: int, move: Any,
                     earlier: Sequence[Any]) -> Any:
        """``move`` (sent by the browser for ``step`` after the ``earlier`` moves) checked and in its normal form;
        ``ValueError`` saying what is wrong with it, in one line, for anything the game does not allow."""

    def run_lines(self, loaded: LoadedCorpus, dialog_id: str, seat: str, moves: Sequence[Any]) -> list[dict]:
        """The lines of the run file of a play whose steps 1..len(moves) were made with ``moves``."""

    def human_move(self, loaded: LoadedCorpus, dialog_id: str, seat: str, step: int) -> Any:
        """The move the human in ``seat`` made at ``step``, in the form ``checked_move`` returns."""

    def step_figures(self, loaded: LoadedCorpus, run: LoadedRun, dialog_id: str, seat: str,
                     step: int) -> list[tuple[str, float, float]]:
        """(figure, the play's value, the human's value at the same step) of ``step`` of a play scored as a run
        (``run``: its lines read and scored by the corpus's ``RunScoring``); NaN where a value does not exist."""


@runtime_checkable
class AnnotationLayer(Protocol):
    """A published annotation layer over one corpus (the corpus whose ``LAYERS`` names it), as a module of that
    corpus's package, which hands it out (``annotation_layer(name)``; ``layers.layer_module(name)`` asks it): what
    loading a layer needs where the layers differ. Each yields the common annotation form of
    ``data_access.layers`` (``annotation_form.ANNOTATION_COLUMNS``)."""

    LAYER: str  # its name, one of layers.LAYER_NAMES

    def layer_content(self, loaded: LoadedCorpus, path: Path) -> LayerContent:
        """Read the layer file at ``path`` and link it to ``loaded``; raise ``SourceError`` naming the file."""

    def demo_lines(self, corpus_source: Path) -> list[str]:
        """The lines of the generated demo layer over the demo corpus at ``corpus_source``."""

    # Optional: ``dialog_features(loaded_layer) -> pd.DataFrame`` by dialog_id, the slice features the layer gives
    # (CoDraw's ``crs``); a dialog the layer does not cover has no value. ``step_features(loaded_layer)``: per step.


@dataclass(frozen=True)
class LiveRecord:
    """A finished live game as the store keeps it (``LiveGames.record``): ``game`` (a ``LiveGame``: its id, item,
    roles, players, ``started_at`` and ``finished_at``), ``setup`` (``{"shared", "roles"}``) and ``events`` (its
    ``LiveEvent`` rows in order: ``seq``, ``role``, ``kind``, ``payload``, ``at``)."""

    game: Any
    setup: Mapping[str, Any]
    events: Sequence[Any]


@runtime_checkable
class LiveRules(Protocol):
    """How two people play a corpus's game against each other (issue 50, ``data_access.live``), as a module
    (``corpora.codraw.data.live`` ...): its two roles, the setup each role is shown, each event a role may send
    checked against the game so far, and finished games written in the corpus's own files (its reader's)."""

    ROLES: tuple[str, str]  # the two roles, as the corpus names them ("Teller", "Drawer")

    def items(self, loaded: LoadedCorpus) -> list[str]:
        """What a game can be played over, in the corpus's order (a CoDraw dialog's scene, a Game Of Sorts game, a
        Minecraft target)."""

    def dialog_items(self, loaded: LoadedCorpus, dialog_ids: Sequence[str]) -> list[str]:
        """The items the dialogs ``dialog_ids`` (a slice's, for a study) were played over, each once, in order."""

    def setup(self, loaded: LoadedCorpus, item: str, seed: int) -> dict:
        """What each role is shown of ``item`` (``{"shared": ..., "roles": {role: ...}}``, plain JSON values); ``seed``
        draws what the game drew at random (each player's layout). ValueError for an item the corpus lacks."""

    def checked_event(self, role: str, kind: str, payload: Any, earlier: Sequence[Any],
                      setup: Mapping[str, Any]) -> tuple[Any, Optional[str], Sequence[tuple[str, str, Any, Optional[str]]]]:
        """The event ``role`` sends (``kind``, ``payload``: the browser's word, never trusted) in normal form, the
        one role that sees it (None: both) and what it causes at once (events ``(role, kind, payload, visible_to)``
        the store appends right after it: a rank, the locks a mismatch releases), given every ``earlier`` event
        (``LiveEvent``) and the game's whole ``setup``; ValueError in one line for anything the game does not allow
        at this point."""

    def write_games(self, folder: Path, records: Sequence[LiveRecord], split: str) -> Path:
        """Write finished games (``LiveRecord``) into ``folder`` as the corpus's own files, under ``split``; the
        path the corpus's reader opens. ValueError naming the game for one that cannot be written."""


class OptionalCapabilities(Protocol):
    """Members a corpus package may provide; ``optional(package, name)`` returns them or None."""

    LAYERS: tuple[str, ...]  # the published annotation layers (data_access.layers.LAYER_NAMES) over this corpus

    def run_scoring(self) -> RunScoring:
        """How model runs over this corpus are read and scored (``RunScoring``); a corpus without it scores no
        runs (``scoring_of`` gives ``UNSCORED``)."""

    def same_board_plays(self, loaded: LoadedCorpus, dialog_id: str, round: Optional[int]) -> list[tuple[str, int]]:
        """Other (dialog, round) plays of the same board (A Game Of Sorts), for Compare."""

    def round_outcomes(self, loaded: LoadedCorpus) -> pd.DataFrame:
        """One row per played round: ``dialog_id``, ``round`` and ``mismatches`` (how many locks of the two
        players disagreed), for the Words and Search filter "rounds with / without a mismatched lock"."""

    def annotation_layer(self, name: str) -> AnnotationLayer:
        """The module (an ``AnnotationLayer``) that reads and links the corpus's published layer ``name`` (one of
        its ``LAYERS``), imported when first asked for; ValueError for another name."""

    def transcript_notes(self, loaded: LoadedCorpus, dialog_id: str, marked: Sequence[int]) -> tuple[dict[int, str], str]:
        """The analysis a transcript carries (CoDraw: the peek, each round's score, the CR rounds ``marked`` by the
        published layer): a note per step (step -> text) and one summary line for the caption."""

    def dialog_features(self, loaded: LoadedCorpus) -> pd.DataFrame:
        """Per-dialog features a slice can test besides the dialogs frame's columns (CoDraw's peek gain), indexed by
        ``dialog_id``; a dialog without a value is absent. Computed by the functions behind the corpus's charts."""

    def step_features(self, loaded: LoadedCorpus) -> pd.DataFrame:
        """A row per replay step (slices.md): dialog_id, round, turn, role, step features (else its messages')."""

    def play_rules(self) -> PlayRules:
        """How a person plays one role of a recorded dialog (``PlayRules``); a corpus without it cannot be played."""

    def live_rules(self) -> LiveRules:
        """How two people play the corpus's game live and how their games are written (``LiveRules``)."""

    FEATURE_TEXTS: Mapping[str, FeatureText]  # how descriptions name the corpus's own features and columns
    ASSET_KIND: str  # what its ASSET_VARIABLE names, for the serve flag --<name>-<kind> ("clipart"; default "assets")
    PAIRED_ITEMS: Mapping[str, tuple[str, str]]  # level -> (column of the item played, its name): a contrast pairs by it
    STEP_FRAMES: Mapping[str, tuple[str, Optional[str], str]]  # frame -> its dialog, round, turn columns (per step)


OPTIONAL = ("LAYERS", "run_scoring", "same_board_plays", "round_outcomes", "annotation_layer", "transcript_notes",
            "dialog_features", "step_features", "play_rules", "live_rules", "FEATURE_TEXTS", "ASSET_KIND",
            "PAIRED_ITEMS", "STEP_FRAMES")


def optional(package: CorpusPackage, name: str) -> Optional[Callable]:
    """The optional capability ``name`` of ``package``, or None when the corpus does not offer it."""
    if name not in OPTIONAL:
        raise ValueError(f"{name!r} is not an optional corpus capability; expected one of {', '.join(OPTIONAL)}")
    return getattr(package, name, None)


def package_of(value: Any) -> CorpusPackage:
    """The corpus package ``value`` carries: a ``LoadedCorpus``'s, a ``LoadedRun``'s or a ``Source``'s
    ``package`` (resolved once by the registry), or ``value`` itself when it is a package. Nothing below the
    app's edge looks a corpus up by its name."""
    package = value if isinstance(value, ModuleType) else getattr(value, "package", None)
    if package is None:
        raise ValueError(f"{type(value).__name__} of {getattr(value, 'corpus', '?')!r} carries no corpus package "
                         "(made without it: load it with corpora.load_source, or give package=...)")
    return package


def scoring_of(value: Any) -> RunScoring:
    """The run scoring (``RunScoring``) of the corpus ``value`` carries (``package_of``); ``UNSCORED`` for a corpus
    that scores no runs."""
    return package_scoring(package_of(value))


def package_scoring(package: CorpusPackage) -> RunScoring:
    """``package``'s run scoring (its optional ``run_scoring()``), ``UNSCORED`` when it has none."""
    offered = optional(package, "run_scoring")
    return offered() if offered is not None else UNSCORED


def play_rules_of(value: Any) -> Optional[PlayRules]:
    """The play rules (``PlayRules``) of the corpus ``value`` carries (``package_of``), None when it cannot be played."""
    offered = optional(package_of(value), "play_rules")
    return offered() if offered is not None else None


def live_rules_of(package: CorpusPackage) -> Optional[LiveRules]:
    """``package``'s live rules (its optional ``live_rules()``), None when its game is not played live."""
    offered = optional(package, "live_rules")
    return offered() if offered is not None else None


def layers_of(package: CorpusPackage) -> tuple[str, ...]:
    """The published layers over ``package``'s corpus (its optional ``LAYERS``; none when it has none)."""
    return tuple(getattr(package, "LAYERS", ()))


class _Unscored:
    """The run scoring of a corpus that scores no model runs (``RunScoring`` is an optional part of the contract):
    no demo runs, and a run file over it is refused with one line."""

    LINE_KEYS: tuple[str, ...] = ()
    HAS_HUMANS = False
    UNIT_STATISTIC: Literal["mean", "micro-f1"] = "mean"
    STATISTIC_LABEL = "no metric"
    METRIC_NOTE = "This corpus scores no model runs."

    def build(self, path: Path, corpus: LoadedCorpus):
        from .types import SourceError

        raise SourceError(str(path), f"{corpus.corpus} scores no model runs (its package offers no run_scoring)")

    def summary(self, frames, skipped, name: str) -> dict:
        return {"run": name, "units": 0}

    def demo_runs(self, frames) -> dict[str, list[dict]]:
        return {}

    def metric_rows(self, run) -> list[tuple]:
        return []

    def _empty(self, *columns: str):
        import pandas as pd

        return pd.DataFrame({column: pd.Series(dtype="object") for column in columns})

    def units(self, run, humans: bool = False):
        return self._empty("unit", "dialog_id", "turn", "round", "value")

    def dialog_scores(self, run):
        return self._empty("dialog_id", "units", "score", "humans")

    def slice_features(self, corpus, run, base):
        import pandas as pd

        return pd.DataFrame(index=base.index)

    def unit_turns(self, corpus):
        return self._empty("unit", "turn")

    def worst_steps(self, corpus, run):
        return self._empty("unit", "turn", "round")

    def replay_view(self, corpus, run, dialog_id: str, turn: int, round: Optional[int] = None):
        return None

    def run_pictures(self, corpus, run, dialog_id: str, round: Optional[int], n_steps: int) -> list:
        return []


UNSCORED: RunScoring = cast("RunScoring", _Unscored())


# Members whose presence ``missing_members`` checks (the Protocols' data members carry no value to look up).
def _declared(protocol: type) -> list[str]:
    names = [name for name in getattr(protocol, "__annotations__", {}) if not name.startswith("_")]
    names += [name for name, value in vars(protocol).items() if callable(value) and not name.startswith("_")]
    return names


def missing_members(package: ModuleType) -> list[str]:
    """The ``CorpusPackage`` members ``package`` does not define (empty for a complete corpus package)."""
    return [name for name in _declared(CorpusPackage) if not hasattr(package, name)]


def run_members() -> list[str]:
    """Every member a ``RunScoring`` module defines."""
    return _declared(RunScoring)


def play_members() -> list[str]:
    """Every member a ``PlayRules`` module defines."""
    return _declared(PlayRules)


def live_members() -> list[str]:
    """Every member a ``LiveRules`` module defines."""
    return _declared(LiveRules)
