"""Codebooks: named, versioned sets of labels, and their JSON / YAML form.

A label has a name, a description, a colour (``#rrggbb``), a scope — ``dialog``, ``turn`` or ``span`` (of
one utterance) — whether it links to referents (CoDraw clip art of the target scene, Game Of Sorts board
images, Minecraft blocks of the target) and an optional keyboard shortcut (one character).

Codebooks are immutable once saved: an edit saves version n + 1, and every annotation keeps the version it
was made under. The exchange form (JSON or YAML, the same tree)::

    name: clarification
    description: Clarification requests and what they are about
    labels:
      - {name: CR, description: asks for clarification, colour: "#d62728", scope: turn, links_referents: false}
      - {name: refers-to, colour: "#1f77b4", scope: span, links_referents: true, key: r}
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

import yaml

from ..budgets import CODEBOOK, MAX_DESCRIPTION, MAX_LABEL_NAME, MAX_LABELS

SCOPES = ("dialog", "turn", "span")
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")  # matched whole (fullmatch): "#1f77b4\n" is no colour
DEFAULT_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                   "#bcbd22", "#17becf"]


class CodebookError(ValueError):
    """A codebook (or its file) is not valid; the message names the label or field."""


def _show(value: Any, limit: int = 60) -> str:
    """A value for a message, bounded: text and numbers as their repr (text cut at ``limit`` characters),
    anything else by its type only (a nested list from a file may be huge or deep: never repr'd)."""
    if isinstance(value, str):
        text = repr(value[:limit])
        return text + "…" if len(value) > limit else text
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    return f"a {type(value).__name__}"


@dataclass(frozen=True)
class Label:
    name: str
    scope: str = "turn"
    description: str = ""
    colour: str = "#1f77b4"
    links_referents: bool = False
    key: str = ""

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise CodebookError(f"a label needs a name; got {_show(self.name)}")
        if self.name != self.name.strip() or "\n" in self.name or "\r" in self.name:
            raise CodebookError(f"label {_show(self.name)}: no leading/trailing spaces or line breaks in a name")
        if self.scope not in SCOPES:
            raise CodebookError(f"label {_show(self.name)}: scope must be one of {', '.join(SCOPES)}; got {_show(self.scope)}")
        if not isinstance(self.colour, str) or not _COLOUR.fullmatch(self.colour):
            raise CodebookError(f"label {_show(self.name)}: colour must look like #1f77b4; got {_show(self.colour)}")
        if not isinstance(self.description, str):
            raise CodebookError(f"label {_show(self.name)}: description must be text")
        if not isinstance(self.links_referents, bool):
            raise CodebookError(f"label {_show(self.name)}: links_referents must be true or false")
        if not isinstance(self.key, str) or len(self.key) > 1 or (self.key and not self.key.isalnum()):
            raise CodebookError(f"label {_show(self.name)}: key must be one letter or digit; got {_show(self.key)}")


@dataclass(frozen=True)
class Codebook:
    name: str
    labels: tuple[Label, ...]
    description: str = ""
    version: int = 0  # 0: not saved yet; the store assigns 1, 2, ...
    created_by: str = ""
    created_at: str = ""

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip() or self.name != self.name.strip():
            raise CodebookError(f"a codebook needs a name without leading/trailing spaces; got {_show(self.name)}")
        if not isinstance(self.description, str):
            raise CodebookError(f"codebook {_show(self.name)}: description must be text")
        if not self.labels:
            raise CodebookError(f"codebook {_show(self.name)} has no labels")
        seen_names, seen_keys = set(), set()
        for label in self.labels:
            if label.name in seen_names:
                raise CodebookError(f"codebook {_show(self.name)}: label {_show(label.name)} appears twice")
            seen_names.add(label.name)
            if label.key:
                if label.key.lower() in seen_keys:
                    raise CodebookError(f"codebook {_show(self.name)}: shortcut {_show(label.key)} is used twice")
                seen_keys.add(label.key.lower())

    @functools.cached_property
    def _by_name(self) -> dict[str, Label]:
        return {label.name: label for label in self.labels}

    def label(self, name: str) -> Label:
        label = self._by_name.get(name)
        if label is not None:
            return label
        raise KeyError(f"codebook {_show(self.name)} v{self.version} has no label {name!r}")

    def labels_for(self, scope: str) -> list[Label]:
        return [label for label in self.labels if label.scope == scope]

    def to_dict(self) -> dict[str, Any]:
        """The exchange form; ``version`` only for a saved codebook (an unsaved one has none yet, and import
        ignores it: the store numbers the versions)."""
        head: dict[str, Any] = {"name": self.name}
        if self.version:
            head["version"] = self.version
        return {**head, "description": self.description, "labels": [asdict(label) for label in self.labels]}

    def with_labels(self, labels, description: str | None = None) -> "Codebook":
        return Codebook(self.name, tuple(labels), self.description if description is None else description)


def check_budget(codebook: Codebook) -> Codebook:
    """The codebook, or CodebookError when it is larger than a new version may be (``budgets``: labels, name
    and description lengths). Checked on import and on save, not on reading a saved version back."""
    if len(codebook.labels) > MAX_LABELS:
        raise CodebookError(f"codebook {_show(codebook.name)} has {len(codebook.labels):,} labels; a codebook has at "
                            f"most {MAX_LABELS} (each is a button on every Replay step)")
    if len(codebook.description) > MAX_DESCRIPTION:
        raise CodebookError(f"codebook {_show(codebook.name)}: a description has at most {MAX_DESCRIPTION:,} characters")
    for label in codebook.labels:
        if len(label.name) > MAX_LABEL_NAME:
            raise CodebookError(f"label {_show(label.name)}: a name has at most {MAX_LABEL_NAME} characters")
        if len(label.description) > MAX_DESCRIPTION:
            raise CodebookError(f"label {_show(label.name)}: a description has at most {MAX_DESCRIPTION:,} characters")
    return codebook


def from_dict(data: Any, source: str = "codebook") -> Codebook:
    """A codebook from its exchange form; ``source`` names the file in messages."""
    if not isinstance(data, dict):
        raise CodebookError(f"{source}: expected a mapping with name and labels, got {type(data).__name__}")
    unknown = set(data) - {"name", "version", "description", "labels"}
    if unknown:
        raise CodebookError(f"{source}: unknown field(s) {', '.join(sorted(str(k)[:60] for k in unknown))}")
    labels = data.get("labels")
    if not isinstance(labels, list):
        raise CodebookError(f"{source}: labels must be a list")
    if len(labels) > MAX_LABELS:  # refused before a single label is built
        raise CodebookError(f"{source}: {len(labels):,} labels; a codebook has at most {MAX_LABELS}")
    parsed = []
    for index, item in enumerate(labels, 1):
        if not isinstance(item, dict):
            raise CodebookError(f"{source}: label {index} must be a mapping")
        extra = set(item) - set(Label.__dataclass_fields__)
        if extra:
            raise CodebookError(f"{source}: label {index}: unknown field(s) {', '.join(sorted(str(k)[:60] for k in extra))}")
        values = dict(item)
        values.setdefault("colour", DEFAULT_COLOURS[(index - 1) % len(DEFAULT_COLOURS)])
        key = values.get("key")
        if isinstance(key, (int, float)) and not isinstance(key, bool):
            key = str(key)  # `key: 1` in YAML is the digit 1
        values["key"] = "" if key is None else key
        try:
            parsed.append(Label(**values))
        except CodebookError as exc:
            raise CodebookError(f"{source}: label {index}: {exc}") from None
        except TypeError as exc:
            raise CodebookError(f"{source}: label {index}: {exc}") from None
    try:
        name: Any = data.get("name")  # __post_init__ refuses a missing or non-text name
        return check_budget(Codebook(name=name, labels=tuple(parsed), description=data.get("description") or ""))
    except CodebookError as exc:
        raise CodebookError(f"{source}: {exc}") from None


def _unique_mapping(loader, node, deep=False):
    """``construct_mapping`` that refuses a key given twice in one mapping: YAML and JSON parsers silently keep
    the last value, so a codebook edited by hand could lose a label's field unseen."""
    if isinstance(node, yaml.MappingNode):
        seen: dict = {}
        for key_node, _value in node.value:
            key = loader.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:
                    raise CodebookError(f"key {_show(key)} is given twice (lines {seen[key]} and {line}); "
                                        "give each key once")
                seen[key] = line
            except TypeError:  # an unhashable key: the constructor refuses it with its own message
                continue
    return yaml.constructor.SafeConstructor.construct_mapping(loader, node, deep=deep)


class _StrictLoader(yaml.SafeLoader):
    """The safe loader (pure Python, whose messages name the line of a syntax error), for the small files
    codebooks are (a few kB)."""

    construct_mapping = _unique_mapping


_FAST_FROM = 64 * 1024  # bytes; larger files are parsed by libyaml: the pure-Python parser took 61 s for 5 MB
_MAX_DEPTH = 500  # nesting levels; the pure-Python loader stops at Python's recursion limit by itself


# libyaml's parser where PyYAML was built with it (the pinned wheel is), else the pure-Python one
_FAST_BASE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _FastStrictLoader(_FAST_BASE):
    """The safe loader on libyaml's parser, for larger files; nesting is bounded before anything is built."""

    construct_mapping = _unique_mapping

    def construct_document(self, node):
        stack, visited = [(node, 1)], set()
        while stack:
            current, depth = stack.pop()
            if id(current) in visited:  # an alias: walked once (an alias bomb would be 10^9 nodes otherwise)
                continue
            visited.add(id(current))
            if depth > _MAX_DEPTH:
                raise RecursionError("nested too deeply")
            if isinstance(current, yaml.SequenceNode):
                stack.extend((child, depth + 1) for child in current.value)
            elif isinstance(current, yaml.MappingNode):
                stack.extend((child, depth + 1) for pair in current.value for child in pair)
        return super().construct_document(node)


def loads(text: str | bytes, source: str = "codebook") -> Codebook:
    """Parse JSON or YAML (YAML is a superset of JSON; safe loader: no tags, no objects), within the codebook
    budget (``budgets.CODEBOOK``: bytes and lines, checked before parsing; ``MAX_LABELS`` labels)."""
    size = len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    if size > CODEBOOK.max_bytes:
        raise CodebookError(f"{source}: {size:,} bytes, more than a codebook file may have ({CODEBOOK.max_bytes:,})")
    lines = text.count(b"\n") if isinstance(text, bytes) else text.count("\n")
    if lines > CODEBOOK.max_lines:
        raise CodebookError(f"{source}: {lines:,} lines, more than a codebook file may have ({CODEBOOK.max_lines:,})")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CodebookError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    data = _json_document(text)  # JSON (what the app exports) is read by the C decoder, 50 times faster
    if data is not _NOT_JSON:
        try:
            return from_dict(data, source)
        except RecursionError:
            raise CodebookError(f"{source}: nested too deeply to be a codebook") from None
    try:
        loader = _StrictLoader if size < _FAST_FROM else _FastStrictLoader
        data = yaml.load(text, Loader=loader)  # noqa: S506 - subclasses of the safe loaders
    except CodebookError as exc:
        raise CodebookError(f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise CodebookError(f"{source}: not valid JSON or YAML{where}") from None
    except RecursionError:  # the parser recurses per nesting level: a file nested thousands deep
        raise CodebookError(f"{source}: nested too deeply to be a codebook") from None
    try:
        return from_dict(data, source)
    except RecursionError:
        raise CodebookError(f"{source}: nested too deeply to be a codebook") from None


_NOT_JSON = object()


class _RepeatedKey(Exception):
    pass


def _unique_pairs(pairs):
    keys = [key for key, _value in pairs]
    if len(set(keys)) != len(keys):
        raise _RepeatedKey  # read again as YAML, whose message names the key and its lines
    return dict(pairs)


def _refuse_constant(name):
    raise ValueError(name)  # NaN / Infinity are no JSON; YAML reads them as text, as before


def _json_document(text: str):
    """The document when ``text`` is plain JSON without a repeated key, else ``_NOT_JSON`` (the YAML loader then
    reads it, with its own messages for every fault)."""
    if not text.lstrip().startswith(("{", "[")):
        return _NOT_JSON
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_refuse_constant)
    except (ValueError, RecursionError, _RepeatedKey):
        return _NOT_JSON


@functools.lru_cache(maxsize=256)
def labels_from_json(text: str) -> tuple[Label, ...]:
    """The labels of a saved version, from the JSON the store keeps; parsed and validated once per distinct
    text (a saved version never changes), not on every rerun of every page that shows the codebook."""
    return tuple(Label(**item) for item in json.loads(text))


def to_json(codebook: Codebook) -> str:
    return json.dumps(codebook.to_dict(), ensure_ascii=False, indent=2) + "\n"


def to_yaml(codebook: Codebook) -> str:
    return yaml.safe_dump(codebook.to_dict(), allow_unicode=True, sort_keys=False)
