"""The Runs page's statistics (pure): runs x metrics with 95 % intervals per split, paired comparisons of two
runs (or a run and the humans) with a paired bootstrap interval, and a slice finder over each corpus's
domain features.

What is corpus-specific (the metric table's rows, the units, the domain features, the replay view) comes from
the corpus's ``contract.RunScoring`` (e.g. CoDraw dialogs, final drawing, paper's metric; Minecraft BAP samples,
micro-averaged net-action F1; A Game Of Sorts messages with non-empty gold, F1); the statistics here only know
the two kinds of unit statistic (``UNIT_STATISTIC``): a mean of ``value``, or micro F1 over tp / fp / fn.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Callable, Optional

import numpy as np
import pandas as pd

from ..contract import UNSCORED, RunScoring, scoring_of
from ..registry import CorpusAttribute
from ..scoring.lines import prf
from ..scoring.statistics import BOOTSTRAP_SAMPLES, HUMANS, bins, bootstrap_micro, metric_row  # noqa: F401 - re-exported
from ..types import LoadedCorpus, LoadedRun

LINK_COLUMNS = ["unit", "dialog_id", "turn", "round", "sample_id", "message_number"]
METRIC_COLUMNS = ["run", "split", "metric", "n", "value", "low", "high"]


def scoring(corpus: str) -> RunScoring:
    """The run scoring of corpus ``corpus`` (its package's ``run_scoring()``), by its name (a loaded run or
    corpus at hand gives its own: ``contract.scoring_of``)."""
    return _SCORINGS[corpus]


_SCORINGS: Mapping[str, RunScoring] = CorpusAttribute("run_scoring", lambda run_scoring: run_scoring(), missing=UNSCORED)


def humans_label(run_name: str) -> str:
    """How the humans' rows beside run ``run_name`` are named: their figures are computed on that run's units
    only, so two runs over different dialogs (e.g. val and test) each get their own humans rows."""
    return f"{HUMANS} (on {run_name}'s units)"


def metric_table(run: LoadedRun) -> pd.DataFrame:
    """One row per (split, metric) of the run (the corpus's ``metric_rows``; CoDraw also gets the humans'
    figures on the same dialogs, labelled with the run they stand beside: ``humans_label``). Computed once per
    run (the Runs page asks for every run's at each rerun); each call gets its own copy."""
    def compute() -> pd.DataFrame:
        table = pd.DataFrame(scoring_of(run).metric_rows(run), columns=METRIC_COLUMNS)
        table.loc[table["run"] == HUMANS, "run"] = humans_label(run.name)
        return table

    return run.memoized("metric_table", compute).copy()


# --------------------------------------------------------------------------------------- paired comparison

def units(run: LoadedRun, humans: bool = False) -> pd.DataFrame:
    """Per unit of comparison: ``unit`` (dialog / game#sample / message key), ``dialog_id``, ``turn``-ish link
    fields and the values the statistic needs (``value``; micro F1: tp, fp, fn). Computed once per run and
    side; each call gets its own copy, free to change."""
    return run.memoized(("units", humans), lambda: scoring_of(run).units(run, humans)).copy()


def micro_f1_statistic(frame: pd.DataFrame) -> float:
    return prf(frame["tp"].sum(), frame["fp"].sum(), frame["fn"].sum())[2]


def mean_statistic(frame: pd.DataFrame) -> float:
    return float(frame["value"].mean())


def _is_micro(corpus: str) -> bool:
    return scoring(corpus).UNIT_STATISTIC == "micro-f1"


def _statistic(corpus: str) -> Callable[[pd.DataFrame], float]:
    return micro_f1_statistic if _is_micro(corpus) else mean_statistic


def paired_differences(a: pd.DataFrame, b: pd.DataFrame, corpus: str, samples: int = BOOTSTRAP_SAMPLES,
                       seed: int = 0) -> tuple[int, float, float, np.ndarray]:
    """On the units both A and B have: their number, the statistic of A and of B, and the statistic of A minus
    that of B on each of ``samples`` paired resamples (the same units drawn with replacement for both sides;
    an empty array when no unit is shared)."""
    both = a.merge(b, on="unit", suffixes=("_a", "_b"))
    n = len(both)
    if n == 0:
        return 0, math.nan, math.nan, np.array([])
    rng = np.random.default_rng(seed)
    if _is_micro(corpus):
        arrays = [both[f"{c}_{s}"].to_numpy(dtype=float) for s in ("a", "b") for c in ("tp", "fp", "fn")]

        def micro_f1(tp, fp, fn):
            precision = np.divide(tp, tp + fp, out=np.zeros_like(tp), where=(tp + fp) > 0)
            recall = np.divide(tp, tp + fn, out=np.zeros_like(tp), where=(tp + fn) > 0)
            return np.divide(2 * precision * recall, precision + recall, out=np.zeros_like(tp), where=(precision + recall) > 0)
        value_a = float(micro_f1(*(np.array([x.sum()]) for x in arrays[:3]))[0])
        value_b = float(micro_f1(*(np.array([x.sum()]) for x in arrays[3:]))[0])
        diffs = []
        for start in range(0, samples, 250):
            idx = rng.integers(0, n, size=(min(250, samples - start), n))
            sums = [x[idx].sum(1) for x in arrays]
            diffs.append(micro_f1(*sums[:3]) - micro_f1(*sums[3:]))
    else:
        va, vb = both["value_a"].to_numpy(dtype=float), both["value_b"].to_numpy(dtype=float)
        value_a, value_b = float(va.mean()), float(vb.mean())
        delta = va - vb
        diffs = []
        for start in range(0, samples, 250):
            idx = rng.integers(0, n, size=(min(250, samples - start), n))
            diffs.append(delta[idx].mean(1))
    return n, value_a, value_b, np.concatenate(diffs)


def paired_bootstrap(a: pd.DataFrame, b: pd.DataFrame, corpus: str, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> dict:
    """Statistic of A, of B and of A − B on the units both have, with a paired percentile bootstrap 95 %
    interval of the difference (the same resampled units for both)."""
    n, value_a, value_b, diffs = paired_differences(a, b, corpus, samples, seed)
    result = {"n": n, "a": value_a, "b": value_b, "difference": value_a - value_b, "low": math.nan, "high": math.nan}
    if n >= 2:
        result["low"], result["high"] = (float(v) for v in np.percentile(diffs, [2.5, 97.5]))
    return result


def paired_units(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """The units both sides have, with value_a, value_b and difference, largest absolute difference first."""
    both = a.merge(b[["unit", "value"]], on="unit", suffixes=("_a", "_b"))
    both["difference"] = both["value_a"] - both["value_b"]
    return both.reindex(both["difference"].abs().sort_values(ascending=False, kind="stable").index).reset_index(drop=True)


# ------------------------------------------------------------------------------------------- slice finder

def slice_features(corpus: LoadedCorpus, run: LoadedRun) -> pd.DataFrame:
    """Per unit of ``units(run)``: the corpus's domain features, as text categories."""
    base = units(run)
    return pd.concat([base, scoring_of(run).slice_features(corpus, run, base)], axis=1)


def slice_gaps(features: pd.DataFrame, corpus: str, other: Optional[pd.DataFrame] = None, min_units: int = 3) -> pd.DataFrame:
    """Every (feature, value) slice with its statistic and its gap to the whole: the run's statistic, or with
    ``other`` (units of a second run or the humans) the difference A − B. Largest absolute gap first."""
    statistic = _statistic(corpus)
    frame = features
    measured = [c for c in ("value", "tp", "fp", "fn") if c in features.columns]
    if other is not None:
        frame = features.merge(other[["unit", *measured]], on="unit", suffixes=("", "_b"))

    def value(part):
        if other is None:
            return statistic(part)
        b = pd.DataFrame({c: part[f"{c}_b"].to_numpy() for c in measured})
        return statistic(part) - statistic(b)

    overall = value(frame) if len(frame) else math.nan
    feature_names = [c for c in features.columns if c not in LINK_COLUMNS + ["value", "tp", "fp", "fn"]]
    rows = []
    for feature in feature_names:
        for level, part in frame.groupby(feature, sort=True):
            if len(part) < min_units or level == "nan":
                continue
            v = value(part)
            rows.append((feature, str(level), len(part), v, overall, v - overall))
    table = pd.DataFrame(rows, columns=["feature", "slice", "n", "value", "overall", "gap"])
    return table.reindex(table["gap"].abs().sort_values(ascending=False, kind="stable").index).reset_index(drop=True)


def unit_turns(corpus: LoadedCorpus) -> pd.DataFrame:
    """unit -> replay ``turn`` for links: e.g. Minecraft the utterance a sample follows (unit "game#sample_id"),
    Game Of Sorts the message's step (unit "interaction|round|message"); CoDraw units carry their own round."""
    return scoring_of(corpus).unit_turns(corpus)


def replay_view(corpus: LoadedCorpus, run: LoadedRun, dialog_id: str, turn: int, round: Optional[int] = None):
    """The run at one replay step, as the corpus shows it (its ``replay_view``)."""
    return scoring_of(run).replay_view(corpus, run, dialog_id, turn, round)


def with_turns(frame: pd.DataFrame, turns: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the replay ``turn`` of each unit from ``unit_turns`` (CoDraw keeps its own)."""
    if turns.empty:
        return frame
    return frame.drop(columns=["turn"], errors="ignore").merge(turns, on="unit", how="left")
