"""Operations on a slice's tree (``grammar.Node``): its tests, its level (what it selects: dialogs or steps), a step
slice lifted to its dialogs and a dialog slice lowered to its steps, and slices joined (``all_of``, ``any_of``,
``within``: a slice narrowed by dialog tests at its own level)."""
from __future__ import annotations

from typing import Union

from .grammar import DIALOG, STEP, And, In, Lift, Lower, Node, Not, Or, Steps, Test, Window, _flatten


def tests(node: Node) -> list[Union[Test, In]]:
    """Every test of the tree, left to right."""
    if isinstance(node, (Test, In)):
        return [node]
    if isinstance(node, (Not, Steps, Lift, Lower, Window)):
        return tests(node.operand)
    return [t for operand in node.operands for t in tests(operand)]


def reads_steps(node: Node) -> bool:
    """Whether any part of the slice is read on steps (``steps(…)`` or ``has_step(…)``)."""
    if isinstance(node, (Steps, Lift)):
        return True
    if isinstance(node, (Not, Lower, Window)):
        return reads_steps(node.operand)
    if isinstance(node, (And, Or)):
        return any(reads_steps(o) for o in node.operands)
    return False


def level(node: Node) -> str:
    """What the slice selects: ``STEP`` (replay steps) for ``steps(…)``, else ``DIALOG``."""
    return STEP if isinstance(node, Steps) else DIALOG


def lift(node: Node) -> Node:
    """The dialog slice of ``node``'s dialogs: a step slice ``steps(S)`` as ``has_step(S)``; a dialog slice as it is."""
    return Lift(node.operand) if isinstance(node, Steps) else node


def lower(node: Node) -> Node:
    """The step slice of ``node``'s steps: a dialog slice ``D`` as ``steps(dialog(D))``; a step slice as it is."""
    return node if isinstance(node, Steps) else Steps(Lower(node))


def within(node: Node, *dialog_tests: Node) -> Node:
    """``node`` narrowed by dialog-level ``dialog_tests`` (Browse's filters, a chart's bars, a list of dialogs), at
    ``node``'s own level: a dialog slice and-ed with them, a step slice with ``dialog(…)`` of them inside."""
    if not dialog_tests:
        return node
    if isinstance(node, Steps):
        return Steps(all_of(node.operand, Lower(all_of(*dialog_tests))))
    return all_of(node, *dialog_tests)


def all_of(*nodes: Node) -> Node:
    """The conjunction of ``nodes`` (flattened), e.g. a saved slice narrowed by a chart's bar."""
    if not nodes:
        raise ValueError("all_of needs at least one slice")
    return nodes[0] if len(nodes) == 1 else And(_flatten(And, list(nodes)))


def any_of(*nodes: Node) -> Node:
    if not nodes:
        raise ValueError("any_of needs at least one slice")
    return nodes[0] if len(nodes) == 1 else Or(_flatten(Or, list(nodes)))


__all__ = ["all_of", "any_of", "level", "lift", "lower", "reads_steps", "tests", "within"]
