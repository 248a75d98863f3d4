"""Cross-corpus overview: dialogs, messages per dialog, tokens per message and vocabulary size of each corpus.

A *message* is one chat line (a row of the common ``utterances`` frame; see ``common.GLOSSARY``), so the three corpora are
measured alike; tokens are whitespace tokens, and the vocabulary is the set of lower-cased word types
(``data_access.words.tokens``: runs of letters/digits, apostrophes inside words kept, CoDraw's "it 's" read as
it's). ``corpus_profile(loaded)`` is computed once
per corpus (cached by the page); ``overview_table`` and the chart builders combine the profiles.
``cached_corpus_profile`` is the same profile kept in the corpus's Parquet cache entry, so that the first
Overview after a restart reads one small file rather than every message of every corpus.
``loaded_counts`` is the Data page's table: per loaded corpus its counts, load time and skipped records;
``frame_rows`` its rows per frame (from the cache manifest).
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..analysis.charts import PALETTE, Chart, readable_log_axis, style
from ..common import CORPUS_NAMES, CORPUS_TITLES, CorpusAttribute, LoadedCorpus
from ..corpora import cached_summary, frame_row_counts

WORD_PATTERN = r"[^\W_]+(?:'[^\W_]+)*"
SHORT_NAMES: Mapping[str, str] = CorpusAttribute("SHORT_TITLE")  # axis labels


def corpus_colour(name: str) -> str:
    """Each corpus's colour in the overview charts: the palette in the order the corpora are registered (a
    name that is not registered gets the fourth colour)."""
    position = CORPUS_NAMES.index(name) if name in CORPUS_NAMES else 3
    return PALETTE[position % len(PALETTE)]


@dataclass(frozen=True)
class CorpusProfile:
    """The overview numbers of one corpus (picklable, so the page can cache it)."""

    corpus: str
    dialogs: int
    messages: int
    replay_steps: int
    tokens: int
    vocabulary: int
    messages_per_dialog: pd.Series  # per dialog (dialogs without messages count 0)
    tokens_per_message: pd.Series  # per message


def whitespace_tokens(text: pd.Series) -> pd.Series:
    """Number of whitespace-separated tokens of each text."""
    return text.fillna("").astype("str").str.split().str.len().fillna(0).astype("int64")


def vocabulary(text: pd.Series) -> set[str]:
    """Lower-cased word types of all texts, as every word count tokenises them (``data_access.words.tokens``)."""
    from ..words.tokens import word_types

    return word_types(text)


def corpus_profile(loaded: LoadedCorpus, splits: tuple = ()) -> CorpusProfile:
    """The corpus's numbers, restricted to ``splits`` when the corpus has more than one split."""
    dialogs, utterances = loaded.dialogs, loaded.utterances
    if splits and dialogs["split"].nunique() > 1:
        dialogs = dialogs[dialogs["split"].isin(splits)]
        utterances = utterances[utterances["dialog_id"].isin(dialogs["dialog_id"])]
    tokens = whitespace_tokens(utterances["text"])
    per_dialog = utterances.groupby("dialog_id").size().reindex(dialogs["dialog_id"], fill_value=0)
    return CorpusProfile(
        corpus=loaded.corpus, dialogs=len(dialogs), messages=len(utterances),
        replay_steps=int(dialogs["n_steps"].sum()), tokens=int(tokens.sum()),
        vocabulary=len(vocabulary(utterances["text"])),
        messages_per_dialog=per_dialog.reset_index(drop=True).astype("int64"),
        tokens_per_message=tokens.reset_index(drop=True),
    )


# The profile's code, in the cached summary's name: editing this module misses the summaries it wrote before.
_CODE = hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]


def _series_json(series: pd.Series) -> dict:
    return {"name": series.name, "values": [int(v) for v in series.to_numpy()]}


def _series(stored: dict) -> pd.Series:
    return pd.Series(stored["values"], name=stored["name"], dtype="int64")


def cached_corpus_profile(loaded: LoadedCorpus, splits: tuple = ()) -> CorpusProfile:
    """``corpus_profile(loaded, splits)``, read from the corpus's cache entry when it was computed before."""
    splits_key = hashlib.sha1(json.dumps(list(splits)).encode()).hexdigest()[:12]

    def compute() -> dict:
        p = corpus_profile(loaded, splits)
        return {"corpus": p.corpus, "dialogs": p.dialogs, "messages": p.messages, "replay_steps": p.replay_steps,
                "tokens": p.tokens, "vocabulary": p.vocabulary,
                "messages_per_dialog": _series_json(p.messages_per_dialog),
                "tokens_per_message": _series_json(p.tokens_per_message)}

    stored = cached_summary(loaded, f"overview-profile-{_CODE}-{splits_key}", compute)
    return CorpusProfile(
        corpus=stored["corpus"], dialogs=int(stored["dialogs"]), messages=int(stored["messages"]),
        replay_steps=int(stored["replay_steps"]), tokens=int(stored["tokens"]), vocabulary=int(stored["vocabulary"]),
        messages_per_dialog=_series(stored["messages_per_dialog"]), tokens_per_message=_series(stored["tokens_per_message"]),
    )


def frame_rows(loaded: LoadedCorpus) -> dict[str, int]:
    """Rows per frame (the Data page), from the cache manifest: no frame is read for it."""
    return frame_row_counts(loaded)


def overview_table(profiles: list[CorpusProfile]) -> pd.DataFrame:
    """One row per corpus: dialogs, messages, mean/median messages per dialog, tokens per message, vocabulary."""
    rows = []
    for p in profiles:
        rows.append({
            "corpus": CORPUS_TITLES.get(p.corpus, p.corpus), "dialogs": p.dialogs, "messages": p.messages,
            "messages_per_dialog": float(p.messages_per_dialog.mean()) if p.dialogs else np.nan,
            "median_messages_per_dialog": float(p.messages_per_dialog.median()) if p.dialogs else np.nan,
            "tokens_per_message": p.tokens / p.messages if p.messages else np.nan,
            "tokens": p.tokens, "vocabulary": p.vocabulary, "replay_steps": p.replay_steps,
        })
    return pd.DataFrame(rows)


def loaded_counts(corpora: dict[str, LoadedCorpus]) -> pd.DataFrame:
    """One row per loaded corpus (the Data page): dialogs, rounds (empty for a corpus without rounds),
    replay steps and messages as the ``dialogs`` frame counts them (a summary in the corpus's cache entry,
    so that the page reads no frame after a restart), the load time, whether the frames came from the
    Parquet cache, and how many records were skipped."""
    rows = []
    for name, loaded in corpora.items():
        counts = cached_summary(loaded, f"data-counts-{_CODE}", partial(_dialog_counts, loaded))
        rows.append({"corpus": CORPUS_TITLES.get(name, name), **counts,
                     "load_s": round(float(loaded.load_seconds), 2), "loaded_from": "cache" if loaded.from_cache else "parsed",
                     "skipped": len(loaded.skipped)})
    return pd.DataFrame(rows, columns=["corpus", "dialogs", "rounds", "replay_steps", "messages", "load_s",
                                       "loaded_from", "skipped"])


def _dialog_counts(loaded: LoadedCorpus) -> dict:
    dialogs = loaded.dialogs
    rounds = dialogs["n_rounds"].dropna() if "n_rounds" in dialogs else pd.Series(dtype="float64")
    return {"dialogs": len(dialogs), "rounds": int(rounds.sum()) if len(rounds) else None,
            "replay_steps": int(dialogs["n_steps"].sum()), "messages": int(dialogs["n_utterances"].sum())}


def _bar(profiles: list[CorpusProfile], values: list[float], key: str, axis: str, caption: str, fmt: str) -> Chart:
    """One bar per corpus with its value printed on it. Where the values span more than a factor of 20
    (9,993 CoDraw dialogs beside 15 Game Of Sorts interactions) the axis is logarithmic, so that every
    bar stays visible, and labelled with plain numbers."""
    names = [SHORT_NAMES.get(p.corpus, p.corpus) for p in profiles]
    positive = [v for v in values if v is not None and not pd.isna(v) and v > 0]
    log = len(positive) > 1 and max(positive) / min(positive) > 20
    figure = go.Figure(go.Bar(x=names, y=values, marker={"color": [corpus_colour(p.corpus) for p in profiles]},
                              text=[format(v, fmt) for v in values], textposition="outside", cliponaxis=False,
                              hovertemplate="%{x}: %{y:" + fmt + "}<extra></extra>"))
    style(figure, y=axis + (" (log scale)" if log else ""), height=260, legend=False)
    if log:
        readable_log_axis(figure, positive)
        figure.update_yaxes(range=[np.log10(min(positive)) - 0.3, np.log10(max(positive)) + 0.35])
    else:
        figure.update_yaxes(range=[0, max(positive or [1]) * 1.18])
    data = pd.DataFrame({"corpus": names, axis: values})
    return Chart(key, figure, data, caption)


def overview_charts(profiles: list[CorpusProfile]) -> list[Chart]:
    """Four small bar charts, one per measure, the corpora side by side."""
    if not profiles:
        return []
    n = sum(p.dialogs for p in profiles)
    over = f"over {len(profiles)} corpora ({n:,} dialogs)"
    table = overview_table(profiles)
    return [
        _bar(profiles, [p.dialogs for p in profiles], "overview_dialogs", "dialogs", f"Dialogs per corpus {over}.", ",.0f"),
        _bar(profiles, table["messages_per_dialog"].tolist(), "overview_messages_per_dialog", "messages per dialog",
             f"Mean messages per dialog {over}.", ",.1f"),
        _bar(profiles, table["tokens_per_message"].tolist(), "overview_tokens_per_message", "tokens per message",
             f"Mean whitespace tokens per message {over}.", ",.1f"),
        _bar(profiles, [p.vocabulary for p in profiles], "overview_vocabulary", "vocabulary",
             f"Vocabulary size (lower-cased word types) {over}.", ",.0f"),
    ]


def length_distribution_chart(profiles: list[CorpusProfile]) -> Chart:
    """Messages per dialog as a box per corpus (log axis: the corpora differ by an order of magnitude)."""
    figure = go.Figure()
    rows = []
    for p in profiles:
        name = SHORT_NAMES.get(p.corpus, p.corpus)
        figure.add_trace(go.Box(y=p.messages_per_dialog, name=name, marker={"color": corpus_colour(p.corpus)},
                                boxpoints=False))
        rows.append(p.messages_per_dialog.describe().rename(name))
    style(figure, y="messages per dialog (log scale)", height=300, legend=False)
    readable_log_axis(figure, [v for p in profiles for v in (p.messages_per_dialog.min(), p.messages_per_dialog.max())])
    data = pd.DataFrame(rows).rename_axis("corpus").reset_index()
    n = sum(p.dialogs for p in profiles)
    return Chart("overview_message_distribution", figure, data,
                 f"Distribution of messages per dialog (log scale) over {n:,} dialogs of {len(profiles)} corpora.")
