"""A slice's dialogs as a corpus of their own, and the slice against the rest of the corpus.

``restrict(loaded, ids, steps)`` is the loaded corpus with every frame that names its dialogs (``dialog_id``, A Game Of
Sorts' ``interaction_id``, Minecraft's ``game``) cut to ``ids``, and a step slice's step frames to its moments;
the frames are cut when first read, each once. Any
chart builder of an analysis page (``builder(loaded, *args)``) draws the slice when handed it instead of the whole
corpus, so a figure on the slice is the very figure on fewer dialogs.

``contrast(values, kept)`` compares a page's headline per-dialog measure on the slice with the rest of the corpus:
both means and the difference (slice − rest) with its 95% percentile bootstrap interval (``BOOTSTRAP_RESAMPLES``
resamples of each group drawn independently, seeded: the same figure on every load). Dialogs without a value (no
duration, no score) are left out of both groups.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np
import pandas as pd

from ..analysis.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CONFIDENCE, bootstrap_means
from ..common import LoadedCorpus
from ..types import LoadedRun

# The columns by which a frame names the dialog each of its rows belongs to (the first one a frame has).
ID_COLUMNS = ("dialog_id", "interaction_id", "game")


class _CutFrames(Mapping):
    """The frames of ``frames`` cut to the dialogs ``ids`` (an object array), each when first read; with ``steps``
    (a step slice's moments: dialog_id, round, turn) the step frames ``step_frames`` names (frame -> its dialog,
    round and turn columns) cut to those steps."""

    def __init__(self, frames: Mapping[str, pd.DataFrame], ids: np.ndarray, steps: Optional[pd.DataFrame] = None,
                 step_frames: Optional[Mapping[str, tuple]] = None):
        self._frames = frames
        self._ids = ids
        self._steps = steps
        self._step_frames = dict(step_frames or {})
        self._cut: dict[str, pd.DataFrame] = {}

    def _cut_rows(self, frame: pd.DataFrame, name: str = "") -> pd.DataFrame:
        if self._steps is not None and name in self._step_frames:
            return _cut_steps(frame, self._steps, *self._step_frames[name])
        column = next((c for c in ID_COLUMNS if c in frame.columns), None)
        if column is None:
            return frame
        return frame[frame[column].astype(str).astype(object).isin(self._ids).to_numpy()].reset_index(drop=True)

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._cut:
            self._cut[name] = self._cut_rows(self._frames[name], name)
        return self._cut[name]

    def part(self, name: str, columns) -> pd.DataFrame:
        """Only ``columns`` of frame ``name`` (``scoring.lines.frame_part``): a model run's heavy frame is read for
        those columns and the one naming its dialogs, never whole."""
        from ..scoring.lines import frame_part

        columns = list(columns)
        if name in self._cut:
            return self._cut[name][columns]
        for column in ID_COLUMNS:
            try:
                frame = frame_part(self._frames, name, list(dict.fromkeys([*columns, column])))
            except (KeyError, ValueError):  # the frame names its dialogs by another column (or none)
                continue
            return self._cut_rows(frame, name)[columns]
        return self[name][columns]

    def __iter__(self) -> Iterator[str]:
        return iter(self._frames)

    def __len__(self) -> int:
        return len(self._frames)

    def __contains__(self, name: object) -> bool:
        return name in self._frames


def _cut_steps(frame: pd.DataFrame, steps: pd.DataFrame, dialog: str, round_: Optional[str], turn: str) -> pd.DataFrame:
    """The rows of a step frame (a CoDraw round, an A Game Of Sorts message...) at the moments ``steps``."""
    def key(ids, rounds, turns) -> pd.MultiIndex:
        return pd.MultiIndex.from_arrays([pd.Series(ids).astype(str).to_numpy(dtype=object),
                                          pd.to_numeric(pd.Series(rounds), errors="coerce").fillna(-1).to_numpy(dtype=np.int64),
                                          pd.to_numeric(pd.Series(turns), errors="coerce").fillna(-1).to_numpy(dtype=np.int64)])
    no_round = np.full(len(frame), -1)
    mine = key(frame[dialog], frame[round_] if round_ else no_round, frame[turn])
    wanted = key(steps["dialog_id"], steps["round"] if round_ else np.full(len(steps), -1), steps["turn"])
    return frame[mine.isin(wanted)].reset_index(drop=True)


def restrict(loaded: LoadedCorpus, ids: Iterable[str], steps: Optional[pd.DataFrame] = None) -> LoadedCorpus:
    """``loaded`` with only the dialogs ``ids`` (every frame that names its dialogs cut to them); with ``steps`` (a
    step slice's moments: dialog_id, round, turn) the corpus's step frames (its optional ``STEP_FRAMES``: CoDraw's
    rounds, A Game Of Sorts' steps and messages, Minecraft's actions) cut to those moments, so a step-level chart
    is drawn on them."""
    from ..contract import package_of

    wanted = np.asarray(list(dict.fromkeys(str(d) for d in ids)), dtype=object)
    step_frames = getattr(package_of(loaded), "STEP_FRAMES", None) if steps is not None else None
    return replace(loaded, frames=_CutFrames(loaded.frames, wanted, steps, step_frames))


def restrict_run(run: LoadedRun, ids: Iterable[str]) -> LoadedRun:
    """A scored model run on the dialogs ``ids`` only: its units outside them left out of every figure (the
    leaderboard, a comparison, the slice finder), with results memoized afresh."""
    wanted = np.asarray(list(dict.fromkeys(str(d) for d in ids)), dtype=object)
    return replace(run, frames=_CutFrames(run.frames, wanted), memo={})


@dataclass(frozen=True)
class Contrast:
    """A measure's mean on the slice and on the rest, and the difference (slice − rest) with its interval."""

    n_slice: int
    n_rest: int
    mean_slice: float
    mean_rest: float
    difference: float
    low: float  # NaN when either group has fewer than 2 values
    high: float
    method: str = (f"{CONFIDENCE:.0%} percentile bootstrap of the difference of the means ({BOOTSTRAP_RESAMPLES:,} "
                   "resamples of each group, drawn independently, fixed seed)")

    @property
    def separated(self) -> bool:
        """Whether the interval leaves 0 out (the slice differs from the rest at the 95% level)."""
        return not math.isnan(self.low) and (self.low > 0 or self.high < 0)

    def describe(self, digits: int = 2) -> str:
        """'+0.31 (95% bootstrap CI +0.12 to +0.50; slice 4.52, n = 221; rest 4.21, n = 9,772)'."""
        if not self.n_slice or not self.n_rest:
            return "no comparison: " + ("the slice" if not self.n_slice else "the rest") + " has no value"
        interval = ("" if math.isnan(self.low) else
                    f"95% bootstrap CI {self.low:+.{digits}f} to {self.high:+.{digits}f}; ")
        return (f"{self.difference:+.{digits}f} ({interval}slice {self.mean_slice:.{digits}f}, n = {self.n_slice:,}; "
                f"rest {self.mean_rest:.{digits}f}, n = {self.n_rest:,})")


def contrast(values: Iterable[float], kept: Iterable[bool], *, confidence: float = CONFIDENCE,
             resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> Contrast:
    """``values`` (one per dialog) on the dialogs ``kept`` marks against the others; NaNs are left out."""
    numbers = pd.to_numeric(pd.Series(list(values)), errors="coerce").astype("float64").to_numpy()
    mask = np.asarray(list(kept), dtype=bool)
    if mask.shape != numbers.shape:
        raise ValueError("values and kept must have one entry per dialog")
    present = ~np.isnan(numbers)
    inside, outside = numbers[mask & present], numbers[~mask & present]
    mean_in = float(inside.mean()) if inside.size else math.nan
    mean_out = float(outside.mean()) if outside.size else math.nan
    low = high = math.nan
    if inside.size >= 2 and outside.size >= 2:
        differences = (bootstrap_means(inside, resamples, seed) - bootstrap_means(outside, resamples, seed + 1))
        alpha = (1 - confidence) / 2
        low, high = (float(q) for q in np.quantile(differences, [alpha, 1 - alpha]))
    return Contrast(int(inside.size), int(outside.size), mean_in, mean_out, mean_in - mean_out, low, high)


def contrast_of(dialogs: pd.DataFrame, column: str, ids: Optional[Iterable[str]]) -> Optional[Contrast]:
    """``contrast`` of the dialog table's ``column`` between the dialogs ``ids`` and the rest (None without the
    column or the ids)."""
    if ids is None or column not in dialogs.columns:
        return None
    wanted = np.asarray(list(ids), dtype=object)
    kept = dialogs["dialog_id"].astype(object).isin(wanted).to_numpy()
    return contrast(dialogs[column].to_numpy(), kept)
