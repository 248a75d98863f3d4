"""Full-text search over the utterances of every loaded corpus, with keyword-in-context (KWIC) results.

A query is either plain words — every word must occur (AND), "quoted phrases" must occur as written
(any run of whitespace matches any other), regex metacharacters mean themselves — or a regular
expression in Python ``re`` syntax. Options: case-sensitive, whole words only.

Speed: the text column is held once as an Arrow array (``SearchIndex``, build it once and cache it) and
matched with Arrow's vectorised RE2 kernels, ~20 ms per pattern over 170k utterances. Python ``re`` stays
the reference for what a pattern means, so RE2 is used only when it gives the same answer: patterns RE2
cannot run (look-around, back-references) and, on non-ASCII text, patterns using ``\\w \\b \\d \\s`` (ASCII
in RE2, Unicode in Python) run through Python ``re`` instead — slower (~0.2 s), same results.

Counts are exact over all matches; KWIC rows (first match in each utterance) are built only for the first
``limit`` matching utterances, in corpus order.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .common import UTTERANCE_COLUMNS
from .links import replay_link

MODES = ("words", "regex")
DEFAULT_LIMIT = 500
DEFAULT_CONTEXT = 60  # characters of context on each side of the match
HIT_COLUMNS = ["corpus", "dialog_id", "round", "turn", "speaker", "role", "left", "match", "right", "link", "text"]
COUNT_COLUMNS = ["corpus", "n_utterances", "n_dialogs", "total_utterances", "share"]

_WORD = r"[\p{L}\p{N}_]"  # RE2: a Unicode word character, as Python's \w
_NOT_WORD = r"[^\p{L}\p{N}_]"
_METACHARACTERS = re.compile(r"([\\.^$*+?{}\[\]|()])")
_CLASS_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\[wWbBdDsS]")
_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use sentinels that mark the match inside a replaced text
# Any run of whitespace inside a phrase, spelled out so RE2 and Python agree (their \s differ on Unicode).
_SPACE_RUN = "[ \t\n\r\f\v\u00a0\u2000-\u200a\u202f\u3000]+"
_LAYOUT = str.maketrans({"\n": " ", "\r": " ", "\t": " "})


class InvalidQuery(ValueError):
    """The query cannot be searched for; ``str(exc)`` is a message to show the user as is."""


@dataclass(frozen=True)
class CompiledQuery:
    """A query turned into patterns: every one of ``required`` must match; ``highlight`` marks the KWIC keyword."""

    description: str
    required: tuple[str, ...]  # pattern bodies (no flags, no whole-word wrapping)
    highlight: str
    case_sensitive: bool
    whole_word: bool
    python_required: tuple[re.Pattern, ...]
    python_highlight: re.Pattern
    uses_class_escapes: bool  # \w \b \d \s, whose meaning differs between RE2 and Python on non-ASCII text


def _escape(literal: str) -> str:
    """Escape exactly the characters both RE2 and Python treat as special outside a character class."""
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


def compile_query(text: str, mode: str = "words", case_sensitive: bool = False, whole_word: bool = False) -> CompiledQuery:
    """Check and translate a query; raises ``InvalidQuery`` with a message for the user."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if text is None or not str(text).strip():
        raise InvalidQuery("Type a word, a \"phrase\" or a regular expression to search for.")
    flags = 0 if case_sensitive else re.IGNORECASE
    if mode == "words":
        terms = split_words(str(text))
        bodies = tuple(_SPACE_RUN.join(_escape(word) for word in term.split()) for term in terms)
        description = " AND ".join(f'"{t}"' for t in terms)
    else:
        bodies = (str(text),)
        description = f"/{text}/"
    python_bodies = []
    for body in bodies:
        try:
            python_bodies.append(re.compile(_python_whole_word(body) if whole_word else body, flags))
        except re.error as exc:
            where = f" at position {exc.pos}" if exc.pos is not None else ""
            raise InvalidQuery(f"This is not a valid regular expression: {exc.msg}{where}.") from None
        except (RecursionError, OverflowError):
            raise InvalidQuery("This regular expression is too complex to search for.") from None
    highlight = bodies[0] if len(bodies) == 1 else "|".join(f"(?:{b})" for b in bodies)
    return CompiledQuery(
        description=description + (" (case-sensitive)" if case_sensitive else "") + (" (whole words)" if whole_word else ""),
        required=bodies,
        highlight=highlight,
        case_sensitive=case_sensitive,
        whole_word=whole_word,
        python_required=tuple(python_bodies),
        python_highlight=re.compile(_python_whole_word(highlight) if whole_word else highlight, flags),
        uses_class_escapes=any(_CLASS_ESCAPE.search(b) for b in bodies),
    )


def _python_whole_word(body: str) -> str:
    return rf"(?<!\w)(?:{body})(?!\w)"


def _re2_mask_pattern(body: str, whole_word: bool) -> str:
    return f"(?:^|{_NOT_WORD})(?:{body})(?:{_NOT_WORD}|$)" if whole_word else body


@dataclass
class SearchResult:
    """What a search found: ``hits`` (KWIC rows, HIT_COLUMNS, at most ``limit``), ``counts`` per corpus
    (COUNT_COLUMNS, exact, every indexed corpus even with 0), ``total`` matching utterances."""

    query: CompiledQuery
    hits: pd.DataFrame
    counts: pd.DataFrame
    total: int
    engine: str  # "arrow" or "python"

    @property
    def truncated(self) -> bool:
        return self.total > len(self.hits)


@dataclass(eq=False)
class SearchIndex:
    """The utterances of all corpora, ready to search: metadata columns plus the text as an Arrow array.

    Immutable once built and picklable; build it once per set of loaded corpora and cache it."""

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
        text = text if isinstance(text, pa.ChunkedArray) else pa.chunked_array([text])
        if len(text) == 0:
            text = pa.chunked_array([pa.array([], type=pa.string())])
        is_ascii = bool(pc.all(pc.string_is_ascii(text)).as_py() in (True, None))
        return cls(frame=frame, text=text, is_ascii=is_ascii)

    def __len__(self) -> int:
        return len(self.frame)

    def search(
        self,
        query: str | CompiledQuery,
        *,
        mode: str = "words",
        case_sensitive: bool = False,
        whole_word: bool = False,
        corpora: Optional[Sequence[str]] = None,
        limit: Optional[int] = DEFAULT_LIMIT,
        context: int = DEFAULT_CONTEXT,
    ) -> SearchResult:
        """Search; raises ``InvalidQuery`` (friendly message) for an empty or malformed query.

        ``corpora`` restricts the search to those corpora; ``limit=None`` builds KWIC rows for every match."""
        compiled = query if isinstance(query, CompiledQuery) else compile_query(query, mode, case_sensitive, whole_word)
        mask, engine = self._mask(compiled)
        if corpora is not None:
            mask &= self.frame["corpus"].isin(list(corpora)).to_numpy()
        rows = np.flatnonzero(mask)
        shown = rows if limit is None else rows[: max(0, int(limit))]
        return SearchResult(compiled, self._kwic(compiled, shown, engine, context), self._counts(mask, corpora),
                            int(len(rows)), engine)

    # -- matching --------------------------------------------------------------------------------------------

    def _use_arrow(self, compiled: CompiledQuery) -> bool:
        return self.is_ascii or not compiled.uses_class_escapes

    def _mask(self, compiled: CompiledQuery) -> tuple[np.ndarray, str]:
        if self._use_arrow(compiled):
            try:
                mask = np.ones(len(self.text), dtype=bool)
                for body in compiled.required:
                    matched = pc.match_substring_regex(self.text, pattern=_re2_mask_pattern(body, compiled.whole_word),
                                                       ignore_case=not compiled.case_sensitive)
                    mask &= matched.to_numpy(zero_copy_only=False).astype(bool)
                return mask, "arrow"
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                pass  # a pattern only Python's re can run (look-around, back-reference...)
        texts = self.text.to_pylist()
        mask = np.ones(len(texts), dtype=bool)
        for pattern in compiled.python_required:
            mask &= np.fromiter((pattern.search(t) is not None for t in texts), dtype=bool, count=len(texts))
        return mask, "python"

    def _spans(self, compiled: CompiledQuery, texts: list[str], rows: np.ndarray, engine: str) -> list[tuple[int, int]]:
        """(start, end) of the first highlight match in each text, by the same engine that selected it."""
        marked: list[Optional[str]] = [None] * len(texts)
        if engine == "arrow":
            pattern, replacement = self._re2_marking(compiled)
            if pattern is not None:
                try:
                    flags = "" if compiled.case_sensitive else "(?i)"
                    marked = pc.replace_substring_regex(self.text.take(pa.array(rows, type=pa.int64())),
                                                        pattern=flags + pattern, replacement=replacement,
                                                        max_replacements=1).to_pylist()
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    marked = [None] * len(texts)
        spans = []
        for text, mark in zip(texts, marked):
            if mark is not None and _OPEN not in text and _CLOSE not in text and _OPEN in mark:
                start = mark.index(_OPEN)
                spans.append((start, mark.index(_CLOSE) - 1))
                continue
            found = compiled.python_highlight.search(text)
            spans.append(found.span() if found else (0, 0))
        return spans

    @staticmethod
    def _re2_marking(compiled: CompiledQuery) -> tuple[Optional[str], str]:
        """Pattern + rewrite that wraps the first match in sentinels (RE2 rewrites know only \\0..\\9)."""
        if not compiled.whole_word:
            return f"(?:{compiled.highlight})", f"{_OPEN}\\0{_CLOSE}"
        suffix_group = 3 + re.compile(compiled.highlight).groups
        if suffix_group > 9:
            return None, ""
        pattern = f"(^|{_NOT_WORD})({compiled.highlight})({_NOT_WORD}|$)"
        return pattern, f"\\1{_OPEN}\\2{_CLOSE}\\{suffix_group}"

    # -- results ---------------------------------------------------------------------------------------------

    def _kwic(self, compiled: CompiledQuery, rows: np.ndarray, engine: str, context: int) -> pd.DataFrame:
        picked = self.frame.iloc[rows].reset_index(drop=True)
        texts = [t if isinstance(t, str) else "" for t in picked["text"].tolist()]
        spans = self._spans(compiled, texts, rows, engine) if len(rows) else []
        left, match, right = [], [], []
        for text, (start, end) in zip(texts, spans):
            before, after = text[:start], text[end:]
            left.append(("…" + before[-context:] if len(before) > context else before).translate(_LAYOUT))
            match.append(text[start:end].translate(_LAYOUT))
            right.append((after[:context] + "…" if len(after) > context else after).translate(_LAYOUT))
        links = [
            replay_link(c, d, turn=None if pd.isna(t) else int(t), round=None if pd.isna(r) else int(r))
            for c, d, r, t in zip(picked["corpus"], picked["dialog_id"], picked["round"], picked["turn"])
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

    def _counts(self, mask: np.ndarray, corpora: Optional[Sequence[str]]) -> pd.DataFrame:
        corpus = self.frame["corpus"].astype("str")
        order = list(dict.fromkeys(corpus.tolist()))
        if corpora is not None:
            wanted = set(corpora)
            order = [c for c in order if c in wanted]
        matched = self.frame.loc[mask, ["corpus", "dialog_id"]]
        counts = pd.DataFrame({
            "corpus": pd.Series(order, dtype="str"),
            "n_utterances": matched.groupby("corpus").size().reindex(order, fill_value=0).to_numpy(dtype="int64"),
            "n_dialogs": matched.groupby("corpus")["dialog_id"].nunique().reindex(order, fill_value=0).to_numpy(dtype="int64"),
            "total_utterances": corpus.value_counts().reindex(order, fill_value=0).to_numpy(dtype="int64"),
        })
        counts["share"] = (counts["n_utterances"] / counts["total_utterances"].where(counts["total_utterances"] > 0)).fillna(0.0)
        return counts[COUNT_COLUMNS]


def search(utterances: pd.DataFrame | SearchIndex, query: str, **options) -> SearchResult:
    """One-off search (builds the index each call; keep a ``SearchIndex`` for repeated searches)."""
    index = utterances if isinstance(utterances, SearchIndex) else SearchIndex.build(utterances)
    return index.search(query, **options)
