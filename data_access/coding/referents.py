"""What a span can refer to at one place of a dialog, with a position to draw and click it:

- CoDraw: the clip art of the dialog's target scene (``clipart:<n>``, n = 0-based position in the scene
  string; x, y on the 500 x 400 canvas);
- A Game Of Sorts: the round's board images (the image id; x, y on the 3 x 3 board of the game's config);
- Minecraft: the blocks of the target structure in the build's coordinates (``block:x,y,z``; drawn from above,
  x across and z down, the highest block of a column on top).

``referents(loaded, dialog_id, round, turn)`` returns a frame with columns ``REFERENT_COLUMNS``;
``referent_canvas`` with the same arguments says how to draw them (``ReferentCanvas``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import pandas as pd

from ..common import LoadedCorpus

REFERENT_COLUMNS = ["id", "name", "x", "y", "colour"]


def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="float64" if c in ("x", "y") else "str") for c in REFERENT_COLUMNS})


def codraw_referents(loaded: LoadedCorpus, dialog_id: str, turn: Optional[int]) -> pd.DataFrame:
    from ..codraw.scenes import clipart_label, cliparts_of

    rounds = loaded.frames["rounds"]
    mine = rounds[rounds["dialog_id"] == dialog_id]
    if mine.empty or mine["target_scene"].isna().all():
        return _empty()
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


def gos_referents(loaded: LoadedCorpus, dialog_id: str, round_number: Optional[int]) -> pd.DataFrame:
    from ..gos.view import image_labels

    rounds = loaded.frames["rounds"]
    match = rounds[(rounds["interaction_id"] == dialog_id) & (rounds["round"] == (round_number or 1))]
    if match.empty:
        return _empty()
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


def minecraft_referents(loaded: LoadedCorpus, dialog_id: str, turn: Optional[int]) -> pd.DataFrame:
    from ..minecraft.blocks import COLOR_HEX
    from ..minecraft.view import replay_step

    step = replay_step(loaded, dialog_id, int(turn or 1))
    if step is None or not step.gold_aligned:
        return _empty()
    blocks = sorted(step.gold_aligned, key=lambda b: (b[0], b[2], b[1]))
    return pd.DataFrame({
        "id": [f"block:{x},{y},{z}" for x, y, z, _ in blocks],
        "name": [f"{c} block at x={x} y={y} z={z}" for x, y, z, c in blocks],
        "x": [float(x) + 0.12 * y for x, y, z, _ in blocks],  # stacked blocks fan out a little
        "y": [float(z) - 0.12 * y for x, y, z, _ in blocks],
        "colour": [COLOR_HEX.get(c, "#7f7f7f") for *_, c in blocks],
    }, columns=REFERENT_COLUMNS)


def referents(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]) -> pd.DataFrame:
    corpus = str(loaded.dialogs["corpus"].iloc[0]) if len(loaded.dialogs) else ""
    if corpus == "codraw":
        return codraw_referents(loaded, dialog_id, turn)
    if corpus == "gos":
        return gos_referents(loaded, dialog_id, round)
    if corpus == "minecraft":
        return minecraft_referents(loaded, dialog_id, turn)
    return _empty()


def turn_utterances(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]) -> pd.DataFrame:
    """The utterances of one replay step in frame order (their position is the annotation's ``utterance``)."""
    u = loaded.utterances
    mask = (u["dialog_id"] == dialog_id) & (u["turn"] == turn)
    if round is not None and u["round"].notna().any():
        mask &= u["round"] == round
    return u.loc[mask, ["speaker", "role", "text"]].reset_index(drop=True)


@dataclass(frozen=True)
class ReferentCanvas:
    """How a picture of the referents is drawn: its axes' ranges as (bottom or left, top or right), y growing
    downwards (None: fitted to the points), whether each point is named on the picture, and a picture under
    the points (a PIL image, or None)."""

    x_range: Optional[tuple[float, float]] = None
    y_range: Optional[tuple[float, float]] = None
    named: bool = True
    background: Any = None


def referent_canvas(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]) -> ReferentCanvas:
    corpus = str(loaded.dialogs["corpus"].iloc[0]) if len(loaded.dialogs) else ""
    if corpus == "codraw":  # the clip art over the target scene, on its 500 x 400 canvas
        from ..codraw.view import replay_step

        view = replay_step(loaded, dialog_id, int(turn or 1))
        return ReferentCanvas((0, 500), (400, 0), named=False, background=getattr(view, "target_image", None))
    if corpus == "gos":  # the 3 x 3 board
        return ReferentCanvas((-0.6, 2.6), (2.6, -0.6))
    return ReferentCanvas()
