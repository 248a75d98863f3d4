"""Slices made from what a page shows, so that any view is one click from its slice: Browse's filter state
(split, ranges on any numeric column or a run's, "only with a CR", "has label L"), a chart's bar (a range of
its feature), or a list of dialogs (a selection, a SQL result, a concordance's hits).

Each returns a tree (``grammar.Node``) or None when the state filters nothing; ``grammar.unparse`` gives
its text. A state that has no predicate in the grammar (Browse's "id contains", "only with notes") is the
caller's to turn into the list of the dialogs it shows (``ids_node``).
"""
from __future__ import annotations

import math
import re
from typing import Iterable, Mapping, Optional, Sequence

from .grammar import And, Feature, In, Node, Or, SliceError, Test, Value
from .tree import all_of

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)


def _number(value: float) -> Value:
    return int(value) if float(value).is_integer() and abs(value) < 1e15 else float(value)


def range_node(feature: Feature, low: Optional[float], high: Optional[float], *, high_open: bool = False
               ) -> Optional[Node]:
    """``feature`` between ``low`` and ``high`` (either end None: open; ``high_open``: the high end excluded,
    as a histogram's bar [low, high) is)."""
    tests: list[Node] = []
    if low is not None and math.isfinite(low):
        tests.append(Test(feature, ">=", _number(low)))
    if high is not None and math.isfinite(high):
        tests.append(Test(feature, "<" if high_open else "<=", _number(high)))
    if not tests:
        return None
    return tests[0] if len(tests) == 1 else And(tuple(tests))


def ids_node(dialog_ids: Iterable[str]) -> Node:
    """Exactly these dialogs."""
    values = tuple(dict.fromkeys(str(d) for d in dialog_ids))
    if not values:
        raise SliceError("a slice of chosen dialogs needs at least one dialog")
    return In(Feature("dialog_id"), values)


def column_feature(column: str, run_columns: Mapping[str, tuple[str, str]]) -> Optional[Feature]:
    """The feature a Browse column is: a dialog column by its name, a run's column as ``score(run)`` /
    ``gap(run)`` (``run_columns``: column -> (run, "score" | "gap")); None when it has no name in the grammar."""
    if column in run_columns:
        run, what = run_columns[column]
        return Feature(what, (run,))
    return Feature(column) if _NAME.fullmatch(column) else None


def browse_filter_node(*, splits: Sequence[str] = (), ranges: Sequence[tuple[str, Optional[float], Optional[float]]] = (),
                       with_cr: bool = False, label: Optional[tuple[str, str, str]] = None,
                       run_columns: Optional[Mapping[str, tuple[str, str]]] = None) -> Optional[Node]:
    """Browse's filters as a slice: ``split in (…)``, each range, ``crs > 0``, ``code(label, coder, codebook)``;
    None when nothing filters. ``SliceError`` for a range on a column that has no name in the grammar."""
    parts: list[Node] = []
    if splits:
        parts.append(In(Feature("split"), tuple(splits)) if len(splits) > 1 else Test(Feature("split"), "=", splits[0]))
    for column, low, high in ranges:
        feature = column_feature(column, run_columns or {})
        if feature is None:
            raise SliceError(f"the column “{column}” has no name a slice can use")
        node = range_node(feature, low, high)
        if node is not None:
            parts.append(node)
    if with_cr:
        parts.append(Test(Feature("crs"), ">", 0))
    if label is not None and label[0]:
        name, coder, book = label
        args: tuple[Value, ...] = (name, coder, book) if book else (name, coder) if coder else (name,)
        parts.append(Test(Feature("code", args)))
    return all_of(*parts) if parts else None


def _bins(values: Iterable[float], size: float, start: float) -> set[int]:
    return {math.floor((float(v) - start) / size + 1e-9) for v in values if v is not None and math.isfinite(float(v))}


def bars_node(feature: Feature, values: Iterable[float], size: float, start: float = 0.0,
              every: Optional[Iterable[float]] = None) -> Optional[Node]:
    """The histogram bars (of width ``size``, edges at ``start`` + k·``size``) that ``values`` fall in, as ranges
    of ``feature``: contiguous bars merged into one ``low <= feature < high`` (with ``every``, the values of all the
    chart's bars, across empty bars too), several runs of them or-ed. A chart's selected bars as a readable slice
    (``peek_gain >= -1.5 and peek_gain < 0``) instead of a list of dialogs; None without a finite value."""
    if not size > 0:
        raise ValueError("a bar has a positive width")
    bins = sorted(_bins(values, size, start))
    if not bins:
        return None
    occupied = _bins(every, size, start) if every is not None else None
    runs: list[tuple[int, int]] = []
    for b in bins:
        gap = range(runs[-1][1] + 1, b) if runs else range(0)
        if runs and (b == runs[-1][1] + 1 or (occupied is not None and not any(g in occupied for g in gap))):
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((b, b))
    parts = [range_node(feature, start + low * size, start + (high + 1) * size, high_open=True) for low, high in runs]
    kept = [p for p in parts if p is not None]
    if len(kept) > 50:
        return None  # scattered bars: the list of their dialogs says it shorter
    return kept[0] if len(kept) == 1 else Or(tuple(kept))
