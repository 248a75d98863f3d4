"""The CLI/overview summary of A Game Of Sorts: the headline counts and durations the paper reports."""
from __future__ import annotations

import math

from dialogue_dashboard.plugin import LoadedCorpus, skipped_report


def _seconds(value: float) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), 1)


def summarize(loaded: LoadedCorpus) -> dict:
    frames = loaded.frames
    rounds, dialogs, messages = frames["rounds"], frames["dialogs"], frames["messages"]
    return {
        "games": int(frames["games"]["game_id"].nunique()),
        "interactions": int(len(dialogs)),
        "rounds": int(len(rounds)),
        "messages": int(len(messages)),
        "lock_events": int(len(frames["lock_events"])),
        "rounds_fully_ranked": int(rounds["fully_ranked"].sum()),
        "mismatches": int(rounds["mismatches"].sum()),
        "manual_unlocks": int(rounds["manual_unlocks"].sum()),
        # Round end = the lock that produced the last rank; rounds never fully ranked have no duration.
        "mean_round_seconds": _seconds(rounds["duration_s"].mean()),
        "median_round_seconds": _seconds(rounds["duration_s"].median()),
        "mean_interaction_seconds": _seconds(dialogs["duration_s"].mean()),
        "messages_not_referring_to_an_image": int((~messages["refers_to_image"]).sum()),
        **skipped_report(loaded.skipped),
    }
