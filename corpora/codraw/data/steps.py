"""CoDraw's step features (``step_features``, the contract's optional member): one row per replay step, i.e. per
round, with what a step slice tests there (docs/slices.md, "Step slices"). Vectorised over the rounds frame and the
dense scenes: all 77,502 rounds of the full corpus in a fraction of a second. Also a run's score at each step
(``run_step_scores``, the run scoring's ``step_scores``).

- ``round_score``: the paper's metric of the Drawer's canvas after the round (the replay's score); empty where the round
  left no drawing (an empty canvas).
- ``score_change``: ``round_score`` minus the score of the canvas before the round (the previous round's drawing; 0
  before the first drawing: an empty canvas scores 0 under the paper's metric); empty where either drawing is
  missing (a round skipped while loading, or the round left no drawing).
- ``peek``: the Teller peeked just before this round (the round the file marks ``peeked``); ``after_peek``: the
  round is the peeked one or a later one.
- ``added``, ``moved``, ``changed``, ``removed``: clip art the Drawer put on the canvas, moved, changed in pose,
  depth or facing without moving, or took off in this round (the replay's change table, counted).
- ``drawn``: clip art on the canvas after the round.
- ``teller_words``, ``drawer_words``: the round's Teller and Drawer message lengths in words (whitespace-separated
  tokens; 0 for an empty message).
- ``role``, ``speaker``: the roles with a message in the round, as a list (``role = Drawer``: the Drawer said
  something in this round).

The CR of the round comes from the published layer (``icr_layer.step_features``). How a description names
each feature is the package's ``FEATURE_TEXTS``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from corpora.codraw.data.scenes import dense_scenes

ROLES = ("Teller", "Drawer")


def _text(texts: pd.Series) -> pa.Array:
    return pa.array(texts, type=pa.string(), from_pandas=True)


def _words(texts: pd.Series) -> np.ndarray:
    """Whitespace-separated tokens of each text (0 for an empty or missing one)."""
    lengths = pc.list_value_length(pc.utf8_split_whitespace(_text(texts)))
    return np.asarray(lengths.fill_null(0), dtype=np.int64)


def _changes(cliparts: pd.DataFrame, before: np.ndarray, after: np.ndarray) -> dict[str, np.ndarray]:
    """Clip art added, moved, changed and removed between the scenes ``before`` and ``after`` (-1: an empty
    canvas), as ``render.scene_changes`` names them, per round."""
    # a scene without clip art on the canvas has no row: the ids the rounds name may pass the frame's last one
    n_scenes = max(int(cliparts["scene_id"].max()) + 1 if len(cliparts) else 0,
                   int(before.max(initial=-1)) + 1, int(after.max(initial=-1)) + 1)
    dense = dense_scenes(cliparts, n_scenes + 1)  # the last row: an empty scene, for -1
    empty = n_scenes
    old = np.where(before >= 0, before, empty)
    new = np.where(after >= 0, after, empty)
    was, now = dense.present[old], dense.present[new]
    both = was & now
    moved = both & ((dense.x[old] != dense.x[new]) | (dense.y[old] != dense.y[new]))
    changed = both & ~moved & ((dense.subtype[old] != dense.subtype[new]) | (dense.z[old] != dense.z[new])
                               | (dense.flip[old] != dense.flip[new]))
    return {"added": (now & ~was).sum(axis=1), "moved": moved.sum(axis=1), "changed": changed.sum(axis=1),
            "removed": (was & ~now).sum(axis=1)}


def step_features(loaded) -> pd.DataFrame:
    """One row per round of every dialog (see the module's docstring)."""
    rounds = loaded.frames["rounds"]
    dialog_ids = rounds["dialog_id"].astype(str).to_numpy(dtype=object)
    number = rounds["round"].to_numpy(dtype=np.int64)
    score = rounds["score_final"].to_numpy(dtype=float)
    before = rounds["before_scene"].fillna(-1).to_numpy(dtype=np.int64)
    after = rounds["after_scene"].fillna(-1).to_numpy(dtype=np.int64)
    same_dialog = np.zeros(len(rounds), dtype=bool)
    same_dialog[1:] = (dialog_ids[1:] == dialog_ids[:-1]) & (number[1:] == number[:-1] + 1)
    previous = np.full(len(rounds), np.nan)
    previous[1:] = score[:-1]
    previous = np.where(same_dialog, previous, np.nan)
    previous = np.where(before < 0, 0.0, previous)  # an empty canvas before the round scores 0
    peeked = rounds["peeked"].to_numpy(dtype=bool)
    dialogs = loaded.dialogs
    at = pd.Index(dialogs["dialog_id"].astype(str)).get_indexer(rounds["dialog_id"])
    peek_round = dialogs["peek_round"].astype("Float64").to_numpy(dtype=float, na_value=np.inf)[at]
    teller, drawer = (np.asarray(pc.not_equal(pc.utf8_trim_whitespace(_text(rounds[c])), "").fill_null(False))
                      for c in ("msg_t", "msg_d"))
    roles = np.empty(4, dtype=object)
    roles[:] = [(), ("Teller",), ("Drawer",), ROLES]
    said = roles[teller.astype(np.int64) + 2 * drawer.astype(np.int64)]
    frame = pd.DataFrame({
        "dialog_id": dialog_ids,
        "round": pd.array([pd.NA] * len(rounds), dtype="Int64"),  # a CoDraw step is a round: no rounds within steps
        "turn": number,
        "role": said,
        "speaker": said,
        "round_score": score,
        "score_change": score - previous,
        "peek": peeked,
        "after_peek": number >= peek_round,
        **{k: v.astype(np.int64) for k, v in _changes(loaded.frames["cliparts"], before, after).items()},
        "drawn": rounds["n_drawn"].to_numpy(dtype=np.int64),
        "teller_words": _words(rounds["msg_t"]),
        "drawer_words": _words(rounds["msg_d"]),
    })
    return frame


def run_step_scores(run) -> pd.DataFrame:
    """The run's score at each replay step (a round): the paper's metric of the model's canvas after the round (0
    for a canvas it left empty, as an empty canvas scores) and the human Drawer's (``RunScoring``'s optional
    ``step_scores``)."""
    rounds = run.frames["rounds"]
    return pd.DataFrame({"dialog_id": rounds["dialog_id"].astype(str), "round": pd.array([pd.NA] * len(rounds), dtype="Int64"),
                         "turn": rounds["round"].astype("int64"), "score": rounds["score_final"].fillna(0.0).astype(float),
                         "humans": rounds["human_score_final"].astype(float)})
