"""The Runs page's statistics (pure): runs x metrics with 95 % intervals per split, paired comparisons of two
runs (or a run and the humans) with a paired bootstrap interval, and a slice finder over each corpus's
domain features.

Units: CoDraw dialogs (final drawing, paper's metric unless said otherwise), Minecraft BAP samples
(micro-averaged net-action F1 over the units), A Game Of Sorts messages with non-empty gold (F1).
"""
from __future__ import annotations

import json
import math
from typing import Callable, Optional

import numpy as np
import pandas as pd

from ..analysis.stats import mean_ci
from ..common import LoadedCorpus
from . import LoadedRun
from .minecraft import prf

HUMANS = "humans"
BOOTSTRAP_SAMPLES = 2000
LINK_COLUMNS = ["unit", "dialog_id", "turn", "round", "sample_id", "message_number"]
METRIC_COLUMNS = ["run", "split", "metric", "n", "value", "low", "high"]


def _bootstrap_micro(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0):
    """Percentile 95 % intervals of micro P, R, F1 over units resampled with replacement."""
    n = len(tp)
    if n < 2:
        return [(math.nan, math.nan)] * 3
    rng = np.random.default_rng(seed)
    stats = []
    for start in range(0, samples, 250):
        idx = rng.integers(0, n, size=(min(250, samples - start), n))
        t, p, f = tp[idx].sum(1), fp[idx].sum(1), fn[idx].sum(1)
        precision = np.divide(t, t + p, out=np.zeros(len(t)), where=(t + p) > 0)
        recall = np.divide(t, t + f, out=np.zeros(len(t)), where=(t + f) > 0)
        f1 = np.divide(2 * precision * recall, precision + recall, out=np.zeros(len(t)), where=(precision + recall) > 0)
        stats.append(np.stack([precision, recall, f1], axis=1))
    values = np.concatenate(stats)
    return [tuple(np.percentile(values[:, k], [2.5, 97.5])) for k in range(3)]


def metric_table(run: LoadedRun) -> pd.DataFrame:
    """One row per (split, metric) of the run; CoDraw also gets the humans' figures on the same dialogs."""
    rows = []

    def add(name, split, metric, ci):
        rows.append((name, split, metric, ci.n, ci.mean, ci.low, ci.high))

    if run.corpus == "codraw":
        dialogs = run.frames["dialogs"]
        for split, part in [("all", dialogs), *dialogs.groupby("split", sort=True)]:
            scored = part[part["final_score"].notna()]
            add(run.name, split, "final score (paper's metric)", mean_ci(scored["final_score"]))
            add(run.name, split, "final score (original metric)", mean_ci(scored["final_score_original"]))
            add(HUMANS, split, "final score (paper's metric)", mean_ci(scored["human_final_score"]))
            add(HUMANS, split, "final score (original metric)", mean_ci(scored["human_final_score_original"]))
        rounds = run.frames["rounds"]
        add(run.name, "all", "per-round score (paper's metric)", mean_ci(rounds["score_final"]))
        add(HUMANS, "all", "per-round score (paper's metric)", mean_ci(rounds.loc[rounds["score_final"].notna(), "human_score_final"]))
    elif run.corpus == "minecraft":
        samples = run.frames["samples"]
        for split, part in [("all", samples), *samples.groupby("split", sort=True)]:
            tp, fp, fn = (part[c].to_numpy(dtype=float) for c in ("tp", "fp", "fn"))
            values = prf(tp.sum(), fp.sum(), fn.sum())
            intervals = _bootstrap_micro(tp, fp, fn)
            for metric, value, (low, high) in zip(("net-action precision", "net-action recall", "net-action F1"), values, intervals):
                rows.append((run.name, split, metric, len(part), value, low, high))
            rows.append((run.name, split, "infeasible actions per sample", len(part), float(part["infeasible"].mean()) if len(part) else math.nan, math.nan, math.nan))
    else:
        messages = run.frames["messages"]
        scored, empty = messages[~messages["gold_empty"]], messages[messages["gold_empty"]]
        for metric, column in (("exact match", "exact"), ("precision", "precision"), ("recall", "recall"), ("F1", "f1")):
            add(run.name, "all", metric, mean_ci(scored[column].astype("float64")))
        add(run.name, "all", "names an image when gold is empty", mean_ci(empty["names_image"].astype("float64")))
        for round_number, part in scored.groupby("round_number", sort=True):
            add(run.name, f"round {round_number}", "F1", mean_ci(part["f1"]))
        for criterion, part in scored.groupby("criterion", sort=True):
            add(run.name, f"criterion: {criterion}", "F1", mean_ci(part["f1"]))
    return pd.DataFrame(rows, columns=METRIC_COLUMNS)


# --------------------------------------------------------------------------------------- paired comparison

def units(run: LoadedRun, humans: bool = False) -> pd.DataFrame:
    """Per unit of comparison: ``unit`` (dialog / game#sample / message key), ``dialog_id``, ``turn``-ish link
    fields and the values the statistic needs (``value``; Minecraft: tp, fp, fn)."""
    if run.corpus == "codraw":
        d = run.frames["dialogs"]
        d = d[d["final_score"].notna()]
        return pd.DataFrame({"unit": d["dialog_id"], "dialog_id": d["dialog_id"], "turn": d["final_round" if not humans else "human_final_round"].astype("Int64"),
                             "round": pd.array([pd.NA] * len(d), dtype="Int64"),
                             "value": d["human_final_score" if humans else "final_score"].astype(float)}).reset_index(drop=True)
    if run.corpus == "minecraft":
        s = run.frames["samples"]
        frame = pd.DataFrame({"unit": s["game"] + "#" + s["sample_id"].astype(str), "dialog_id": s["game"],
                              "sample_id": s["sample_id"], "tp": s["tp"], "fp": s["fp"], "fn": s["fn"], "value": s["f1"]})
        if humans:  # the humans are the gold: every net change found, nothing extra
            frame = frame.assign(tp=s["tp"] + s["fn"], fp=0, fn=0, value=1.0)
        return frame.reset_index(drop=True)
    m = run.frames["messages"]
    m = m[~m["gold_empty"]]
    return pd.DataFrame({"unit": m["interaction_id"] + "|" + m["round_number"].astype(str) + "|" + m["message_number"].astype(str),
                         "dialog_id": m["interaction_id"], "round": m["round_number"], "message_number": m["message_number"],
                         "value": 1.0 if humans else m["f1"].astype(float)}).reset_index(drop=True)


def _statistic(corpus: str) -> Callable[[pd.DataFrame], float]:
    if corpus == "minecraft":
        return lambda f: prf(f["tp"].sum(), f["fp"].sum(), f["fn"].sum())[2]
    return lambda f: float(f["value"].mean())


def paired_bootstrap(a: pd.DataFrame, b: pd.DataFrame, corpus: str, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> dict:
    """Statistic of A, of B and of A − B on the units both have, with a paired percentile bootstrap 95 %
    interval of the difference (the same resampled units for both)."""
    both = a.merge(b, on="unit", suffixes=("_a", "_b"))
    n = len(both)
    result = {"n": n, "a": math.nan, "b": math.nan, "difference": math.nan, "low": math.nan, "high": math.nan}
    if n == 0:
        return result
    rng = np.random.default_rng(seed)
    if corpus == "minecraft":
        arrays = [both[f"{c}_{s}"].to_numpy(dtype=float) for s in ("a", "b") for c in ("tp", "fp", "fn")]

        def micro_f1(tp, fp, fn):
            precision = np.divide(tp, tp + fp, out=np.zeros_like(tp), where=(tp + fp) > 0)
            recall = np.divide(tp, tp + fn, out=np.zeros_like(tp), where=(tp + fn) > 0)
            return np.divide(2 * precision * recall, precision + recall, out=np.zeros_like(tp), where=(precision + recall) > 0)
        result["a"] = float(micro_f1(*(np.array([x.sum()]) for x in arrays[:3]))[0])
        result["b"] = float(micro_f1(*(np.array([x.sum()]) for x in arrays[3:]))[0])
        diffs = []
        for start in range(0, samples, 250):
            idx = rng.integers(0, n, size=(min(250, samples - start), n))
            sums = [x[idx].sum(1) for x in arrays]
            diffs.append(micro_f1(*sums[:3]) - micro_f1(*sums[3:]))
    else:
        va, vb = both["value_a"].to_numpy(dtype=float), both["value_b"].to_numpy(dtype=float)
        result["a"], result["b"] = float(va.mean()), float(vb.mean())
        delta = va - vb
        diffs = []
        for start in range(0, samples, 250):
            idx = rng.integers(0, n, size=(min(250, samples - start), n))
            diffs.append(delta[idx].mean(1))
    result["difference"] = result["a"] - result["b"]
    if n >= 2:
        result["low"], result["high"] = (float(v) for v in np.percentile(np.concatenate(diffs), [2.5, 97.5]))
    return result


def paired_units(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """The units both sides have, with value_a, value_b and difference, largest absolute difference first."""
    both = a.merge(b[["unit", "value"]], on="unit", suffixes=("_a", "_b"))
    both["difference"] = both["value_a"] - both["value_b"]
    return both.reindex(both["difference"].abs().sort_values(ascending=False, kind="stable").index).reset_index(drop=True)


# ------------------------------------------------------------------------------------------- slice finder

def _bins(values: pd.Series, edges: list[int], unit: str = "") -> pd.Series:
    labels = []
    for low, high in zip(edges[:-1], edges[1:]):
        labels.append(f"{low}{unit}" if high - low == 1 else (f"{low}+{unit}" if high >= 10 ** 6 else f"{low}–{high - 1}{unit}"))
    return pd.cut(values.astype(float), bins=[e - 0.5 for e in edges], labels=labels).astype(str)


def slice_features(corpus: LoadedCorpus, run: LoadedRun) -> pd.DataFrame:
    """Per unit of ``units(run)``: the corpus's domain features, as text categories."""
    base = units(run)
    if run.corpus == "codraw":
        dialogs = corpus.frames["dialogs"].set_index("dialog_id")
        d = dialogs.reindex(base["dialog_id"])
        cliparts = corpus.frames["cliparts"]
        people = cliparts[cliparts["identity"].isin([18, 19])].groupby("scene_id")["identity"].apply(lambda s: set(s.tolist()))
        who = d["target_scene"].map(lambda s: people.get(int(s), set()) if not pd.isna(s) else set())
        features = pd.DataFrame({
            "peek": np.where(d["peek_round"].notna().to_numpy(), "peeked", "no peek"),
            "clip-art in the target": _bins(d["n_target_cliparts"], [0, 4, 6, 8, 10 ** 6]).to_numpy(),
            "people in the scene": who.map(lambda s: {0: "none", 1: "boy" if 18 in s else "girl", 2: "boy and girl"}[len(s)]).to_numpy(),
            "dialog length (rounds)": _bins(d["n_rounds"], [0, 5, 8, 11, 10 ** 6]).to_numpy(),
        })
    elif run.corpus == "minecraft":
        samples = run.frames["samples"]
        games = corpus.frames["dialogs"].set_index("dialog_id")
        bap = corpus.frames["bap_samples"].set_index(["game", "sample_id"])
        keys = list(zip(samples["game"], samples["sample_id"]))
        gold_actions = bap["next_actions"].reindex(keys)
        utterances = corpus.frames["utterances"]
        words = {(d, int(t)): len(str(x).split()) for d, t, x in zip(utterances["dialog_id"], utterances["turn"], utterances["text"])}
        last_words = [words.get((g, int(t)), 0) for g, t in zip(samples["game"], bap["turn"].reindex(keys).fillna(0))]
        features = pd.DataFrame({
            "structure size (target blocks)": _bins(games["gold_blocks"].reindex(samples["game"]).reset_index(drop=True), [0, 16, 26, 41, 10 ** 6]).to_numpy(),
            "gold action count": _bins(gold_actions.map(lambda t: len(json.loads(t)) if isinstance(t, str) else 0).reset_index(drop=True), [0, 2, 4, 8, 10 ** 6]).to_numpy(),
            "removals present": np.where(gold_actions.map(lambda t: '"pickup"' in t if isinstance(t, str) else False).to_numpy(), "with removals", "placements only"),
            "utterance length (words)": _bins(pd.Series(last_words), [0, 6, 11, 21, 10 ** 6]).to_numpy(),
        })
    else:
        messages = run.frames["messages"]
        m = messages[~messages["gold_empty"]].reset_index(drop=True)
        features = pd.DataFrame({
            "round played": ("round " + m["round_number"].astype(str)).to_numpy(),
            "criterion": m["criterion"].to_numpy(),
            "message length (words)": _bins(m["text"].map(lambda t: len(str(t).split())), [0, 6, 11, 21, 10 ** 6]).to_numpy(),
            "gold image count": _bins(m["n_gold"], [1, 2, 3, 10 ** 6]).to_numpy(),
        })
    return pd.concat([base, features], axis=1)


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
    """unit -> replay ``turn`` for links: Minecraft the utterance a sample follows (unit "game#sample_id"),
    Game Of Sorts the message's step (unit "interaction|round|message"); CoDraw units carry their own round."""
    if corpus.corpus == "minecraft":
        bap = corpus.frames["bap_samples"]
        return pd.DataFrame({"unit": bap["game"] + "#" + bap["sample_id"].astype(str), "turn": bap["turn"].astype("Int64")})
    if corpus.corpus == "gos":
        steps = corpus.frames["steps"]
        steps = steps[steps["kind"] == "message"]
        unit = steps["interaction_id"] + "|" + steps["round_number"].astype(str) + "|" + steps["message_number"].astype("int64").astype(str)
        return pd.DataFrame({"unit": unit, "turn": steps["step"].astype("Int64")})
    return pd.DataFrame({"unit": pd.Series(dtype="str"), "turn": pd.Series(dtype="Int64")})


def with_turns(frame: pd.DataFrame, turns: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the replay ``turn`` of each unit from ``unit_turns`` (CoDraw keeps its own)."""
    if turns.empty:
        return frame
    return frame.drop(columns=["turn"], errors="ignore").merge(turns, on="unit", how="left")
