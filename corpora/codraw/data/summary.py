"""``summarize``: the CoDraw figures the CLI prints and the tests compare with the paper.

Computed from a few columns of the ``dialogs`` frame as plain lists (it carries per-dialog round and
stored-score counts): a warm start reads one small Parquet file with pyarrow and never imports pandas,
which would be most of its time."""
from __future__ import annotations

import math

from dialogue_dashboard.plugin import LoadedCorpus, read_columns, skipped_report

SPLITS = ("train", "val", "test")
COLUMNS = ["split", "n_rounds_loaded", "peek_round", "final_score", "final_score_original", "score_before_peek",
           "stored_scores_checked", "stored_scores_reproduced"]


def _mean(values) -> float | None:
    """The mean of the values that are present (exactly summed), to 4 decimals; None when there are none."""
    present = [v for v in values if v is not None and not math.isnan(v)]
    return round(math.fsum(present) / len(present), 4) if present else None


def _total(values) -> int:
    return int(sum(v for v in values if v is not None))


def summarize(loaded: LoadedCorpus) -> dict:
    """Counts per split, mean final scores (both metrics), stored-score reproduction and the peek effect."""
    columns = read_columns(loaded.frames, "dialogs", COLUMNS)
    rows = [dict(zip(COLUMNS, values)) for values in zip(*(columns[c] for c in COLUMNS))]

    def present(row: dict, name: str) -> bool:
        value = row[name]
        return value is not None and not (isinstance(value, float) and math.isnan(value))

    splits = {}
    # The official splits always (the keys others rely on), then any other id prefix the file uses
    # (e.g. "dev_…"), so that the splits add up to the totals.
    others = sorted({row["split"] for row in rows if row["split"] not in SPLITS}, key=str)
    for split in (*SPLITS, *others):
        part = [row for row in rows if row["split"] == split]
        splits[split] = {
            "dialogs": len(part),
            "rounds": _total(row["n_rounds_loaded"] for row in part),
            "dialogs_with_peek": sum(present(row, "peek_round") for row in part),
            "mean_final_score": _mean(row["final_score"] for row in part),
            "mean_final_score_original_metric": _mean(row["final_score_original"] for row in part),
        }
    peeked = [row for row in rows
              if present(row, "peek_round") and present(row, "score_before_peek") and present(row, "final_score")]
    return {
        "dialogs": len(rows),
        "rounds": _total(row["n_rounds_loaded"] for row in rows),
        "splits": splits,
        "stored_scores": {
            "checked": _total(row["stored_scores_checked"] for row in rows),
            "reproduced": _total(row["stored_scores_reproduced"] for row in rows),
        },
        "peek": {
            "dialogs": len(peeked),
            "mean_score_before": _mean(row["score_before_peek"] for row in peeked),
            "mean_score_final": _mean(row["final_score"] for row in peeked),
        },
        **skipped_report(loaded.skipped),
    }
