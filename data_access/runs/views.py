"""What the replay shows of a run at one step, as plain picklable view models (pure; no streamlit), one module
per corpus (each imports its own corpus only), gathered here for the app:

- CoDraw (``codraw_views``): target, human canvas and model canvas after the round, each canvas marked against
  the target, with its scores under both metrics.
- Minecraft (``minecraft_views``): the BAP sample of the step (if any): the model's predicted structure in 3D
  with correct, missing and extra blocks coloured, beside the human's (gold) structure, with net-action P/R/F1.
- A Game Of Sorts (``gos_views``): the message of the step: predicted and gold images marked on both boards.
"""
from __future__ import annotations

from .codraw_views import (
    MARK_COLOURS,
    MISPLACED_DISTANCE,
    CanvasPanel,
    CodrawRunView,
    clipart_marks,
    codraw_view,
    render_marked,
)
from .gos_views import GOLD_COLOUR, PREDICTED_COLOUR, GosRunView, gos_view
from .minecraft_views import MinecraftRunView, block_marks, marked_structure_figure, minecraft_view

__all__ = ["MARK_COLOURS", "MISPLACED_DISTANCE", "CanvasPanel", "CodrawRunView", "clipart_marks", "codraw_view",
           "render_marked", "GOLD_COLOUR", "PREDICTED_COLOUR", "GosRunView", "gos_view", "MinecraftRunView",
           "block_marks", "marked_structure_figure", "minecraft_view"]
