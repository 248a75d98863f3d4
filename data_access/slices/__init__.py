"""Slices: "these dialogs" as one value every page shares (issue 37). A slice is a predicate over a corpus's
dialogs, written in one text form that fits in a URL (``slice=``), read back into the same tree, said in
words, and evaluated against a loaded corpus and what is loaded beside it (layers, runs, codes, notes).

Modules: ``grammar`` (parse / print, bounds, errors with positions), ``features`` (the per-dialog features
the analysis pages and the layers compute), ``evaluate`` (``SliceData``, ``evaluate``, ``describe``), ``budget``
(one deadline for a whole evaluation, and its stop).
The grammar and every feature are documented in docs/slices.md.
"""
from __future__ import annotations

from .budget import EVALUATION_SECONDS, EvaluationBudget, SliceStopped, SliceTooSlow
from .evaluate import CALLS, SliceData, describe, dialog_ids, evaluate, slice_data
from .grammar import (
    MAX_CHARS,
    MAX_DEPTH,
    MAX_NUMBER_CHARS,
    MAX_TESTS,
    And,
    Feature,
    In,
    Node,
    Not,
    Or,
    SliceError,
    SliceSyntaxError,
    Test,
    all_of,
    any_of,
    canonical,
    format_value,
    parse,
    unparse,
)


def ids_slice(dialog_ids) -> str:
    """The slice of exactly these dialogs (a chart's selected bar, a SQL result, a concordance's hits)."""
    values = tuple(dict.fromkeys(str(d) for d in dialog_ids))
    if not values:
        raise SliceError("a slice of chosen dialogs needs at least one dialog")
    return unparse(In(Feature("dialog_id"), values))


__all__ = ["CALLS", "EVALUATION_SECONDS", "MAX_CHARS", "MAX_DEPTH", "MAX_NUMBER_CHARS", "MAX_TESTS", "And",
           "EvaluationBudget", "Feature", "In", "Node", "Not", "Or", "SliceData", "SliceError", "SliceStopped",
           "SliceSyntaxError", "SliceTooSlow", "Test", "all_of", "any_of", "canonical", "describe", "dialog_ids",
           "evaluate", "format_value", "ids_slice", "parse", "slice_data", "unparse"]
