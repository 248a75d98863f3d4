"""A slice in words (docs/slices.md, "In words"): what each top-level condition tests, exactly, joined by “ · ”
with the corpus's title and the count: 'CoDraw · CRs > 0 · peek gain < 0 · 221 dialogs'; a step slice says its
steps: 'Minecraft · steps: role = Architect · removals > 0 at this step or the next 1 step · 248 steps in 32
dialogs'. Plain text: the names in it are the user's (pages escape it for markdown)."""
from __future__ import annotations

from typing import Optional, Union

from ..coding.compare import GOLD
from .features import feature_text
from .grammar import NEXT, And, Feature, In, Lift, Lower, Node, Not, Or, Steps, Test, Window, format_value, parse

_OP_WORDS = {"=": "=", "!=": "≠", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}


def _feature_text(feature: Feature) -> str:
    return feature.name if feature.args is None else (
        f"{feature.name}({', '.join(format_value(v) for v in feature.args)})")


def _grouped(node: Node) -> str:
    """A phrase, parenthesised when it joins several conditions."""
    return f"({_phrase(node)})" if isinstance(node, (And, Or)) else _phrase(node)


def _phrase(node: Node) -> str:
    if isinstance(node, Test):
        feature = node.feature
        if feature.args is not None:
            subject = _call_phrase(feature)
            if node.op is None:
                return subject
            if node.op in ("is null", "is not null"):
                return f"{subject} {'has no value' if node.op == 'is null' else 'has a value'}"
            return f"{subject}: {_OP_WORDS[node.op]} {format_value(node.value)}"  # type: ignore[arg-type]
        text = feature_text(feature.name)
        if node.op is None:
            return text.has or text.label
        if node.op in ("is null", "is not null"):
            return f"{text.label} {'has no value' if node.op == 'is null' else 'has a value'}"
        return f"{text.label} {_OP_WORDS[node.op]} {format_value(node.value)}"  # type: ignore[arg-type]
    if isinstance(node, In):
        if node.feature.name == "dialog_id" and len(node.values) > 3:
            return f"one of {len(node.values):,} chosen dialogs"
        label = feature_text(node.feature.name).label if node.feature.args is None else _call_phrase(node.feature)
        return f"{label} {' or '.join(format_value(v) for v in node.values)}"
    if isinstance(node, Not):
        inner = node.operand
        if isinstance(inner, Test) and inner.op is None and inner.feature.args is None:
            text = feature_text(inner.feature.name)
            if text.lacks:
                return text.lacks
        return f"not {_grouped(node.operand)}"
    if isinstance(node, And):
        return " and ".join(f"({_phrase(o)})" if isinstance(o, Or) else _phrase(o) for o in node.operands)
    if isinstance(node, Or):
        return " or ".join(_phrase(o) for o in node.operands)
    if isinstance(node, Lift):
        return f"has a step where {_grouped(node.operand)}"
    if isinstance(node, Lower):
        return f"in a dialog where {_grouped(node.operand)}"
    if isinstance(node, Window):
        if node.steps == 0:
            return f"{_grouped(node.operand)} at this step"
        plural = "" if node.steps == 1 else "s"
        where = (f"the next {node.steps} step{plural}" if node.direction == NEXT
                 else f"the {node.steps} step{plural} before")
        return f"{_grouped(node.operand)} at this step or {where}"
    if isinstance(node, Steps):
        return "steps: " + _phrase(node.operand)
    raise TypeError(f"not a slice node: {node!r}")


def _call_phrase(feature: Feature) -> str:
    args = [str(a) for a in feature.args or ()]
    if feature.name in ("score", "gap"):
        return f"{args[0]}'s {feature.name}" if args else feature.name
    if feature.name == "code" and args:
        who = {GOLD: " by the gold", "": ""}.get(args[1] if len(args) > 1 else "", f" by {args[1] if len(args) > 1 else ''}")
        return f"labelled {args[0]}{who}" + (f" in {args[2]}" if len(args) > 2 else "")
    if feature.name == "tag" and args:
        return f"noted {args[0]}"
    if feature.name in ("text", "re") and args:
        said = f"“{args[0]}”" if feature.name == "text" else f"/{args[0]}/"
        return f"{args[1]} says {said}" if len(args) > 1 else f"says {said}"
    if feature.name in ("first", "last") and args:
        return f"{feature.name} step of its {args[0]}"
    return _feature_text(feature)


def count_phrase(count: int, level: str = "dialog", dialogs: Optional[int] = None) -> str:
    """'221 dialogs', '312 steps in 41 dialogs'."""
    said = f"{count:,} {level}{'' if count == 1 else 's'}"
    if dialogs is not None and level != "dialog":
        said += f" in {dialogs:,} dialog{'' if dialogs == 1 else 's'}"
    return said


def describe(node: Union[Node, str], title: Optional[str] = None, count: Optional[int] = None,
             dialogs: Optional[int] = None) -> str:
    """The slice in words, its top-level conditions joined by “ · ”: 'CoDraw · CRs > 0 · peek gain < 0 · 221
    dialogs'; a step slice's ``count`` is of its steps, ``dialogs`` of their dialogs."""
    if isinstance(node, str):
        node = parse(node)
    parts = [title] if title else []
    level = "dialog"
    if isinstance(node, Steps):
        level = "step"
        inner = node.operand
        conditions = [_phrase(o) for o in inner.operands] if isinstance(inner, And) else [_phrase(inner)]
        parts += ["steps: " + conditions[0], *conditions[1:]]
    else:
        parts += [_phrase(o) for o in node.operands] if isinstance(node, And) else [_phrase(node)]
    if count is not None:
        parts.append(count_phrase(count, level, dialogs))
    return " · ".join(parts)


__all__ = ["count_phrase", "describe"]
