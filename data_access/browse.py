"""The dialog table of the Browse page: which columns each corpus shows and how filters apply.

Filters are plain values (so the page can keep them in the URL) and are applied here, not in the page."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import pandas as pd

from .links import replay_link

# Corpus-specific columns shown after the common ones, when the loader provides them.
EXTRA_COLUMNS = {
    "codraw": ["image_id", "peek_round", "final_score", "final_score_original", "score_before_peek"],
    "gos": ["game_id", "category", "players", "mismatches", "manual_unlocks"],
    "minecraft": ["config", "builder", "architect", "placements", "removals", "outcome_match", "outcome_f1"],
}
COMMON_COLUMNS = ["dialog_id", "split", "n_rounds", "n_steps", "n_utterances", "duration_s"]


@dataclass(frozen=True)
class DialogFilter:
    splits: tuple[str, ...] = ()  # empty = all
    id_contains: str = ""
    min_steps: Optional[int] = None
    max_steps: Optional[int] = None
    only_with_notes: bool = False


def dialog_table(dialogs: pd.DataFrame, corpus: str, note_counts: Optional[pd.Series] = None) -> pd.DataFrame:
    """The columns the Browse page shows, plus ``notes`` (count per dialog) and ``replay`` (deep link)."""
    columns = [c for c in COMMON_COLUMNS + EXTRA_COLUMNS.get(corpus, []) if c in dialogs.columns
               and not (c == "n_rounds" and dialogs[c].isna().all())]  # Minecraft games have no rounds
    table = dialogs[columns].copy()
    if "players" in table.columns:  # lists read badly in a table cell
        table["players"] = table["players"].map(lambda p: ", ".join(p) if hasattr(p, "__iter__") and not isinstance(p, str) else p)
    counts = note_counts if note_counts is not None else pd.Series(dtype="int64")
    table["notes"] = table["dialog_id"].map(counts).fillna(0).astype("int64")
    table["replay"] = [replay_link(corpus, d) for d in table["dialog_id"]]
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
    return table[keep]
