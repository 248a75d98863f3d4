"""Evaluate a slice against one corpus: which of its dialogs the predicate keeps, and the slice in words.

``SliceData`` holds what the tests read: the dialog table with the analysis pages' and the layers' per-dialog
features joined (``slice_data`` builds it from a loaded corpus), each loaded run's Browse columns, the coding
store's annotations, the notes, and the utterances (for ``text`` / ``re``). Everything but the dialog table is
optional; a test that needs what is absent says so (``SliceError``), never a traceback. One
``EvaluationBudget`` bounds the whole evaluation, checked before each test and between the chunks of a text test.

Semantics (docs/slices.md): a comparison with a dialog that has no value (NaN: no peek, not in a layer, not
scored by a run) is false, so ``not`` of it is true; a bare feature is true where it is true, non-zero or
non-empty.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Union

import numpy as np
import pandas as pd

from ..coding.compare import GOLD
from ..coding.label_filter import LabelFilter, label_counts
from ..common import LoadedCorpus
from ..contract import package_of
from ..runs.browse_columns import GAP, SCORE, column_name
from ..search import InvalidQuery, QueryTooSlow, SearchIndex, compile_query
from .budget import EvaluationBudget
from .features import derived_features, feature_text, layer_features
from .grammar import And, Feature, In, Node, Not, Or, SliceError, Test, Value, format_value, parse

# The calls a slice may make: name -> (least, most arguments, what they are)
CALLS = {
    "score": (1, 1, "score(RUN): a loaded run's score of the dialog"),
    "gap": (1, 1, "gap(RUN): a loaded run's score minus the humans' on the same units"),
    "code": (1, 3, "code(LABEL[, CODER[, CODEBOOK]]): annotations of LABEL on the dialog (CODER: a coder, gold, "
                   "or \"\" for any coder)"),
    "tag": (1, 1, "tag(TAG): your notes on the dialog with TAG"),
    "text": (1, 2, "text(WORDS[, ROLE]): utterances (of ROLE) with every word"),
    "re": (1, 2, "re(PATTERN[, ROLE]): utterances (of ROLE) matching the RE2 regular expression"),
}
_NUMERIC_OPS = ("<", "<=", ">", ">=")


@dataclass(eq=False)
class SliceData:
    """What a slice is evaluated against, for one corpus."""

    corpus: str
    title: str
    dialogs: pd.DataFrame  # one row per dialog: dialog_id, the corpus's columns, derived and layer features
    runs: Mapping[str, pd.DataFrame] = field(default_factory=dict)  # run -> runs.browse_columns.run_columns
    annotations: Optional[pd.DataFrame] = None  # CodingStore.annotations (None: no store)
    notes: Optional[pd.DataFrame] = None  # NotesStore.notes (None: no store)
    utterances: Optional[pd.DataFrame] = None
    search_index: Optional[Callable[[], SearchIndex]] = None  # a shared index of ``utterances`` (else built once)
    _index: Optional[SearchIndex] = field(default=None, repr=False)

    def index(self) -> SearchIndex:
        if self._index is None:
            if self.search_index is not None:
                self._index = self.search_index()
            elif self.utterances is None:
                raise SliceError(f"text tests need the utterances of {self.title}, which are not loaded here")
            else:
                self._index = SearchIndex.build(self.utterances)
        return self._index

    @functools.cached_property
    def ids(self) -> pd.Index:
        return pd.Index(self.dialogs["dialog_id"].astype(str))

    def columns(self) -> list[str]:
        """The features a bare name may test here."""
        return [c for c in self.dialogs.columns if c != "corpus"]


def slice_data(loaded: LoadedCorpus, *, layers: Optional[Mapping[str, object]] = None,
               runs: Optional[Mapping[str, pd.DataFrame]] = None, annotations: Optional[pd.DataFrame] = None,
               notes: Optional[pd.DataFrame] = None, search_index: Optional[Callable[[], SearchIndex]] = None
               ) -> SliceData:
    """``SliceData`` of a loaded corpus: its dialogs frame with the corpus's derived features (``features.derived_features``) and
    those of each loaded layer (``layers``: layer name -> ``LoadedLayer``) joined by dialog id."""
    dialogs = loaded.dialogs.copy(deep=False)
    if "players" in dialogs.columns:  # lists: tested by membership; keep them as tuples (hashable, comparable)
        dialogs["players"] = dialogs["players"].map(lambda p: tuple(p) if hasattr(p, "__iter__") and not isinstance(p, str) else p)
    ids = pd.Index(dialogs["dialog_id"].astype(str))
    extra = [derived_features(loaded)] + [layer_features(name, layer) for name, layer in (layers or {}).items()]
    for frame in extra:
        for column in frame.columns:
            if column not in dialogs.columns:
                dialogs[column] = frame[column].reindex(ids).to_numpy()
    return SliceData(loaded.corpus, package_of(loaded).TITLE, dialogs.reset_index(drop=True),
                     dict(runs or {}), annotations, notes, loaded.utterances, search_index)


# ------------------------------------------------------------------------------------------ evaluation

def evaluate(node: Union[Node, str], data: SliceData, budget: Optional[EvaluationBudget] = None) -> np.ndarray:
    """A boolean array over ``data.dialogs``'s rows: the dialogs the slice keeps. ``SliceError`` when a test
    cannot be made on this corpus (unknown feature, run, value of the wrong kind), or when the tests together
    run past ``budget`` (``SliceTooSlow``; a fresh ``EvaluationBudget`` when None) or it says stop
    (``SliceStopped``)."""
    if isinstance(node, str):
        node = parse(node)
    return _evaluate(node, data, budget if budget is not None else EvaluationBudget())


def _evaluate(node: Node, data: SliceData, budget: EvaluationBudget) -> np.ndarray:
    if isinstance(node, Test):
        budget.begin(_feature_text(node.feature))
        return _test(node, data, budget)
    if isinstance(node, In):
        budget.begin(_feature_text(node.feature))
        return _in(node, data, budget)
    if isinstance(node, Not):
        return ~_evaluate(node.operand, data, budget)
    if isinstance(node, And):
        keep = np.ones(len(data.dialogs), dtype=bool)
        for operand in node.operands:
            keep &= _evaluate(operand, data, budget)
        return keep
    if isinstance(node, Or):
        keep = np.zeros(len(data.dialogs), dtype=bool)
        for operand in node.operands:
            keep |= _evaluate(operand, data, budget)
        return keep
    raise TypeError(f"not a slice node: {node!r}")


def dialog_ids(node: Union[Node, str], data: SliceData, budget: Optional[EvaluationBudget] = None) -> list[str]:
    """The ids of the dialogs the slice keeps, in the order of ``data.dialogs``."""
    return [str(d) for d in data.dialogs["dialog_id"].to_numpy()[evaluate(node, data, budget)]]


def _feature_text(feature: Feature) -> str:
    return feature.name if feature.args is None else (
        f"{feature.name}({', '.join(format_value(v) for v in feature.args)})")


def _values(feature: Feature, data: SliceData, budget: EvaluationBudget) -> pd.Series:
    """The feature's value per dialog (a Series over ``data.dialogs``'s rows)."""
    if feature.args is None:
        if feature.name in CALLS:
            raise SliceError(f"{feature.name} needs its arguments: {CALLS[feature.name][2]}")
        if feature.name == "corpus" or feature.name not in data.dialogs.columns:
            known = data.columns()
            raise SliceError(f"{data.title} has no feature “{feature.name}”; it has {', '.join(known[:40])}"
                             + (" …" if len(known) > 40 else "") + " (and the tests " + ", ".join(CALLS) + ")")
        return data.dialogs[feature.name]
    if feature.name not in CALLS:
        raise SliceError(f"“{feature.name}(…)” is not a test; the tests are {', '.join(CALLS)}")
    least, most, usage = CALLS[feature.name]
    args = feature.args
    if not least <= len(args) <= most or not all(isinstance(a, str) for a in args):
        raise SliceError(f"“{_feature_text(feature)}” does not fit {usage}")
    strings: tuple[str, ...] = tuple(str(a) for a in args)
    if feature.name in ("score", "gap"):
        return _run_values(feature.name, strings[0], data)
    if feature.name == "code":
        return _per_dialog(data, label_counts(data.annotations if data.annotations is not None else pd.DataFrame(),
                                              data.corpus, LabelFilter(*strings)))
    if feature.name == "tag":
        return _per_dialog(data, _tag_counts(data.notes, strings[0]))
    return _per_dialog(data, _text_counts(data, budget, feature.name, *strings))


def _per_dialog(data: SliceData, counts: pd.Series) -> pd.Series:
    """Counts by dialog id over every dialog (0 where none)."""
    return pd.Series(counts.reindex(data.ids).fillna(0).to_numpy(dtype="int64"))


def _run_values(what: str, run: str, data: SliceData) -> pd.Series:
    if run not in data.runs:
        loaded = ", ".join(data.runs) or "none"
        raise SliceError(f"no run “{run}” of {data.title} is loaded (loaded: {loaded})")
    frame = data.runs[run]
    column = column_name(run, SCORE if what == "score" else GAP)
    if column not in frame.columns:
        raise SliceError(f"run “{run}” has no gap: {data.title} has no human score on the same units")
    return pd.Series(frame[column].reindex(data.ids).to_numpy(dtype=float))


def _tag_counts(notes: Optional[pd.DataFrame], tag: str) -> pd.Series:
    from ..store.notes import normalize_tags

    if notes is None or notes.empty:
        return pd.Series(dtype="int64")
    wanted = normalize_tags(tag)
    if not wanted:
        raise SliceError("tag(…) needs a tag")
    has = notes["tags"].map(lambda tags: wanted[0] in (tags if isinstance(tags, (list, tuple)) else ()))
    chosen = notes[has.to_numpy(dtype=bool)]
    return chosen.groupby(chosen["dialog_id"].astype(str)).size()


def _text_counts(data: SliceData, budget: EvaluationBudget, mode: str, query: str, role: str = "") -> pd.Series:
    index = data.index()
    within = None
    if role:
        roles = index.frame["role"].astype(str)
        within = (roles.str.casefold() == role.casefold()).to_numpy()
        if not within.any():
            known = sorted(set(roles[index.frame["corpus"] == data.corpus]))
            raise SliceError(f"{data.title} has no role “{role}” (its roles: {', '.join(known)})")
    try:
        compiled = compile_query(query, "words" if mode == "text" else "regex")
        # the slice's one deadline (and its stop) between the chunks of utterances, beside the test's own limit
        rows = index.matching_rows(compiled, corpora=[data.corpus], within=within,
                                   check=lambda: budget.check(f"{mode}({format_value(query)})"))
    except (InvalidQuery, QueryTooSlow) as exc:
        raise SliceError(f"{mode}({format_value(query)}): {exc}") from None
    hits = index.frame.iloc[rows]
    return hits.groupby(hits["dialog_id"].astype(str)).size()


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


def _test(node: Test, data: SliceData, budget: EvaluationBudget) -> np.ndarray:
    values = _values(node.feature, data, budget)
    kind = _kind(values)
    if node.op is None:
        if kind == "bool":
            return values.fillna(False).to_numpy(dtype=bool)
        if kind == "number":
            numbers = pd.to_numeric(values, errors="coerce").astype(float).to_numpy()
            return np.nan_to_num(numbers, nan=0.0) != 0
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


def _in(node: In, data: SliceData, budget: EvaluationBudget) -> np.ndarray:
    values = _values(node.feature, data, budget)
    kind = _kind(values)
    wanted = {_operand(v, kind, node.feature, values) for v in node.values}
    if kind == "list":
        return values.map(lambda v: isinstance(v, tuple) and bool(wanted.intersection(v))).to_numpy(dtype=bool)
    if kind == "number":
        return pd.to_numeric(values, errors="coerce").astype(float).isin(wanted).to_numpy(dtype=bool)
    if kind == "text":
        return values.astype("object").isin(wanted).to_numpy(dtype=bool) & values.notna().to_numpy(dtype=bool)
    return values.isin(wanted).to_numpy(dtype=bool)


# ------------------------------------------------------------------------------------------ words

_OP_WORDS = {"=": "=", "!=": "≠", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}


def _phrase(node: Node) -> str:
    if isinstance(node, Test):
        feature = node.feature
        if feature.args is not None:
            subject = _call_phrase(feature)
            if node.op is None:
                return subject
            return f"{subject}: {_OP_WORDS[node.op]} {format_value(node.value)}"  # type: ignore[arg-type]
        text = feature_text(feature.name)
        if node.op is None:
            return text.has or text.label
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
        return f"not ({_phrase(node.operand)})" if isinstance(node.operand, (And, Or)) else f"not {_phrase(node.operand)}"
    if isinstance(node, And):
        return " and ".join(f"({_phrase(o)})" if isinstance(o, Or) else _phrase(o) for o in node.operands)
    if isinstance(node, Or):
        return " or ".join(_phrase(o) for o in node.operands)
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
    return _feature_text(feature)


def describe(node: Union[Node, str], title: Optional[str] = None, count: Optional[int] = None) -> str:
    """The slice in words, its top-level conditions joined by “ · ”: 'CoDraw · has a CR · peek gain < 0 · 221
    dialogs' (plain text: the names in it are the user's; escape it for markdown)."""
    if isinstance(node, str):
        node = parse(node)
    parts = [title] if title else []
    parts += [_phrase(o) for o in node.operands] if isinstance(node, And) else [_phrase(node)]
    if count is not None:
        parts.append(f"{count:,} dialog{'' if count == 1 else 's'}")
    return " · ".join(parts)
