"""Evaluate a slice against one corpus: which of its dialogs, or of its replay steps, the predicate keeps.

``SliceData`` holds what the tests read: the dialog table with the analysis pages' and the layers' per-dialog
features joined (``slice_data`` builds it from a loaded corpus), the step table (``steps.StepTable``, built when a
step slice first asks for it and then kept), each loaded run's Browse columns and step scores, the coding store's
annotations, the notes, and the utterances (for ``text`` / ``re``). Everything but the dialog table is optional; a
test that needs what is absent says so (``SliceError``), never a traceback. One ``EvaluationBudget`` bounds the
whole evaluation, checked before each test and between the chunks of a text test.

Every test is read at a level: a dialog slice's at the dialog level (a value per dialog), ``steps(…)``'s at the step
level (a value per step), ``has_step(…)`` lifts its steps to their dialogs and ``dialog(…)`` lowers its dialogs to
their steps. Semantics (docs/slices.md): a comparison with a row that has no value (NaN: no peek, not in a layer,
not scored by a run) is false, so ``not`` of it is true; ``is null`` / ``is not null`` test for a value; a bare
feature is a test only where it is true or false, or a count of calls (``code``, ``tag``, ``text``, ``re``: at
least one): a bare number is refused, since "non-zero" silently drops the zeros.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import numpy as np
import pandas as pd

from . import calls as call_values
from .budget import EvaluationBudget
from .data import SliceData, slice_data
from .grammar import (
    DIALOG,
    NULL_OPS,
    STEP,
    And,
    Feature,
    In,
    Lift,
    Lower,
    Node,
    Not,
    Or,
    SliceError,
    Steps,
    Test,
    Value,
    Window,
    format_value,
    parse,
)
from .steps import KEY_COLUMNS
from .tree import level

CALLS = call_values.CALLS
_NUMERIC_OPS = ("<", "<=", ">", ">=")


# ------------------------------------------------------------------------------------------ evaluation

@dataclass(frozen=True)
class Kept:
    """What a slice keeps: ``level`` (``DIALOG`` or ``STEP``), the dialogs (a mask over the dialog table: a step
    slice's are the dialogs with at least one of its steps) and, for a step slice, the steps (a mask over the step
    table)."""

    level: str
    dialogs: np.ndarray
    steps: Optional[np.ndarray] = None


@dataclass(frozen=True)
class _Scope:
    """Where tests are read: the dialog table or the step table of ``data``."""

    level: str
    data: SliceData
    budget: EvaluationBudget

    @property
    def frame(self) -> pd.DataFrame:
        return self.data.dialogs if self.level == DIALOG else self.data.steps.frame

    def at(self, level: str) -> "_Scope":
        return self if level == self.level else _Scope(level, self.data, self.budget)


def evaluate(node: Union[Node, str], data: SliceData, budget: Optional[EvaluationBudget] = None) -> np.ndarray:
    """A boolean array over the rows the slice selects: ``data.dialogs``'s for a dialog slice, ``data.steps``'s for
    a step slice (``steps(…)``). ``SliceError`` when a test cannot be made on this corpus (unknown feature, run, value
    of the wrong kind, a bare number), or when the tests together run past ``budget`` (``SliceTooSlow``; a fresh
    ``EvaluationBudget`` when None) or it says stop (``SliceStopped``)."""
    if isinstance(node, str):
        node = parse(node)
    budget = budget if budget is not None else EvaluationBudget()
    return _evaluate(node, _Scope(level(node), data, budget))


def select(node: Union[Node, str], data: SliceData, budget: Optional[EvaluationBudget] = None) -> Kept:
    """``evaluate`` with the dialogs of a step slice beside its steps."""
    if isinstance(node, str):
        node = parse(node)
    kept = evaluate(node, data, budget)
    if level(node) == DIALOG:
        return Kept(DIALOG, kept)
    return Kept(STEP, data.steps.lift(kept, len(data.dialogs)), kept)


def dialog_ids(node: Union[Node, str], data: SliceData, budget: Optional[EvaluationBudget] = None) -> list[str]:
    """The ids of the dialogs the slice keeps (a step slice: those with a kept step), in the order of
    ``data.dialogs``."""
    return [str(d) for d in data.dialogs["dialog_id"].to_numpy()[select(node, data, budget).dialogs]]


def step_keys(node: Union[Node, str], data: SliceData, budget: Optional[EvaluationBudget] = None) -> pd.DataFrame:
    """dialog_id, round and turn of the steps the slice keeps (a dialog slice: every step of its dialogs)."""
    kept = select(node, data, budget)
    steps = kept.steps if kept.steps is not None else data.steps.lower(kept.dialogs)
    return data.steps.keys(steps)


def feature_values(feature: Feature, data: SliceData, at: str, budget: Optional[EvaluationBudget] = None) -> pd.Series:
    """The value of ``feature`` (a column, a step feature or a call) per row of ``at``'s table (``DIALOG``: the
    dialogs, ``STEP``: the steps): what a contrast measures."""
    return _values(feature, _Scope(at, data, budget if budget is not None else EvaluationBudget()))


def _evaluate(node: Node, scope: _Scope) -> np.ndarray:
    if isinstance(node, Test):
        scope.budget.begin(_feature_text(node.feature))
        return _test(node, scope)
    if isinstance(node, In):
        scope.budget.begin(_feature_text(node.feature))
        return _in(node, scope)
    if isinstance(node, Not):
        return ~_evaluate(node.operand, scope)
    if isinstance(node, And):
        keep = np.ones(len(scope.frame), dtype=bool)
        for operand in node.operands:
            keep &= _evaluate(operand, scope)
        return keep
    if isinstance(node, Or):
        keep = np.zeros(len(scope.frame), dtype=bool)
        for operand in node.operands:
            keep |= _evaluate(operand, scope)
        return keep
    if isinstance(node, Steps):
        return _evaluate(node.operand, scope.at(STEP))
    if isinstance(node, Lift):
        scope.budget.begin("has_step(…)")
        return scope.data.steps.lift(_evaluate(node.operand, scope.at(STEP)), len(scope.data.dialogs))
    if isinstance(node, Lower):
        scope.budget.begin("dialog(…)")
        return scope.data.steps.lower(_evaluate(node.operand, scope.at(DIALOG)))
    if isinstance(node, Window):
        scope.budget.begin(f"{node.direction}(…)")
        return scope.data.steps.window(_evaluate(node.operand, scope.at(STEP)), node.direction, node.steps)
    raise TypeError(f"not a slice node: {node!r}")


def _feature_text(feature: Feature) -> str:
    return feature.name if feature.args is None else (
        f"{feature.name}({', '.join(format_value(v) for v in feature.args)})")


def _unknown(name: str, scope: _Scope) -> SliceError:
    """The error of a bare name that is no feature at the scope's level, with a hint where it is one at the other."""
    data = scope.data
    if scope.level == DIALOG:
        known = data.columns()
        other = _step_columns(data)
        hint = (f"; {name} is a step feature: test it in a step slice, steps({name} …), or its dialogs, "
                f"has_step({name} …)") if name in other else ""
        what = f"{data.title} has no feature “{name}”"
    else:
        known = data.step_columns()
        hint = (f"; {name} is a dialog feature: in a step slice write dialog({name} …)"
                if name in data.dialogs.columns else "")
        what = f"the steps of {data.title} have no feature “{name}”"
    listed = ", ".join(c for c in known[:40] if c != "corpus") + (" …" if len(known) > 40 else "")
    return SliceError(f"{what}{hint}; they have {listed} (and the tests {', '.join(CALLS)})")


def _step_columns(data: SliceData) -> list[str]:
    try:
        return data.step_columns()
    except SliceError:
        return []


def _values(feature: Feature, scope: _Scope) -> pd.Series:
    """The feature's value per row of the scope's table (a Series over its rows)."""
    if feature.args is None:
        if feature.name in CALLS:
            raise SliceError(f"{feature.name} needs its arguments: {CALLS[feature.name][2]}")
        frame = scope.frame
        if feature.name == "corpus" or feature.name not in frame.columns:
            raise _unknown(feature.name, scope)
        return frame[feature.name].reset_index(drop=True)
    return call_values.call(feature, scope.data, scope.level, scope.budget)


def _kind(values: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(values):
        return "bool"
    if pd.api.types.is_datetime64_any_dtype(values):
        return "time"
    if pd.api.types.is_numeric_dtype(values):
        return "number"
    sample = values.dropna()
    if len(sample) and isinstance(sample.iloc[0], tuple):
        return "list"
    return "text"


def _operand(value: Value, kind: str, feature: Feature, values: pd.Series):
    """``value`` as the feature's kind; a SliceError naming both when it is not one."""
    name = _feature_text(feature)
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SliceError(f"{name} is a number; {format_value(value)} is not")
        try:  # a tree built in code may hold an int no float holds (parsed text cannot: MAX_NUMBER_CHARS)
            return float(value)
        except OverflowError:
            raise SliceError(f"the number compared with {name} is too large") from None
    if kind == "bool":
        if isinstance(value, bool) or value in (0, 1):
            return bool(value)
        raise SliceError(f"{name} is true or false; {format_value(value)} is neither")
    if kind == "time":
        try:
            stamp = pd.Timestamp(str(value))
        except (ValueError, TypeError):
            raise SliceError(f"{name} is a time; {format_value(value)} is not one (e.g. \"2021-06-01\")") from None
        tz = getattr(values.dt, "tz", None)
        if tz is not None and stamp.tzinfo is None:
            stamp = stamp.tz_localize(tz)
        elif tz is None and stamp.tzinfo is not None:
            stamp = stamp.tz_localize(None)
        return stamp
    return value if isinstance(value, str) else format_value(value)  # text: a number reads as its text


def _present(values: pd.Series, kind: str) -> np.ndarray:
    """Which rows have a value (an empty list or text is a value; NaN, None and <NA> are not)."""
    return values.notna().to_numpy(dtype=bool)


def bare_number_message(name: str) -> str:
    """Why a bare numeric feature is no test, naming the explicit forms (docs/slices.md, "Meaning")."""
    return (f"{name} is a number, and a bare number is no test (as “non-zero” it would silently drop the rows where "
            f"it is 0): write {name} != 0 for the non-zero rows, or {name} is not null for those with a value")


def _test(node: Test, scope: _Scope) -> np.ndarray:
    values = _values(node.feature, scope)
    kind = _kind(values)
    if node.op in NULL_OPS:
        present = _present(values, kind)
        return present if node.op == "is not null" else ~present
    if node.op is None:
        if kind == "bool":
            return values.fillna(False).to_numpy(dtype=bool)
        if kind == "number":
            if node.feature.args is None or node.feature.name not in call_values.COUNTS:
                raise SliceError(bare_number_message(_feature_text(node.feature)))
            return np.nan_to_num(pd.to_numeric(values, errors="coerce").astype(float).to_numpy(), nan=0.0) > 0
        if kind in ("text", "list"):
            return values.map(lambda v: isinstance(v, (str, tuple)) and len(v) > 0).to_numpy(dtype=bool)
        return values.notna().to_numpy(dtype=bool)
    operand = _operand(node.value, kind, node.feature, values)  # type: ignore[arg-type]
    if kind == "list":
        if node.op not in ("=", "!="):
            raise SliceError(f"{_feature_text(node.feature)} is a list: test it with = (holds) or !=")
        held = values.map(lambda v: isinstance(v, tuple) and operand in v).to_numpy(dtype=bool)
        return held if node.op == "=" else ~held
    if kind == "bool" and node.op in _NUMERIC_OPS:
        raise SliceError(f"{_feature_text(node.feature)} is true or false: test it with = or !=")
    if kind == "number":
        series = pd.to_numeric(values, errors="coerce").astype(float)
    elif kind == "text":
        series = values.astype("object").where(values.notna(), None)
    else:
        series = values
    present = values.notna().to_numpy(dtype=bool)
    if kind == "text":
        if node.op in _NUMERIC_OPS:
            compared = series.map(lambda v: v is not None and _order(str(v), node.op, operand))
        else:
            compared = series.map(lambda v: v is not None and str(v) == operand)
            if node.op == "!=":
                compared = ~compared & present
        return compared.to_numpy(dtype=bool) & present
    compare = {"=": series.eq, "!=": series.ne, "<": series.lt, "<=": series.le, ">": series.gt, ">=": series.ge}
    return compare[node.op](operand).fillna(False).to_numpy(dtype=bool) & present


def _order(left: str, op: str, right: str) -> bool:
    return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]


def _in(node: In, scope: _Scope) -> np.ndarray:
    values = _values(node.feature, scope)
    kind = _kind(values)
    wanted = {_operand(v, kind, node.feature, values) for v in node.values}
    if kind == "list":
        return values.map(lambda v: isinstance(v, tuple) and bool(wanted.intersection(v))).to_numpy(dtype=bool)
    if kind == "number":
        return pd.to_numeric(values, errors="coerce").astype(float).isin(wanted).to_numpy(dtype=bool)
    if kind == "text":
        return values.astype("object").isin(wanted).to_numpy(dtype=bool) & values.notna().to_numpy(dtype=bool)
    return values.isin(wanted).to_numpy(dtype=bool)


__all__ = ["CALLS", "KEY_COLUMNS", "Kept", "SliceData", "bare_number_message", "dialog_ids", "evaluate",
           "feature_values", "select", "slice_data", "step_keys"]
