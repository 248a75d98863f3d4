"""A Game Of Sorts' step features (``step_features``, the contract's optional member): one row per replay step (a
message or a lock event, numbered within its round), from the ``steps`` frame (docs/slices.md, "Step slices").

- ``role``, ``speaker``: who sent the message or locked (Player A / B, their user name).
- ``kind``: ``message``, ``lock``, ``unlock manual`` or ``unlock automatic``; ``message`` and ``lock`` as true / false.
- ``images_referred``: images the sender marked as referred to by the message (0 for a lock event and for a
  message marked as referring to none).
- ``mismatch``: the lock met a different image of the partner's (both locks released).
- ``rank``: the rank the lock gave (the pair agreed on an image); empty for every other step.
- ``ranks_so_far``: images ranked when the step happened.
- ``board``, ``board_number``: the board (scenario) of the step's round; ``in_round``: before the round's ninth rank.

The mentions of the published layer at a step are the layer's (``mentions_layer.step_features``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from corpora.gos.data.timestamps import STEP_MESSAGE


def step_features(loaded) -> pd.DataFrame:
    """One row per step of every round (see the module's docstring)."""
    steps = loaded.frames["steps"]
    numbers = loaded.frames["boards"].set_index("board_id")["board_number"]
    kind = steps["kind"].astype(str)
    is_message = (kind == STEP_MESSAGE).to_numpy()
    referred = steps["image_ids"].map(lambda ids: len(ids) if hasattr(ids, "__len__") else 0).to_numpy(dtype=np.int64)
    return pd.DataFrame({
        "dialog_id": steps["interaction_id"].astype(str).to_numpy(dtype=object),
        "round": pd.array(steps["round"].to_numpy(dtype=np.int64), dtype="Int64"),
        "turn": steps["step"].to_numpy(dtype=np.int64),
        "role": steps["role"].astype(str).to_numpy(dtype=object),
        "speaker": steps["username"].astype(str).to_numpy(dtype=object),
        "kind": kind.to_numpy(dtype=object),
        "message": is_message,
        "lock": (kind == "lock").to_numpy(),
        "images_referred": np.where(is_message, referred, 0),
        "mismatch": steps["mismatch"].to_numpy(dtype=bool),
        "rank": steps["produced_rank"].astype("Int64").array,
        "ranks_so_far": steps["ranks_so_far"].to_numpy(dtype=np.int64),
        "board": steps["board_id"].astype(str).to_numpy(dtype=object),
        "board_number": pd.array(steps["board_id"].map(numbers).to_numpy(), dtype="Int64"),
        "in_round": steps["in_round"].to_numpy(dtype=bool),
    })
