"""What a span can refer to at one place of a dialog, with a position to draw and click it. Each corpus package
says it (its ``referents`` and ``REFERENT_PLANE``, see ``data_access.contract``); the built-in ones:

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
from ..contract import REFERENT_COLUMNS, ReferentPlane, no_referents, package_of

__all__ = ["REFERENT_COLUMNS", "ReferentPlane", "no_referents", "referents", "turn_utterances"]


def referents(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]) -> pd.DataFrame:
    """What a span at this place can refer to (the corpus's ``referents``), columns ``REFERENT_COLUMNS``."""
    if not len(loaded.dialogs):
        return no_referents()
    return package_of(loaded).referents(loaded, dialog_id, round, turn)


def turn_utterances(loaded: LoadedCorpus, dialog_id: str, round: Optional[int], turn: Optional[int]) -> pd.DataFrame:
    """The utterances of one replay step in frame order (their position is the annotation's ``utterance``)."""
    u = loaded.utterances
    mask = (u["dialog_id"] == dialog_id) & (u["turn"] == turn)
    if round is not None and u["round"].notna().any():
        mask &= u["round"] == round
    return u.loc[mask, ["speaker", "role", "text"]].reset_index(drop=True)


def step_utterances(loaded: LoadedCorpus, dialog_id: str, round: Optional[int]) -> dict[int, list[tuple[str, str]]]:
    """Every step's utterances of a dialog (of its round): step -> [(speaker, text)] in frame order, each
    utterance's position the one ``turn_utterances`` gives it (a span's ``utterance``). The coding column holds
    them in the browser, so that the text of the step shown is there the moment the player shows the step."""
    u = loaded.utterances
    mask = u["dialog_id"] == dialog_id
    if round is not None and u["round"].notna().any():
        mask &= u["round"] == round
    steps: dict[int, list[tuple[str, str]]] = {}
    rows = u.loc[mask & u["turn"].notna(), ["turn", "speaker", "text"]]
    for turn, speaker, text in rows.itertuples(index=False):
        steps.setdefault(int(turn), []).append(("" if pd.isna(speaker) else str(speaker), "" if pd.isna(text) else str(text)))
    return steps


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
    """How the corpus draws its referents at this place (its ``REFERENT_PLANE`` and ``referent_background``: CoDraw
    the clip art over the target scene on its 500 x 400 canvas, A Game Of Sorts the 3 x 3 board)."""
    if not len(loaded.dialogs):
        return ReferentCanvas()
    package = package_of(loaded)
    plane = package.REFERENT_PLANE
    return ReferentCanvas(plane.x_range, plane.y_range, named=plane.show_names,
                          background=package.referent_background(loaded, dialog_id, round, turn))
