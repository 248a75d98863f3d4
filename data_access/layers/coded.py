"""The coding store's labels in the published layers' common form, so the Agreement page compares coders, gold
and a published layer alike."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from . import ANNOTATION_COLUMNS


def to_common_form(frame: pd.DataFrame, utterance_roles: Optional[dict] = None) -> pd.DataFrame:
    """Label annotations in the published layers' common form (``data_access.layers.ANNOTATION_COLUMNS``):
    ``source`` is the coder (``gold`` for the gold layer), ``record`` the annotation id."""
    labels = frame[frame["kind"] == "label"] if "kind" in frame else frame
    out = pd.DataFrame({
        "corpus": labels["corpus"].astype("str"),
        "dialog_id": labels["dialog_id"].astype("str"),
        "round": labels["round"].astype("Int64"),
        "turn": labels["turn"].astype("Int64"),
        "message": labels["utterance"].astype("Int64"),
        "role": pd.Series([""] * len(labels), index=labels.index, dtype="str"),
        "start": labels["start"].astype("Int64"),
        "end": labels["end"].astype("Int64"),
        "text": labels["span_text"].fillna("").astype("str"),
        "label": labels["label"].astype("str"),
        "referents": labels["referents"],
        "source": [("gold" if layer == "gold" else coder) for layer, coder in zip(labels["layer"], labels["coder"])],
        "record": [f"annotation {i}" for i in labels["id"]],
    }, columns=ANNOTATION_COLUMNS)
    return out.reset_index(drop=True)
