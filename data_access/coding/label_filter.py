"""Browse's filter "has label L": the dialogs of a corpus that a chosen coder (or the gold, the adjudicated
decisions) labelled L anywhere — on the dialog, one of its turns or rounds, or a span — with how many such
annotations each has. Pure pandas over the coding store's annotation frame (``CodingStore.annotations``).

``coder`` is a coder's name, ``GOLD`` for the gold layer, or empty for any coder of the coding layer (the gold
layer repeats what coders decided, so it is counted only when asked for); ``codebook`` empty means any.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .compare import GOLD

ANY = ""


@dataclass(frozen=True)
class LabelFilter:
    label: str
    coder: str = ANY  # a coder, GOLD, or ANY (every coder of the coding layer)
    codebook: str = ANY

    def describe(self) -> str:
        """The filter in words (plain text: names are the user's, escape them for markdown)."""
        who = "the gold" if self.coder == GOLD else f"coder {self.coder}" if self.coder else "any coder"
        book = f" of codebook {self.codebook}" if self.codebook else ""
        return f"labelled {self.label}{book} by {who}"


def _labels_of(annotations: pd.DataFrame, corpus: str) -> pd.DataFrame:
    if annotations is None or annotations.empty:
        return pd.DataFrame(columns=["dialog_id", "round", "turn", "label", "coder", "layer", "codebook"])
    frame = annotations[annotations["corpus"] == corpus]
    if "kind" in frame.columns:
        frame = frame[frame["kind"] == "label"]
    if "deleted_at" in frame.columns:
        frame = frame[frame["deleted_at"].isna()]
    return frame


def label_counts(annotations: pd.DataFrame, corpus: str, rule: LabelFilter) -> pd.Series:
    """dialog_id -> how many annotations of ``corpus`` match ``rule`` (only dialogs with at least one)."""
    chosen = label_rows(annotations, corpus, rule)
    counts = chosen.groupby(chosen["dialog_id"].astype(str), sort=True).size()
    return counts.rename("labels").astype("int64")


def label_rows(annotations: pd.DataFrame, corpus: str, rule: LabelFilter) -> pd.DataFrame:
    """The annotations of ``corpus`` that match ``rule`` (a step slice counts them per step by their round and
    turn)."""
    frame = _labels_of(annotations, corpus)
    chosen = frame[frame["label"] == rule.label]
    if rule.codebook:
        chosen = chosen[chosen["codebook"] == rule.codebook]
    if rule.coder == GOLD:
        chosen = chosen[chosen["layer"] == GOLD]
    else:
        chosen = chosen[chosen["layer"] != GOLD]
        if rule.coder:
            chosen = chosen[chosen["coder"] == rule.coder]
    return chosen


@dataclass(frozen=True)
class LabelOptions:
    """What the filter's choices offer for one corpus: the codebooks, labels and coders used in its annotations
    (sorted), and whether any gold annotation exists."""
    codebooks: tuple[str, ...]
    labels: tuple[str, ...]
    coders: tuple[str, ...]
    has_gold: bool


def label_options(annotations: pd.DataFrame, corpus: str, codebook: str = ANY) -> LabelOptions:
    """The codebooks of ``corpus``'s annotations, and the labels and coders (of ``codebook`` when given)."""
    frame = _labels_of(annotations, corpus)
    if frame.empty:  # most stores, on most corpora: no pandas work on every Browse rerun
        return LabelOptions((), (), (), False)
    books = tuple(sorted(set(frame["codebook"].dropna().astype(str))))
    if codebook:
        frame = frame[frame["codebook"] == codebook]
    coding = frame[frame["layer"] != GOLD]
    return LabelOptions(books, tuple(sorted(set(frame["label"].dropna().astype(str)))),
                        tuple(sorted(set(coding["coder"].dropna().astype(str)))), bool((frame["layer"] == GOLD).any()))
