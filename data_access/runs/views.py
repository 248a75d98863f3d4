"""What the replay shows of a run at one step, as plain picklable view models (pure; no streamlit).

- CoDraw: target, human canvas and model canvas after the round, each canvas marked against the target
  (correct green, misplaced orange with an arrow from where the target has it, wrong flip / depth / pose
  blue, missing as a dashed red ghost, extra magenta) with its scores under both metrics.
- Minecraft: the BAP sample of the step (if any): the model's predicted structure in 3D with correct,
  missing and extra blocks coloured, beside the human's (gold) structure, with net-action P/R/F1.
- A Game Of Sorts: the message of the step: predicted and gold images marked on both players' boards.
"""
from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field
from typing import Any, Optional

import pandas as pd
from PIL import Image, ImageDraw

from ..common import LoadedCorpus
from . import LoadedRun

MISPLACED_DISTANCE = 0.1  # normalised centre distance above which a clipart counts as misplaced
MARK_COLOURS = {"correct": (40, 170, 60), "misplaced": (240, 140, 0), "wrong pose/flip/depth": (40, 110, 220),
                "missing": (220, 40, 40), "extra": (200, 40, 200)}


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


# ------------------------------------------------------------------------------------------------- CoDraw

def clipart_marks(drawing, target) -> list[tuple[str, Any, Any]]:
    """(mark, drawn clipart or None, target clipart or None) for every clipart in either scene."""
    from ..codraw.scenes import CANVAS_HEIGHT, CANVAS_WIDTH, PEOPLE_TYPES

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
    from ..codraw.render import dashed_rectangle, draw_arrow, render_scene, sprite_box

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
    from ..codraw.scenes import clipart_label

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
    from ..codraw.render import render_scene
    from ..codraw.scenes import cliparts_of, parse_scene

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


# ---------------------------------------------------------------------------------------------- Minecraft

@dataclass
class MinecraftRunView:
    dialog_id: str
    turn: int
    run: str
    sample_id: Optional[int]
    model_figure: object = None  # plotly figure
    gold_figure: object = None
    scores: dict = field(default_factory=dict)  # tp, fp, fn, precision, recall, f1, infeasible
    counts: dict = field(default_factory=dict)  # correct, missing, extra blocks
    note: str = ""
    sample_turns: list = field(default_factory=list)  # (sample_id, turn) of the run's samples in this game


def block_marks(initial: dict, predicted: dict, gold: dict) -> dict[str, list[tuple]]:
    """Blocks of the predicted end structure marked against the gold end structure."""
    def blocks(config):
        return {(x, y, z, c) for (x, y, z), c in config.items()}
    p, g = blocks(predicted), blocks(gold)
    return {"correct": sorted(p & g), "missing": sorted(g - p), "extra": sorted(p - g)}


def marked_structure_figure(marks: dict[str, list[tuple]], title: str):
    """Correct blocks solid in their colour, missing ones as translucent grey ghosts, extra ones red-edged."""
    from ..minecraft.render import edge_trace, framed_figure, mesh_trace, scene_bounds, solid_traces

    traces = list(solid_traces(marks["correct"], " correct"))
    if marks["correct"]:
        traces.append(edge_trace(marks["correct"], "rgba(40,40,40,0.55)", 1.5, "edges"))
    if marks["extra"]:
        traces += solid_traces(marks["extra"], " extra")
        traces.append(edge_trace(marks["extra"], "#e0218a", 7, f"extra ({len(marks['extra'])})"))
    if marks["missing"]:
        traces.append(mesh_trace(marks["missing"], "#9a9a9a", f"missing ({len(marks['missing'])})", opacity=0.25))
        traces.append(edge_trace(marks["missing"], "rgba(120,120,120,0.9)", 2, "missing"))
    points = [b[:3] for group in marks.values() for b in group] or [(0, 1, 0)]
    return framed_figure(traces, scene_bounds(points), title)


def minecraft_view(corpus: LoadedCorpus, run: LoadedRun, dialog_id: str, turn: int) -> MinecraftRunView:
    from .minecraft import config_from_json

    samples = run.frames["samples"]
    mine = samples[samples["game"] == dialog_id]
    bap = corpus.frames["bap_samples"]
    turns = dict(zip(bap.loc[bap["game"] == dialog_id, "sample_id"], bap.loc[bap["game"] == dialog_id, "turn"]))
    sample_turns = sorted((int(s), int(turns.get(s, 0))) for s in mine["sample_id"])
    here = [s for s, t in sample_turns if t == turn]
    view = MinecraftRunView(dialog_id, turn, run.name, here[0] if here else None, sample_turns=sample_turns)
    if not here:
        at_turn = [int(s) for s, t in turns.items() if int(t) == turn]
        view.note = (f"BAP sample {at_turn[0]} follows this utterance, but the run has no prediction for it."
                     if at_turn else "No BAP sample follows this utterance.")
        return view
    row = mine[mine["sample_id"] == here[0]].iloc[0]
    initial, predicted, gold = (config_from_json(row[c]) for c in ("initial", "predicted_end", "gold_end"))
    marks = block_marks(initial, predicted, gold)
    view.model_figure = marked_structure_figure(marks, f"Model ({run.name}): predicted structure")
    gold_marks = {"correct": sorted((x, y, z, c) for (x, y, z), c in gold.items()), "missing": [], "extra": []}
    view.gold_figure = marked_structure_figure(gold_marks, "Human (gold) structure after the sample")
    view.scores = {k: (int(row[k]) if k in ("tp", "fp", "fn", "infeasible", "n_actions") else float(row[k]))
                   for k in ("tp", "fp", "fn", "precision", "recall", "f1", "infeasible", "n_actions")}
    view.counts = {k: len(v) for k, v in marks.items()}
    return view


# ----------------------------------------------------------------------------------------- Game Of Sorts

@dataclass
class GosRunView:
    dialog_id: str
    round_number: int
    step: int
    run: str
    message_number: Optional[int]
    text: str = ""
    boards: list = field(default_factory=list)  # (username, png)
    predicted: list = field(default_factory=list)
    gold: list = field(default_factory=list)
    scores: dict = field(default_factory=dict)
    note: str = ""


PREDICTED_COLOUR, GOLD_COLOUR = (200, 40, 200), (40, 170, 60)


def _mark_board(board: Image.Image, layout: list[str], predicted: set, gold: set, tile_px: int, gap: int) -> Image.Image:
    from ..gos.render import tile_origin

    draw = ImageDraw.Draw(board)
    for position, image_id in enumerate(layout, start=1):
        x, y = tile_origin(position, tile_px, gap)
        if image_id in gold:
            draw.rectangle((x - gap + 2, y - gap + 2, x + tile_px + gap - 3, y + tile_px + gap - 3), outline=GOLD_COLOUR, width=gap - 3)
            draw.text((x + 6, y + tile_px - 24), "gold", fill=GOLD_COLOUR)
        if image_id in predicted:
            draw.rectangle((x + 3, y + 3, x + tile_px - 4, y + tile_px - 4), outline=PREDICTED_COLOUR, width=6)
            draw.text((x + tile_px - 46, y + tile_px - 24), "model", fill=PREDICTED_COLOUR)
    return board


def gos_view(corpus: LoadedCorpus, run: LoadedRun, dialog_id: str, round_number: int, step: int) -> GosRunView:
    from ..gos.render import render_board
    from ..gos.view import image_labels, player_layout

    view = GosRunView(dialog_id, round_number, step, run.name, None)
    steps = corpus.frames["steps"]
    here = steps[(steps["interaction_id"] == dialog_id) & (steps["round"] == round_number) & (steps["step"] == step)]
    if here.empty or here.iloc[0]["kind"] != "message":
        view.note = "This step is a lock event, not a message: the run has nothing to say about it."
        return view
    message_number = int(here.iloc[0]["message_number"])
    view.message_number, view.text = message_number, str(here.iloc[0]["text"])
    messages = run.frames["messages"]
    mine = messages[(messages["interaction_id"] == dialog_id) & (messages["round_number"] == round_number)
                    & (messages["message_number"] == message_number)]
    gold_row = corpus.frames["messages"]
    gold_row = gold_row[(gold_row["interaction_id"] == dialog_id) & (gold_row["round"] == round_number)
                        & (gold_row["message_number"] == message_number)]
    view.gold = sorted({i for i in list(gold_row.iloc[0]["image_ids"]) if i}) if len(gold_row) else []
    if mine.empty:
        view.note = f"The run has no prediction for message {message_number}."
    else:
        row = mine.iloc[0]
        view.predicted = json.loads(row["predicted"])
        view.scores = {"exact": None if pd.isna(row["exact"]) else bool(row["exact"]),
                       "precision": float(row["precision"]), "recall": float(row["recall"]), "f1": float(row["f1"]),
                       "gold_empty": bool(row["gold_empty"]), "names_image": bool(row["names_image"])}
    rounds = corpus.frames["rounds"]
    info = rounds[(rounds["interaction_id"] == dialog_id) & (rounds["round"] == round_number)].iloc[0]
    boards = corpus.frames["boards"]
    board_images = list(boards.loc[boards["board_id"] == info["board_id"], "image_ids"].iloc[0])
    labels = image_labels(corpus, str(info["game_id"]))
    layouts = corpus.frames["layouts"]
    players = list(dict.fromkeys(layouts.loc[(layouts["interaction_id"] == dialog_id)
                                             & (layouts["round"] == round_number), "username"])) or [""]
    for username in players:
        layout = player_layout(corpus, dialog_id, round_number, username, board_images)
        board = render_board(layout, labels, image_folder=corpus.assets, tile_px=150, gap=12)
        view.boards.append((username or "board", _png(_mark_board(board, layout, set(view.predicted), set(view.gold), 150, 12))))
    return view
