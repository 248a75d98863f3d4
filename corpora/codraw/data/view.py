"""The CoDraw replay view model: everything the replay page shows for one round of one dialog (a CoDraw
replay step is one round).

``replay_step`` touches only the chosen dialog's rows, renders the two canvases and recomputes both
metrics with their term breakdowns; its result is a plain picklable dataclass so the UI can cache it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd
from PIL import Image

from corpora.codraw.data.metrics import ORIGINAL_TERMS, ORIGINAL_WEIGHTS, ScoreBreakdown, final_score, original_score
from corpora.codraw.data.render import changes_table, render_scene, scene_changes
from corpora.codraw.data.scenes import Clipart, cliparts_of
from dialogue_dashboard.plugin import LoadedCorpus


@dataclass
class ReplayStep:
    dialog_id: str
    step: int  # the round shown, from 1
    n_steps: int  # = the dialog's rounds
    split: str
    problem: Optional[str]  # why this round cannot be shown (skipped while loading), else None
    target_image: Optional[Image.Image] = None
    canvas_image: Optional[Image.Image] = None  # the Drawer's canvas after the round, changes marked
    changes: pd.DataFrame = field(default_factory=pd.DataFrame)  # change, clipart, details
    transcript: pd.DataFrame = field(default_factory=pd.DataFrame)  # turn, speaker, role, text (whole dialog)
    score_status: str = "missing"  # missing | empty | present
    stored_score: float = float("nan")
    stored_terms: pd.DataFrame = field(default_factory=pd.DataFrame)  # term, weight, stored, stored weighted, recomputed, recomputed weighted
    original: Optional[ScoreBreakdown] = None  # recomputed stored metric (None without a drawing)
    final: Optional[ScoreBreakdown] = None  # the paper's final metric
    final_terms: pd.DataFrame = field(default_factory=pd.DataFrame)  # term, weight, value, weighted
    peek_round: Optional[int] = None  # the round carrying "peeked" (the Teller peeked just before it)
    n_drawn: int = 0

    @property
    def peeked_before_this_round(self) -> bool:
        return self.peek_round is not None and self.peek_round <= self.step

    @property
    def peek_at_this_round(self) -> bool:
        return self.peek_round == self.step


def _scene(cliparts: pd.DataFrame, scene_id) -> list[Clipart]:
    if pd.isna(scene_id):
        return []
    ids = cliparts["scene_id"].to_numpy()
    if len(ids) > 1 and bool(np.all(ids[1:] >= ids[:-1])):
        # The frame is built in scene order: a binary search and a slice instead of a mask over every row
        # (whose string column Arrow would have to gather), three times per replay step.
        start, end = np.searchsorted(ids, [int(scene_id), int(scene_id) + 1])
        return cliparts_of(cliparts.iloc[start:end])
    return cliparts_of(cliparts[cliparts["scene_id"] == int(scene_id)])


def _stored_table(stored_terms, recomputed: Optional[ScoreBreakdown]) -> pd.DataFrame:
    """The 7 terms side by side: as stored (weighted = weight x term x IoU for terms 1..6, as the game
    did) and as recomputed."""
    terms = [float(t) for t in stored_terms] if stored_terms is not None and len(stored_terms) == 7 else [np.nan] * 7
    iou = terms[0]
    weighted = [w * t * (1.0 if i == 0 else iou) for i, (w, t) in enumerate(zip(ORIGINAL_WEIGHTS, terms))]
    return pd.DataFrame({
        "term": ORIGINAL_TERMS,
        "weight": ORIGINAL_WEIGHTS,
        "stored": terms,
        "stored weighted": weighted,
        "recomputed": list(recomputed.terms) if recomputed else [np.nan] * 7,
        "recomputed weighted": list(recomputed.weighted) if recomputed else [np.nan] * 7,
    })


def _final_table(score: Optional[ScoreBreakdown]) -> pd.DataFrame:
    if score is None:
        return pd.DataFrame(columns=["term", "weight", "value", "weighted"])
    return pd.DataFrame({"term": score.names, "weight": score.weights, "value": score.terms, "weighted": score.weighted})


def replay_step(loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None) -> Optional[ReplayStep]:
    """The view of round ``step`` of ``dialog_id``; None when the dialog is not in the corpus.

    ``round`` is unused (a CoDraw replay step is a round). A step outside 1..n_steps is clamped; a round skipped while loading comes back with ``problem``."""
    dialogs = loaded.dialogs
    match = dialogs.index[dialogs["dialog_id"] == dialog_id]
    if len(match) == 0:
        return None
    dialog = dialogs.loc[match[0]]
    n_steps = int(dialog["n_steps"])
    step = min(max(1, int(step)), max(1, n_steps))
    rounds = loaded.frames["rounds"]
    mine = rounds[rounds["dialog_id"] == dialog_id]
    utterances = loaded.utterances
    transcript = utterances.loc[utterances["dialog_id"] == dialog_id, ["turn", "speaker", "role", "text"]].reset_index(drop=True)
    peek = dialog["peek_round"]
    view = ReplayStep(dialog_id=dialog_id, step=step, n_steps=n_steps, split=str(dialog["split"]), problem=None,
                     transcript=transcript, peek_round=None if pd.isna(peek) else int(peek))
    row = mine[mine["round"] == step]
    if row.empty:
        reasons = [s.reason for s in loaded.skipped if s.record.endswith(f"{dialog_id} round {step}")]
        view.problem = f"Round {step} could not be loaded" + (f": {reasons[0]}" if reasons else ".")
        return view
    row = row.iloc[0]
    cliparts = loaded.frames["cliparts"]
    target = _scene(cliparts, row["target_scene"])
    before = _scene(cliparts, row["before_scene"])
    after = _scene(cliparts, row["after_scene"])
    changes = scene_changes(before, after)
    view.target_image = render_scene(target, loaded.assets)
    view.canvas_image = render_scene(after, loaded.assets, changes)
    view.changes = changes_table(changes)
    view.n_drawn = len(after)
    has_drawing = not pd.isna(row["after_scene"])
    view.original = original_score(after, target) if has_drawing else None
    view.final = final_score(after, target) if has_drawing else None
    view.score_status = str(row["score_status"])
    view.stored_score = float(row["stored_score"])
    view.stored_terms = _stored_table(row["stored_terms"] if view.score_status == "present" else None, view.original)
    view.final_terms = _final_table(view.final)
    return view


def step_count(loaded: LoadedCorpus, dialog_id: str, round: Optional[int] = None) -> int:
    """Replay steps of a dialog (its rounds); 0 when the dialog is unknown."""
    match = loaded.dialogs.loc[loaded.dialogs["dialog_id"] == dialog_id, "n_steps"]
    return int(match.iloc[0]) if len(match) else 0


def snapshot(loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None) -> Image.Image:
    """The Teller's target and the Drawer's canvas after round ``step`` side by side, captioned."""
    from dialogue_dashboard.plugin import image_grid

    view = replay_step(loaded, dialog_id, step)
    if view is None or view.problem or view.target_image is None or view.canvas_image is None:
        return Image.new("RGB", (1010, 400), "white")
    return image_grid([view.target_image, view.canvas_image],
                      ["Teller's target", f"Drawer's canvas after round {view.step}"])
