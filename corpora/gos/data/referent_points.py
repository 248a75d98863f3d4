"""What a span can refer to in an A Game Of Sorts round: the round's board images (the image id; x, y on the
3 x 3 board of the game's config)."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from dialogue_dashboard.plugin import REFERENT_COLUMNS, LoadedCorpus, no_referents


def gos_referents(loaded: LoadedCorpus, dialog_id: str, round_number: Optional[int]) -> pd.DataFrame:
    from corpora.gos.data.view import image_labels

    rounds = loaded.frames["rounds"]
    match = rounds[(rounds["interaction_id"] == dialog_id) & (rounds["round"] == (round_number or 1))]
    if match.empty:
        return no_referents()
    game_id = match.iloc[0]["game_id"]
    labels = image_labels(loaded, game_id)
    images = loaded.frames["images"]
    images = images[images["game_id"] == game_id].sort_values("game_index")
    ids = list(images["image_id"])
    return pd.DataFrame({
        "id": ids,
        "name": [f"{labels[i].short_id} · {labels[i].category}" if i in labels else str(i) for i in ids],
        "x": [float(k % 3) for k in range(len(ids))],
        "y": [float(k // 3) for k in range(len(ids))],
        "colour": [labels[i].colour if i in labels else "#7f7f7f" for i in ids],
    }, columns=REFERENT_COLUMNS)


def referents(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]) -> pd.DataFrame:
    """The contract's ``referents``: the round's board images."""
    return gos_referents(loaded, dialog_id, round)


def referent_background(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]):
    """No picture under the board's points."""
    return None
