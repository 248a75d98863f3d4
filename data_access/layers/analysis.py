"""What the pages show of a published layer, as pure functions of a ``LoadedLayer`` and its corpus: the
mentions of one replay step, mention search, mention counts per round and criterion, CRs per dialog and
the final score by CR presence (with a bootstrap interval, which stays inside the score's 0–5 range). The
charts drawn from these tables are in ``data_access.figures.layers``.

Every function takes (layer, corpus, *args), the form ``ui.cached.layer_derived`` calls."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import pandas as pd

from ..analysis.splits import filter_splits
from ..analysis.stats import mean_ci
from ..common import LoadedCorpus
from ..links import replay_link
from . import LAYER_CORPUS
from .load import LoadedLayer

CR_GROUPS = ("with a CR", "annotated, no CR", "not in the layer")


# ----------------------------------------------------------------------------------------------------
# A Game Of Sorts mentions

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


def segments(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[str, Optional[int]]]:
    """``text`` cut into (piece, index of the span covering it or None); spans that do not fit the text are
    left out (they are reported, never shifted). Where spans overlap, the innermost (latest-starting) wins."""
    owner: list[Optional[int]] = [None] * len(text)
    order = sorted(range(len(spans)), key=lambda i: (spans[i][0], -spans[i][1]))
    for i in order:
        start, end = spans[i]
        if 0 <= start < end <= len(text):
            for position in range(start, end):
                owner[position] = i
    pieces: list[tuple[str, Optional[int]]] = []
    for position, char in enumerate(text):
        if pieces and pieces[-1][1] == owner[position]:
            pieces[-1] = (pieces[-1][0] + char, owner[position])
        else:
            pieces.append((char, owner[position]))
    return pieces


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
    annotated = LAYER_CORPUS[layer.layer]
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


# ----------------------------------------------------------------------------------------------------
# CoDraw clarification requests

def cr_by_dialog(layer: LoadedLayer, corpus: Optional[LoadedCorpus] = None) -> pd.DataFrame:
    """Per dialog with uniquely aligned rows: annotated rounds, CRs and the rounds with a CR."""
    frame = layer.annotations
    if frame.empty:
        return pd.DataFrame({"dialog_id": pd.Series(dtype="str"), "annotated": pd.Series(dtype="int64"),
                             "crs": pd.Series(dtype="int64"), "cr_rounds": pd.Series(dtype="object")})
    grouped = frame.groupby("dialog_id", sort=True)
    table = pd.DataFrame({"annotated": grouped.size(), "crs": grouped["is_cr"].sum().astype("int64")})
    cr_rounds = frame[frame["is_cr"]].groupby("dialog_id")["turn"].agg(lambda t: sorted({int(v) for v in t}))
    table["cr_rounds"] = cr_rounds.reindex(table.index).map(lambda v: v if isinstance(v, list) else [])
    return table.reset_index()


def dialog_crs(layer: LoadedLayer, corpus: Optional[LoadedCorpus], dialog_id: str) -> pd.DataFrame:
    """The aligned rows of one dialog: round, label, CR, impossible to know, the Drawer's message."""
    frame = layer.annotations
    mine = frame[frame["dialog_id"] == dialog_id]
    return pd.DataFrame({"round": mine["turn"].astype("int64"), "label": mine["label"], "is_cr": mine["is_cr"],
                         "impossible": mine["impossible"], "drawer": mine["text"], "record": mine["record"]}
                        ).sort_values("round").reset_index(drop=True)


def cr_group(layer: LoadedLayer, dialog_ids: pd.Series) -> pd.Series:
    """Each dialog's group: with a CR / annotated, no CR / not in the layer (no uniquely aligned row)."""
    table = cr_by_dialog(layer).set_index("dialog_id")
    crs = dialog_ids.map(table["crs"])
    return pd.Series(np.where(crs > 0, CR_GROUPS[0], np.where(crs == 0, CR_GROUPS[1], CR_GROUPS[2])), index=dialog_ids.index)


def score_by_cr(layer: LoadedLayer, corpus: LoadedCorpus, splits: tuple = ()) -> pd.DataFrame:
    """Per CR group over the chosen splits (``split`` = "all"): dialogs, mean final score (paper's metric) and
    its 95% percentile-bootstrap interval; and the per-dialog data."""
    dialogs = filter_splits(corpus.dialogs, splits).dropna(subset=["final_score"])
    data = pd.DataFrame({"dialog_id": dialogs["dialog_id"].to_numpy(), "split": dialogs["split"].to_numpy(),
                         "final_score": dialogs["final_score"].to_numpy(dtype=np.float64)})
    data["group"] = cr_group(layer, data["dialog_id"]).to_numpy()
    rows = []
    # One interval per group over the chosen splits (the page's split filter narrows them).
    for group in CR_GROUPS:
        ci = mean_ci(data.loc[data["group"] == group, "final_score"].to_numpy(), method="bootstrap")
        rows.append({"split": "all", "group": group, "n": ci.n, "mean": ci.mean, "low": ci.low, "high": ci.high})
    return pd.DataFrame(rows), data
