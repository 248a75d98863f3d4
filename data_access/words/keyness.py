"""Keyness: which words (or 2-, 3-word sequences) are typical of sub-corpus A against sub-corpus B.

For a word with counts a in A and b in B, of c and d words in all:

- ``g2``: Dunning's log-likelihood of the 2×2 table [[a, b], [c − a, d − b]],
  G² = 2 Σ O ln(O / E), E = row total × column total / (c + d) (the "4-term" form; Rayson & Garside's
  2-term form keeps only the cells a and b and is slightly smaller); ``p`` = P(χ²₁ ≥ G²) = erfc(√(G²/2));
- ``log_ratio`` (Hardie 2014): log2((a / c) / (b / d)), a zero count taken as 0.5 so that the ratio stays
  finite; +1 means twice as frequent in A;
- ``key_in``: ``A`` where the word is relatively more frequent in A, else ``B``.

Sorted by G², largest first. A and B are taken as given (a message in both counts in both).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from .frequency import Counts, count_items
from .stats import chi2_1df_p, g2_table
from .tokens import TokenIndex

KEYNESS_COLUMNS = ["rank", "word", "count_a", "per_10k_a", "dialogs_a", "count_b", "per_10k_b", "dialogs_b", "g2", "p",
                   "log_ratio", "key_in"]


def keyness_scores(a, b, c, d) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(G², p, log ratio) of counts ``a``, ``b`` (arrays) in sub-corpora of ``c`` and ``d`` words."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    g2 = g2_table(a, b, c - a, d - b)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log2((np.where(a > 0, a, 0.5) / c) / (np.where(b > 0, b, 0.5) / d)) if c and d else np.zeros(len(a))
    return g2, chi2_1df_p(g2) if len(g2) else np.zeros(0), ratio


def keyness(index: TokenIndex, messages_a: Optional[np.ndarray], messages_b: Optional[np.ndarray], n: int = 1,
            min_count: int = 3, top: Optional[int] = 100, max_p: Optional[float] = None,
            counts: Optional[tuple[Counts, Counts]] = None) -> pd.DataFrame:
    """KEYNESS_COLUMNS for every item occurring ``min_count`` times or more in A and B together. ``counts``: the
    ``count_items`` of A and B when the caller has them already."""
    first, second = counts if counts is not None else (count_items(index, messages_a, n), count_items(index, messages_b, n))
    total = first.counts + second.counts
    items = np.flatnonzero(total >= max(1, int(min_count)))
    a, b = first.counts[items], second.counts[items]
    c, d = first.tokens, second.tokens
    g2, p, ratio = keyness_scores(a, b, c, d)
    order = np.lexsort((items, -g2))
    if max_p is not None:
        order = order[p[order] <= max_p]
    if top is not None:
        order = order[: int(top)]
    chosen = items[order]
    return pd.DataFrame({
        "rank": np.arange(1, len(order) + 1, dtype=np.int64),
        "word": pd.Series(index.ngram_words(n, chosen), dtype="str"),
        "count_a": a[order].astype(np.int64), "per_10k_a": a[order] / c * 10_000 if c else np.zeros(len(order)),
        "dialogs_a": first.dialogs[chosen].astype(np.int64),
        "count_b": b[order].astype(np.int64), "per_10k_b": b[order] / d * 10_000 if d else np.zeros(len(order)),
        "dialogs_b": second.dialogs[chosen].astype(np.int64),
        "g2": g2[order], "p": p[order], "log_ratio": ratio[order],
        "key_in": np.where(a[order] * max(d, 1) >= b[order] * max(c, 1), "A", "B"),
    }, columns=KEYNESS_COLUMNS)
