"""Collocates of a word or phrase (the node) within a window of ±N words inside the same message.

For each collocate y of the node x in a sub-corpus of N words:

- ``cooccurrences`` f(xy): how often y stands within the window of an occurrence of x (``left``/``right``:
  on which side); ``node`` f(x): occurrences of x; ``frequency`` f(y): occurrences of y in the sub-corpus;
- ``log_dice`` = 14 + log2(2 f(xy) / (f(x) + f(y))) (Rychlý 2008; at most 14, independent of N);
- ``g2``: Dunning's log-likelihood of the 2×2 table, windows against the rest of the sub-corpus (as CQPweb
  does): O11 = f(xy), O12 = R1 − f(xy), O21 = f(y) − f(xy), O22 = N − R1 − O21, where R1 is the number of
  word positions inside the node's windows; ``p`` its p-value (chi-square, 1 df). Only collocates that occur
  more often in the windows than expected (O11 > R1 f(y) / N) are attracted; ``attracted`` says which.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from .concordance import find
from .frequency import count_items
from .stats import chi2_1df_p, g2_table
from .tokens import TokenIndex

COLLOCATE_COLUMNS = ["rank", "word", "cooccurrences", "left", "right", "node", "frequency", "log_dice", "g2", "p",
                     "attracted"]
SORTS = ("log_dice", "g2", "cooccurrences")


def window_positions(index: TokenIndex, starts: np.ndarray, length, window: int) -> tuple[np.ndarray, np.ndarray]:
    """(positions, is_left) of every word within ``window`` words of each hit (``length`` words long: one
    number, or one per hit), in the hit's message."""
    window = max(1, int(window))
    offsets = np.concatenate([np.arange(-window, 0), np.arange(window)]).astype(np.int64)
    after = np.broadcast_to(np.asarray(length, dtype=np.int64), starts.shape)[:, None] * (offsets >= 0)[None, :]
    positions = starts[:, None] + offsets[None, :] + after
    inside = (positions >= 0) & (positions < len(index.ids))
    clipped = np.clip(positions, 0, max(0, len(index.ids) - 1))
    inside &= index.rows[clipped] == index.rows[starts][:, None]
    is_left = np.broadcast_to(offsets < 0, positions.shape)
    return clipped[inside], is_left[inside]


def collocates(index: TokenIndex, query: str, messages: Optional[np.ndarray] = None, window: int = 5,
               min_count: int = 2, top: Optional[int] = 100, sort: str = "log_dice") -> pd.DataFrame:
    """The collocates of ``query`` (COLLOCATE_COLUMNS), co-occurring at least ``min_count`` times, best first."""
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {SORTS}, not {sort!r}")
    hits = find(index, query, messages)
    size = len(index.vocab)
    positions, is_left = window_positions(index, hits.starts, hits.length, window)
    found = index.ids[positions]
    together = np.bincount(found, minlength=size)
    left = np.bincount(found[is_left], minlength=size)
    counted = count_items(index, messages, 1)
    frequency = counted.counts
    words = np.flatnonzero(together >= max(1, int(min_count)))
    n_words, span, node = float(counted.tokens), float(len(positions)), float(len(hits))
    o11 = together[words].astype(float)
    fy = frequency[words].astype(float)
    o12, o21 = np.maximum(span - o11, 0), np.maximum(fy - o11, 0)
    o22 = np.maximum(n_words - span - o21, 0)
    g2 = g2_table(o11, o12, o21, o22)
    with np.errstate(divide="ignore"):
        log_dice = 14 + np.log2(2 * o11 / (node + fy))
    table = pd.DataFrame({
        "word": pd.Series(index.vocab[words], dtype="str"),
        "cooccurrences": together[words].astype(np.int64),
        "left": left[words].astype(np.int64),
        "right": (together[words] - left[words]).astype(np.int64),
        "node": np.full(len(words), int(node), dtype=np.int64),
        "frequency": frequency[words].astype(np.int64),
        "log_dice": log_dice, "g2": g2, "p": chi2_1df_p(g2) if len(words) else np.zeros(0),
        "attracted": o11 > (span * fy / n_words if n_words else 0),
    })
    table = table.sort_values([sort, "cooccurrences", "word"], ascending=[False, False, True], kind="stable")
    if top is not None:
        table = table.head(int(top))
    table.insert(0, "rank", np.arange(1, len(table) + 1, dtype=np.int64))
    return table.reset_index(drop=True)[COLLOCATE_COLUMNS]
