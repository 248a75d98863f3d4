"""What a contrast compares (docs/slices.md, "The contrast builder"): a measure's values on the rows of two
slices of one corpus, at their level, and how they are paired.

A **measure** is written as a slice's feature: a column of the dialog table or of the step features
(``peek_gain``, ``round_score``, ``removals``), or a call (``score(RUN)``, ``gap(RUN)``, ``code(CR)``: a code's
count). It is read at the slices' level (a step slice's measure is a step feature); a true / false feature counts
as 1 / 0. Slice B may be ``rest``: every row A does not keep; or ``humans`` where the measure is a run's score: the
humans' score on the same units, each dialog (step) paired with itself.

**Pairing** (``paired``): ``auto`` pairs by the corpus's played item at that level (its ``PAIRED_ITEMS``: A Game Of
Sorts' board, Minecraft's target structure, CoDraw's scene) when at least two items are in both groups and they
hold at least half of each group's values, and says why not otherwise; ``none`` never pairs; a column name pairs by
that column (``dialog_id`` pairs a step slice's moments by their dialog).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import numpy as np
import pandas as pd

from .budget import EvaluationBudget
from .contrast import Contrast, contrast
from .evaluate import SliceData, evaluate, feature_values
from .grammar import DIALOG, STEP, Node, SliceError, Test, format_value, parse, unparse
from .tree import level

REST = "rest"
HUMANS = "humans"  # B: the humans' score on the units of A (the measure a run's score)
AUTO, NONE = "auto", "none"
MIN_SHARED_ITEMS = 2
MIN_PAIRED_SHARE = 0.5


@dataclass(frozen=True)
class Groups:
    """Two groups of one level's rows: ``a`` and ``b`` are masks over the dialog or step table."""

    level: str
    a: np.ndarray
    b: np.ndarray


def measure_feature(measure: str):
    """The feature a measure's text names (``peek_gain``, ``score(base)``); ``SliceError`` for anything else."""
    try:
        node = parse(measure)
    except SliceError as exc:
        raise SliceError(f"the measure “{measure}” is not a feature: {exc}") from None
    if not isinstance(node, Test) or node.op is not None:
        raise SliceError(f"a measure is one feature (a column such as peek_gain, or score(RUN), code(CR)); "
                         f"“{unparse(node)}” is a condition")
    return node.feature


def measure_values(measure: str, data: SliceData, at: str, budget: Optional[EvaluationBudget] = None) -> np.ndarray:
    """``measure``'s value per row of ``at``'s table, as floats (NaN: no value)."""
    feature = measure_feature(measure)
    try:
        values = feature_values(feature, data, at, budget)
    except SliceError as exc:
        raise SliceError(f"the measure {measure}: {exc}") from None
    if pd.api.types.is_bool_dtype(values):
        return values.astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    if not pd.api.types.is_numeric_dtype(values):
        raise SliceError(f"the measure {measure} is not a number (it is {values.dtype}); a contrast compares means")
    return pd.to_numeric(values, errors="coerce").astype("float64").to_numpy()


def groups(data: SliceData, a: Union[str, Node], b: Union[str, Node], budget: Optional[EvaluationBudget] = None
           ) -> Groups:
    """The rows slices ``a`` and ``b`` keep (``b`` may be ``REST``), which must be of one level."""
    node_a = parse(a) if isinstance(a, str) else a
    at = level(node_a)
    kept_a = evaluate(node_a, data, budget)
    if isinstance(b, str) and b.strip() == REST:
        return Groups(at, kept_a, ~kept_a)
    node_b = parse(b) if isinstance(b, str) else b
    if level(node_b) != at:
        raise SliceError(f"A is a {at} slice and B a {level(node_b)} slice: a contrast compares rows of one level "
                         "(lift a step slice to its dialogs with has_step(…), lower a dialog slice with "
                         "steps(dialog(…)))")
    return Groups(at, kept_a, evaluate(node_b, data, budget))


def _items(data: SliceData, at: str, paired: str) -> tuple[Optional[pd.Series], str, str]:
    """The item of each row to pair by (None: unpaired), its column and what an item is called."""
    if paired == NONE:
        return None, "", ""
    frame = data.dialogs if at == DIALOG else data.steps.frame
    if paired == AUTO:
        column, label = data.paired_items.get(at, ("", ""))
        if not column or column not in frame.columns:
            return None, "", ""
        return frame[column].reset_index(drop=True), column, label
    if paired not in frame.columns:
        raise SliceError(f"no column “{paired}” to pair by at the {at} level")
    return frame[paired].reset_index(drop=True), paired, paired.replace("_", " ")


def contrast_groups(data: SliceData, measure: str, chosen: Groups, *, paired: str = AUTO,
                    budget: Optional[EvaluationBudget] = None, **options) -> Contrast:
    """``measure`` on ``chosen.a`` against ``chosen.b`` (see the module's docstring for ``paired``)."""
    budget = budget if budget is not None else EvaluationBudget()
    values = measure_values(measure, data, chosen.level, budget)
    check = budget.check
    items, column, label = _items(data, chosen.level, paired)
    if items is not None:
        keep_a = chosen.a & ~np.isnan(values)
        keep_b = chosen.b & ~np.isnan(values)
        in_a, in_b = items[keep_a].dropna(), items[keep_b].dropna()
        shared = set(in_a.astype(str)) & set(in_b.astype(str))
        share_a = in_a.astype(str).isin(shared).mean() if len(in_a) else 0.0
        share_b = in_b.astype(str).isin(shared).mean() if len(in_b) else 0.0
        if paired != AUTO or (len(shared) >= MIN_SHARED_ITEMS and min(share_a, share_b) >= MIN_PAIRED_SHARE):
            return contrast(measure, values[chosen.a], values[chosen.b], items_a=items[chosen.a].astype(str).tolist(),
                            items_b=items[chosen.b].astype(str).tolist(), paired_by=column, paired_label=label,
                            check=check, **options)
        note = "" if not shared else (
            f"Not paired by {label}: {len(shared):,} {label}{'' if len(shared) == 1 else 's'} in both groups"
            + (f", holding {min(share_a, share_b):.0%} of one group's values" if len(shared) >= MIN_SHARED_ITEMS
               else "") + ".")
        return contrast(measure, values[chosen.a], values[chosen.b], check=check, note=note, **options)
    return contrast(measure, values[chosen.a], values[chosen.b], check=check, **options)


def contrast_with_humans(data: SliceData, measure: str, kept: np.ndarray, at: str, *,
                         budget: Optional[EvaluationBudget] = None, **options) -> Contrast:
    """A run's score (``measure`` = ``score(RUN)``) on the rows ``kept`` against the humans' on the same units, paired
    by dialog (by step in a step slice): B = ``HUMANS``."""
    feature = measure_feature(measure)
    if feature.name != "score" or not feature.args:
        raise SliceError(f"B = {HUMANS} sets a run's score against the humans': the measure is score(RUN), not {measure}")
    run = str(feature.args[0])
    budget = budget if budget is not None else EvaluationBudget()
    model = measure_values(measure, data, at, budget)
    gap = measure_values(f"gap({format_value(run)})", data, at, budget)
    frame = data.dialogs if at == DIALOG else data.steps.frame
    rows = (frame["dialog_id"].astype(str) if at == DIALOG else
            frame["dialog_id"].astype(str) + "#" + frame["round"].astype(str) + "#" + frame["turn"].astype(str))
    keys = rows[kept].tolist()
    return contrast(measure, model[kept], (model - gap)[kept], items_a=keys, items_b=keys,
                    paired_by="dialog_id" if at == DIALOG else "step", paired_label="dialog" if at == DIALOG else "step",
                    check=budget.check, **options)


def contrast_slices(data: SliceData, measure: str, a: str, b: str = REST, *, paired: str = AUTO,
                    budget: Optional[EvaluationBudget] = None, **options) -> Contrast:
    """``measure`` on slice ``a`` against slice ``b`` (``REST``: the rest), both evaluated on ``data``."""
    budget = budget if budget is not None else EvaluationBudget()
    if isinstance(b, str) and b.strip() == HUMANS:
        node = parse(a)
        return contrast_with_humans(data, measure, evaluate(node, data, budget), level(node), budget=budget, **options)
    return contrast_groups(data, measure, groups(data, a, b, budget), paired=paired, budget=budget, **options)


__all__ = ["AUTO", "DIALOG", "Groups", "HUMANS", "NONE", "REST", "STEP", "contrast_groups", "contrast_slices",
           "contrast_with_humans", "groups", "measure_feature", "measure_values"]
