"""The one tokenisation behind every word count (Words page, concordances, collocations, keyness, the
``words`` command line and the Overview's vocabulary), and the token index built from it.

A *word* (token) is a run of Unicode letters and digits, with apostrophes inside it kept (``don't``,
``4x4``), lower-cased, ``’`` read as ``'``. Punctuation is not a word. CoDraw's text is already tokenised in
the Penn Treebank way (``it 's``, ``do n't``, ``ca n't``); a clitic standing after a space (``'s 're 've 'll
'd 'm`` and ``n't``) is joined to the word before it, so that CoDraw's ``it 's`` and A Game Of Sorts' ``it's``
are the same word ``it's``, as the search already treats them. A word never spans two messages.

``TokenIndex`` holds every token of an utterances frame as integer ids (ids in alphabetical order of the
words, so sorting ids sorts words) with the message each belongs to; ``token_spans`` finds a message's
words in its text as written, for the few lines a concordance shows.
"""
from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

# The steps of the tokenisation, each written for Python's ``re`` (``tokenize``) and for RE2 (the index, through
# Arrow's vectorised kernels): the two give the same words (tests/unit/test_words_tokens.py checks it).
_QUOTES = re.compile("'{2,}")  # two apostrophes in a row are a quotation mark, not part of a word
_CLITIC = re.compile(r"[ \t\n\r\f]+(n't|'(?:s|re|ve|ll|d|m))([^\w]|_|$)")
_CLITIC_RE2 = r"[ \t\n\r\f]+(n't|'(?:s|re|ve|ll|d|m))([^\pL\pN]|$)"
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_NOT_WORD_RE2 = r"[^\pL\pN']+"
# The same words found in the text as written, for their character offsets (what a concordance shows).
_SPAN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*(?:[ \t\n\r\f]+(?:n['’]t|['’](?:s|re|ve|ll|d|m))(?![^\W_]))?", re.IGNORECASE)


def _prepared(text: str) -> str:
    text = _QUOTES.sub(" ", text.lower().replace("’", "'"))
    return _CLITIC.sub(r"\1\2", text)


def tokenize(text) -> list[str]:
    """The words of one text, in order (``"It 's a TREE."`` → ``["it's", "a", "tree"]``)."""
    if not isinstance(text, str):
        return []
    return _WORD.findall(_prepared(text))


def token_spans(text) -> list[tuple[int, int]]:
    """(start, end) character offsets, into the text as written, of each of its words (``tokenize``'s order)."""
    if not isinstance(text, str):
        return []
    return [m.span() for m in _SPAN.finditer(text)]


def _arrow_tokens(texts: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """(words, message of each word) of ``texts``: ``tokenize`` vectorised."""
    prepared = pc.replace_substring_regex(pc.utf8_lower(pc.replace_substring(texts, "’", "'")), "'{2,}", " ")
    prepared = pc.replace_substring_regex(prepared, _CLITIC_RE2, r"\1\2")
    pieces = pc.split_pattern_regex(prepared, _NOT_WORD_RE2)
    words = pc.utf8_trim(pc.list_flatten(pieces), "'")
    keep = pc.not_equal(words, "")
    parents = pc.list_parent_indices(pieces).filter(keep)
    return words.filter(keep), parents.to_numpy(zero_copy_only=False)


@dataclass(eq=False)
class TokenIndex:
    """Every token of an utterances frame (rows in the frame's order, ``RangeIndex``), ready to count.

    Arrays per token: ``ids`` (into ``vocab``) and ``rows`` (the message). ``row_starts[r]:row_starts[r + 1]`` are the tokens of message ``r``.
    ``dialogs`` numbers each message's (corpus, dialog) pair, for dispersion. Immutable once built."""

    frame: pd.DataFrame
    vocab: np.ndarray  # str, sorted
    ids: np.ndarray  # int32
    rows: np.ndarray  # int32
    row_starts: np.ndarray  # int64, len(frame) + 1
    dialogs: np.ndarray  # int64 per message
    n_dialogs: int
    _lookup: dict = field(default_factory=dict, repr=False)
    # one lock per n: a page asking for a table a warm-up thread is building waits for it (not for the others)
    _locks: dict = field(default_factory=lambda: {n: threading.RLock() for n in range(1, 4)}, repr=False)

    @classmethod
    def build(cls, utterances: pd.DataFrame) -> "TokenIndex":
        """Tokenise every message of ``utterances`` (columns corpus, dialog_id, text at least)."""
        frame = utterances.reset_index(drop=True)
        texts = pa.array(frame["text"].astype("str").fillna("").tolist() if len(frame) else [], type=pa.string())
        words, rows = _arrow_tokens(texts)
        encoded = pc.dictionary_encode(words)
        names = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
        order = np.argsort(names, kind="stable")
        rank = np.empty(len(order), dtype=np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        ids = rank[encoded.indices.to_numpy(zero_copy_only=False)] if len(words) else np.zeros(0, np.int32)
        vocab = names[order]
        row_starts = np.searchsorted(rows, np.arange(len(frame) + 1), side="left").astype(np.int64)
        pairs = pd.MultiIndex.from_arrays([frame["corpus"].astype("str").to_numpy(),
                                           frame["dialog_id"].astype("str").to_numpy()])
        dialog_codes, uniques = pd.factorize(pairs, sort=False)
        return cls(frame=frame, vocab=vocab, ids=ids.astype(np.int32), rows=rows.astype(np.int32), row_starts=row_starts, dialogs=dialog_codes.astype(np.int64), n_dialogs=len(uniques),
                   _lookup={str(w): i for i, w in enumerate(vocab)})

    def __len__(self) -> int:
        return len(self.ids)

    def prepare(self, sizes: Sequence[int] = (1, 2, 3)) -> "TokenIndex":
        """Build the n-gram tables ahead (seconds over a large corpus), so that no query pays for them."""
        for n in sizes:
            self.item_dialogs(int(n))
        return self

    def word_id(self, word: str) -> int:
        """The id of ``word`` (tokenised: one word), -1 when it never occurs."""
        words = tokenize(word)
        return self._lookup.get(words[0], -1) if len(words) == 1 else -1

    def phrase_ids(self, text: str) -> list[int]:
        """The ids of the words of ``text`` (``tokenize``); -1 for a word that never occurs."""
        return [self._lookup.get(w, -1) for w in tokenize(text)]

    @functools.cached_property
    def message_lengths(self) -> np.ndarray:
        """Words per message."""
        return np.diff(self.row_starts)

    def token_mask(self, messages: np.ndarray | None) -> np.ndarray:
        """Per token: whether its message is selected (``messages`` a boolean mask over the frame; None = all)."""
        if messages is None:
            return np.ones(len(self.ids), dtype=bool)
        return np.asarray(messages, dtype=bool)[self.rows]

    @functools.cached_property
    def token_dialogs(self) -> np.ndarray:
        """The dialog number of every token."""
        return self.dialogs.astype(_compact(self.n_dialogs))[self.rows] if len(self.rows) else np.zeros(0, np.int32)

    def _lock(self, n: int) -> threading.RLock:
        return self._locks.setdefault(int(n), threading.RLock())

    def ngram_codes(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(codes, valid) of the n-word sequence starting at every token: ``codes`` numbers distinct
        sequences (``ngram_words`` turns one back into words), ``valid`` is False where fewer than ``n``
        tokens of the same message follow."""
        with self._lock(n):
            return self._ngrams(int(n))[:2]

    def ngram_words(self, n: int, codes: Sequence[int] | np.ndarray) -> list[str]:
        """The words (joined by a space) of n-gram ``codes`` from ``ngram_codes(n)``."""
        if n == 1:
            return [str(self.vocab[c]) for c in codes]
        with self._lock(n):
            first = self._ngrams(int(n))[2]
        return [" ".join(str(self.vocab[self.ids[p + k]]) for k in range(n)) for p in first[np.asarray(codes, np.int64)]]

    def item_dialogs(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(pair of every token, item of every pair): the distinct (n-gram, dialog) pairs numbered, -1 where
        no n-gram starts. Dispersion under any mask is then two counts: the pairs present, per item."""
        with self._lock(n):
            return self._item_dialogs(int(n))

    @functools.lru_cache(maxsize=4)  # noqa: B019 - one index per set of corpora, kept for the process
    def _item_dialogs(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        codes, valid = self.ngram_codes(n)
        width = np.int64(max(1, self.n_dialogs))
        found, uniques = pd.factorize(codes[valid].astype(np.int64) * width + self.token_dialogs[valid], sort=False)
        pairs = np.full(len(codes), -1, dtype=_compact(len(uniques)))
        pairs[valid] = found
        return pairs, (np.asarray(uniques, dtype=np.int64) // width) if len(uniques) else np.zeros(0, np.int64)

    @functools.lru_cache(maxsize=4)  # noqa: B019 - one index per set of corpora, kept for the process
    def _ngrams(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if n == 1:
            return self.ids, np.ones(len(self.ids), bool), np.zeros(0, np.int64)
        size, total = len(self.vocab), len(self.ids)
        valid = np.ones(total, dtype=bool)
        key = self.ids.astype(np.int64)
        for k in range(1, n):
            follows = np.zeros(total, dtype=bool)
            follows[: total - k] = self.rows[k:] == self.rows[: total - k]
            valid &= follows
            shifted = np.zeros(total, dtype=np.int64)
            shifted[: total - k] = self.ids[k:]
            key = key * size + shifted
        found, uniques = pd.factorize(key[valid], sort=False)
        del key
        codes = np.full(total, -1, dtype=_compact(len(uniques)))
        codes[valid] = found
        first = np.flatnonzero(valid)[np.unique(found, return_index=True)[1]] if len(found) else np.zeros(0, np.int64)
        return codes, valid, first


def _compact(count: int):
    """The smallest integer type for numbers below ``count`` (the per-token tables of a large corpus: half the memory)."""
    return np.int32 if count < 2**31 - 1 else np.int64


def word_types(texts: pd.Series) -> set[str]:
    """The distinct words of ``texts`` (the Overview's vocabulary)."""
    values = texts.astype("str").where(texts.notna(), "").tolist() if len(texts) else []
    words, _rows = _arrow_tokens(pa.array(values, type=pa.string()))
    return set(pc.unique(words).to_pylist()) if len(words) else set()
