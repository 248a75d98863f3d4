"""The dialog table of the Browse page: which columns each corpus shows and how filters apply.

Filters are plain values (so the page can keep them in the URL) and are applied here, not in the page."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .analysis.splits import SPLIT_ORDER
from .common import COLUMN_HELP as COMMON_HELP
from .common import LoadedCorpus
from .links import replay_link

# Corpus-specific columns shown after the common ones, when the loader provides them.
EXTRA_COLUMNS = {
    "codraw": ["image_id", "peek_round", "final_score", "final_score_original", "score_before_peek"],
    "gos": ["game_id", "category", "players", "mismatches", "manual_unlocks"],
    "minecraft": ["config", "builder", "architect", "placements", "removals", "outcome_match", "outcome_f1"],
}
COMMON_COLUMNS = ["dialog_id", "split", "n_rounds", "n_steps", "n_utterances", "duration_s"]



# What each column means (shown as the column's help on the Browse page); the common columns from the glossary.
COLUMN_HELP = {
    **{column: COMMON_HELP[column] for column in COMMON_COLUMNS},
    "n_messages": COMMON_HELP["n_utterances"],
    "image_id": "The Abstract Scenes image the Teller describes",
    "peek_round": "The round before which the Teller peeked at the Drawer's canvas (empty: never peeked)",
    "final_score": "The paper's final scene-similarity metric (max 5) of the last non-empty drawing",
    "final_score_original": "The original 7-term metric of the last non-empty drawing",
    "score_before_peek": "The paper's metric of the last drawing before the peek",
    "game_id": "The board set (game) the pair played",
    "category": "The images' category",
    "players": "The two players' user names",
    "mismatches": "Locks that met a different image of the partner's (both locks released)",
    "manual_unlocks": "Locks a player released by hand",
    "config": "The target structure (gold configuration)",
    "builder": "The Builder's player id",
    "architect": "The Architect's player id",
    "placements": "Blocks placed, counted from the empty world",
    "removals": "Blocks removed",
    "outcome_match": "Whether the final build equals the target (best rotation and x/z shift)",
    "outcome_f1": "Block F1 of the final build against the target at that alignment",
    "notes": "Your notes on this dialog",
    "replay": "Open the dialog in the Replay page",
}


@dataclass(frozen=True)
class DialogFilter:
    splits: tuple[str, ...] = ()  # empty = all
    id_contains: str = ""
    min_steps: Optional[int] = None
    max_steps: Optional[int] = None
    only_with_notes: bool = False
    ranges: tuple[tuple[str, Optional[float], Optional[float]], ...] = ()  # (column, low, high); None = open


def _natural_key(text: str) -> tuple:
    """'train_00010' after 'train_00009', 'B2-…' before 'B10-…': digit runs compare as numbers."""
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


def parse_range(text: Optional[str]) -> Optional[tuple[Optional[float], Optional[float]]]:
    """'2..4.5' → (2.0, 4.5); '..300' → (None, 300.0); malformed → None."""
    if not text or ".." not in text:
        return None
    low, _, high = text.partition("..")
    try:
        return (float(low) if low.strip() else None, float(high) if high.strip() else None)
    except ValueError:
        return None


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
    return ordered_dialog_table(loaded.dialogs, loaded.corpus)


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
