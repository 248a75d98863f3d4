"""Minecraft runs (builder action prediction): read them, replay the predicted actions on each BAP
sample's built structure and score the net change with the BAP repository's net-action P/R/F1.

Formats (docs/formats.md, "Model runs"):
- JSON Lines, one line per sample: ``{"game": "<experiment id>", "sample_id": 12, "actions": [{"action":
  "place"|"remove", "x", "y", "z", "color"}, ...]}`` or, instead of ``actions``, ``"end_config": [{"x", "y",
  "z", "color"}, ...]`` (the predicted structure after the sample);
- the BAP repository's ``generated_sentences*.txt`` (metric lines, a blank line, then a JSON list of
  ``{generated_seq, ground_truth_seq, prev_utterances, action_feasibilities}``), aligned to samples by the
  ground-truth action sequence and the previous utterances (``align_generated``).

Metric (the repository's ``generate.py``): the net change of a structure is the set of
(placement|removal, x, y, z, colour) between the sample's initial structure and an end structure; the
prediction's net change is compared with the gold one, and true positives, false positives and false
negatives are summed over the split before precision, recall and F1 (each 0 when its denominator is 0).
A sample's initial and gold end structures are the logged world states (the repository's ``prev_config`` and
``end_built_config_raw``): the Builder's actions replayed step by step, a step's removals before its placements
(``replay_logged``), so that a block recoloured within one step keeps its new colour. Predicted actions are
applied in order; an infeasible one (placing on an occupied cell, removing from an empty cell, any cell outside
the 11 x 9 x 11 region) is counted and skipped.
"""
from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Iterable, Optional

import orjson
import pandas as pd

from corpora.minecraft.data.blocks import (
    COLORS,
    X_MAX,
    X_MIN,
    Y_MAX,
    Y_MIN,
    Z_MAX,
    Z_MIN,
    config_from_json,  # noqa: F401 - part of this module's names
)
from corpora.minecraft.data.run_reading import (  # noqa: F401 - read here, scored below; part of this module's names
    EXPECTED,
    SAMPLE_COLUMNS,
    Cell,
    Config,
    _generated_sentences,
    align_generated,
    parse_action,
    parse_block,
    read_rows,
)
from dialogue_dashboard.plugin import LoadedCorpus, Tally, prf, skipped_report

# the corpus this scoring belongs to: its package's name (``NAME``), without importing the package, which
# imports this module in ``run_scoring()``
CORPUS = "minecraft"  # the package's NAME (this module is imported by its __init__)

def in_region(x: int, y: int, z: int) -> bool:
    return X_MIN <= x <= X_MAX and Y_MIN <= y <= Y_MAX and Z_MIN <= z <= Z_MAX


def apply_actions(initial: Config, actions: Iterable[tuple[str, int, int, int, Optional[str]]]) -> tuple[Config, int]:
    """The structure after the actions (kind "placement"/"removal", x, y, z, colour), and how many were
    infeasible (occupied cell, empty cell, outside the region) and therefore skipped."""
    config = dict(initial)
    infeasible = 0
    for kind, x, y, z, color in actions:
        cell = (x, y, z)
        if not in_region(x, y, z):
            infeasible += 1
        elif kind == "placement":
            if cell in config:
                infeasible += 1
            else:
                assert color is not None, "a placement names its colour (parse_action checks it)"
                config[cell] = color
        elif cell in config:
            del config[cell]
        else:
            infeasible += 1
    return config, infeasible


def replay_logged(config: Config, actions: Iterable[tuple[int, str, int, int, int, Optional[str]]]) -> Config:
    """``config`` (changed in place, and returned) after the Builder's logged actions (step, kind, x, y, z,
    colour), the corpus's diffs of consecutive kept world states: each step's removals before its placements, so
    that the world state of every step is the logged one. A block recoloured within one step is both a placement
    of its new colour and a removal of its old one in that step (placement first in the action order); applied
    one by one, the placement would meet the old block and the removal then empty the cell."""
    step, placements = None, []  # type: Optional[int], list
    for action_step, kind, x, y, z, color in actions:
        if action_step != step:
            config.update(placements)
            step, placements = action_step, []
        if kind == "placement":
            placements.append(((x, y, z), color))
        else:
            config.pop((x, y, z), None)
    config.update(placements)
    return config


def net_change(initial: Config, end: Config) -> set[tuple[str, int, int, int, str]]:
    """(placement|removal, x, y, z, colour) of every block in end but not initial, and the reverse."""
    start = {(*cell, color) for cell, color in initial.items()}
    finish = {(*cell, color) for cell, color in end.items()}
    return {("placement", *b) for b in finish - start} | {("removal", *b) for b in start - finish}


def counts(initial: Config, predicted_end: Config, gold_end: Config) -> tuple[int, int, int]:
    """(tp, fp, fn) of the predicted net change against the gold net change."""
    predicted, gold = net_change(initial, predicted_end), net_change(initial, gold_end)
    return len(predicted & gold), len(predicted - gold), len(gold - predicted)


# ----------------------------------------------------------------------------------------- corpus side

def sample_table(corpus: LoadedCorpus, wanted: Optional[set] = None) -> pd.DataFrame:
    """The corpus's BAP samples with their gold actions decoded: game, split, sample_id, turn, gold (list of
    (kind, x, y, z, colour)), gold_steps (the logged step, a kept state's index, of each gold action); only the
    ``wanted`` (game, sample_id) keys when given (decoding is the cost)."""
    samples = corpus.frames["bap_samples"][["game", "split", "sample_id", "turn", "next_actions"]]
    if wanted is not None:
        keys = pd.MultiIndex.from_arrays([samples["game"], samples["sample_id"]])
        samples = samples[keys.isin(list(wanted))]
    samples = samples.reset_index(drop=True)
    kinds = {"putdown": "placement", "pickup": "removal"}
    decoded = [orjson.loads(text) for text in samples["next_actions"]]
    gold = [[(kinds[a[0]], int(a[1]), int(a[2]), int(a[3]), a[4]) for a in actions] for actions in decoded]
    steps = [[int(a[5]) for a in actions] for actions in decoded]
    return samples.drop(columns="next_actions").assign(gold=gold, gold_steps=steps)


def gold_end(start: Config, gold: list, gold_steps: list[int]) -> Config:
    """The structure after a sample's gold actions: the logged world state after its last step (the BAP
    repository's ``end_built_config_raw``)."""
    return replay_logged(dict(start), ((step, *action) for step, action in zip(gold_steps, gold)))


def initial_configs(corpus: LoadedCorpus, wanted: Iterable[tuple[str, int]]) -> dict[tuple[str, int], Config]:
    """The built structure before each wanted sample (game, sample_id): the human actions of the game's
    kept states before ``sample_id`` replayed step by step (``replay_logged``): the logged world state, the
    repository's ``prev_config`` (empty for sample_id 1)."""
    by_game: dict[str, list[int]] = {}
    for game, sample_id in wanted:
        by_game.setdefault(game, []).append(sample_id)
    actions = corpus.frames["actions"]
    actions = actions[actions["game"].isin(list(by_game))].sort_values(["game", "seq"], kind="stable")
    games = actions["game"].to_numpy(dtype=object)
    states = actions["state_idx"].to_numpy()
    rows = list(zip(states.tolist(), actions["kind"].to_numpy(dtype=object), actions["x"].to_numpy().tolist(),
                    actions["y"].to_numpy().tolist(), actions["z"].to_numpy().tolist(), actions["color"].to_numpy(dtype=object)))
    starts: dict = {}
    for index, game in enumerate(games):  # games are contiguous after the sort
        starts.setdefault(game, [index, index])[1] = index + 1
    result: dict[tuple[str, int], Config] = {}
    for game, ids in by_game.items():
        begin, end = starts.get(game, (0, 0))
        config: Config = {}
        position = begin
        for sample_id in sorted(set(ids)):
            done = position
            while position < end and states[position] <= sample_id - 1:
                position += 1
            replay_logged(config, rows[done:position])  # whole steps: a step's actions share its state index
            result[(game, sample_id)] = dict(config) if sample_id > 1 else {}
    return result


# ------------------------------------------------------------------------------------------------ scoring

def _json_config(config: Config) -> str:
    return orjson.dumps(sorted([x, y, z, c] for (x, y, z), c in config.items())).decode()


def score(corpus: LoadedCorpus, rows: list[dict], tally: Tally, generated: bool) -> dict[str, pd.DataFrame]:
    samples = sample_table(corpus, None if generated else {(r["game"], r["sample_id"]) for r in rows})
    if generated:
        rows = align_generated(corpus, rows, tally, samples)
    known = {(g, s): i for i, (g, s) in enumerate(zip(samples["game"], samples["sample_id"]))}
    games = set(corpus.frames["bap_samples"]["game"])
    records = samples.to_dict("records")
    matched, seen = [], {}  # type: list, dict
    for row in rows:
        key = (row["game"], row["sample_id"])
        if key not in known:
            reason = f"the game has no BAP sample {row['sample_id']}" if row["game"] in games else "unknown game (or a game without BAP samples)"
            tally.unmatch(row["line"], f"{row['game']} sample {row['sample_id']}" if row["line"] is not None else row["record"], reason)
            continue
        if key in seen:
            tally.skip(row["line"], f"a second prediction for {key[0]} sample {key[1]} (first: {seen[key]})",
                       "" if row["line"] is not None else row["record"])
            continue
        seen[key] = row["record"]
        matched.append(row)
    initial = initial_configs(corpus, [(r["game"], r["sample_id"]) for r in matched])
    out: dict[str, list] = {name: [] for name in SAMPLE_COLUMNS}
    for row in matched:
        key = (row["game"], row["sample_id"])
        start = initial[key]
        sample = records[known[key]]
        gold_built = gold_end(start, sample["gold"], sample["gold_steps"])
        if "end_config" in row:
            predicted_end, infeasible = {}, 0
            for x, y, z, color in row["end_config"]:
                if not in_region(x, y, z) or (x, y, z) in predicted_end:
                    infeasible += 1
                else:
                    predicted_end[(x, y, z)] = color
            n_actions = len(row["end_config"])
        else:
            predicted_end, infeasible = apply_actions(start, row["actions"])
            n_actions = len(row["actions"])
        tp, fp, fn = counts(start, predicted_end, gold_built)
        precision, recall, f1 = prf(tp, fp, fn)
        values = (row["game"], str(sample["split"]), row["sample_id"], row["line"], row["record"], row.get("match", "id"),
                  n_actions, infeasible, tp, fp, fn, precision, recall, f1, _json_config(start),
                  _json_config(predicted_end), _json_config(gold_built))
        for name, value in zip(SAMPLE_COLUMNS, values):
            out[name].append(value)
    frame = pd.DataFrame(out, columns=SAMPLE_COLUMNS).astype({
        "game": "str", "split": "str", "sample_id": "int64", "line": "Int64", "record": "str", "match": "str",
        "n_actions": "int64", "infeasible": "int64", "tp": "int64", "fp": "int64", "fn": "int64",
        "precision": "float64", "recall": "float64", "f1": "float64", "initial": "str", "predicted_end": "str",
        "gold_end": "str"})
    return {"samples": frame, "unmatched": tally.unmatched_frame()}


def build(path: Path, corpus: LoadedCorpus) -> tuple[dict[str, pd.DataFrame], list]:
    rows, tally, generated = read_rows(path)
    frames = score(corpus, rows, tally, generated)
    return frames, tally.skipped


def micro(samples: pd.DataFrame) -> dict:
    tp, fp, fn = (int(samples[c].sum()) for c in ("tp", "fp", "fn"))
    precision, recall, f1 = prf(tp, fp, fn)
    return {"samples": int(len(samples)), "net_action_precision": precision, "net_action_recall": recall,
            "net_action_f1": f1, "tp": tp, "fp": fp, "fn": fn}


def summary(frames, skipped, name: str) -> dict:
    """The ``run-summary minecraft`` object (keys fixed by the issue)."""
    samples = frames["samples"]
    splits = {}
    for split, part in samples.groupby("split", sort=True):
        figures = micro(part)
        splits[str(split)] = {k: figures[k] for k in ("samples", "net_action_precision", "net_action_recall", "net_action_f1")}
    return {
        "run": name,
        "scored_samples": int(len(samples)),
        "unmatched": int(len(frames["unmatched"])),
        "infeasible_actions": int(samples["infeasible"].sum()),
        "splits": splits,
        **skipped_report(skipped),
    }


# ----------------------------------------------------------------------------------- the run scoring contract
# ``contract.RunScoring``: what the Runs page, the replay and the exports need from a BAP run.

LINE_KEYS = ("game", "sample_id")
HAS_HUMANS = False  # the humans are the gold (F1 1): not offered as a comparison
UNIT_STATISTIC = "micro-f1"
STATISTIC_LABEL = "micro net-action F1"
METRIC_NOTE = "Net-action P/R/F1 micro-averaged over the samples (the BAP repository's definition), percentile bootstrap intervals over samples."


def demo_runs(frames) -> dict[str, list[dict]]:
    """The demo runs' lines (written by ``runs.demo``). ``baseline``: the gold actions without their removals.
    ``noisy``: gold actions shifted by one cell (25 %), recoloured (15 %), plus a stray removal (30 % of
    samples, usually infeasible)."""
    samples = frames["bap_samples"]
    baseline, noisy = [], []
    rng = random.Random(1202)
    for game, sample_id, text in zip(samples["game"], samples["sample_id"], samples["next_actions"]):
        gold = json.loads(text)
        baseline.append({"game": game, "sample_id": int(sample_id), "actions": [
            {"action": "place", "x": a[1], "y": a[2], "z": a[3], "color": a[4]} for a in gold if a[0] == "putdown"]})
        actions = []
        for kind, x, y, z, color, _state in gold:
            if rng.random() < 0.25:
                x += rng.choice((-1, 1))
            if rng.random() < 0.15:
                color = rng.choice([c for c in COLORS if c != color])
            actions.append({"action": "place" if kind == "putdown" else "remove", "x": x, "y": y, "z": z, "color": color})
        if rng.random() < 0.3:
            actions.append({"action": "remove", "x": rng.randint(-5, 5), "y": rng.randint(1, 9), "z": rng.randint(-5, 5)})
        noisy.append({"game": game, "sample_id": int(sample_id), "actions": actions})
    return {"baseline": baseline, "noisy": noisy}


def metric_rows(run) -> list[tuple]:
    """Micro net-action P, R, F1 with bootstrap intervals, and infeasible actions per sample, per split."""
    from dialogue_dashboard.plugin import bootstrap_micro

    rows = []
    samples = run.frames["samples"]
    for split, part in [("all", samples), *samples.groupby("split", sort=True)]:
        tp, fp, fn = (part[c].to_numpy(dtype=float) for c in ("tp", "fp", "fn"))
        values = prf(tp.sum(), fp.sum(), fn.sum())
        intervals = bootstrap_micro(tp, fp, fn)
        for metric, value, (low, high) in zip(("net-action precision", "net-action recall", "net-action F1"), values, intervals):
            rows.append((run.name, split, metric, len(part), value, low, high))
        rows.append((run.name, split, "infeasible actions per sample", len(part), float(part["infeasible"].mean()) if len(part) else math.nan, math.nan, math.nan))
    return rows


def units(run, humans: bool = False) -> pd.DataFrame:
    """One unit per BAP sample, with its tp / fp / fn (the humans: every net change found, nothing extra)."""
    s = run.frames["samples"]
    frame = pd.DataFrame({"unit": s["game"] + "#" + s["sample_id"].astype(str), "dialog_id": s["game"],
                          "sample_id": s["sample_id"], "tp": s["tp"], "fp": s["fp"], "fn": s["fn"], "value": s["f1"]})
    if humans:
        frame = frame.assign(tp=s["tp"] + s["fn"], fp=0, fn=0, value=1.0)
    return frame.reset_index(drop=True)


def dialog_scores(run) -> pd.DataFrame:
    """Per game: the micro net-action F1 over its BAP samples (tp, fp, fn summed, as over a split); no human
    figure (the humans' actions are the gold)."""
    grouped = units(run).groupby("dialog_id", sort=True)
    sums, size = grouped[["tp", "fp", "fn"]].sum(), grouped.size()
    frame = pd.DataFrame({"dialog_id": sums.index.astype(str), "units": size.to_numpy(),
                          "score": [prf(tp, fp, fn)[2] for tp, fp, fn in zip(sums["tp"], sums["fp"], sums["fn"])],
                          "humans": float("nan")})
    return frame.reset_index(drop=True)


def slice_features(corpus: LoadedCorpus, run, base: pd.DataFrame) -> pd.DataFrame:
    """Structure size, gold action count, whether removals are present, the utterance's length."""
    import numpy as np

    from dialogue_dashboard.plugin import bins

    samples = run.frames["samples"]
    games = corpus.frames["dialogs"].set_index("dialog_id")
    bap = corpus.frames["bap_samples"].set_index(["game", "sample_id"])
    keys = list(zip(samples["game"], samples["sample_id"]))
    gold_actions = bap["next_actions"].reindex(keys)
    utterances = corpus.frames["utterances"]
    words = {(d, int(t)): len(str(x).split()) for d, t, x in zip(utterances["dialog_id"], utterances["turn"], utterances["text"])}
    last_words = [words.get((g, int(t)), 0) for g, t in zip(samples["game"], bap["turn"].reindex(keys).fillna(0))]
    return pd.DataFrame({
        "structure size (target blocks)": bins(games["gold_blocks"].reindex(samples["game"]).reset_index(drop=True), [0, 16, 26, 41, 10 ** 6]).to_numpy(),
        "gold action count": bins(gold_actions.map(lambda t: len(json.loads(t)) if isinstance(t, str) else 0).reset_index(drop=True), [0, 2, 4, 8, 10 ** 6]).to_numpy(),
        "removals present": np.where(gold_actions.map(lambda t: '"pickup"' in t if isinstance(t, str) else False).to_numpy(), "with removals", "placements only"),
        "utterance length (words)": bins(pd.Series(last_words), [0, 6, 11, 21, 10 ** 6]).to_numpy(),
    })


def unit_turns(corpus: LoadedCorpus) -> pd.DataFrame:
    """unit "game#sample_id" -> the utterance the sample follows."""
    bap = corpus.frames["bap_samples"]
    return pd.DataFrame({"unit": bap["game"] + "#" + bap["sample_id"].astype(str), "turn": bap["turn"].astype("Int64")})


def worst_steps(corpus: LoadedCorpus, run) -> pd.DataFrame:
    """A unit is one BAP sample: the utterance it follows (where the replay shows its predicted structure)."""
    steps = units(run)[["unit"]].merge(unit_turns(corpus).drop_duplicates("unit"), on="unit", how="left")
    return pd.DataFrame({"unit": steps["unit"], "turn": steps["turn"].astype("Int64"),
                         "round": pd.array([pd.NA] * len(steps), dtype="Int64")})


def replay_view(corpus: LoadedCorpus, run, dialog_id: str, turn: int, round=None):
    """The BAP sample after utterance ``turn``: predicted and gold structures (``views.MinecraftRunView``)."""
    from corpora.minecraft.data.run_views import minecraft_view

    return minecraft_view(corpus, run, dialog_id, turn)


def run_pictures(corpus, run, dialog_id: str, round, n_steps: int) -> list:
    """The model's predicted structure after each utterance that has a BAP sample in the run (correct
    blocks solid, extra ones outlined thick, missing ones as outlines), beside the gold structure."""
    from corpora.minecraft.data.render import snapshot_image
    from corpora.minecraft.data.run_views import block_marks
    from dialogue_dashboard.plugin import image_grid, note_picture

    samples = run.frames["samples"]
    mine = samples[samples["game"] == dialog_id]
    bap = corpus.frames["bap_samples"]
    bap = bap[bap["game"] == dialog_id]
    turn_of = dict(zip(bap["sample_id"], bap["turn"]))
    by_turn: dict = {}
    for row in mine.itertuples(index=False):
        turn = turn_of.get(row.sample_id)
        if turn is not None:
            by_turn.setdefault(int(turn), row)
    pictures = []
    for step in range(1, n_steps + 1):
        row = by_turn.get(step)
        if row is None:
            pictures.append(note_picture(f"The run has no prediction after utterance {step}."))
            continue
        initial, predicted, gold = (config_from_json(getattr(row, c)) for c in ("initial", "predicted_end", "gold_end"))
        marks = block_marks(initial, predicted, gold)
        model = snapshot_image([*marks["correct"], *marks["extra"]], ghosts=marks["missing"], highlight=marks["extra"],
                               title=f"Model: {len(marks['correct'])} correct, {len(marks['extra'])} extra (thick), "
                                     f"{len(marks['missing'])} missing (outlined)")
        target = snapshot_image(sorted((x, y, z, c) for (x, y, z), c in gold.items()), title="Gold structure after the sample")
        pictures.append(image_grid([model, target]))
    return pictures


__all__ = ["apply_actions", "replay_logged", "gold_end", "net_change", "counts", "prf", "read_rows", "score", "build", "summary", "micro",
           "initial_configs", "config_from_json"]
