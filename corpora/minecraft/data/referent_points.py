"""What a span can refer to in a Minecraft game: the blocks of the target structure in the build's coordinates
(``block:x,y,z``; drawn from above, x across and z down, the highest block of a column on top)."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from dialogue_dashboard.plugin import REFERENT_COLUMNS, LoadedCorpus, no_referents


def minecraft_referents(loaded: LoadedCorpus, dialog_id: str, turn: Optional[int]) -> pd.DataFrame:
    from corpora.minecraft.data.blocks import COLOR_HEX
    from corpora.minecraft.data.view import replay_step

    step = replay_step(loaded, dialog_id, int(turn or 1))
    if step is None or not step.gold_aligned:
        return no_referents()
    blocks = sorted(step.gold_aligned, key=lambda b: (b[0], b[2], b[1]))
    return pd.DataFrame({
        "id": [f"block:{x},{y},{z}" for x, y, z, _ in blocks],
        "name": [f"{c} block at x={x} y={y} z={z}" for x, y, z, c in blocks],
        "x": [float(x) + 0.12 * y for x, y, z, _ in blocks],  # stacked blocks fan out a little
        "y": [float(z) - 0.12 * y for x, y, z, _ in blocks],
        "colour": [COLOR_HEX.get(c, "#7f7f7f") for *_, c in blocks],
    }, columns=REFERENT_COLUMNS)


def referents(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]) -> pd.DataFrame:
    """The contract's ``referents``: the target structure's blocks."""
    return minecraft_referents(loaded, dialog_id, turn)


def referent_background(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]):
    """No picture under the blocks."""
    return None
