"""The dialog table of the Browse page: which columns each corpus shows and how filters apply.

Filters are plain values (so the page can keep them in the URL) and are applied here, not in the page."""
from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .analysis.splits import SPLIT_ORDER
from .common import COLUMN_HELP as COMMON_HELP
from .common import CORPUS_NAMES, CorpusAttribute, LoadedCorpus
from .links import replay_link, shortened

# Corpus-specific columns shown after the common ones, when the loader provides them (each corpus package's
# ``BROWSE_COLUMNS``).
EXTRA_COLUMNS: Mapping[str, list[str]] = CorpusAttribute("BROWSE_COLUMNS", list)
_BROWSE_HELP: Mapping[str, Mapping[str, str]] = CorpusAttribute("BROWSE_COLUMNS")
COMMON_COLUMNS = ["dialog_id", "split", "n_rounds", "n_steps", "n_utterances", "duration_s"]
# The columns every corpus's table has besides its own, with their help; the common ones from the glossary.
_SHARED_HELP = {
    **{column: COMMON_HELP[column] for column in COMMON_COLUMNS},
    "n_messages": COMMON_HELP["n_utterances"],
    "notes": "Your notes on this dialog",
    "replay": "Open the dialog in the Replay page",
}


class _ColumnHelp(Mapping):
    """column -> what it means (the column's help on the Browse page): the shared columns, then every
    registered corpus's own (its ``BROWSE_COLUMNS``), looked up when asked for."""

    def _all(self) -> dict[str, str]:
        merged = dict(_SHARED_HELP)
        for name in CORPUS_NAMES:
            for column, text in _BROWSE_HELP[name].items():
                merged.setdefault(column, text)
        return merged

    def __getitem__(self, column: str) -> str:
        return _SHARED_HELP[column] if column in _SHARED_HELP else self._all()[column]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


COLUMN_HELP: Mapping[str, str] = _ColumnHelp()


_OBJECT_ID = re.compile(r"[0-9a-fA-F]{24}")


@dataclass(frozen=True)
class DialogFilter:
    splits: tuple[str, ...] = ()  # empty = all
    id_contains: str = ""
    min_steps: Optional[int] = None
    max_steps: Optional[int] = None
    only_with_notes: bool = False
    ranges: tuple[tuple[str, Optional[float], Optional[float]], ...] = ()  # (column, low, high); None = open


def _natural_key(text: str) -> tuple:
    """'train_00010' after 'train_00009', 'B2-…' before 'B10-…': digit runs compare as numbers. A hexadecimal
    ObjectId (A Game Of Sorts) compares as its text, which orders it by creation time (its first 8 digits)."""
    if _OBJECT_ID.fullmatch(str(text)):
        return ((1, 0, str(text).lower()),)
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower())
                 for part in re.split(r"(\d+)", str(text)) if part != "")


def natural_order(table: pd.DataFrame) -> pd.DataFrame:
    """The table in its natural order: split (train, val, test, warmup, others), then id in numeric order."""
    if table.empty:
        return table
    split = table["split"] if "split" in table else pd.Series("", index=table.index)
    rank = split.map(lambda s: SPLIT_ORDER.index(s) if s in SPLIT_ORDER else len(SPLIT_ORDER))
    keys = [(r, str(s) if isinstance(s, str) else "", _natural_key(d))
            for r, s, d in zip(rank, split, table["dialog_id"])]
    order = sorted(range(len(table)), key=keys.__getitem__)
    return table.iloc[order]


def numeric_columns(table: pd.DataFrame) -> list[str]:
    """Columns a range filter applies to: numbers (not booleans) with at least one value."""
    return [c for c in table.columns
            if pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c])
            and table[c].notna().any()]


def column_bounds(values: pd.Series) -> tuple[float, float, bool]:
    """(low, high, integral) of a numeric column, for its range slider; floats widened to 2 decimals."""
    clean = pd.to_numeric(values, errors="coerce").dropna().astype(float)
    integral = bool(np.all(np.mod(clean, 1) == 0))
    low, high = float(clean.min()), float(clean.max())
    if not integral:
        low, high = math.floor(low * 100) / 100, math.ceil(high * 100) / 100
    return low, high, integral


# One end of a range in a link: an ASCII decimal number. float() alone would also take "nan", "inf",
# "1_0" and digits of other scripts ("٣", "３"; see data_access/links.py), none of which a link should carry.
_RANGE_END = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def parse_range(text: Optional[str]) -> Optional[tuple[Optional[float], Optional[float]]]:
    """'2..4.5' → (2.0, 4.5); '..300' → (None, 300.0); malformed → None.

    Each end is an ASCII decimal number or left out (open); 'nan', 'inf', Unicode digits ('²', '٣'), '..'
    (no end at all), a second '..' and '1...5' (ambiguous) are malformed. A number too large for a float
    ('1e999') is ±inf, an end past every value (``fit_range`` opens it or ignores the range). The ends come
    back as written, even when reversed."""
    if not text or ".." not in text or "..." in text:  # 1...5: 1. to 5, or 1 to .5?
        return None
    ends: list[Optional[float]] = []
    for part in text.partition("..")[::2]:
        part = part.strip()
        if not part:
            ends.append(None)
        elif _RANGE_END.fullmatch(part):
            ends.append(float(part))
        else:
            return None
    if ends == [None, None]:
        return None
    return ends[0], ends[1]


@dataclass(frozen=True)
class LinkedRange:
    """What a link's range on one column becomes on that column's slider."""
    value: Optional[tuple[float, float]]  # the slider's (start, end) within the column's bounds; None: no filter
    warning: str = ""  # plain text (escape it for markdown); empty when the link is used as it was written


def _number(value: float) -> str:
    """A bound in a message: 3, 4.25, 1e+300 (never a 300-digit integer)."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}"


def _quoted(link: Optional[str]) -> str:
    return f"The link's “{shortened(link)}”"


def fit_range(wanted: Optional[tuple[Optional[float], Optional[float]]], link: Optional[str], label: str,
              low: float, high: float, integral: bool) -> LinkedRange:
    """The slider value for ``wanted`` (``parse_range`` of the link's ``link``, e.g. ``'n_steps=3..10'``) on a
    column whose slider spans ``low``..``high``, with a warning whenever what is shown is not what the link says.

    - malformed (``wanted`` is None but there is a ``link``): ignored, with a warning;
    - reversed (30..3): swapped, with a warning. Whoever wrote 30..3 meant the dialogs between 3 and 30: both
      ends are there, only their order is wrong. Ignoring it would drop a filter they plainly asked for, and
      taking it literally gives an empty table that tells them nothing;
    - an end past the column's values (also ±1e999): that side open, with a warning (the same dialogs);
    - no value of the column can be in the range (100..200 of 1..30 steps; 2.2..2.8 of a whole-number column):
      ignored, with a warning. A slider cannot show an empty range, and moving the range onto the nearest
      value would show dialogs the link excludes;
    - a whole-number column: a fractional end is rounded inwards (n >= 2.5 is n >= 3, the same dialogs), with
      a warning, since the link is rewritten;
    - a column of one value (no slider): a range holding it filters nothing (dropped from the link, with a
      warning); one without it is ignored, as above."""
    if wanted is None:
        if link is None:
            return LinkedRange(None)
        return LinkedRange(None, f"{_quoted(link)} is not a range such as 3..10 (either end may be left out); "
                                 f"the {label} filter is ignored.")
    start, end = wanted
    notes = []
    if start is not None and end is not None and start > end:
        start, end = end, start
        notes.append(f"its ends are reversed, so it is read as {_number(start)}..{_number(end)}")
    values = (f"every dialog here has {label} {_number(low)}" if low == high
              else f"{label} lie between {_number(low)} and {_number(high)}")
    if (start is not None and start > high) or (end is not None and end < low):
        notes.append(f"no dialog is in that range ({values}), so the {label} filter is ignored")
        return LinkedRange(None, f"{_quoted(link)}: " + "; ".join(notes) + ".")
    first = low if start is None or start < low else start
    last = high if end is None or end > high else end
    if integral:
        first, last = float(math.ceil(first)), float(math.floor(last))
        if first > last:
            notes.append(f"no whole number lies in it, so the {label} filter is ignored")
            return LinkedRange(None, f"{_quoted(link)}: " + "; ".join(notes) + ".")
    shown = f"{_number(first)}..{_number(last)}, the same dialogs"
    if low == high:  # no slider: a range that holds the one value filters nothing, and leaves the link
        notes.append(f"{values}, so it filters nothing and is left out")
    elif (start is not None and start < low) or (end is not None and end > high):
        notes.append(f"it reaches past the values here ({values}), so it is shown as {shown}")
    elif (start is not None and first != start) or (end is not None and last != end):
        notes.append(f"{label} are whole numbers, so it is shown as {shown}")
    return LinkedRange((first, last), f"{_quoted(link)}: " + "; ".join(notes) + "." if notes else "")


def format_range(low: Optional[float], high: Optional[float]) -> str:
    def number(value):
        return "" if value is None else (str(int(value)) if float(value).is_integer() else f"{value:g}")
    return f"{number(low)}..{number(high)}"


def dialog_table(dialogs: pd.DataFrame, corpus: str, note_counts: Optional[pd.Series] = None) -> pd.DataFrame:
    """The columns the Browse page shows, plus ``notes`` (count per dialog) and ``replay`` (deep link)."""
    return with_note_counts(ordered_dialog_table(dialogs, corpus), note_counts)


def ordered_dialog_table(dialogs: pd.DataFrame, corpus: str) -> pd.DataFrame:
    """``dialog_table`` without its ``notes`` column: what stays the same until the corpus changes (its
    natural order and 9,993 replay links took 0.2 s of every Browse run on CoDraw), so it can be built once."""
    columns = [c for c in COMMON_COLUMNS + EXTRA_COLUMNS.get(corpus, []) if c in dialogs.columns
               and not (c == "n_rounds" and dialogs[c].isna().all())]  # Minecraft games have no rounds
    table = dialogs[columns].copy()
    if "players" in table.columns:  # lists read badly in a table cell
        table["players"] = table["players"].map(lambda p: ", ".join(p) if hasattr(p, "__iter__") and not isinstance(p, str) else p)
    table["replay"] = [replay_link(corpus, d) for d in table["dialog_id"]]
    return natural_order(table).reset_index(drop=True)


def browse_table(loaded: LoadedCorpus) -> pd.DataFrame:
    """``ordered_dialog_table`` of a loaded corpus (for a cache keyed by the corpus)."""
    return ordered_dialog_table(loaded.dialogs, loaded.source_name)


def with_note_counts(table: pd.DataFrame, note_counts: Optional[pd.Series] = None) -> pd.DataFrame:
    """A new frame: ``table`` with the ``notes`` column (notes per dialog) before its ``replay`` link;
    ``table`` itself is left as it is (it may be shared by every session)."""
    counts = note_counts if note_counts is not None else pd.Series(dtype="int64")
    notes = table["dialog_id"].map(counts).fillna(0).astype("int64")
    table = table.copy(deep=False)
    table.insert(table.columns.get_loc("replay"), "notes", notes)
    return table


def apply_filter(table: pd.DataFrame, rule: DialogFilter) -> pd.DataFrame:
    keep = pd.Series(True, index=table.index)
    if rule.splits:
        keep &= table["split"].isin(rule.splits)
    if rule.id_contains:
        keep &= table["dialog_id"].str.contains(rule.id_contains, case=False, regex=False)
    if rule.min_steps is not None:
        keep &= table["n_steps"] >= rule.min_steps
    if rule.max_steps is not None:
        keep &= table["n_steps"] <= rule.max_steps
    if rule.only_with_notes and "notes" in table.columns:
        keep &= table["notes"] > 0
    for column, low, high in rule.ranges:
        if column not in table.columns:
            continue
        values = pd.to_numeric(table[column], errors="coerce").astype(float)
        if low is not None:
            keep &= (values >= low).fillna(False)
        if high is not None:
            keep &= (values <= high).fillna(False)
    return table[keep]


def sort_table(table: pd.DataFrame, column: Optional[str], descending: bool = False) -> pd.DataFrame:
    """``table`` sorted by ``column`` (stable: ties keep their natural order; dialogs without a value last);
    as it is for no column or one it does not have."""
    if not column or column not in table.columns:
        return table
    return table.sort_values(column, ascending=not descending, kind="stable", na_position="last")
