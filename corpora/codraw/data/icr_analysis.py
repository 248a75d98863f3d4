"""What the pages show of the published CR layer, as pure functions of the ``LoadedLayer`` and its corpus: CRs per
dialog, one dialog's aligned rows, and the final score by CR presence (with a bootstrap interval, which stays
inside the score's 0–5 range). Its chart is ``figures.score_by_cr_chart``.

Every function takes (layer, corpus, *args), the form ``ui.cached.layer_derived`` calls."""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from dialogue_dashboard.plugin import LoadedCorpus, LoadedLayer, filter_splits, mean_ci

CR_GROUPS = ("with a CR", "annotated, no CR", "not in the layer")


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
