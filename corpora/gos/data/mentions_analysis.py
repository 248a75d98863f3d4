"""What the pages show of the published mention layer, as pure functions of the ``LoadedLayer`` and its corpus:
the mentions of one replay step, mention search, mention counts per round and per criterion. Its chart is
``figures.mentions_round_chart``, the step's view ``mentions_view``.

Every function takes (layer, corpus, *args), the form ``ui.cached.layer_derived`` calls."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from corpora.gos.data import NAME as CORPUS
from dialogue_dashboard.plugin import LoadedCorpus, LoadedLayer, replay_link


def step_mentions(layer: LoadedLayer, corpus: Optional[LoadedCorpus], dialog_id: str, round_number: int, turn: int) -> pd.DataFrame:
    """The mentions annotated in the message at this replay step (empty when none)."""
    frame = layer.annotations
    mine = frame[(frame["dialog_id"] == dialog_id) & (frame["round"] == int(round_number)) & (frame["turn"] == int(turn))]
    return mine.sort_values(["start", "end"]).reset_index(drop=True)


def round_mention_turns(layer: LoadedLayer, corpus: Optional[LoadedCorpus], dialog_id: str, round_number: int) -> dict[int, int]:
    """replay step → number of mentions, for the steps of one round that have mentions."""
    frame = layer.annotations
    mine = frame[(frame["dialog_id"] == dialog_id) & (frame["round"] == int(round_number))]
    return {int(k): int(v) for k, v in mine.groupby("turn").size().items()}




def search_mentions(layer: LoadedLayer, corpus: Optional[LoadedCorpus], query: str, case_sensitive: bool = False) -> pd.DataFrame:
    """Mentions whose text contains every word of ``query`` (or the whole query when quoted), with links."""
    frame = layer.annotations
    query = query.strip()
    if not query or frame.empty:
        return frame.iloc[0:0].assign(link=pd.Series(dtype="str"))
    texts = frame["text"] if case_sensitive else frame["text"].str.lower()
    needle = query if case_sensitive else query.lower()
    if len(needle) >= 2 and needle[0] == needle[-1] == '"':
        terms = [needle[1:-1]]
    else:
        terms = needle.split()
    mask = pd.Series(True, index=frame.index)
    for term in terms:
        mask &= texts.str.contains(term, regex=False)
    hits = frame[mask].copy()
    annotated = CORPUS
    hits["link"] = [replay_link(annotated, d, int(t), int(r)) for d, r, t in zip(hits["dialog_id"], hits["round"], hits["turn"])]
    return hits.reset_index(drop=True)


def mentions_per_round(layer: LoadedLayer, corpus: LoadedCorpus) -> pd.DataFrame:
    """One row per played round: interaction, round, board, criterion, messages, annotated messages,
    mentions, single / group mentions and mentions per message."""
    rounds = corpus.frames["rounds"]
    round_column = "round_number" if "round_number" in rounds.columns else "round"
    dialog_column = "interaction_id" if "interaction_id" in rounds.columns else "dialog_id"
    base = pd.DataFrame({
        "dialog_id": rounds[dialog_column].astype(str), "round": rounds[round_column].astype("int64"),
        "board_id": rounds["board_id"].astype(str), "criterion": rounds["criterion"].astype(str),
        "messages": rounds["n_messages"].astype("int64"),
    })
    frame = layer.annotations
    counts = frame.assign(round=frame["round"].astype("int64")).groupby(["dialog_id", "round"]).agg(
        annotated_messages=("message", "nunique"), mentions=("text", "size"), single=("single", "sum")).reset_index()
    table = base.merge(counts, on=["dialog_id", "round"], how="left")
    for column in ("annotated_messages", "mentions", "single"):
        table[column] = table[column].fillna(0).astype("int64")
    table["group"] = table["mentions"] - table["single"]
    table["mentions_per_message"] = (table["mentions"] / table["messages"].where(table["messages"] > 0)).round(3)
    return table.sort_values(["dialog_id", "round"]).reset_index(drop=True)


def mentions_per_criterion(table: pd.DataFrame) -> pd.DataFrame:
    """``mentions_per_round`` summed per board (criterion): plays, messages, mentions, per message."""
    grouped = table.groupby(["board_id", "criterion"], sort=True).agg(
        plays=("dialog_id", "size"), messages=("messages", "sum"), mentions=("mentions", "sum"),
        single=("single", "sum"), group=("group", "sum")).reset_index()
    grouped["mentions_per_message"] = (grouped["mentions"] / grouped["messages"].where(grouped["messages"] > 0)).round(3)
    return grouped
