"""What a CoDraw transcript carries besides the messages (``contract.OptionalCapabilities.transcript_notes``):
the analysis the Replay shows, so that a LaTeX transcript in a paper says it too."""
from __future__ import annotations

from typing import Sequence


def transcript_notes(loaded, dialog_id: str, marked: Sequence[int]) -> tuple[dict[int, str], str]:
    """A CoDraw dialog's analysis as the Replay shows it: per round (its number → note) the CR mark of the
    published layer, the Teller's peek and the drawing's score after the round; and the dialog's summary line."""
    import pandas as pd  # here, not above: the corpus package is imported by the CLI's warm summary, without pandas

    rounds = loaded.frames["rounds"]
    rounds = rounds[rounds["dialog_id"] == dialog_id]
    dialog = loaded.dialogs[loaded.dialogs["dialog_id"] == dialog_id]
    peek = dialog["peek_round"].iloc[0] if not dialog.empty else None
    peek = None if peek is None or pd.isna(peek) else int(peek)
    crs = {int(r) for r in marked}
    notes: dict[int, str] = {}
    for number, score in zip(rounds["round"].astype(int), rounds["score_final"]):
        parts = []
        if number == peek:
            parts.append("the Teller peeked at the drawing before this round")
        if number in crs:
            parts.append("the Drawer's message is a clarification request (published CR layer)")
        if score is not None and not pd.isna(score):
            parts.append(f"score after this round {float(score):.2f} (paper's final metric, max 5)")
        if parts:
            text = "; ".join(parts)
            notes[number] = text[0].upper() + text[1:] + "."
    summary = ["peek before round " + str(peek) if peek is not None else "no peek"]
    if not dialog.empty and not pd.isna(dialog["final_score"].iloc[0]):
        summary.append(f"final score {float(dialog['final_score'].iloc[0]):.2f}")
    if marked:
        summary.append("CR in round" + ("s " if len(crs) > 1 else " ") + ", ".join(map(str, sorted(crs))))
    return notes, "; ".join(summary)
