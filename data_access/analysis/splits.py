"""The corpora's splits: their usual order and the rows of the splits a page's filter chose."""
from __future__ import annotations

from typing import Iterable, Optional

import pandas as pd

SPLIT_ORDER = ("train", "val", "test", "warmup")


def filter_splits(frame: pd.DataFrame, splits: Optional[Iterable[str]]) -> pd.DataFrame:
    """Rows of the chosen splits (all rows when ``splits`` is None or empty)."""
    splits = tuple(splits or ())
    if not splits or "split" not in frame:
        return frame
    return frame[frame["split"].isin(splits)]


def ordered_splits(names: Iterable[str]) -> list[str]:
    """Split names in the usual order (train, val, test, warmup), others after them alphabetically."""
    present = set(n for n in names if isinstance(n, str))
    return [s for s in SPLIT_ORDER if s in present] + sorted(present - set(SPLIT_ORDER))


def splits_in(frame: pd.DataFrame) -> list[str]:
    """The splits that rows of ``frame`` belong to, in the usual order."""
    return ordered_splits(frame["split"].dropna().unique())


def available_splits(loaded) -> tuple[str, ...]:
    """The splits of a loaded corpus's dialogs, in the usual order (for the page's split filter); kept as a
    summary in the corpus's cache entry, so that a page's filter after a restart reads no frame."""
    from data_access.corpora import cached_summary

    stored = cached_summary(loaded, "splits-1", lambda: {"splits": splits_in(loaded.dialogs)})
    return tuple(stored["splits"])
