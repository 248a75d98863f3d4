"""Frequency lists of a sub-corpus: words, or 2- and 3-word sequences within one message.

For each item: ``count`` (occurrences in the sub-corpus), ``per_10k`` (count per 10,000 words of the
sub-corpus: ``count / tokens × 10,000``, where ``tokens`` counts words, whatever ``n``) and ``dialogs``
(dispersion: the number of dialogs in which it occurs at least once within the sub-corpus). Sorted by count,
then alphabetically.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .tokens import TokenIndex

FREQUENCY_COLUMNS = ["rank", "word", "count", "per_10k", "dialogs"]


@dataclass(frozen=True)
class Counts:
    """Counts of every item (``codes`` of ``TokenIndex.ngram_codes``) in a sub-corpus."""

    counts: np.ndarray  # per item code
    dialogs: np.ndarray  # per item code
    tokens: int  # words in the sub-corpus
    n_dialogs: int  # dialogs with at least one word in the sub-corpus


def count_items(index: TokenIndex, messages: Optional[np.ndarray], n: int = 1) -> Counts:
    """Occurrences and dispersion of every n-gram in the messages selected by ``messages`` (None = all)."""
    codes, valid = index.ngram_codes(n)
    size = int(codes.max()) + 1 if len(codes) else 0
    pairs, pair_items = index.item_dialogs(n)
    if messages is None:  # the whole corpus: no mask to apply
        keep, lengths, dialogs = valid, index.message_lengths, index.dialogs
    else:
        messages = np.asarray(messages, dtype=bool)
        keep = messages[index.rows] & valid  # an n-gram lies in one message: its first token's message decides
        lengths, dialogs = index.message_lengths[messages], index.dialogs[messages]
    counts = np.bincount(codes[keep], minlength=size)
    present = np.bincount(pairs[keep], minlength=len(pair_items)) > 0
    dispersion = np.bincount(pair_items[present], minlength=size)
    in_dialogs = np.bincount(dialogs[lengths > 0], minlength=index.n_dialogs) if index.n_dialogs else np.zeros(0)
    return Counts(counts=counts, dialogs=dispersion, tokens=int(lengths.sum()), n_dialogs=int((in_dialogs > 0).sum()))


def frequency_list(index: TokenIndex, messages: Optional[np.ndarray] = None, n: int = 1, top: Optional[int] = 100,
                   min_count: int = 1, counts: Optional[Counts] = None) -> pd.DataFrame:
    """The ``top`` most frequent n-grams (FREQUENCY_COLUMNS; ``top=None``: all with ``min_count`` or more).
    ``counts``: ``count_items(index, messages, n)`` when the caller has it already."""
    found = counts if counts is not None else count_items(index, messages, n)
    items = np.flatnonzero(found.counts >= max(1, int(min_count)))
    tally = found.counts[items]
    # by count descending, then by word: n = 1 ids are alphabetical; n-grams are sorted by their words below
    if n == 1:
        order = np.lexsort((items, -tally))
    else:
        order = np.argsort(-tally, kind="stable")
    items, tally = items[order], tally[order]
    if n > 1 and len(items):
        words_all = np.array(index.ngram_words(n, items if top is None else items[: _cutoff(tally, top)]), dtype=object)
        items, tally = items[: len(words_all)], tally[: len(words_all)]
        order = np.lexsort((words_all, -tally))
        items, tally, words = items[order], tally[order], words_all[order].tolist()
    else:
        words = None
    if top is not None:
        items, tally = items[: int(top)], tally[: int(top)]
    if words is None:
        words = index.ngram_words(1, items)
    words = words[: len(items)]
    return pd.DataFrame({
        "rank": np.arange(1, len(items) + 1, dtype=np.int64),
        "word": pd.Series(words, dtype="str"),
        "count": tally.astype(np.int64),
        "per_10k": tally / found.tokens * 10_000 if found.tokens else np.zeros(len(items)),
        "dialogs": found.dialogs[items].astype(np.int64),
    }, columns=FREQUENCY_COLUMNS)


def _cutoff(counts: np.ndarray, top: int) -> int:
    """How many of the (descending) ``counts`` to name so that the first ``top`` are complete with their ties."""
    if len(counts) <= top:
        return len(counts)
    return int(np.searchsorted(-counts, -counts[top - 1], side="right"))
