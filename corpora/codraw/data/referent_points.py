"""What a span can refer to in a CoDraw dialog: the clip art of its target scene (``clipart:<n>``, n = 0-based
position in the scene string; x, y on the 500 x 400 canvas), drawn over the target scene."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from dialogue_dashboard.plugin import REFERENT_COLUMNS, LoadedCorpus, no_referents


def codraw_referents(loaded: LoadedCorpus, dialog_id: str, turn: Optional[int]) -> pd.DataFrame:
    from corpora.codraw.data.scenes import clipart_label, cliparts_of

    rounds = loaded.frames["rounds"]
    mine = rounds[rounds["dialog_id"] == dialog_id]
    if mine.empty or mine["target_scene"].isna().all():
        return no_referents()
    scene_id = mine["target_scene"].dropna().iloc[0]
    cliparts = loaded.frames["cliparts"]
    scene = cliparts_of(cliparts[cliparts["scene_id"] == int(scene_id)])
    return pd.DataFrame({
        "id": [f"clipart:{i}" for i in range(len(scene))],
        "name": [f"{clipart_label(c.type, c.object)} ({i})" for i, c in enumerate(scene)],
        "x": [float(c.x) for c in scene],
        "y": [float(c.y) for c in scene],
        "colour": ["#1f77b4"] * len(scene),
    }, columns=REFERENT_COLUMNS)


def referents(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]) -> pd.DataFrame:
    """The contract's ``referents``: the target scene's clip art."""
    return codraw_referents(loaded, dialog_id, turn)


def referent_background(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]):
    """The target scene the clip art is drawn over (a PIL image), None when it cannot be drawn."""
    from corpora.codraw.data.view import replay_step

    view = replay_step(loaded, dialog_id, int(turn or 1))
    return getattr(view, "target_image", None)
