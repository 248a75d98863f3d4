"""Full-text search over the utterances of every loaded corpus, with keyword-in-context (KWIC) results.

A query is either plain words — every word must occur (AND), "quoted phrases" must occur as written
(any run of whitespace matches any other), regex metacharacters mean themselves; whole words by default
(``tree`` does not find "street"), substrings as an option — or a regular expression in RE2 syntax.

Every pattern runs on RE2 (Arrow's vectorised kernels select the utterances, the ``google-re2`` package
finds the span to show), never on Python's backtracking ``re``: RE2 runs in time linear in the text, so
no query can hold the server. Look-around and back-references are not part of RE2 and get a clear
message. In RE2, ``\\w \\d \\s \\b`` are ASCII classes (use ``\\pL`` for any letter); whole-word matching
uses Unicode letters and digits. As a second guard, a search stops with a message when it would take
longer than ``time_limit`` seconds (RE2 is linear, but a large automaton can make the constant big); the
kernels release the GIL, so other sessions keep running meanwhile.

Counts are exact over all matches and given per corpus; KWIC rows (first match in each utterance) are
built per page, for each corpus separately (``SearchIndex.page``).
"""
from __future__ import annotations

import functools
import math
import re
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import re2

from .common import UTTERANCE_COLUMNS
from .links import replay_link

MODES = ("words", "regex")
DEFAULT_LIMIT = 500
PAGE_SIZE = 50
DEFAULT_CONTEXT = 60  # characters of context on each side of the match
MAX_QUERY_CHARS = 500
MAX_TERMS = 12
TIME_LIMIT_S = 5.0
HIT_COLUMNS = ["corpus", "dialog_id", "round", "turn", "speaker", "role", "left", "match", "right", "link", "text"]
COUNT_COLUMNS = ["corpus", "n_utterances", "n_dialogs", "total_utterances", "share"]

_WORD = r"[\p{L}\p{N}_]"  # a Unicode word character
_NOT_WORD = r"[^\p{L}\p{N}_]"
_METACHARACTERS = re.compile(r"([\\.^$*+?{}\[\]|()])")
# Any run of whitespace inside a phrase, spelled out so that it is Unicode-aware in RE2.
_SPACE_RUN = "[ \t\n\r\f\v\u00a0\u2000-\u200a\u202f\u3000]+"
# A word's apostrophe matches either apostrophe, with or without a space before it (and before the n of n't):
# CoDraw's text is tokenised ("it 's", "do n't"), and a researcher typing it's or don't means those too.
_CONTRACTION = re.compile("n['’]t|['’]")


def _contraction(match: re.Match) -> str:
    return " ?n['’]t" if match.group(0).startswith("n") else " ?['’]"
_LAYOUT = str.maketrans({"\n": " ", "\r": " ", "\t": " "})
_FIRST_CHUNK = 2048  # utterances matched before the first estimate of the total time


class InvalidQuery(ValueError):
    """The query cannot be searched for; ``str(exc)`` is a message to show the user as is."""


class QueryTooSlow(InvalidQuery):
    """The pattern is valid but would take longer than the time limit over the indexed utterances."""


@dataclass(frozen=True)
class CompiledQuery:
    """A query turned into RE2 patterns: every one of ``required`` must match; ``highlight`` marks the KWIC
    keyword. Only strings, so that it pickles and hashes (RE2 objects are compiled on use, cached)."""

    description: str
    required: tuple[str, ...]  # full RE2 patterns (whole-word wrapping included), without case flags
    highlight: str  # an RE2 pattern whose group 1 is the keyword
    case_sensitive: bool
    whole_word: bool


def _escape(literal: str) -> str:
    """Escape exactly the characters RE2 treats as special outside a character class."""
    return _METACHARACTERS.sub(r"\\\1", literal)


def split_words(text: str) -> list[str]:
    """Plain-words query → terms: whitespace separates words, "double quotes" keep a phrase together
    (an unclosed quote runs to the end)."""
    terms: list[str] = []
    for index, chunk in enumerate(text.split('"')):
        if index % 2:  # inside quotes
            phrase = " ".join(chunk.split())
            if phrase:
                terms.append(phrase)
        else:
            terms.extend(chunk.split())
    return terms


def default_whole_word(mode: str) -> bool:
    """Words match whole words unless asked otherwise; a regular expression means what it says."""
    return mode == "words"


@functools.lru_cache(maxsize=256)
def _re2(pattern: str, case_sensitive: bool):
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False
    return re2.compile(pattern, options)


def _explain(message: str, pattern: str = "") -> str:
    """An RE2 error → one sentence for the user."""
    if message.startswith("invalid perl operator: (?=") or message.startswith("invalid perl operator: (?!"):
        return ("Look-ahead ((?=…) or (?!…)) is not supported: search uses the RE2 engine, which answers every "
                "pattern promptly but has no look-around. Rewrite the pattern without it.")
    if message.startswith("invalid perl operator: (?<"):
        return ("Look-behind ((?<=…) or (?<!…)) is not supported: search uses the RE2 engine, which answers every "
                "pattern promptly but has no look-around. Rewrite the pattern without it.")
    if re.match(r"invalid escape sequence: \\[1-9]", message) or (
            message.startswith("invalid perl operator: (?P") and "(?P=" in pattern):
        return ("Back-references (\\1, (?P=name)) are not supported: search uses the RE2 engine, which answers "
                "every pattern promptly but cannot match back-references.")
    if "pattern too large" in message:
        return "This regular expression is too large to search for; make it shorter or use fewer repetitions."
    what, _, where = message.partition(": ")
    return f"This is not a valid regular expression: {what}" + (f" at “{where}”." if where else ".")


def _check(pattern: str, case_sensitive: bool) -> None:
    try:
        _re2(pattern, case_sensitive)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else ""
        message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        raise InvalidQuery(_explain(message, pattern)) from None
    except (TypeError, ValueError, OverflowError, MemoryError):
        raise InvalidQuery("This regular expression cannot be searched for.") from None


def _whole(body: str) -> str:
    return f"(?:^|{_NOT_WORD})(?:{body})(?:{_NOT_WORD}|$)"


def compile_query(text: str, mode: str = "words", case_sensitive: bool = False,
                  whole_word: Optional[bool] = None) -> CompiledQuery:
    """Check and translate a query; raises ``InvalidQuery`` with a message for the user.

    ``whole_word=None`` means the mode's default (``default_whole_word``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if text is None or not str(text).strip():
        raise InvalidQuery("Type a word, a \"phrase\" or a regular expression to search for.")
    text = str(text)
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidQuery(f"The query is {len(text):,} characters long; searches are limited to {MAX_QUERY_CHARS}.")
    whole_word = default_whole_word(mode) if whole_word is None else bool(whole_word)
    if mode == "words":
        terms = split_words(text)
        if not terms:  # only quotes, e.g. "": nothing to look for (an empty term would match every utterance)
            raise InvalidQuery("Type a word, a \"phrase\" or a regular expression to search for.")
        if len(terms) > MAX_TERMS:
            raise InvalidQuery(f"The query has {len(terms)} words or phrases; searches are limited to {MAX_TERMS}.")
        bodies = tuple(_SPACE_RUN.join(_CONTRACTION.sub(_contraction, _escape(word)) for word in term.split())
                       for term in terms)
        description = " AND ".join(f'"{t}"' for t in terms)
        if any(_CONTRACTION.search(t) for t in terms):
            description += " (an apostrophe also finds ’ and CoDraw's tokenised forms: “it 's”, “do n't”)"
    else:
        bodies = (text,)
        description = f"/{text}/"
        _check(text, case_sensitive)  # the user's own pattern first: its error message names its own text
    required = tuple(_whole(b) if whole_word else b for b in bodies)
    keyword = bodies[0] if len(bodies) == 1 else "|".join(f"(?:{b})" for b in bodies)
    highlight = f"(?:^|{_NOT_WORD})({keyword})(?:{_NOT_WORD}|$)" if whole_word else f"({keyword})"
    for pattern in (*required, highlight):
        _check(pattern, case_sensitive)
    return CompiledQuery(
        description=description + (" (case-sensitive)" if case_sensitive else "")
        + (" (whole words)" if whole_word else " (substrings)" if mode == "words" else ""),
        required=required,
        highlight=highlight,
        case_sensitive=case_sensitive,
        whole_word=whole_word,
    )


@dataclass
class SearchResult:
    """What a search found: ``counts`` per corpus (COUNT_COLUMNS, exact, every searched corpus even with 0),
    ``total`` matching utterances, ``rows`` (their positions in the index, in corpus order) and ``hits``
    (KWIC rows of the first ``limit`` of them)."""

    query: CompiledQuery
    hits: pd.DataFrame
    counts: pd.DataFrame
    total: int
    engine: str  # "arrow" (vectorised RE2) or "re2" (the google-re2 package, one utterance at a time)
    rows: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def truncated(self) -> bool:
        return self.total > len(self.hits)

    def n_hits(self, corpus: str) -> int:
        match = self.counts.loc[self.counts["corpus"] == corpus, "n_utterances"]
        return int(match.iloc[0]) if len(match) else 0

    def n_pages(self, corpus: str, size: int = PAGE_SIZE) -> int:
        return max(1, math.ceil(self.n_hits(corpus) / max(1, int(size))))


@dataclass(eq=False)
class SearchIndex:
    """The utterances of all corpora, ready to search: metadata columns plus the text as an Arrow array.

    Immutable once built; build it once per set of loaded corpora and share it."""

    frame: pd.DataFrame  # UTTERANCE_COLUMNS, RangeIndex
    text: pa.ChunkedArray = field(repr=False)
    is_ascii: bool

    @classmethod
    def build(cls, utterances: pd.DataFrame | Iterable[pd.DataFrame]) -> "SearchIndex":
        """From one utterances frame or several (one per corpus), in the given order."""
        frames = [utterances] if isinstance(utterances, pd.DataFrame) else list(utterances)
        missing = [c for c in UTTERANCE_COLUMNS if frames and c not in frames[0].columns]
        if missing:
            raise ValueError(f"utterances lack the columns {missing}")
        frames = [f[UTTERANCE_COLUMNS] for f in frames if len(f)]
        frame = (pd.concat(frames, ignore_index=True) if frames
                 else pd.DataFrame({c: pd.Series(dtype="object") for c in UTTERANCE_COLUMNS}))
        text = pa.array(frame["text"].astype("str").fillna(""))
        text = pa.chunked_array([text.combine_chunks() if isinstance(text, pa.ChunkedArray) else text])
        if len(text) == 0:
            text = pa.chunked_array([pa.array([], type=pa.string())])
        is_ascii = bool(pc.all(pc.string_is_ascii(text)).as_py() in (True, None))
        index = cls(frame=frame, text=text, is_ascii=is_ascii)
        _ = index._codes  # the per-corpus / per-dialog codes the counts need: built with the index, not by the first search
        return index

    def __len__(self) -> int:
        return len(self.frame)

    def search(
        self,
        query: str | CompiledQuery,
        *,
        mode: str = "words",
        case_sensitive: bool = False,
        whole_word: Optional[bool] = None,
        corpora: Optional[Sequence[str]] = None,
        within: Optional[np.ndarray] = None,
        limit: Optional[int] = DEFAULT_LIMIT,
        context: int = DEFAULT_CONTEXT,
        time_limit: float = TIME_LIMIT_S,
    ) -> SearchResult:
        """Search; raises ``InvalidQuery`` (friendly message) for an empty, malformed or too slow query.

        ``corpora`` restricts the search to those corpora, ``within`` (a boolean mask over the index's rows, e.g. a
        ``data_access.words`` sub-corpus) to those utterances; ``limit=None`` builds KWIC rows for every match
        (``limit=0`` none: use ``page`` for one corpus's page of hits)."""
        compiled = query if isinstance(query, CompiledQuery) else compile_query(query, mode, case_sensitive, whole_word)
        mask, engine = self._mask(compiled, self._selected(corpora, within), time_limit)
        rows = np.flatnonzero(mask)
        shown = rows if limit is None else rows[: max(0, int(limit))]
        return SearchResult(compiled, self.kwic(compiled, shown, context), self._counts(mask, corpora),
                            int(len(rows)), engine, rows)

    def matching_rows(self, compiled: CompiledQuery, *, corpora: Optional[Sequence[str]] = None,
                      within: Optional[np.ndarray] = None, time_limit: float = TIME_LIMIT_S,
                      check: Optional[Callable[[], None]] = None) -> np.ndarray:
        """The rows matching ``compiled``, as ``search`` finds them but without its hits and counts (a slice's
        text test). ``check`` is called between the chunks of utterances matched and may raise to stop the
        matching (a slice's one deadline over all its tests)."""
        return np.flatnonzero(self._mask(compiled, self._selected(corpora, within), time_limit, check)[0])

    def _selected(self, corpora: Optional[Sequence[str]], within: Optional[np.ndarray]) -> np.ndarray:
        selected = np.ones(len(self.frame), dtype=bool)
        if corpora is not None:
            selected = self.frame["corpus"].isin(list(corpora)).to_numpy()
        if within is not None:
            selected = selected & np.asarray(within, dtype=bool)
        return selected

    def page(self, result: SearchResult, corpus: str, page: int = 1, size: int = PAGE_SIZE,
             context: int = DEFAULT_CONTEXT) -> pd.DataFrame:
        """KWIC rows of page ``page`` (1-based, clamped) of ``corpus``'s hits, ``size`` per page."""
        rows = result.rows[self.frame["corpus"].to_numpy()[result.rows] == corpus] if len(result.rows) else result.rows
        size = max(1, int(size))
        page = min(max(1, int(page)), max(1, math.ceil(len(rows) / size)))
        return self.kwic(result.query, rows[(page - 1) * size: page * size], context)

    # -- matching --------------------------------------------------------------------------------------------

    def _mask(self, compiled: CompiledQuery, selected: np.ndarray, time_limit: float,
              check: Optional[Callable[[], None]] = None) -> tuple[np.ndarray, str]:
        """Which selected utterances match every required pattern, in slices under a deadline."""
        start = time.monotonic()
        text = self.text.combine_chunks() if self.text.num_chunks != 1 else self.text.chunk(0)
        total = int(selected.sum())
        mask = np.zeros(len(self.frame), dtype=bool)
        engine = "arrow"
        done = position = 0
        size = _FIRST_CHUNK
        while position < len(mask):
            end = min(len(mask), position + size)
            keep = selected[position:end].copy()
            if keep.any():
                part = text.slice(position, end - position)  # zero-copy
                for pattern in compiled.required:
                    if not keep.any():
                        break
                    matched, engine = _match(part, pattern, compiled.case_sensitive, engine)
                    keep &= matched
                done += int(selected[position:end].sum())
            mask[position:end] = keep
            position = end
            if check is not None and position < len(mask):
                check()
            elapsed = time.monotonic() - start
            if position < len(mask) and done and (elapsed > time_limit or elapsed / done * total > 2 * time_limit):
                raise QueryTooSlow(
                    f"This search would take too long over {total:,} utterances (about "
                    f"{elapsed / done * total:,.0f} s; the limit is {time_limit:g} s). Simplify the pattern: "
                    "fewer nested or counted repetitions such as (.|x)*x(.|x){100}.")
            size = max(size, len(mask) // 8 + 1)
        return mask, engine

    # -- results ---------------------------------------------------------------------------------------------

    def kwic(self, compiled: CompiledQuery, rows: np.ndarray, context: int = DEFAULT_CONTEXT) -> pd.DataFrame:
        """KWIC rows (HIT_COLUMNS) of the utterances at ``rows``: the first match with context, and a deep
        link to the replay at that turn that carries the matched text (``hl``) to highlight there."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) == 0:
            return pd.DataFrame({c: pd.Series(dtype="Int64" if c in ("round", "turn") else "str") for c in HIT_COLUMNS})
        picked = self.frame.iloc[rows].reset_index(drop=True)
        texts = [t if isinstance(t, str) else "" for t in picked["text"].tolist()]
        highlight = _re2(compiled.highlight, compiled.case_sensitive)
        left, match, right = [], [], []
        for text in texts:
            found = highlight.search(text)
            start, end = found.span(1) if found else (0, 0)
            before, after = text[:start], text[end:]
            left.append(("…" + before[-context:] if len(before) > context else before).translate(_LAYOUT))
            match.append(text[start:end].translate(_LAYOUT))
            right.append((after[:context] + "…" if len(after) > context else after).translate(_LAYOUT))
        links = [
            replay_link(c, d, turn=None if pd.isna(t) else int(t), round=None if pd.isna(r) else int(r), highlight=m or None)
            for c, d, r, t, m in zip(picked["corpus"], picked["dialog_id"], picked["round"], picked["turn"], match)
        ]
        hits = pd.DataFrame({
            "corpus": picked["corpus"].astype("str"),
            "dialog_id": picked["dialog_id"].astype("str"),
            "round": picked["round"].astype("Int64"),
            "turn": picked["turn"].astype("Int64"),
            "speaker": picked["speaker"].astype("str"),
            "role": picked["role"].astype("str"),
            "left": pd.Series(left, dtype="str"),
            "match": pd.Series(match, dtype="str"),
            "right": pd.Series(right, dtype="str"),
            "link": pd.Series(links, dtype="str"),
            "text": pd.Series(texts, dtype="str"),
        })
        return hits[HIT_COLUMNS]

    def match_spans(self, compiled: CompiledQuery, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, start, end) of every match of the keyword (``highlight``) in the utterances at ``rows``, in
        order: what a concordance lists (``data_access.words.concordance.from_spans``)."""
        highlight = _re2(compiled.highlight, compiled.case_sensitive)
        found_rows, starts, ends = [], [], []
        texts = self.frame["text"]
        for row in np.asarray(rows, dtype=np.int64):
            text = texts.iat[int(row)]
            text = text if isinstance(text, str) else ""
            position = 0
            while position <= len(text):
                found = highlight.search(text, position)
                if not found:
                    break
                start, end = found.span(1)
                if end > start:
                    found_rows.append(int(row))
                    starts.append(start)
                    ends.append(end)
                # the next match may begin with the boundary this one ended on (whole words: "the the")
                position = max(end, start + 1, found.span()[0] + 1)
        return (np.asarray(found_rows, dtype=np.int64), np.asarray(starts, dtype=np.int64),
                np.asarray(ends, dtype=np.int64))

    @functools.cached_property
    def _codes(self) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray]:
        """Per row: corpus code and dialog code; the corpus names in index order; each dialog's corpus code."""
        corpus_codes, names = pd.factorize(self.frame["corpus"].astype("str"), sort=False)
        pairs = pd.MultiIndex.from_arrays([corpus_codes, self.frame["dialog_id"].astype("str").to_numpy()])
        dialog_codes, uniques = pd.factorize(pairs, sort=False)
        dialog_corpus = np.asarray(uniques.get_level_values(0), dtype=np.int64) if len(uniques) else np.zeros(0, np.int64)
        return corpus_codes.astype(np.int64), [str(n) for n in names], dialog_codes.astype(np.int64), dialog_corpus

    def _counts(self, mask: np.ndarray, corpora: Optional[Sequence[str]]) -> pd.DataFrame:
        corpus_codes, names, dialog_codes, dialog_corpus = self._codes
        k = len(names)
        order = names if corpora is None else [c for c in names if c in set(corpora)]
        at = [names.index(c) for c in order]
        utterances = np.bincount(corpus_codes[mask], minlength=k)
        dialogs = np.bincount(dialog_corpus[np.unique(dialog_codes[mask])], minlength=k) if mask.any() else np.zeros(k, np.int64)
        totals = np.bincount(corpus_codes, minlength=k)
        counts = pd.DataFrame({
            "corpus": pd.Series(order, dtype="str"),
            "n_utterances": utterances[at].astype("int64"),
            "n_dialogs": dialogs[at].astype("int64"),
            "total_utterances": totals[at].astype("int64"),
        })
        counts["share"] = (counts["n_utterances"] / counts["total_utterances"].where(counts["total_utterances"] > 0)).fillna(0.0)
        return counts[COUNT_COLUMNS]


def _match(texts: pa.Array, pattern: str, case_sensitive: bool, engine: str) -> tuple[np.ndarray, str]:
    """Arrow's RE2 kernel (vectorised, GIL released); the google-re2 package when Arrow's RE2 refuses."""
    if engine == "arrow":
        try:
            matched = pc.match_substring_regex(texts, pattern=pattern, ignore_case=not case_sensitive)
            return matched.to_numpy(zero_copy_only=False).astype(bool), "arrow"
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    compiled = _re2(pattern, case_sensitive)
    return np.fromiter((compiled.search(t) is not None for t in texts.to_pylist()), dtype=bool, count=len(texts)), "re2"


def search(utterances: pd.DataFrame | SearchIndex, query: str, **options) -> SearchResult:
    """One-off search (builds the index each call; keep a ``SearchIndex`` for repeated searches)."""
    index = utterances if isinstance(utterances, SearchIndex) else SearchIndex.build(utterances)
    return index.search(query, **options)
