"""The slice grammar: parse a slice's text form (the ``slice=`` URL parameter) into a tree, and print a tree back
into its one canonical text (docs/slices.md).

A slice is a predicate over a corpus's dialogs, or over its replay steps (a *step slice*, ``steps(…)``)::

    slice   := "steps" "(" or ")" | or
    or      := and ("or" and)*
    and     := not ("and" not)*
    not     := "not" not | "(" or ")" | scoped | test
    scoped  := "has_step" "(" or ")"                  (at the dialog level: lifting)
             | "dialog" "(" or ")"                    (at the step level: lowering)
             | ("next" | "prev") "(" number "," or ")"   (at the step level: events in time)
    test    := feature [op value | "in" "(" value ("," value)* ")" | "is" ["not"] "null"]
    feature := name | name "(" [value ("," value)*] ")"
    op      := "=" | "!=" | "<" | "<=" | ">" | ">="
    value   := number | "quoted string" | name | true | false

A ``name`` is ASCII letters, digits and ``_`` (not starting with a digit); any other text is a quoted string
(inside, ``\\"`` is a quote and ``\\\\`` a backslash; any other backslash is itself, so ``re("\\bleft\\b")`` reads as
written). Keywords (``and or not in true false is null``) are lower case. The level of every part is explicit:
``steps(S)`` is the whole slice or nothing, ``has_step(S)`` appears only among dialog tests and ``dialog(D)``,
``next``, ``prev`` only among step tests; the parser refuses any other mix, with the position. The text is bounded (``MAX_CHARS``,
``MAX_DEPTH`` of nested parentheses and ``not``, ``MAX_TESTS``, ``MAX_NUMBER_CHARS`` of one number); whatever
breaks the grammar or a bound raises ``SliceSyntaxError`` with the character position. ``unparse(parse(text))`` is
the canonical form, and ``parse(unparse(tree)) == tree``.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Union

MAX_CHARS = 16_000  # a chart bar of a few hundred dialog ids fits; a link behind nginx may be 64 KB
MAX_DEPTH = 24  # nested parentheses and "not"s; a deeper slice is no one's query but a hostile one's
MAX_TESTS = 200  # tests (comparisons, calls) in one slice
MAX_ARGS = 2_000  # values of one call or one "in" list (id(...) of a chart selection)
# Characters of one number: every float's shortest text (-2.2250738585072014e-308, 24) fits, and no number read is
# too large for a float or too long for int() (400 zeros made an OverflowError, 4,301 digits a ValueError).
MAX_NUMBER_CHARS = 32

KEYWORDS = ("and", "or", "not", "in", "true", "false", "is", "null")
NULL_OPS = ("is null", "is not null")
# The calls whose argument is a slice of its own (a scope): their names are taken only when a "(" follows.
STEPS, LIFT, LOWER, NEXT, PREV = "steps", "has_step", "dialog", "next", "prev"
SCOPES = (STEPS, LIFT, LOWER, NEXT, PREV)
DIALOG, STEP = "dialog", "step"  # the two levels a slice selects at
OPERATORS = ("=", "!=", "<", "<=", ">", ">=")

Value = Union[str, int, float, bool]


class SliceError(ValueError):
    """A slice that cannot be used: its text breaks the grammar (``SliceSyntaxError``), or a test names a feature,
    run, role or value the corpus does not have. The message is for the user (plain text)."""


class SliceSyntaxError(SliceError):
    """The text is not a slice; ``position`` is the 0-based character offset where reading stopped."""

    def __init__(self, message: str, position: int, text: str = ""):
        self.message = message
        self.position = position
        self.text = text
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = f"at character {self.position + 1}"
        if self.text:
            start = max(0, self.position - 20)
            near = self.text[start:self.position + 20]
            near = "".join(c if c.isprintable() else " " for c in near)
            where += f" (near “{'…' if start else ''}{near}{'…' if self.position + 20 < len(self.text) else ''}”)"
        return f"{self.message} {where}"


@dataclass(frozen=True)
class Feature:
    """A column or computed feature (``args is None``), or a call such as ``score(baseline)``."""

    name: str
    args: Union[tuple[Value, ...], None] = None


@dataclass(frozen=True)
class Test:
    """``feature op value``; ``op`` None is the bare feature (true, or a count of at least one); ``op`` "is null" /
    "is not null" (``value`` None) tests whether the feature has a value."""

    feature: Feature
    op: Union[str, None] = None
    value: Union[Value, None] = None


@dataclass(frozen=True)
class In:
    feature: Feature
    values: tuple[Value, ...]


@dataclass(frozen=True)
class Not:
    operand: "Node"


@dataclass(frozen=True)
class And:
    operands: tuple["Node", ...]


@dataclass(frozen=True)
class Or:
    operands: tuple["Node", ...]


@dataclass(frozen=True)
class Steps:
    """``steps(S)``: a step slice, the replay steps where ``operand`` (a predicate over steps) holds."""
    operand: "Node"


@dataclass(frozen=True)
class Lift:
    """``has_step(S)``: the dialogs with at least one step where ``operand`` holds (a step slice lifted)."""
    operand: "Node"


@dataclass(frozen=True)
class Lower:
    """``dialog(D)``: the steps of the dialogs ``operand`` (a predicate over dialogs) keeps (lowered)."""
    operand: "Node"


@dataclass(frozen=True)
class Window:
    """``next(k, E)`` / ``prev(k, E)``: ``operand`` holds at the step itself or at one of the ``steps`` steps after
    (before) it, within its dialog, or its round where the corpus has rounds."""
    direction: str  # NEXT or PREV
    steps: int
    operand: "Node"


Node = Union[Test, In, Not, And, Or, Steps, Lift, Lower, Window]

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<op>!=|<=|>=|=|<|>)
  | (?P<punct>[(),])
""", re.VERBOSE | re.ASCII)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
# Inside a quoted string only \" and \\ are escapes; any other backslash is itself (a regular expression's \b).
_ESCAPED = re.compile(r'\\([\\"])')
_NEEDS_ESCAPE = re.compile(r'\\(?=[\\"]|$)')


@dataclass(frozen=True)
class _Token:
    kind: str  # number, name, keyword, string, op, punct, end
    text: str
    position: int
    value: object = None


def _tokens(text: str) -> list[_Token]:
    found: list[_Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            if text[position] == '"':
                raise SliceSyntaxError("this quoted string is not closed", position, text)
            raise SliceSyntaxError(f"unexpected character {text[position]!r}", position, text)
        kind = match.lastgroup or ""
        word = match.group()
        if kind == "number":
            found.append(_Token("number", word, position, _number(word, position, text)))
        elif kind == "name":
            found.append(_Token("keyword" if word in KEYWORDS else "name", word, position, word))
        elif kind == "string":
            found.append(_Token("string", word, position, _ESCAPED.sub(r"\1", word[1:-1])))
        elif kind != "space":
            found.append(_Token(kind, word, position, word))
        position = match.end()
    found.append(_Token("end", "", len(text)))
    return found


def _number(word: str, position: int, text: str) -> Union[int, float]:
    """The value of a number's text, bounded before it is converted."""
    if len(word) > MAX_NUMBER_CHARS:
        raise SliceSyntaxError(f"a number has at most {MAX_NUMBER_CHARS} characters; this one has {len(word):,} "
                               "(quote it to mean text)", position, text)
    number = float(word) if any(c in word for c in ".eE") else int(word)
    if isinstance(number, float) and not math.isfinite(number):
        raise SliceSyntaxError(f"the number {word} is too large", position, text)
    return number


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0
        self.depth = 0
        self.tests = 0
        self.level = DIALOG  # what the tests being read select: dialogs, or steps inside steps(…)

    def peek(self) -> _Token:
        return self.tokens[self.at]

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def fail(self, message: str, token: _Token | None = None) -> SliceSyntaxError:
        token = token or self.peek()
        return SliceSyntaxError(message, token.position, self.text)

    def expect(self, kind: str, text: str, what: str) -> _Token:
        token = self.peek()
        if token.kind != kind or token.text != text:
            raise self.fail(f"expected {what}, found {_found(token)}")
        return self.take()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"the slice nests deeper than {MAX_DEPTH} levels")

    def parse(self) -> Node:
        if self.peek().kind == "end":
            raise self.fail("the slice is empty")
        if self.opens(STEPS):
            self.take()
            self.take()
            node: Node = Steps(self.scope(STEP))
            if self.peek().kind != "end":
                raise self.fail(f"steps(…) is the whole slice: nothing may follow it, found {_found(self.peek())} "
                                "(put every step test inside it; its dialogs are has_step(…))")
            return node
        node = self.or_()
        if self.peek().kind != "end":
            raise self.fail(f"expected “and”, “or” or the end, found {_found(self.peek())}")
        return node

    def opens(self, name: str) -> bool:
        """Whether the next tokens are ``name(`` (a scoped form; the bare name stays a feature's)."""
        token, following = self.peek(), self.tokens[min(self.at + 1, len(self.tokens) - 1)]
        return token.kind == "name" and token.text == name and following.kind == "punct" and following.text == "("

    def scope(self, level: str) -> Node:
        """The slice inside a scoped form's parentheses (the opening one taken), read at ``level``; the closing
        parenthesis is taken."""
        self.enter()
        outer, self.level = self.level, level
        node = self.or_()
        self.expect("punct", ")", "“)”")
        self.level = outer
        self.depth -= 1
        return node

    def count_test(self) -> None:
        self.tests += 1
        if self.tests > MAX_TESTS:
            raise self.fail(f"the slice has more than {MAX_TESTS} tests")

    def scoped(self) -> Node:
        """``has_step(S)``, ``dialog(D)``, ``next(k, E)`` or ``prev(k, E)`` (the name is next), each where its level
        allows it."""
        token = self.peek()
        name = token.text
        if name == STEPS:
            raise self.fail("steps(…) is a whole slice and cannot be combined with other tests: write every step "
                            "test inside one steps(…), and its dialogs as has_step(…)")
        if name == LIFT and self.level != DIALOG:
            raise self.fail("has_step(…) tests dialogs; inside steps(…) write dialog(has_step(…)) for the steps of "
                            "dialogs that have such a step")
        if name in (LOWER, NEXT, PREV) and self.level != STEP:
            raise self.fail(f"{name}(…) tests steps: use it inside steps(…), e.g. steps(role = Architect and "
                            f"{'next(1, removals > 0)' if name != LOWER else 'dialog(split = train)'})")
        self.count_test()
        self.take()
        self.take()
        if name == LIFT:
            return Lift(self.scope(STEP))
        if name == LOWER:
            return Lower(self.scope(DIALOG))
        count = self.peek()
        if count.kind != "number" or not isinstance(count.value, int) or count.value < 0:
            raise self.fail(f"{name}(k, …) needs a whole number of steps k ≥ 0 first, found {_found(count)}")
        self.take()
        self.expect("punct", ",", f"“,” after the number of steps of {name}(…)")
        return Window(name, int(count.value), self.scope(STEP))

    def or_(self) -> Node:
        operands = [self.and_()]
        while self.peek().kind == "keyword" and self.peek().text == "or":
            self.take()
            operands.append(self.and_())
        return operands[0] if len(operands) == 1 else Or(_flatten(Or, operands))

    def and_(self) -> Node:
        operands = [self.not_()]
        while self.peek().kind == "keyword" and self.peek().text == "and":
            self.take()
            operands.append(self.not_())
        return operands[0] if len(operands) == 1 else And(_flatten(And, operands))

    def not_(self) -> Node:
        token = self.peek()
        if token.kind == "keyword" and token.text == "not":
            self.take()
            self.enter()
            operand = self.not_()
            self.depth -= 1
            return Not(operand)
        if token.kind == "punct" and token.text == "(":
            self.take()
            self.enter()
            node = self.or_()
            self.expect("punct", ")", "“)”")
            self.depth -= 1
            return node
        if token.kind == "name" and token.text in SCOPES and self.opens(token.text):
            return self.scoped()
        return self.test()

    def test(self) -> Node:
        token = self.peek()
        if token.kind != "name":
            raise self.fail(f"expected a feature (a column such as n_rounds, or a test such as code(CR)), "
                            f"found {_found(token)}")
        self.count_test()
        self.take()
        args = None
        if self.peek().kind == "punct" and self.peek().text == "(":
            self.take()
            args = self.values(f"an argument of {token.text}(…)")
        feature = Feature(token.text, args)
        following = self.peek()
        if following.kind == "op":
            self.take()
            return Test(feature, following.text, self.value(f"a value after “{following.text}”"))
        if following.kind == "keyword" and following.text == "is":
            self.take()
            negated = self.peek().kind == "keyword" and self.peek().text == "not"
            if negated:
                self.take()
            self.expect("keyword", "null", "“null” after “is”" + (" not" if negated else ""))
            return Test(feature, "is not null" if negated else "is null")
        if following.kind == "keyword" and following.text == "in":
            self.take()
            self.expect("punct", "(", "“(” after “in”")
            values = self.values("a value of the “in” list")
            if not values:
                raise self.fail("an “in” list needs at least one value", self.tokens[self.at - 1])
            return In(feature, values)
        return Test(feature)

    def values(self, what: str) -> tuple[Value, ...]:
        """Values up to and including the closing parenthesis (the opening one is taken)."""
        found: list[Value] = []
        if self.peek().kind == "punct" and self.peek().text == ")":
            self.take()
            return ()
        while True:
            found.append(self.value(what))
            if len(found) > MAX_ARGS:
                raise self.fail(f"a list holds at most {MAX_ARGS:,} values")
            token = self.take()
            if token.kind == "punct" and token.text == ")":
                return tuple(found)
            if not (token.kind == "punct" and token.text == ","):
                raise self.fail(f"expected “,” or “)”, found {_found(token)}", token)

    def value(self, what: str) -> Value:
        token = self.peek()
        if token.kind in ("number", "string", "name"):
            self.take()
            return token.value  # type: ignore[return-value]
        if token.kind == "keyword" and token.text in ("true", "false"):
            self.take()
            return token.text == "true"
        raise self.fail(f"expected {what}, found {_found(token)}")


def _found(token: _Token) -> str:
    if token.kind == "end":
        return "the end of the slice"
    shown = token.text if len(token.text) <= 30 else token.text[:29] + "…"
    return f"“{shown}”"


def _flatten(kind, operands: list[Node]) -> tuple[Node, ...]:
    """``a and (b and c)`` is ``a and b and c``: one canonical tree for one meaning of the text."""
    flat: list[Node] = []
    for operand in operands:
        flat.extend(operand.operands if isinstance(operand, kind) else (operand,))
    return tuple(flat)


def parse(text: str) -> Node:
    """The tree of ``text``; ``SliceSyntaxError`` (with the position) when it is not a slice."""
    if not isinstance(text, str):
        raise SliceSyntaxError("a slice is text", 0)
    if len(text) > MAX_CHARS:
        raise SliceSyntaxError(f"the slice is {len(text):,} characters long; at most {MAX_CHARS:,} are read",
                               MAX_CHARS)
    return _Parser(text).parse()


def format_value(value: Value) -> str:
    """A value in the canonical text: a name as it is, other text quoted, numbers as short as they read back."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number_text(value)
    if _NAME.fullmatch(value) and value not in KEYWORDS:
        return value
    # Only a backslash before a quote, another backslash or the end is doubled: "\bleft\b" stays readable.
    return '"' + _NEEDS_ESCAPE.sub(r"\\\\", value).replace('"', '\\"') + '"'


def _number_text(value: Union[int, float]) -> str:
    """A number as the grammar reads it back; ``SliceError`` for one it would not read (a tree built in code)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise SliceError(f"a slice's numbers are finite; {value} is not")
    if isinstance(value, int) and value.bit_length() > 3.33 * MAX_NUMBER_CHARS:  # before str() of a huge int
        raise SliceError(f"a number has at most {MAX_NUMBER_CHARS} characters")
    text = repr(value)
    if isinstance(value, float) and not any(c in text for c in ".e"):
        text += ".0"
    if len(text) > MAX_NUMBER_CHARS:
        raise SliceError(f"a number has at most {MAX_NUMBER_CHARS} characters; {text[:12]}… has {len(text):,}")
    return text


def _feature_text(feature: Feature) -> str:
    if feature.args is None:
        return feature.name
    return f"{feature.name}({', '.join(format_value(v) for v in feature.args)})"


def unparse(node: Node) -> str:
    """The canonical text of a tree: single spaces, parentheses only where the precedence needs them."""
    if isinstance(node, Test):
        text = _feature_text(node.feature)
        if node.op in NULL_OPS:
            return f"{text} {node.op}"
        return text if node.op is None else f"{text} {node.op} {format_value(node.value)}"  # type: ignore[arg-type]
    if isinstance(node, Steps):
        return f"{STEPS}({unparse(node.operand)})"
    if isinstance(node, Lift):
        return f"{LIFT}({unparse(node.operand)})"
    if isinstance(node, Lower):
        return f"{LOWER}({unparse(node.operand)})"
    if isinstance(node, Window):
        return f"{node.direction}({node.steps}, {unparse(node.operand)})"
    if isinstance(node, In):
        return f"{_feature_text(node.feature)} in ({', '.join(format_value(v) for v in node.values)})"
    if isinstance(node, Not):
        inner = unparse(node.operand)
        return f"not ({inner})" if isinstance(node.operand, (And, Or)) else f"not {inner}"
    if isinstance(node, And):
        return " and ".join(f"({unparse(o)})" if isinstance(o, Or) else unparse(o) for o in node.operands)
    if isinstance(node, Or):
        return " or ".join(unparse(o) for o in node.operands)
    raise TypeError(f"not a slice node: {node!r}")


def canonical(text: str) -> str:
    """``text`` in its canonical form (what a link carries)."""
    return unparse(parse(text))
