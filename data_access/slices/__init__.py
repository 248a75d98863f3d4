"""Slices: "these dialogs" as one value every page shares (issue 37). A slice is a predicate over a corpus's
dialogs, written in one text form that fits in a URL (``slice=``), read back into the same tree, said in
words, and evaluated against a loaded corpus and what is loaded beside it (layers, runs, codes, notes).

A step slice (``steps(…)``, issue 46) selects replay steps instead: the moments where something is said or
happens, related in time (``next``, ``prev``, ``first``, ``last``) and lifted to their dialogs (``has_step``) or
lowered from them (``dialog``) explicitly.

Modules: ``grammar`` (parse / print, bounds, errors with positions, the two levels), ``features`` (the per-dialog
features the analysis pages and the layers compute), ``steps`` (the step table and the operations in time),
``calls`` (``score``, ``code``, ``text``… at either level), ``evaluate`` (``SliceData``, ``evaluate``, ``select``),
``describe`` (a slice in words), ``budget`` (one deadline for a whole evaluation, and its stop), ``contrast`` (a
measure on two slices: the difference with its interval, a permutation p-value, paired where the same item was
played twice), ``measures`` (a contrast's values).
The grammar and every feature are documented in docs/slices.md.
"""
from __future__ import annotations

from .budget import EVALUATION_SECONDS, EvaluationBudget, SliceStopped, SliceTooSlow
from .describe import count_phrase, describe
from .evaluate import CALLS, Kept, SliceData, bare_number_message, dialog_ids, evaluate, select, slice_data, step_keys
from .grammar import (
    DIALOG,
    MAX_CHARS,
    MAX_DEPTH,
    MAX_NUMBER_CHARS,
    MAX_TESTS,
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
    SliceSyntaxError,
    Steps,
    Test,
    Window,
    canonical,
    format_value,
    parse,
    unparse,
)
from .tree import all_of, any_of, level, lift, lower, within


def ids_slice(dialog_ids) -> str:
    """The slice of exactly these dialogs (a chart's selected bar, a SQL result, a concordance's hits)."""
    values = tuple(dict.fromkeys(str(d) for d in dialog_ids))
    if not values:
        raise SliceError("a slice of chosen dialogs needs at least one dialog")
    return unparse(In(Feature("dialog_id"), values))


__all__ = ["CALLS", "DIALOG", "EVALUATION_SECONDS", "MAX_CHARS", "MAX_DEPTH", "MAX_NUMBER_CHARS", "MAX_TESTS", "STEP",
           "And", "EvaluationBudget", "Feature", "In", "Kept", "Lift", "Lower", "Node", "Not", "Or", "SliceData",
           "SliceError", "SliceStopped", "SliceSyntaxError", "SliceTooSlow", "Steps", "Test", "Window", "all_of",
           "any_of", "bare_number_message", "canonical", "count_phrase", "describe", "dialog_ids", "evaluate",
           "format_value", "ids_slice", "level", "lift", "lower", "parse", "select", "slice_data", "step_keys",
           "unparse", "within"]
