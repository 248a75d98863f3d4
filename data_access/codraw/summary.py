"""``summarize``: the CoDraw figures the CLI prints and the tests compare with the paper."""
from __future__ import annotations

import pandas as pd

from ..common import LoadedCorpus

SPLITS = ("train", "val", "test")


def _mean(values: pd.Series) -> float | None:
    values = values.dropna()
    return round(float(values.mean()), 4) if len(values) else None


def summarize(loaded: LoadedCorpus) -> dict:
    """Counts per split, mean final scores (both metrics), stored-score reproduction and the peek effect.

    Computed from the ``dialogs`` frame alone (it carries per-dialog round and stored-score counts), so a
    warm start reads one small Parquet file."""
    dialogs = loaded.frames["dialogs"]
    splits = {}
    for split in SPLITS:
        part = dialogs[dialogs["split"] == split]
        splits[split] = {
            "dialogs": int(len(part)),
            "rounds": int(part["n_rounds_loaded"].sum()),
            "dialogs_with_peek": int(part["peek_round"].notna().sum()),
            "mean_final_score": _mean(part["final_score"]),
            "mean_final_score_original_metric": _mean(part["final_score_original"]),
        }
    peeked = dialogs[dialogs["peek_round"].notna() & dialogs["score_before_peek"].notna() & dialogs["final_score"].notna()]
    return {
        "dialogs": int(len(dialogs)),
        "rounds": int(dialogs["n_rounds_loaded"].sum()),
        "splits": splits,
        "stored_scores": {
            "checked": int(dialogs["stored_scores_checked"].sum()),
            "reproduced": int(dialogs["stored_scores_reproduced"].sum()),
        },
        "peek": {
            "dialogs": int(len(peeked)),
            "mean_score_before": _mean(peeked["score_before_peek"]),
            "mean_score_final": _mean(peeked["final_score"]),
        },
        "skipped": [s.as_dict() for s in loaded.skipped],
    }
