"""Minecraft's step features (``step_features``, the contract's optional member): one row per replay step, a
message with the Builder's actions after it (before the next message), as the replay shows it (docs/slices.md,
"Step slices"). The actions after the last message belong to the last step, those before the first message to no
step (``view.replay_step``).

- ``role``, ``speaker``: Architect or Builder (the corpus names its speakers by their role).
- ``placements``, ``removals``: blocks the Builder placed and removed after the message; ``net_change``:
  placements − removals.
- ``builder_question``: the message is the Builder's and asks a question (holds a question mark).
- ``words``: the message's length in words.
- ``config``: the target structure (what a contrast pairs games by).
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def step_features(loaded) -> pd.DataFrame:
    """One row per message of every game (see the module's docstring)."""
    utterances = loaded.frames["utterances"]
    dialogs = loaded.frames["dialogs"].set_index("dialog_id")
    ids = utterances["dialog_id"].astype(str)
    turn = utterances["turn"].to_numpy(dtype=np.int64)
    keys = pd.MultiIndex.from_arrays([ids.to_numpy(dtype=object), turn])
    actions = loaded.frames["actions"]
    last = actions["game"].map(dialogs["n_steps"]).fillna(0).to_numpy(dtype=np.int64)
    action_turn = np.minimum(actions["turn"].to_numpy(dtype=np.int64), np.maximum(last, 1))
    at = keys.get_indexer(pd.MultiIndex.from_arrays([actions["game"].astype(str).to_numpy(dtype=object), action_turn]))
    placed = actions["kind"].to_numpy(dtype=object) == "placement"
    counted = at >= 0
    placements = np.bincount(at[counted & placed], minlength=len(utterances))
    removals = np.bincount(at[counted & ~placed], minlength=len(utterances))
    role = utterances["role"].astype(str)
    text = utterances["text"].astype(str)
    return pd.DataFrame({
        "dialog_id": ids.to_numpy(dtype=object),
        "round": pd.array([pd.NA] * len(utterances), dtype="Int64"),
        "turn": turn,
        "role": role.to_numpy(dtype=object),
        "speaker": utterances["speaker"].astype(str).to_numpy(dtype=object),
        "placements": placements.astype(np.int64),
        "removals": removals.astype(np.int64),
        "net_change": (placements - removals).astype(np.int64),
        "builder_question": ((role == "Builder") & text.str.contains("?", regex=False)).to_numpy(dtype=bool),
        "words": text.str.split().str.len().fillna(0).to_numpy(dtype=np.int64),
        "config": ids.map(dialogs["config"]).astype(str).to_numpy(dtype=object),
    })
