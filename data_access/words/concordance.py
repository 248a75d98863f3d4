"""Keyword in context (KWIC): every occurrence of a word or phrase in a sub-corpus, sorted by its context.

A hit is a run of tokens (``tokens.TokenIndex``) inside one message. Sorting follows AntConc's KWIC sort:
up to three keys, each the 1st/2nd/3rd word left (``L1 L2 L3``) or right (``R1 R2 R3``) of the match,
compared alphabetically; a position outside the message (the match starts or ends it) sorts first; ties keep
corpus order. Lines show the message as written (punctuation and case kept), aligned on the match.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from ..links import replay_link
from .tokens import TokenIndex, token_spans, tokenize

SORT_KEYS = ("L3", "L2", "L1", "R1", "R2", "R3")
DEFAULT_SORT = ("R1", "R2", "R3")
DEFAULT_WORDS = 8  # words of context on each side
LINE_COLUMNS = ["hit", "corpus", "dialog_id", "round", "turn", "speaker", "role", "left", "match", "right", "link"]
_LAYOUT = str.maketrans({"\n": " ", "\r": " ", "\t": " "})


@dataclass(frozen=True)
class Hits:
    """Token positions where each hit starts and its length in tokens (``length``: one for all, or per hit)."""

    starts: np.ndarray  # int64, in the order chosen (corpus order until sorted)
    length: int | np.ndarray

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def lengths(self) -> np.ndarray:
        return np.broadcast_to(np.asarray(self.length, dtype=np.int64), self.starts.shape)

    def take(self, order) -> "Hits":
        lengths = self.length if np.ndim(self.length) == 0 else np.asarray(self.length)[order]
        return Hits(self.starts[order], lengths)


def from_spans(index: TokenIndex, rows: Sequence[int], starts: Sequence[int], ends: Sequence[int]) -> Hits:
    """Hits from character spans (a regular expression's matches: message ``rows[i]``, characters
    ``starts[i]:ends[i]``): the words the span touches. A span that touches no word (punctuation only) is left out."""
    found_starts, found_lengths = [], []
    texts = index.frame["text"]
    spans_of: dict[int, list] = {}
    for row, start, end in zip(rows, starts, ends):
        row = int(row)
        if row not in spans_of:
            text = texts.iat[row]
            spans_of[row] = token_spans(text if isinstance(text, str) else "")
        spans = spans_of[row]
        touched = [k for k, (a, b) in enumerate(spans) if a < end and b > start]
        if touched and len(spans) == index.row_starts[row + 1] - index.row_starts[row]:
            found_starts.append(int(index.row_starts[row]) + touched[0])
            found_lengths.append(touched[-1] - touched[0] + 1)
    return Hits(np.asarray(found_starts, dtype=np.int64), np.asarray(found_lengths, dtype=np.int64))


def find(index: TokenIndex, query: str, messages: Optional[np.ndarray] = None) -> Hits:
    """Every occurrence of the words of ``query`` (``tokens.tokenize``; several words: that sequence, inside
    one message) in the messages selected by ``messages`` (None = all), in corpus order."""
    words = tokenize(query)
    ids = [index._lookup.get(w, -1) for w in words]
    if not ids or min(ids) < 0:
        return Hits(np.zeros(0, np.int64), max(1, len(ids)))
    starts = np.flatnonzero(index.ids == ids[0])
    total = len(index.ids)
    for k, wanted in enumerate(ids[1:], start=1):
        starts = starts[starts + k < total]
        follow = starts + k
        starts = starts[(index.ids[follow] == wanted) & (index.rows[follow] == index.rows[starts])]
    if messages is not None and len(starts):
        starts = starts[np.asarray(messages, dtype=bool)[index.rows[starts]]]
    return Hits(starts.astype(np.int64), len(ids))


def context_ids(index: TokenIndex, hits: Hits, key: str) -> np.ndarray:
    """The id of the word at sort position ``key`` (``L1``…``R3``) of every hit; -1 outside its message."""
    if key not in SORT_KEYS:
        raise ValueError(f"sort key must be one of {SORT_KEYS}, not {key!r}")
    distance = int(key[1])
    positions = hits.starts - distance if key[0] == "L" else hits.starts + hits.lengths - 1 + distance
    inside = (positions >= 0) & (positions < len(index.ids))
    clipped = np.clip(positions, 0, max(0, len(index.ids) - 1))
    same = inside & (index.rows[clipped] == index.rows[hits.starts]) if len(hits.starts) else inside
    return np.where(same, index.ids[clipped], -1).astype(np.int64)


def sort_hits(index: TokenIndex, hits: Hits, keys: Sequence[str] = DEFAULT_SORT) -> Hits:
    """The hits sorted by the words at ``keys`` (first key first), ties in corpus order."""
    keys = [k for k in keys if k]
    if not keys or len(hits) < 2:
        return hits
    columns = [hits.starts] + [context_ids(index, hits, k) for k in reversed(keys)]
    return hits.take(np.lexsort(columns))


def concordance(index: TokenIndex, query: str, messages: Optional[np.ndarray] = None,
                keys: Sequence[str] = DEFAULT_SORT) -> Hits:
    """``find`` then ``sort_hits``."""
    return sort_hits(index, find(index, query, messages), keys)


def lines(index: TokenIndex, hits: Hits, first: int = 0, count: Optional[int] = None,
          words: int = DEFAULT_WORDS) -> pd.DataFrame:
    """KWIC lines (LINE_COLUMNS) of hits ``first`` .. ``first + count`` (all when ``count`` is None): ``hit`` is
    the line's number in the sorted list (0-based), ``left``/``right`` up to ``words`` words of context
    (``…`` where the message goes on), ``link`` the replay at that step with the match highlighted."""
    end = len(hits) if count is None else min(len(hits), first + max(0, int(count)))
    chosen = hits.starts[first:end]
    lengths = hits.lengths[first:end]
    rows = index.rows[chosen].astype(np.int64) if len(chosen) else np.zeros(0, np.int64)
    picked = index.frame.iloc[rows]
    left, match, right = [], [], []
    for position, length, row, text in zip(chosen, lengths, rows, picked["text"].tolist()):
        text = text if isinstance(text, str) else ""
        spans = token_spans(text)
        at = int(position - index.row_starts[row])
        last = min(len(spans) - 1, at + int(length) - 1)
        if not spans or at >= len(spans):  # cannot happen when both tokenisers agree; show the message whole
            left.append("")
            match.append(text.translate(_LAYOUT))
            right.append("")
            continue
        begin = spans[at - words][0] if at - words > 0 else 0  # the whole start of the message, punctuation too
        stop = spans[last + words][1] if last + words < len(spans) - 1 else len(text)
        left.append(("…" if at - words > 0 else "") + text[begin:spans[at][0]].translate(_LAYOUT))
        match.append(text[spans[at][0]:spans[last][1]].translate(_LAYOUT))
        right.append(text[spans[last][1]:stop].translate(_LAYOUT) + ("…" if last + words < len(spans) - 1 else ""))
    links = [replay_link(c, d, turn=None if pd.isna(t) else int(t), round=None if pd.isna(r) else int(r), highlight=m or None)
             for c, d, r, t, m in zip(picked["corpus"], picked["dialog_id"], picked["round"], picked["turn"], match)]
    return pd.DataFrame({
        "hit": np.arange(first, first + len(chosen), dtype=np.int64),
        "corpus": picked["corpus"].astype("str").to_numpy(),
        "dialog_id": picked["dialog_id"].astype("str").to_numpy(),
        "round": pd.array(picked["round"].to_numpy(), dtype="Int64"),
        "turn": pd.array(picked["turn"].to_numpy(), dtype="Int64"),
        "speaker": picked["speaker"].astype("str").to_numpy(),
        "role": picked["role"].astype("str").to_numpy(),
        "left": pd.Series(left, dtype="str"), "match": pd.Series(match, dtype="str"),
        "right": pd.Series(right, dtype="str"), "link": pd.Series(links, dtype="str"),
    }, columns=LINE_COLUMNS)


def hit_dialogs(index, hits: Hits) -> pd.DataFrame:
    """The dialogs the hits occur in (``corpus``, ``dialog_id``), each once, in the hits' order: a concordance's
    hits as a slice of each corpus."""
    if not len(hits):
        return pd.DataFrame({"corpus": pd.Series(dtype="str"), "dialog_id": pd.Series(dtype="str")})
    rows = np.searchsorted(index.row_starts, hits.starts, side="right") - 1
    found = index.frame.iloc[rows][["corpus", "dialog_id"]].astype(str)
    return found.drop_duplicates().reset_index(drop=True)


def hit_messages(index, hits: Hits) -> int:
    """How many messages the hits occur in (a message with the words twice gives two hits, one message)."""
    return int(len(np.unique(np.searchsorted(index.row_starts, hits.starts, side="right") - 1))) if len(hits) else 0
