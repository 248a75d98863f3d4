"""``summarize``: the per-split figures of FORMATS B.2 (games, utterances, Architect utterances, placements,
removals, BAP samples, mean TimeElapsed) for the CLI and the overview page."""
from __future__ import annotations

import math

from corpora.minecraft.data.reader import SPLITS, WARMUP
from dialogue_dashboard.plugin import LoadedCorpus, skipped_report

SUMMARY_SPLITS = (*SPLITS, WARMUP)


def summarize(loaded: LoadedCorpus) -> dict:
    dialogs = loaded.frames["dialogs"]
    samples = loaded.frames["bap_samples"]
    per_split = {}
    for split in SUMMARY_SPLITS:
        games = dialogs[dialogs["split"] == split]
        mean = float(games["duration_s"].mean()) if len(games) else math.nan
        per_split[split] = {
            "games": int(len(games)),
            "utterances": int(games["n_utterances"].sum()),
            "architect_utterances": int(games["architect_utterances"].sum()),
            "placements": int(games["placements"].sum()),
            "removals": int(games["removals"].sum()),
            "bap_samples": int((samples["split"] == split).sum()),
            "mean_seconds": None if math.isnan(mean) else round(mean, 3),
        }
    return {"splits": per_split, **skipped_report(loaded.skipped)}
