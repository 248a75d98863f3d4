"""What the replay shows of a CoDraw run at one round (pure; no streamlit): target, human canvas and model
canvas after the round, each canvas marked against the target (correct green, misplaced orange with an arrow
from where the target has it, wrong flip / depth / pose blue, missing as a dashed red ghost, extra magenta)
with its scores under both metrics."""
from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from typing import Any, Optional

import pandas as pd
from PIL import Image, ImageDraw

from dialogue_dashboard.plugin import LoadedCorpus, LoadedRun

MISPLACED_DISTANCE = 0.1  # normalised centre distance above which a clipart counts as misplaced
MARK_COLOURS = {"correct": (40, 170, 60), "misplaced": (240, 140, 0), "wrong pose/flip/depth": (40, 110, 220),
                "missing": (220, 40, 40), "extra": (200, 40, 200)}


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def clipart_marks(drawing, target) -> list[tuple[str, Any, Any]]:
    """(mark, drawn clipart or None, target clipart or None) for every clipart in either scene."""
    from corpora.codraw.data.scenes import CANVAS_HEIGHT, CANVAS_WIDTH, PEOPLE_TYPES

    drawn = {c.identity: c for c in drawing}
    wanted = {c.identity: c for c in target}
    marks = []
    for identity, t in wanted.items():
        d = drawn.get(identity)
        if d is None:
            marks.append(("missing", None, t))
            continue
        distance = math.hypot((d.x - t.x) / CANVAS_WIDTH, (d.y - t.y) / CANVAS_HEIGHT)
        if distance > MISPLACED_DISTANCE:
            marks.append(("misplaced", d, t))
        elif d.flip != t.flip or d.z != t.z or (t.type in PEOPLE_TYPES and d.object != t.object):
            marks.append(("wrong pose/flip/depth", d, t))
        else:
            marks.append(("correct", d, t))
    marks += [("extra", d, None) for identity, d in drawn.items() if identity not in wanted]
    return marks


def render_marked(drawing, target, clipart_folder: Optional[str]) -> Image.Image:
    from corpora.codraw.data.render import dashed_rectangle, draw_arrow, render_scene, sprite_box

    image = render_scene(drawing, clipart_folder).convert("RGBA")
    folder = clipart_folder if clipart_folder else None
    layer = Image.new("RGBA", image.size)
    draw = ImageDraw.Draw(layer)
    for mark, d, t in clipart_marks(drawing, target):
        colour = MARK_COLOURS[mark] + (255,)
        if mark == "missing":
            box = sprite_box(t, folder)
            draw.rectangle(box, fill=MARK_COLOURS["missing"] + (40,))
            dashed_rectangle(draw, box, colour)
            continue
        draw.rectangle(sprite_box(d, folder), outline=colour, width=3)
        if mark == "misplaced":
            draw_arrow(draw, (t.x, t.y), (d.x, d.y), colour)
    image.alpha_composite(layer)
    return image.convert("RGB")


def _mark_table(drawing, target) -> pd.DataFrame:
    from corpora.codraw.data.scenes import clipart_label

    rows = []
    for mark, d, t in clipart_marks(drawing, target):
        c = d or t
        where = f"at ({d.x:.0f}, {d.y:.0f})" if d is not None else ""
        if mark == "misplaced":
            where += f", target at ({t.x:.0f}, {t.y:.0f})"
        rows.append({"clipart": clipart_label(c.type, c.object), "mark": mark, "where": where})
    order = list(MARK_COLOURS)
    frame = pd.DataFrame(rows, columns=["clipart", "mark", "where"])
    return frame.sort_values("mark", key=lambda s: s.map(order.index), kind="stable", ignore_index=True)


@dataclass
class CanvasPanel:
    title: str
    png: Optional[bytes]
    score_final: float
    score_original: float
    marks: pd.DataFrame = field(default_factory=pd.DataFrame)
    note: str = ""


@dataclass
class CodrawRunView:
    dialog_id: str
    turn: int
    run: str
    target_png: bytes
    human: CanvasPanel
    model: CanvasPanel
    final: dict  # the dialog's final drawings: round and scores of model and human


def codraw_view(corpus: LoadedCorpus, run: LoadedRun, dialog_id: str, turn: int) -> Optional[CodrawRunView]:
    from corpora.codraw.data.render import render_scene
    from corpora.codraw.data.scenes import cliparts_of, parse_scene

    rounds = corpus.frames["rounds"]
    human = rounds[(rounds["dialog_id"] == dialog_id) & (rounds["round"] == turn)]
    if human.empty:
        return None
    human = human.iloc[0]
    cliparts = corpus.frames["cliparts"]

    def scene(scene_id):
        return [] if pd.isna(scene_id) else cliparts_of(cliparts[cliparts["scene_id"] == int(scene_id)])

    target, drawn = scene(human["target_scene"]), scene(human["after_scene"])
    folder = corpus.assets
    human_panel = CanvasPanel("Human Drawer", _png(render_marked(drawn, target, folder)) if not pd.isna(human["after_scene"]) else None,
                              float(human["score_final"]), float(human["score_original"]), _mark_table(drawn, target),
                              "" if not pd.isna(human["after_scene"]) else "The human canvas is empty after this round.")
    predicted = run.frames["rounds"]
    mine = predicted[(predicted["dialog_id"] == dialog_id) & (predicted["round"] == turn)]
    if mine.empty:
        model_panel = CanvasPanel(f"Model: {run.name}", None, math.nan, math.nan,
                                  note=f"The run has no prediction for round {turn} of this dialog.")
    elif not mine.iloc[0]["has_drawing"]:
        model_panel = CanvasPanel(f"Model: {run.name}", None, math.nan, math.nan, note="The model's canvas is empty after this round.")
    else:
        row = mine.iloc[0]
        model_drawing = parse_scene(str(row["scene"]))
        model_panel = CanvasPanel(f"Model: {run.name}", _png(render_marked(model_drawing, target, folder)),
                                  float(row["score_final"]), float(row["score_original"]), _mark_table(model_drawing, target))
    dialogs = run.frames["dialogs"]
    final = dialogs[dialogs["dialog_id"] == dialog_id]
    final_facts = final.iloc[0].to_dict() if len(final) else {}
    return CodrawRunView(dialog_id, turn, run.name, _png(render_scene(target, folder)), human_panel, model_panel, final_facts)
