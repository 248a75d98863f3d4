"""What the replay shows of an A Game Of Sorts run at one step (pure; no streamlit): the message of the step,
its predicted and gold images marked on both players' boards; or, for a run of rankings (a person's play), the run's
ranks of the round as far as the pair had ranked at that step, on both boards, with its agreement with the pair."""
from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Optional

import pandas as pd
from PIL import Image, ImageDraw

from dialogue_dashboard.plugin import LoadedCorpus, LoadedRun


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


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
    # a ranking run: the run's ranks shown (image ids, first first), the pair's, and its agreement with the pair's
    ranking: Optional[dict] = None


PREDICTED_COLOUR, GOLD_COLOUR = (200, 40, 200), (40, 170, 60)


def _mark_board(board: Image.Image, layout: list[str], predicted: set, gold: set, tile_px: int, gap: int) -> Image.Image:
    from corpora.gos.data.render import tile_origin

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
    from corpora.gos.data.render import render_board
    from corpora.gos.data.view import image_labels, player_layout

    view = GosRunView(dialog_id, round_number, step, run.name, None)
    steps = corpus.frames["steps"]
    here = steps[(steps["interaction_id"] == dialog_id) & (steps["round"] == round_number) & (steps["step"] == step)]
    if "rankings" in run.frames:
        rankings = run.frames["rankings"]
        ranked = rankings[(rankings["interaction_id"] == dialog_id) & (rankings["round_number"] == round_number)]
        if len(ranked):
            return _ranking_view(corpus, view, ranked.iloc[0], int(here.iloc[0]["ranks_so_far"]) if len(here) else 0)
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


def _boards(corpus: LoadedCorpus, dialog_id: str, round_number: int) -> tuple[list[str], dict, list[str]]:
    """The round's board images, their tile labels and its players (in the layouts' order)."""
    from corpora.gos.data.view import image_labels

    rounds = corpus.frames["rounds"]
    info = rounds[(rounds["interaction_id"] == dialog_id) & (rounds["round"] == round_number)].iloc[0]
    boards = corpus.frames["boards"]
    board_images = list(boards.loc[boards["board_id"] == info["board_id"], "image_ids"].iloc[0])
    layouts = corpus.frames["layouts"]
    players = list(dict.fromkeys(layouts.loc[(layouts["interaction_id"] == dialog_id)
                                             & (layouts["round"] == round_number), "username"])) or [""]
    return board_images, image_labels(corpus, str(info["game_id"])), players


def _ranking_view(corpus: LoadedCorpus, view: GosRunView, row: pd.Series, ranks_so_far: int) -> GosRunView:
    """The run's first ``ranks_so_far`` ranks of the round (as many as the pair had made), badges on both boards."""
    from corpora.gos.data.render import render_board
    from corpora.gos.data.view import player_layout

    mine = json.loads(row["ranking"])
    shown = mine[:ranks_so_far] if ranks_so_far < len(mine) else mine
    ranks = corpus.frames["ranks"]
    pair = ranks[(ranks["interaction_id"] == view.dialog_id) & (ranks["round"] == view.round_number)].sort_values("rank")
    board_images, labels, players = _boards(corpus, view.dialog_id, view.round_number)
    view.ranking = {"ranked": shown, "pair": list(pair["image_id"])[:max(ranks_so_far, len(shown))],
                    "spearman_rho": float(row["spearman_rho"]), "kendall_tau": float(row["kendall_tau"]),
                    "exact_positions": int(row["exact_positions"]), "n_ranked": int(row["n_ranked"])}
    for username in players:
        layout = player_layout(corpus, view.dialog_id, view.round_number, username, board_images)
        board = render_board(layout, labels, ranks={image: rank for rank, image in enumerate(shown, start=1)},
                             image_folder=corpus.assets, tile_px=150, gap=12)
        view.boards.append((username or "board", _png(board)))
    view.note = (f"The run's ranks of this round as far as the pair had ranked at this step ({len(shown)} of its "
                 f"{len(mine)}).")
    return view
