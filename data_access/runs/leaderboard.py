"""The leaderboard (pure): every run of a corpus, per split, with the corpus metric and its 95 % interval, its
rank, the humans' figure on the same units, and whether it is significantly below the best run of the split.

The statistics are those of the Runs page and of ``run-summary`` (``analysis``; the corpus's
``contract.RunScoring``): a unit is what the corpus scores (a CoDraw dialog, a Minecraft BAP sample, an A Game
Of Sorts message with non-empty gold); the metric is the mean of the unit values (CoDraw final score, paper's
metric; Game Of Sorts F1) with a Student-t interval, or micro F1 over the units' tp / fp / fn (Minecraft) with
a percentile bootstrap interval. "Below the best" is a one-sided paired bootstrap test over the units a run
shares with the split's best run, Holm-corrected across the runs of the split (``ALPHA``). See
docs/evaluation.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np
import orjson
import pandas as pd

from ..analysis.stats import mean_ci
from ..budgets import SIDECAR
from ..common import LoadedCorpus, SourceError
from ..contract import package_of, scoring_of
from ..safe_io import check_lines, read_capped, without_bom
from . import LoadedRun, heavy_frames, load_run
from .analysis import BOOTSTRAP_SAMPLES, bootstrap_micro, paired_differences, scoring, units
from .common import RUN_SUFFIXES, run_name

ALPHA = 0.05
ALL_SPLITS = "all"  # the one split of a corpus whose units carry none (A Game Of Sorts)
META_SUFFIX = ".meta.json"
META_KEYS = ("model", "date", "description", "link")
META_MAX_CHARS = 2000  # of each field, the ellipsis that says it was cut included


@dataclass
class Skipped:
    file: str
    reason: str

    def as_dict(self) -> dict:
        return {"file": self.file, "reason": self.reason}


@dataclass
class Entry:
    """One run of the leaderboard: its per-split figures and its sidecar (``meta``), if any."""

    run: str
    units: int
    splits: dict[str, dict] = field(default_factory=dict)
    meta: Optional[dict] = None

    @property
    def below_best(self) -> bool:
        return any(split["below_best"] for split in self.splits.values())

    def as_dict(self) -> dict:
        return {"run": self.run, "units": self.units, "splits": self.splits, "below_best": self.below_best,
                "meta": self.meta}


# ------------------------------------------------------------------------------------------- statistics

def unit_splits(run: LoadedRun, frame: pd.DataFrame) -> pd.Series:
    """The split of each unit of ``frame`` (``units(run)``), from the run's frame that gives each dialog its
    split (CoDraw dialogs, Minecraft samples by game); ``ALL_SPLITS`` when no frame has one. The light frames
    are looked at first: a heavy one (CoDraw's rounds) is never read for this."""
    heavy = heavy_frames(run)
    for name in sorted(run.frames, key=lambda name: name in heavy):
        table = run.frames[name]
        if "split" not in getattr(table, "columns", ()):
            continue
        key = next((c for c in ("dialog_id", "game", "interaction_id") if c in table.columns), None)
        if key is not None:
            splits = table.drop_duplicates(key).set_index(key)["split"].astype(str)
            return frame["dialog_id"].map(splits).fillna(ALL_SPLITS).astype(str)
    return pd.Series([ALL_SPLITS] * len(frame), index=frame.index, dtype=str)


def statistic_with_interval(frame: pd.DataFrame, corpus: str) -> tuple[float, float, float]:
    """(score, low, high) of units ``frame`` as the Runs page computes them: the mean with its Student-t 95 %
    interval, or micro F1 with its percentile bootstrap 95 % interval."""
    if scoring(corpus).UNIT_STATISTIC == "micro-f1":
        tp, fp, fn = (frame[c].to_numpy(dtype=float) for c in ("tp", "fp", "fn"))
        from .common import prf

        low, high = bootstrap_micro(tp, fp, fn)[2]
        return prf(tp.sum(), fp.sum(), fn.sum())[2], float(low), float(high)
    ci = mean_ci(frame["value"])
    return ci.mean, ci.low, ci.high


def statistic(frame: pd.DataFrame, corpus: str) -> float:
    return statistic_with_interval(frame, corpus)[0] if len(frame) else math.nan


def below_p_value(best: pd.DataFrame, other: pd.DataFrame, corpus: str, samples: int = BOOTSTRAP_SAMPLES,
                  seed: int = 0) -> tuple[int, Optional[float]]:
    """Units shared with the best run, and the one-sided paired bootstrap p-value of "the other run scores
    below the best on them": (1 + resamples where best − other ≤ 0) / (1 + resamples). None under 2 units."""
    n, _, _, diffs = paired_differences(best, other, corpus, samples, seed)
    if n < 2:
        return n, None
    return n, float((1 + np.count_nonzero(diffs <= 0)) / (1 + len(diffs)))


def _shared_with(best: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    """The units both have, in the best run's order, columns suffixed _a (best) and _b (other): the inner merge
    ``paired_differences`` makes, by index lookups when each side has each unit once."""
    best_units, other_units = pd.Index(best["unit"]), pd.Index(other["unit"])
    if not (best_units.is_unique and other_units.is_unique):
        return best.merge(other, on="unit", suffixes=("_a", "_b"))
    positions = other_units.get_indexer(best_units)
    kept = positions >= 0
    a = best[kept].reset_index(drop=True)
    b = other.iloc[positions[kept]].reset_index(drop=True)
    return pd.concat([a.add_suffix("_a").rename(columns={"unit_a": "unit"}),
                      b.drop(columns="unit").add_suffix("_b")], axis=1)


def _micro_f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    precision = np.divide(tp, tp + fp, out=np.zeros_like(tp), where=(tp + fp) > 0)
    recall = np.divide(tp, tp + fn, out=np.zeros_like(tp), where=(tp + fn) > 0)
    return np.divide(2 * precision * recall, precision + recall, out=np.zeros_like(tp), where=(precision + recall) > 0)


def below_p_values(best: pd.DataFrame, others: dict[str, pd.DataFrame], corpus: str,
                   samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> dict[str, tuple[int, Optional[float]]]:
    """``below_p_value(best, other)`` of every run in ``others`` at once. Each run's own bootstrap draws its
    resamples from the seed alone, so runs sharing the same number of units with the best draw the same ones:
    one index matrix serves them all, turned into per-resample counts of each unit, and every run's resampled
    statistic is one matrix product (counts × the runs' per-unit values). The same resamples as run by run;
    a mean may differ from ``delta[idx].mean()`` in its last bits (the sums are taken in another order)."""
    micro = scoring(corpus).UNIT_STATISTIC == "micro-f1"
    columns = [f"{c}_{side}" for side in ("a", "b") for c in ("tp", "fp", "fn")] if micro else ["value_a", "value_b"]
    by_count: dict[int, list[tuple[str, np.ndarray]]] = {}
    for name, other in others.items():
        both = _shared_with(best, other)
        values = np.stack([both[c].to_numpy(dtype=float) for c in columns]) if len(both) else np.zeros((len(columns), 0))
        by_count.setdefault(len(both), []).append((name, values))
    result: dict[str, tuple[int, Optional[float]]] = {}
    for n, group in by_count.items():
        if n < 2:
            result.update({name: (n, None) for name, _ in group})
            continue
        if micro:
            matrix = np.concatenate([values for _, values in group])  # six rows a run: tp, fp, fn of a then of b
        else:
            matrix = np.stack([values[0] - values[1] for _, values in group])  # best − other, one row a run
        rng = np.random.default_rng(seed)
        below = np.zeros(len(group), dtype=np.int64)
        drawn = 0
        for start in range(0, samples, 250):
            size = min(250, samples - start)
            idx = rng.integers(0, n, size=(size, n))
            counts = np.bincount((idx + n * np.arange(size)[:, None]).ravel(), minlength=size * n)
            sums = counts.reshape(size, n).astype(float) @ matrix.T
            if micro:
                sums = sums.reshape(size, len(group), 6)
                diffs = _micro_f1(*(sums[:, :, k] for k in range(3))) - _micro_f1(*(sums[:, :, k] for k in range(3, 6)))
            else:
                diffs = sums / n
            below += np.count_nonzero(diffs <= 0, axis=0)
            drawn += size
        for (name, _), count in zip(group, below):
            result[name] = (n, float((1 + count) / (1 + drawn)))
    return result


def holm(p_values: dict[str, float]) -> dict[str, float]:
    """Holm's step-down adjusted p-values (each capped at 1, kept monotone)."""
    ordered = sorted(p_values.items(), key=lambda item: (item[1], item[0]))
    m, running, adjusted = len(ordered), 0.0, {}
    for position, (name, p) in enumerate(ordered):
        running = max(running, min(1.0, (m - position) * p))
        adjusted[name] = running
    return adjusted


def _number(value) -> Optional[float]:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def leaderboard(runs: list[LoadedRun], samples: int = BOOTSTRAP_SAMPLES, alpha: float = ALPHA,
                metas: Optional[dict[str, Optional[dict]]] = None) -> list[Entry]:
    """The entries of ``runs`` (all of one corpus) in rank order: by the run's best rank over its splits, then
    its mean rank, then its name."""
    if not runs:
        return []
    corpus = runs[0].corpus
    per_run = {}
    for run in runs:
        frame = units(run)
        per_run[run.name] = (run, frame, unit_splits(run, frame))
    entries = {name: Entry(name, len(frame), meta=(metas or {}).get(name)) for name, (_, frame, _) in per_run.items()}
    split_names = sorted({s for _, _, splits in per_run.values() for s in splits.unique()})
    for split in split_names:
        parts = {}
        for name, (run, frame, splits) in per_run.items():
            mask = (splits == split).to_numpy()
            if mask.any():
                parts[name] = (frame[mask].reset_index(drop=True), units(run, humans=True)[mask].reset_index(drop=True))
        scores = {}
        for name, (part, humans) in parts.items():
            score, low, high = statistic_with_interval(part, corpus)
            scores[name] = score
            entries[name].splits[split] = {"units": int(len(part)), "score": _number(score), "low": _number(low),
                                           "high": _number(high), "humans": _number(statistic(humans, corpus))}
        order = sorted(scores, key=lambda name: (-(scores[name] if not math.isnan(scores[name]) else -math.inf), name))
        ranks = pd.Series({name: scores[name] for name in order}).rank(ascending=False, method="min")
        best = order[0]
        p_values, shared = {}, {}
        tests = below_p_values(parts[best][0], {name: parts[name][0] for name in order[1:]}, corpus, samples)
        for name in order[1:]:
            shared[name], p = tests[name]
            if p is not None:
                p_values[name] = p
        adjusted = holm(p_values)
        for name in order:
            figures = entries[name].splits[split]
            figures["rank"] = int(ranks[name]) if not math.isnan(ranks[name]) else len(order)
            figures["best"] = best
            figures["shared_with_best"] = int(len(parts[name][0])) if name == best else shared[name]
            figures["p"] = p_values.get(name)
            figures["p_holm"] = adjusted.get(name)
            figures["below_best"] = bool(name in adjusted and adjusted[name] < alpha)

    def order_key(entry: Entry):
        ranks = [figures["rank"] for figures in entry.splits.values()] or [math.inf]
        return (min(ranks), sum(ranks) / len(ranks), entry.run)

    return sorted(entries.values(), key=order_key)


# ------------------------------------------------------------------------------------------- a folder

def read_meta(path: Path) -> tuple[Optional[dict], Optional[str]]:
    """The sidecar ``<run>.meta.json``: (its known string fields, None), or (None, why it was refused). Plain
    text only: keys other than ``META_KEYS`` and non-string values are left out, a value longer than
    ``META_MAX_CHARS`` is cut to that many characters, the last an ellipsis. A sidecar over ``budgets.SIDECAR``
    is refused from its size on disk, before any of it is read."""
    try:
        data = read_capped(path, SIDECAR.max_bytes, SIDECAR.what)
        check_lines(data, SIDECAR.max_lines, path, SIDECAR.what)
    except SourceError as exc:
        return None, exc.problem
    try:
        value = orjson.loads(without_bom(data))
    except orjson.JSONDecodeError as exc:
        return None, f"not a JSON sidecar ({type(exc).__name__}: {exc})"
    if not isinstance(value, dict):
        return None, f"a sidecar is a JSON object, not {type(value).__name__}"
    return {k: _cut(value[k]) for k in META_KEYS if isinstance(value.get(k), str)}, None


def _cut(text: str) -> str:
    return text if len(text) <= META_MAX_CHARS else text[:META_MAX_CHARS - 1] + "…"


def run_meta(run_file: Path) -> tuple[Optional[dict], Optional[str]]:
    """The sidecar of the run in ``run_file`` (``<run name>.meta.json`` beside it), when there is one."""
    sidecar = run_file.with_name(run_name(run_file) + META_SUFFIX)
    return read_meta(sidecar) if sidecar.is_file() else (None, None)


def folder_leaderboard(corpus: LoadedCorpus, folder: Path | str, cache_root: Optional[Path] = None,
                       samples: int = BOOTSTRAP_SAMPLES) -> dict:
    """The leaderboard of every run of ``corpus`` in ``folder`` (one JSON object: ``runs``, ``skipped``);
    SourceError naming the folder when it holds no run of the corpus."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SourceError(folder, "is not a folder of runs" if folder.exists() else "does not exist")
    runs: list[LoadedRun] = []
    skipped: list[Skipped] = []
    metas: dict[str, Optional[dict]] = {}
    for file in sorted(folder.iterdir()):
        name = file.name
        if name.startswith("."):
            continue
        if name.lower().endswith(META_SUFFIX):
            continue  # read with its run
        if not file.is_file():
            skipped.append(Skipped(name, "is not a file"))
            continue
        if not any(name.lower().endswith(s) for s in RUN_SUFFIXES):
            skipped.append(Skipped(name, f"not a run file (a run ends in {', '.join(RUN_SUFFIXES)})"))
            continue
        try:
            run = load_run(corpus, file, cache_root=cache_root)
        except SourceError as exc:
            skipped.append(Skipped(name, exc.problem))
            continue
        except (OSError, ValueError) as exc:
            skipped.append(Skipped(name, f"cannot be read ({type(exc).__name__}: {exc})"))
            continue
        if any(r.name == run.name for r in runs):
            skipped.append(Skipped(name, f"a second file of run “{run.name}” (the first is kept)"))
            continue
        meta, problem = run_meta(file)
        if problem:
            skipped.append(Skipped(run.name + META_SUFFIX, problem))
        runs.append(run)
        metas[run.name] = meta
    if not runs:
        why = f"; {skipped[0].file}: {skipped[0].reason}" if skipped else ""
        raise SourceError(folder, f"holds no run of {package_of(corpus).TITLE} "
                                  f"({len(skipped)} file(s) skipped{why})")
    entries = leaderboard(runs, samples, metas=metas)
    return {"corpus": corpus.corpus, "metric": scoring_of(corpus).STATISTIC_LABEL, "alpha": ALPHA,
            "bootstrap_samples": samples, "runs": [entry.as_dict() for entry in entries],
            "skipped": [s.as_dict() for s in skipped]}


__all__ = ["ALPHA", "META_SUFFIX", "Entry", "below_p_value", "below_p_values", "folder_leaderboard", "holm", "leaderboard", "read_meta", "run_meta", "run_name", "unit_splits"]
