"""Playing one player of a recorded interaction (``contract.PlayRules``; docs/play.md).

A seat is one of the two players: their board in their own recorded layout of each round. A step is one rank: the
person locks the image they would rank next (the LOCK rule: ranks are given in order, the first locked is rank 1).
At rank k of a round the recorded dialog is shown up to the moment the pair started to agree on their rank k (the
first of the two matching locks): both players' messages with the images each marked, and the partner's locks as
they happened (not the seat's own: those are the person's to make). A play is an A Game Of Sorts run of rankings
(docs/formats.md, "Model runs": one line per round with the images in the order ranked), scored by this corpus's
``RunScoring`` against the pair's final ranks of the round: Spearman's rho (the score), Kendall's tau and the exact
positions, on the images ranked so far; the score of the play is the mean rho over its rounds.

A move is ``{"image_id": "<an image of the round's board not ranked yet>"}``.
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Any, Optional, Sequence

import pandas as pd

from dialogue_dashboard.plugin import LoadedCorpus

ROLE = "player"
STEP_UNIT = "rank"
SCORE_LABEL = "rank correlation with the pair's ranks (Spearman, mean over rounds)"


def _rounds(loaded: LoadedCorpus, interaction: str) -> pd.DataFrame:
    rounds = loaded.frames["rounds"]
    return rounds[rounds["interaction_id"] == interaction].sort_values("round").reset_index(drop=True)


def _pair_ranks(loaded: LoadedCorpus, interaction: str) -> dict[int, list[str]]:
    """round -> the pair's ranked images, rank 1 first."""
    ranks = loaded.frames["ranks"]
    mine = ranks[ranks["interaction_id"] == interaction].sort_values(["round", "rank"])
    by_round: dict[int, list[str]] = {}
    for round_number, image in zip(mine["round"], mine["image_id"]):
        by_round.setdefault(int(round_number), []).append(str(image))
    return by_round


_STEPS_KEPT = 64  # interactions whose steps are kept (the plays under way on a server, about)
_STEPS: "OrderedDict[tuple[int, str], tuple[weakref.ref, tuple[tuple[int, int], ...]]]" = OrderedDict()
_STEPS_LOCK = threading.Lock()


def _steps(loaded: LoadedCorpus, interaction: str) -> tuple[tuple[int, int], ...]:
    """(round, rank) of every step, in play order; kept per corpus and interaction (a Done asks for them about ten
    times, each a scan of the corpus's ranks)."""
    key = (id(loaded), interaction)
    with _STEPS_LOCK:
        kept = _STEPS.get(key)
        if kept is not None and kept[0]() is loaded:
            _STEPS.move_to_end(key)
            return kept[1]
    ranks = _pair_ranks(loaded, interaction)
    steps = tuple((int(r), k) for r in _rounds(loaded, interaction)["round"]
                  for k in range(1, len(ranks.get(int(r), [])) + 1))
    with _STEPS_LOCK:
        _STEPS[key] = (weakref.ref(loaded), steps)
        while len(_STEPS) > _STEPS_KEPT:
            _STEPS.popitem(last=False)
    return steps


def playable(loaded: LoadedCorpus) -> list[str]:
    """Interactions with at least one ranked image, in the corpus's order."""
    ranked = set(loaded.frames["ranks"]["interaction_id"].astype(str))
    return [d for d in loaded.dialogs["dialog_id"].astype(str) if d in ranked]


def seats(loaded: LoadedCorpus, dialog_id: str) -> list[str]:
    """The interaction's two players, by username (Player A first)."""
    dialogs = loaded.dialogs
    row = dialogs[dialogs["dialog_id"] == dialog_id]
    if row.empty or not _steps(loaded, dialog_id):
        return []
    return [str(name) for name in (row["player_a"].iloc[0], row["player_b"].iloc[0]) if isinstance(name, str) and name]


def step_count(loaded: LoadedCorpus, dialog_id: str, seat: str) -> int:
    return len(_steps(loaded, dialog_id)) if seat in seats(loaded, dialog_id) else 0


def setup(loaded: LoadedCorpus, dialog_id: str, seat: str) -> dict:
    """Each round's scenario and the seat's board (its recorded layout), and the images' labels as tiles show them."""
    from corpora.gos.data.view import image_labels, player_layout

    boards = loaded.frames["boards"].set_index("board_id")
    rounds, ranks = [], _pair_ranks(loaded, dialog_id)
    game = ""
    for row in _rounds(loaded, dialog_id).itertuples(index=False):
        board = boards.loc[row.board_id]
        game = str(row.game_id)
        rounds.append({"round": int(row.round), "board_id": str(row.board_id), "criterion": str(board["criterion"]),
                       "instruction": str(board["instruction"]), "n_ranks": len(ranks.get(int(row.round), [])),
                       "layout": player_layout(loaded, dialog_id, int(row.round), seat, list(board["image_ids"]))})
    labels = image_labels(loaded, game)
    return {"seat": seat, "rounds": rounds,
            "images": {image: {"label": label.short_id, "category": label.category, "colour": label.colour}
                       for image, label in labels.items()}}


def where(loaded: LoadedCorpus, dialog_id: str, step: int) -> tuple[int, int]:
    """(round, rank) of ``step``; past the last step, the last round and one rank past its last."""
    steps = _steps(loaded, dialog_id)
    if not steps:
        raise ValueError(f"{dialog_id} has no rank to play")
    if step > len(steps):
        last_round, last_rank = steps[-1]
        return last_round, last_rank + 1
    return steps[max(1, step) - 1]


def _cut(round_steps: pd.DataFrame, rank: int) -> int:
    """The replay step before which the pair had not begun to agree on rank ``rank``: the first of the two matching
    locks (the partner's lock still pending when the second came). Past the round's last rank: after its last step."""
    made = round_steps[round_steps["produced_rank"] == rank]
    if made.empty:
        return int(round_steps["step"].max()) + 1 if len(round_steps) else 1
    second = made.iloc[0]
    image = second["image_id"]
    pending = "pending_b" if second["role"] == "Player A" else "pending_a"  # the other player's pending lock
    before = round_steps[round_steps["step"] < int(second["step"])].sort_values("step")
    first = int(second["step"])
    for step, held in zip(reversed(before["step"].tolist()), reversed(before[pending].tolist())):
        if held != image:
            break
        first = int(step)
    return first


def step_view(loaded: LoadedCorpus, dialog_id: str, seat: str, step: int, moves: Sequence[Any]) -> dict:
    """The round and rank to play, the person's own ranks of the round so far, and the round's recorded dialog up to
    where the pair began to agree on this rank (both players' messages with the images each marked, the partner's
    lock events); the pair's image of the rank before (the human's move)."""
    round_number, rank = where(loaded, dialog_id, step)
    done = step > len(_steps(loaded, dialog_id))
    steps = loaded.frames["steps"]
    round_steps = steps[(steps["interaction_id"] == dialog_id) & (steps["round"] == round_number)].sort_values("step")
    cut = _cut(round_steps, rank)
    lines = []
    for row in round_steps[round_steps["step"] < cut].itertuples(index=False):
        if row.kind == "message":
            lines.append({"kind": "message", "who": str(row.username), "mine": row.username == seat, "text": str(row.text),
                          "images": [str(i) for i in row.image_ids if i]})
        elif row.username != seat:  # the partner's locks as they happened; the seat's own are the person's to make
            lines.append({"kind": str(row.kind), "who": str(row.username), "mine": False, "image": str(row.image_id)})
    order = _steps(loaded, dialog_id)
    earlier = [(order[number][0], move["image_id"]) for number, move in enumerate(moves[:len(order)])]
    view = {"step": step, "round": round_number, "rank": rank, "done": done, "lines": lines,
            "ranked": [image for r, image in earlier if r == round_number]}
    if step > 1:
        view["human_before"] = human_move(loaded, dialog_id, seat, step - 1)
    return view


def checked_move(loaded: LoadedCorpus, dialog_id: str, seat: str, step: int, move: Any, earlier: Sequence[Any]) -> dict:
    """``{"image_id": ...}``: an image of the round's board that the person has not ranked yet."""
    if seat not in seats(loaded, dialog_id):
        raise ValueError(f"{dialog_id} has no player {seat!r}")
    image = move.get("image_id") if isinstance(move, dict) else None
    if not isinstance(image, str) or not image:
        raise ValueError('the move must be {"image_id": "..."}: the image locked')
    round_number, _ = where(loaded, dialog_id, step)
    rounds = _rounds(loaded, dialog_id)
    board_id = rounds.loc[rounds["round"] == round_number, "board_id"].iloc[0]
    boards = loaded.frames["boards"]
    if image not in set(boards.loc[boards["board_id"] == board_id, "image_ids"].iloc[0]):
        raise ValueError(f"{image[:60]} is not on the board of round {round_number}")
    order = _steps(loaded, dialog_id)
    ranked = [m["image_id"] for number, m in enumerate(earlier[:len(order)]) if order[number][0] == round_number]
    if image in ranked:
        raise ValueError(f"{image[:60]} is ranked already (rank {ranked.index(image) + 1})")
    return {"image_id": image}


def run_lines(loaded: LoadedCorpus, dialog_id: str, seat: str, moves: Sequence[Any]) -> list[dict]:
    """One line per round played: the images in the order the person locked them."""
    order = _steps(loaded, dialog_id)
    by_round: dict[int, list[str]] = {}
    for number, move in enumerate(moves[:len(order)]):
        by_round.setdefault(order[number][0], []).append(move["image_id"])
    return [{"interaction_id": dialog_id, "round_number": round_number, "ranking": ranking}
            for round_number, ranking in by_round.items()]


def human_move(loaded: LoadedCorpus, dialog_id: str, seat: str, step: int) -> dict:
    """The image the pair gave the step's rank."""
    round_number, rank = where(loaded, dialog_id, step)
    return {"image_id": _pair_ranks(loaded, dialog_id)[round_number][rank - 1]}


def _round_row(run, dialog_id: str, round_number: int) -> Optional[pd.Series]:
    rankings = run.frames["rankings"]
    row = rankings[(rankings["interaction_id"] == dialog_id) & (rankings["round_number"] == round_number)]
    return None if row.empty else row.iloc[0]


def step_figures(loaded: LoadedCorpus, run, dialog_id: str, seat: str, step: int) -> list[tuple[str, float, float]]:
    """The mean rank correlation over the rounds so far (the play's score), and this round's Spearman rho, Kendall
    tau and exact positions, on the images ranked so far; the pair's own ranks agree with themselves (1)."""
    import math

    round_number, rank = where(loaded, dialog_id, step)
    rankings = run.frames["rankings"]
    mine = rankings[(rankings["interaction_id"] == dialog_id) & rankings["spearman_rho"].notna()]
    figures = [("rank correlation so far (Spearman, mean over rounds)",
                float(mine["spearman_rho"].mean()) if len(mine) else math.nan, 1.0 if len(mine) else math.nan)]
    row = _round_row(run, dialog_id, round_number)
    if row is not None:
        some = int(row["n_ranked"]) >= 2
        figures += [(f"round {round_number}: Spearman rho", float(row["spearman_rho"]), 1.0 if some else math.nan),
                    (f"round {round_number}: Kendall tau", float(row["kendall_tau"]), 1.0 if some else math.nan),
                    (f"round {round_number}: exact positions", float(row["exact_positions"]), float(row["n_ranked"]))]
    return figures
