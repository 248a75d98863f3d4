"""A play scored exactly as the corpus scores a model run and the humans: its moves are written in the corpus's run
format (``PlayRules.run_lines``), and that file is read and scored by the corpus's ``RunScoring.build`` (the code
that scores every run file; or its ``score_lines``, the same frames from the lines held in memory), its score per
dialog given by ``RunScoring.dialog_scores`` (Browse's run columns, the slices' ``score(RUN)``). The score the Play
page shows is therefore the score of the play's exported run file."""
from __future__ import annotations

import math
import tempfile
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from ..contract import package_of, scoring_of
from ..types import LoadedCorpus, LoadedRun, SkippedRecords
from .game import rules_of
from .runs import run_text


@dataclass(frozen=True)
class PlayScore:
    """A play's score after its last step: the corpus's statistic over the play's units (``score``, NaN before it has
    one), the humans' on the same units where the corpus has them, and the step's figures (figure, the play's,
    the human's at the same step)."""

    score: float
    units: int
    figures: list[tuple[str, float, float]] = field(default_factory=list)

    @property
    def human(self) -> float:
        """The human's value of the headline figure at the same step (NaN without one)."""
        return self.figures[0][2] if self.figures else math.nan


_DIALOGS_KEPT = 16  # dialogs' corpora kept cut (the plays under way on this server, about)
_CUT: "OrderedDict[tuple[int, str], tuple[weakref.ref, LoadedCorpus]]" = OrderedDict()
_CUT_LOCK = threading.Lock()


def dialog_corpus(loaded: LoadedCorpus, dialog_id: str) -> LoadedCorpus:
    """``loaded`` with only the dialog ``dialog_id`` (``slices.subcorpus.restrict``: every frame that names its
    dialogs cut to it), kept for the next steps of the play. A play's run names this dialog alone, and a run is scored
    dialog by dialog, so it scores the same on it as on the whole corpus (tests/unit/test_play.py reads the play's
    run file back on the whole corpus), at a fraction of the cost (a Done on the full CoDraw corpus: 0.2 s → 0.02 s)."""
    from ..slices.subcorpus import restrict

    key = (id(loaded), dialog_id)
    with _CUT_LOCK:
        kept = _CUT.get(key)
        if kept is not None and kept[0]() is loaded:
            _CUT.move_to_end(key)
            return kept[1]
    cut = restrict(loaded, [dialog_id])
    with _CUT_LOCK:
        _CUT[key] = (weakref.ref(loaded), cut)
        while len(_CUT) > _DIALOGS_KEPT:
            _CUT.popitem(last=False)
    return cut


def scored_run(loaded: LoadedCorpus, lines: Sequence[dict], name: str = "play") -> LoadedRun:
    """``lines`` (a run file's lines) scored by the corpus's ``RunScoring``: by its ``score_lines``, held in memory,
    where it offers that and takes them (the frames ``build`` gives, reckoned from the lines' dialogs alone: a CoDraw
    Done 0.12–0.18 s → 0.02 s), else written to a file and read and scored by its ``build``."""
    scoring = scoring_of(loaded)
    in_memory = getattr(scoring, "score_lines", None)
    frames = in_memory(loaded, lines) if in_memory is not None else None
    if frames is not None:
        return LoadedRun(loaded.corpus, name, "", frames, SkippedRecords([]), package=package_of(loaded))
    with tempfile.TemporaryDirectory(prefix="dialogue-play-") as folder:
        path = Path(folder) / "play.jsonl"
        path.write_text(run_text(lines), encoding="utf-8")
        frames, skipped = scoring.build(path, loaded)
    return LoadedRun(loaded.corpus, name, str(path), frames, SkippedRecords(skipped), package=package_of(loaded))


def score_moves(loaded: LoadedCorpus, dialog_id: str, seat: str, moves: Sequence[Any],
                lines: Optional[Sequence[dict]] = None) -> tuple[LoadedRun, PlayScore]:
    """The play of ``dialog_id`` from ``seat`` whose steps were ``moves``, scored as a run, and its score.
    ``lines``: the play's run lines (``PlayRules.run_lines``) when the caller has written them already."""
    rules = rules_of(loaded)
    if not moves:
        empty = PlayScore(math.nan, 0)
        return LoadedRun(loaded.corpus, "play", "", {}, SkippedRecords([]), package=package_of(loaded)), empty
    cut = dialog_corpus(loaded, dialog_id)
    run = scored_run(cut, rules.run_lines(loaded, dialog_id, seat, moves) if lines is None else lines)
    scores = scoring_of(loaded).dialog_scores(run)
    mine = scores[scores["dialog_id"] == dialog_id]
    score = float(mine["score"].iloc[0]) if len(mine) else math.nan
    units = int(mine["units"].iloc[0]) if len(mine) else 0
    # the step's figures read the dialog's rows alone: on its cut corpus, not by a filter over the whole corpus
    figures = [(str(name), float(value), float(human))
               for name, value, human in rules.step_figures(cut, run, dialog_id, seat, len(moves))]
    return run, PlayScore(score, units, figures)
