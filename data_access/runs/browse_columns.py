"""Browse's columns from model runs: per dialog, each loaded run's score and its gap to the humans on the same
units, beside the corpus's own columns (and range-filtered like them).

What a dialog's score is belongs to the corpus (its ``RunScoring.dialog_scores``: CoDraw the final drawing's
score, A Game Of Sorts the mean F1 over the interaction's messages, Minecraft the micro net-action F1 over the
game's samples); here the frames are only named and joined. A dialog the run did not score has no value in
its columns (NaN, never 0), so a range on them leaves it out, as it leaves out any dialog without a value.

Column names carry the run's name (``<run> · score``, ``<run> · gap``): run names are user-supplied, so the
page shows them only as data-grid headers or escaped (``ui.widgets.md_escape``), never as markup.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..common import LoadedCorpus
from ..contract import scoring_of
from . import LoadedRun, run_module

SCORE = "score"
GAP = "gap"
SEPARATOR = " · "


def column_name(run: str, what: str) -> str:
    """The Browse column of run ``run``'s ``what`` (``SCORE`` or ``GAP``): also its URL parameter."""
    return f"{run}{SEPARATOR}{what}"


def run_columns(corpus: LoadedCorpus, run: LoadedRun) -> pd.DataFrame:
    """The run's Browse columns, indexed by ``dialog_id`` (the dialogs it scored): ``<run> · score`` and, where
    the corpus has a human figure on the same units (``HAS_HUMANS``), ``<run> · gap`` = score − humans'."""
    scoring = scoring_of(run)
    scores = scoring.dialog_scores(run)
    frame = pd.DataFrame({column_name(run.name, SCORE): scores["score"].to_numpy(dtype=float)},
                         index=pd.Index(scores["dialog_id"].astype(str), name="dialog_id"))
    if scoring.HAS_HUMANS:
        frame[column_name(run.name, GAP)] = scores["score"].to_numpy(dtype=float) - scores["humans"].to_numpy(dtype=float)
    return frame[~frame.index.duplicated(keep="first")]


def step_run_scores(corpus: LoadedCorpus, run: LoadedRun) -> pd.DataFrame:
    """The run's score at each replay step it scored (a step slice's ``score(RUN)`` / ``gap(RUN)``): dialog_id,
    round, turn, score and humans (NaN where the corpus has no human figure). The corpus's own per-step scores where
    its scoring offers them (``step_scores``: CoDraw's rounds); else the statistic of the units at each step, each
    unit placed at its step by ``worst_steps`` (a Minecraft BAP sample, an A Game Of Sorts message)."""
    scoring = scoring_of(run)
    own = getattr(scoring, "step_scores", None)
    if own is not None:
        return own(run)
    units = scoring.units(run).reset_index(drop=True)
    humans = scoring.units(run, humans=True).reset_index(drop=True) if scoring.HAS_HUMANS else None
    places = scoring.worst_steps(corpus, run).drop_duplicates("unit").set_index("unit")
    keys = pd.DataFrame({"dialog_id": units["dialog_id"].astype(str),
                         "round": pd.array(units["unit"].map(places["round"]).to_numpy(), dtype="Int64"),
                         "turn": pd.array(units["unit"].map(places["turn"]).to_numpy(), dtype="Int64")})
    placed = keys["turn"].notna().to_numpy()
    keys, units = keys[placed].reset_index(drop=True), units[placed].reset_index(drop=True)
    grouped = [keys["dialog_id"], keys["round"].fillna(-1), keys["turn"]]

    def statistic(frame: pd.DataFrame) -> pd.Series:
        if scoring.UNIT_STATISTIC == "micro-f1":
            sums = frame.groupby(grouped, sort=True)[["tp", "fp", "fn"]].sum()
            denominator = 2 * sums["tp"] + sums["fp"] + sums["fn"]
            return (2 * sums["tp"] / denominator.where(denominator > 0)).astype(float)
        return frame.groupby(grouped, sort=True)["value"].mean().astype(float)

    score = statistic(units)
    human = statistic(humans[placed].reset_index(drop=True)) if humans is not None else pd.Series(np.nan, index=score.index)
    rounds = score.index.get_level_values(1).to_numpy(dtype=np.int64)
    return pd.DataFrame({"dialog_id": score.index.get_level_values(0).astype(str),
                         "round": pd.array([pd.NA if r < 0 else int(r) for r in rounds], dtype="Int64"),
                         "turn": score.index.get_level_values(2).to_numpy(dtype=np.int64),
                         "score": score.to_numpy(), "humans": human.reindex(score.index).to_numpy(dtype=float)})


def column_help(corpus: str, run: str, column: str) -> str:
    """What a run column means (plain text: the run's name is the user's, escape it for markdown)."""
    scoring = run_module(corpus)
    if column == column_name(run, GAP):
        return (f"Run {run}'s score minus the humans' on the same units of the dialog (negative: below the "
                "humans); empty where the run did not score the dialog.")
    return (f"Run {run}'s {scoring.STATISTIC_LABEL} over the dialog's units; empty where the run did not score "
            "the dialog.")


def with_run_columns(table: pd.DataFrame, columns: list[pd.DataFrame]) -> pd.DataFrame:
    """A new frame: ``table`` (one row per dialog, with ``dialog_id``) with every frame of ``columns``
    (``run_columns``) joined on the dialog id, placed before ``notes`` / ``replay`` when present; ``table``
    itself is left as it is (it may be shared by every session). Positions by ``get_indexer`` and one NumPy
    take per column: a DataFrame ``reindex`` per run cost five times as much on every Browse rerun."""
    if not columns:
        return table
    ids = pd.Index(table["dialog_id"].astype(str))
    added: dict[str, np.ndarray] = {}
    for frame in columns:
        positions = frame.index.get_indexer(ids)
        present = positions >= 0
        for name in frame.columns:
            if name in table.columns or name in added:
                continue  # two runs cannot share a name; a corpus column of that name keeps its place
            values = np.full(len(ids), np.nan)
            values[present] = frame[name].to_numpy(dtype=float)[positions[present]]
            added[name] = values
    at = next((table.columns.get_loc(c) for c in ("notes", "replay") if c in table.columns), len(table.columns))
    joined = table.copy(deep=False)
    for offset, (name, values) in enumerate(added.items()):
        joined.insert(at + offset, name, values)
    return joined
