"""A model's labels beside the humans': agreement per label (the humans among themselves, each model against them),
the units where a model differs from a human, and span pairs, as the Agreement page shows them. The labels are
read and imported by ``model_labels``."""
from __future__ import annotations

import math
from itertools import combinations
from typing import Callable, Optional, Sequence

import pandas as pd

from . import agreement as ag
from . import compare

MODEL_TABLE_COLUMNS = ["label", "coders", "units", "cohen_kappa", "alpha"]
HUMANS = "humans"


def _mean(values: Sequence[float]) -> float:
    defined = [v for v in values if not math.isnan(v)]
    return sum(defined) / len(defined) if defined else float("nan")


def _pairable(matrix: list[list], needed: Callable[[list], bool]) -> list[list]:
    keep = [i for i in range(len(matrix[0]) if matrix else 0) if needed([row[i] for row in matrix])]
    return [[row[i] for i in keep] for row in matrix]


def model_units(frame: pd.DataFrame, model: str, units: Optional[Sequence]) -> set:
    """Of ``units`` (a coding queue's), those in dialogs the model labelled: a model codes what it is given, so
    it is assigned those (and is missing elsewhere, where it was never asked)."""
    mine = frame[frame["coder"] == model]
    dialogs = set(zip(mine["corpus"], mine["dialog_id"]))
    return {u for u in (units or ()) if tuple(u[:2]) in dialogs}


def _beside_humans(frame: pd.DataFrame, humans: Sequence[str], units: Optional[Sequence],
                   assigned: Optional[dict]) -> pd.DataFrame:
    """``frame`` in the dialogs a human coded, when units are those anyone labelled (no ``units``, no
    ``assigned``): elsewhere no human has a value, so a model's labels there pair with nothing (a model of every
    CoDraw round beside humans of thirty dialogs: a fraction of a second instead of seconds per rerun)."""
    if units is not None or assigned is not None:
        return frame
    theirs = frame[frame["coder"].isin(list(humans))]
    dialogs = set(zip(theirs["corpus"], theirs["dialog_id"]))
    return frame[[d in dialogs for d in zip(frame["corpus"], frame["dialog_id"])]]


def model_agreement(frame: pd.DataFrame, humans: Sequence[str], models: Sequence[str], *,
                    units: Optional[Sequence] = None, assigned: Optional[dict] = None) -> pd.DataFrame:
    """Per label (and overall, over label sets): the humans among themselves — mean pairwise Cohen's κ and
    Krippendorff's α over the units two of them have a value for — and each model against them: the mean of
    its Cohen's κ with each human (over the units both have a value for) and α of the humans with the model
    added, over the units the model and at least one human have a value for. ``frame``: label annotations of
    one scope (``compare.coded_sources``); ``units``/``assigned`` as ``agreement.agreement_table`` takes them."""
    humans, rows = list(humans), []
    labels = sorted(frame["label"].unique())
    frame = _beside_humans(frame, humans, units, assigned)
    if assigned is not None:
        assigned = dict(assigned, **{m: model_units(frame, m, units) for m in models})
    for name in [None, *labels]:
        shown = "(overall)" if name is None else name
        human_frame = frame[frame["coder"].isin(humans)]
        matrix, _ = ag.reliability_matrix(human_frame, humans, units, label=name, assigned=assigned)
        matrix = _pairable(matrix, lambda column: sum(v is not None for v in column) >= 2)
        kappas = [ag.cohen_kappa(matrix[i], matrix[j]) for i, j in combinations(range(len(humans)), 2)]
        rows.append({"label": shown, "coders": HUMANS, "units": len(matrix[0]) if matrix else 0,
                     "cohen_kappa": _mean(kappas), "alpha": ag.krippendorff_alpha_nominal(matrix) if matrix else math.nan})
        for model in models:
            coders = [*humans, model]
            matrix, _ = ag.reliability_matrix(frame[frame["coder"].isin(coders)], coders, units, label=name,
                                              assigned=assigned)
            matrix = _pairable(matrix, lambda column: column[-1] is not None and any(v is not None for v in column[:-1]))
            kappas = [ag.cohen_kappa(matrix[-1], matrix[i]) for i in range(len(humans))]
            rows.append({"label": shown, "coders": model, "units": len(matrix[0]) if matrix else 0,
                         "cohen_kappa": _mean(kappas),
                         "alpha": ag.krippendorff_alpha_nominal(matrix) if matrix and matrix[0] else math.nan})
    return pd.DataFrame(rows, columns=MODEL_TABLE_COLUMNS)


def model_disagreements(frame: pd.DataFrame, humans: Sequence[str], model: str, *, units: Optional[Sequence] = None,
                        assigned: Optional[dict] = None) -> pd.DataFrame:
    """The units (turn or dialog scope) where the model's labels differ from at least one human's, a column per
    coder as in ``compare.disagreements`` (so the Agreement page links them to their replay alike)."""
    coders = [*humans, model]
    if assigned is not None:
        assigned = dict(assigned, **{model: model_units(frame, model, units)})
    frame = _beside_humans(frame[frame["coder"].isin(coders)], humans, units, assigned)
    table = compare.disagreements(frame, coders, units, assigned)
    if table.empty:
        return table
    differs = [m != "—" and any(h != "—" and h != m for h in row) for m, row in
               zip(table[model], table[list(humans)].itertuples(index=False))]
    return table[differs].reset_index(drop=True)


def model_span_pairs(frame: pd.DataFrame, humans: Sequence[str], models: Sequence[str]) -> pd.DataFrame:
    """``compare.span_pairs`` of each model with each human (spans matched exactly and by overlap)."""
    pairs = [compare.span_pairs(frame, [human, model]) for model in models for human in humans]
    return pd.concat(pairs, ignore_index=True) if pairs else compare.span_pairs(frame, [])
