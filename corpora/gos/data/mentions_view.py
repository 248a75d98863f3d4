"""The published mentions at one A Game Of Sorts replay step: the message cut into highlighted spans, the
mentions with the images they refer to, and both players' boards with those images framed.

Pure and small (for ``ui.cached.layer_derived``): the boards are re-rendered from the replay's state at
the step (ranks and pending locks, passed in as tuples) with the mentioned images highlighted on *both*
boards, since a mention names the same image wherever it sits on each player's shuffled board.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Optional

import pandas as pd

from corpora.gos.data.mentions_analysis import step_mentions
from corpora.gos.data.mentions_layer import corpus_messages
from dialogue_dashboard.plugin import LoadedCorpus, LoadedLayer, segments

# Light background colours for up to eight mentions in one message (then they repeat).
SPAN_COLOURS = ("#FDE68A", "#BFDBFE", "#BBF7D0", "#FBCFE8", "#DDD6FE", "#FED7AA", "#A5F3FC", "#E5E7EB")


@dataclass(frozen=True)
class MentionStep:
    text: str  # the message (empty when the step is not an annotated message)
    pieces: tuple[tuple[str, Optional[int]], ...]  # the text cut at the spans: (piece, mention index or None)
    mentions: pd.DataFrame  # #, mention, refers to, single, span fits, start, end
    referents: tuple[str, ...]  # every image the message's mentions refer to
    boards: tuple[tuple[str, bytes], ...]  # (username, PNG) with the referents framed; empty without mentions
    out_of_range: int  # mentions whose offsets do not fit the text (listed, not highlighted)


def _png(image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def _layout(corpus: LoadedCorpus, dialog_id: str, round_number: int, username: str, fallback: list[str]) -> list[str]:
    layouts = corpus.frames["layouts"]
    dialog_column = "interaction_id" if "interaction_id" in layouts.columns else "dialog_id"
    round_column = "round_number" if "round_number" in layouts.columns else "round"
    mine = layouts[(layouts[dialog_column] == dialog_id) & (layouts[round_column] == round_number)
                   & (layouts["username"] == username)].sort_values("position")
    return list(mine["image_id"]) if len(mine) else list(fallback)


def mention_step(layer: LoadedLayer, corpus: LoadedCorpus, dialog_id: str, round_number: int, step: int,
                 ranks: tuple = (), players: tuple = ()) -> MentionStep:
    """``ranks``: ((image_id, rank), ...) agreed so far; ``players``: ((username, pending image or None), ...)
    in board order. Boards are rendered only when the step's message has mentions."""
    from corpora.gos.data.render import render_board
    from corpora.gos.data.view import image_labels

    mentions = step_mentions(layer, corpus, dialog_id, round_number, step)
    messages = corpus_messages(corpus)
    row = messages[(messages["dialog_id"] == dialog_id) & (messages["round"] == int(round_number))
                   & (messages["turn"] == int(step))]
    if row.empty or mentions.empty:
        return MentionStep("", (), mentions.iloc[0:0], (), (), 0)
    text = str(row["text"].iloc[0])
    board_images = list(row["board_images"].iloc[0])
    rounds = corpus.frames["rounds"]
    dialog_column = "interaction_id" if "interaction_id" in rounds.columns else "dialog_id"
    round_column = "round_number" if "round_number" in rounds.columns else "round"
    game_id = rounds.loc[(rounds[dialog_column] == dialog_id) & (rounds[round_column] == int(round_number)), "game_id"].iloc[0]
    labels = image_labels(corpus, game_id)

    def name(image_id: str) -> str:
        return labels[image_id].short_id if image_id in labels else image_id[:8]

    # Only spans that fit are highlighted; the others are listed with "span fits" false, never moved.
    spans = [(int(s), int(e)) if ok else (-1, -1) for s, e, ok in zip(mentions["start"], mentions["end"], mentions["span_ok"])]
    table = pd.DataFrame({
        "#": range(1, len(mentions) + 1), "mention": mentions["text"].to_numpy(),
        "refers to": [", ".join(name(i) for i in refs) or "—" for refs in mentions["referents"]],
        "single": mentions["single"].map({True: "one image", False: "group"}).to_numpy(),
        "span fits": mentions["span_ok"].to_numpy(), "start": mentions["start"].to_numpy(), "end": mentions["end"].to_numpy(),
    })
    referents = tuple(dict.fromkeys(i for refs in mentions["referents"] for i in refs))
    ranked = {image: int(rank) for image, rank in ranks}
    boards = []
    for username, pending in players:
        image = render_board(_layout(corpus, dialog_id, int(round_number), username, board_images), labels, ranks=ranked,
                             pending=pending, highlighted=set(referents), image_folder=corpus.assets)
        boards.append((username, _png(image)))
    return MentionStep(text, tuple(segments(text, spans)), table, referents, tuple(boards),
                       int((~mentions["span_ok"]).sum()))
