"""The replay view model of one round at one step, and the labels the replay page shows.

``replay_step(loaded, interaction_id, step, round)`` is meant for ``ui.cached.derived``: it is
pure, touches only the requested round, and returns a small picklable ``ReplayStep`` (boards as PNG
bytes, tables as small frames) describing the game exactly as it stood after that step.
"""
from __future__ import annotations

import io
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import pandas as pd

from corpora.gos.data.agreement import ranking_agreement
from corpora.gos.data.frames import STEP_MESSAGE
from corpora.gos.data.render import TileLabel, colour_for, render_board, short_ids
from dialogue_dashboard.plugin import LoadedCorpus

if TYPE_CHECKING:
    from PIL import Image


@dataclass(frozen=True)
class PlayerBoard:
    username: str
    role: str  # "Player A" / "Player B" (order of first appearance in the interaction)
    png: bytes
    pending: Optional[str]  # this player's own pending lock after the step (invisible to the partner)
    pending_label: Optional[str] = None  # that image's label, as its tile shows it (``image_short_labels``)


@dataclass(frozen=True)
class ReplayStep:
    dialog_id: str  # the interaction id
    round: int
    n_rounds: int
    step: int
    n_steps: int
    game_id: str
    category: str
    board_id: str
    board_number: int
    criterion: str
    instruction: str
    boards: tuple[PlayerBoard, ...]
    event: str  # the step's event in words
    event_level: str  # info | success (a rank) | warning (mismatch or log anomaly)
    transcript: pd.DataFrame  # every step of the round: step, time, role, player, event, later
    ranks: pd.DataFrame  # ranks agreed up to this step: rank, image, at_step, time
    round_complete: bool  # all images ranked at this step, or the last step
    comparison: Optional[pd.DataFrame] = None  # rank × interaction (image labels), this board, all plays
    agreement: Optional[pd.DataFrame] = None  # Kendall tau / Spearman rho per pair of plays


def image_short_labels(loaded: LoadedCorpus) -> dict[str, str]:
    """One label per image, used everywhere (tiles, lock captions, transcript, rank tables, charts): the
    shortest prefix of its id, at least 6 characters, that tells it apart from every other image of the corpus."""
    return short_ids(sorted(loaded.frames["images"]["image_id"].astype("str").unique()))


def image_labels(loaded: LoadedCorpus, game_id: str) -> dict[str, TileLabel]:
    images = loaded.frames["images"]
    images = images[images["game_id"] == game_id]
    shorts = image_short_labels(loaded)
    return {row.image_id: TileLabel(row.category, shorts[row.image_id], colour_for(row.image_id, int(row.game_index)))
            for row in images.itertuples(index=False)}


def dialog_labels(loaded: LoadedCorpus) -> dict[str, str]:
    """interaction_id → "pastries · fabulous-chicken-6978 & puny-badger-7135 · 2021-12-17 (61bcbb1f)"."""
    dialogs = loaded.dialogs
    return {row.dialog_id: f"{row.category} · {row.player_a} & {row.player_b} · {row.started_at:%Y-%m-%d} ({row.dialog_id[:8]})"
            for row in dialogs.itertuples(index=False)}


def round_steps(loaded: LoadedCorpus, interaction_id: str) -> dict[int, int]:
    """round → number of replay steps, for the interaction's rounds in play order."""
    rounds = loaded.frames["rounds"]
    mine = rounds[rounds["interaction_id"] == interaction_id].sort_values("round")
    return {int(r): int(n) for r, n in zip(mine["round"], mine["n_steps"])}


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60:d}:{seconds % 60:02d}"


def _describe(step: pd.Series, name, partner_pending: Optional[str]) -> tuple[str, str, str]:
    """(long description, short transcript line, level) of one step; ``name`` labels image ids."""
    who, kind = step["username"], step["kind"]
    if kind == STEP_MESSAGE:
        refs = [name(i) for i in step["image_ids"]]
        marked = f" — marks {', '.join(refs)}" if refs else " — marks no image"
        return f"{who} wrote: “{step['text']}”{marked}", step["text"], "info"
    image = name(step["image_id"])
    if kind == "lock":
        if pd.notna(step["produced_rank"]):
            rank = int(step["produced_rank"])
            text, short, level = (f"{who} locked {image} — the partner had locked it too: {image} is rank {rank}",
                                  f"🔒 locked {image} → rank {rank}", "success")
        elif step["mismatch"]:
            other = name(partner_pending) if partner_pending else "another image"
            text, short, level = (f"Mismatch: {who} locked {image}, the partner had locked {other} — both locks are released",
                                  f"🔒 locked {image} ✗ mismatch with {other}", "warning")
        else:
            text, short, level = (f"{who} locked {image} (the partner cannot see this lock)", f"🔒 locked {image}", "info")
    elif kind == "unlock automatic":
        text, short, level = (f"{who}'s lock on {image} was released automatically after the mismatch",
                              f"🔓 {image} released (mismatch)", "info")
    else:
        text, short, level = f"{who} withdrew the lock on {image} (manual unlock)", f"🔓 withdrew {image}", "info"
    if step["anomaly"]:
        text, level = f"{text}. Log anomaly: {step['anomaly']}", "warning"
    return text, short, level


def player_layout(loaded: LoadedCorpus, interaction_id: str, round_number: int, username: str, board_images: list[str]) -> list[str]:
    layouts = loaded.frames["layouts"]
    mine = layouts[(layouts["interaction_id"] == interaction_id) & (layouts["round"] == round_number)
                   & (layouts["username"] == username)].sort_values("position")
    # Without a mapping the player is shown the game's config order (the real data always has one).
    return list(mine["image_id"]) if len(mine) else list(board_images)


def _png(image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def _comparison(loaded: LoadedCorpus, board_id: str, this_interaction: str, name) -> tuple[pd.DataFrame, pd.DataFrame]:
    ranks = loaded.frames["ranks"]
    ranks = ranks[ranks["board_id"] == board_id]
    starts = loaded.dialogs.set_index("dialog_id")["started_at"]
    plays = sorted(ranks["interaction_id"].unique(), key=lambda i: (i != this_interaction, starts.get(i, pd.NaT)))
    column = {i: f"{i[:8]}{' (this play)' if i == this_interaction else ''}" for i in plays}
    table = pd.DataFrame({"rank": sorted(ranks["rank"].unique())})
    rankings = {}
    for interaction_id in plays:
        mine = ranks[ranks["interaction_id"] == interaction_id]
        rankings[interaction_id] = dict(zip(mine["image_id"], mine["rank"]))
        labels = dict(zip(mine["rank"], mine["image_id"].map(name)))
        table[column[interaction_id]] = table["rank"].map(labels).fillna("").astype("str")
    rows = []
    for other in plays:
        if other == this_interaction:
            continue
        n_common, tau, rho = ranking_agreement(rankings[this_interaction], rankings[other])  # as the outcomes page
        rows.append({"compared with": column[other], "images in common": n_common,
                     "Kendall tau": round(tau, 3), "Spearman rho": round(rho, 3)})
    agreement = pd.DataFrame(rows, columns=["compared with", "images in common", "Kendall tau", "Spearman rho"])
    return table, agreement


@dataclass
class _Round:
    """What every step of one round shares: its rows of the frames, board, labels and players' layouts."""

    round_row: pd.Series
    steps: pd.DataFrame  # in step order
    board: pd.Series
    dialog: pd.Series
    labels: dict
    players: list[tuple[str, str, str]]  # username, role, pending column
    layouts: dict[str, list[str]]  # username → image ids in that player's board order
    ranks: pd.DataFrame  # this round's agreed ranks

    def name(self, image_id: Optional[str]) -> str:
        return self.labels[image_id].short_id if image_id in self.labels else str(image_id)[:8]


# The last few rounds looked at, per loaded corpus (frames are immutable): the replay's steps and an export's
# pictures of one round each filtered the whole corpus's frames again, most of their time.
_ROUNDS: "OrderedDict[tuple[int, str, int], tuple[weakref.ref, Optional[_Round]]]" = OrderedDict()
_ROUNDS_KEPT = 8
_ROUNDS_LOCK = threading.Lock()


def _round(loaded: LoadedCorpus, dialog_id: str, round_number: int) -> Optional[_Round]:
    key = (id(loaded), dialog_id, round_number)
    with _ROUNDS_LOCK:
        kept = _ROUNDS.get(key)
        if kept is not None and kept[0]() is loaded:
            _ROUNDS.move_to_end(key)
            return kept[1]
    found = _read_round(loaded, dialog_id, round_number)
    with _ROUNDS_LOCK:
        _ROUNDS[key] = (weakref.ref(loaded), found)
        while len(_ROUNDS) > _ROUNDS_KEPT:
            _ROUNDS.popitem(last=False)
    return found


def _read_round(loaded: LoadedCorpus, dialog_id: str, round_number: int) -> Optional[_Round]:
    frames = loaded.frames
    rounds = frames["rounds"]
    match = rounds[(rounds["interaction_id"] == dialog_id) & (rounds["round"] == round_number)]
    if match.empty:
        return None
    round_row = match.iloc[0]
    steps = frames["steps"]
    steps = steps[(steps["interaction_id"] == dialog_id) & (steps["round"] == round_number)].sort_values("step")
    boards = frames["boards"]
    board = boards[boards["board_id"] == round_row["board_id"]].iloc[0]
    dialogs = loaded.dialogs
    dialog = dialogs[dialogs["dialog_id"] == dialog_id].iloc[0]
    players = [(dialog["player_a"], "Player A", "pending_a"), (dialog["player_b"], "Player B", "pending_b")]
    layouts = {username: player_layout(loaded, dialog_id, round_number, username, list(board["image_ids"]))
               for username, _role, _column in players if username}
    ranks = frames["ranks"]
    ranks = ranks[(ranks["interaction_id"] == dialog_id) & (ranks["round"] == round_number)]
    return _Round(round_row, steps, board, dialog, image_labels(loaded, round_row["game_id"]), players, layouts, ranks)


@dataclass
class _BoardsAt:
    """What the boards of one round show after one step (the part of a replay step that a snapshot needs)."""

    round: _Round
    step: int
    current: pd.Series
    given: pd.DataFrame
    boards: list[tuple[str, str, "Image.Image", Optional[str]]]  # username, role, picture, pending lock
    partner_pending: Optional[str]


def _boards_at(loaded: LoadedCorpus, dialog_id: str, step: int, round_number: int) -> Optional[_BoardsAt]:
    this = _round(loaded, dialog_id, round_number)
    if this is None:
        return None
    step = min(max(1, int(step)), len(this.steps))
    current = this.steps.iloc[step - 1]
    given = this.ranks[this.ranks["rank"] <= int(current["ranks_so_far"])].sort_values("rank")
    ranked = dict(zip(given["image_id"], given["rank"]))

    # On a mismatch each player's board flashes that player's own rejected lock.
    mismatched: dict[str, Optional[str]] = {}
    if current["kind"] == "lock" and bool(current["mismatch"]):
        for username, _role, column in this.players:
            mismatched[username] = current[column]
    player_boards = []
    partner_pending = None
    for username, role, column in this.players:
        if not username:
            continue
        pending = current[column] if pd.notna(current[column]) else None
        if username != current["username"] and pending:
            partner_pending = pending
        highlighted = set(current["image_ids"]) if current["kind"] == STEP_MESSAGE and current["username"] == username else set()
        image = render_board(this.layouts[username], this.labels,
                             ranks=ranked, pending=None if mismatched.get(username) else pending,
                             highlighted=highlighted, mismatch=mismatched.get(username), image_folder=loaded.assets)
        player_boards.append((username, role, image, pending))
    return _BoardsAt(this, step, current, given, player_boards, partner_pending)


def replay_step(loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None) -> Optional[ReplayStep]:
    """Round ``round`` (1 when None) as it stood after ``step`` (clamped to the round's steps); None for an
    unknown round."""
    round_number = int(round or 1)
    at = _boards_at(loaded, dialog_id, step, round_number)
    if at is None:
        return None
    this, step, current, given = at.round, at.step, at.current, at.given
    round_row, steps, board, dialog, name = this.round_row, this.steps, this.board, this.dialog, this.name
    n_steps = len(steps)
    player_boards = [PlayerBoard(username, role, _png(image), pending, name(pending) if pending else None)
                     for username, role, image, pending in at.boards]
    rank_steps = steps.loc[steps["produced_rank"].notna(), ["produced_rank", "step"]]
    rank_step = dict(zip(rank_steps["produced_rank"].astype(int), rank_steps["step"]))
    event, _short, level = _describe(current, name, at.partner_pending)

    described = [_describe(row, name, None) for row in steps.to_dict("records")]
    transcript = pd.DataFrame({
        "step": steps["step"].to_numpy(), "time": [_clock(t) for t in steps["round_time_s"]],
        "role": steps["role"].to_numpy(), "player": steps["username"].to_numpy(),
        "event": [short for _text, short, _level in described],
        "kind": steps["kind"].to_numpy(), "later": (steps["step"] > step).to_numpy(),
    })
    ranks_table = pd.DataFrame({
        "rank": given["rank"].to_numpy(), "image": [name(i) for i in given["image_id"]],
        "image_id": given["image_id"].to_numpy(), "at step": [rank_step.get(int(r), 0) for r in given["rank"]],
        "time": [_clock(t) for t in given["round_time_s"]],
    })
    complete = int(current["ranks_so_far"]) >= len(board["image_ids"]) or step == n_steps
    comparison = agreement = None
    if complete:
        comparison, agreement = _comparison(loaded, round_row["board_id"], dialog_id, name)
    return ReplayStep(
        dialog_id=dialog_id, round=round_number, n_rounds=int(dialog["n_rounds"]), step=step,
        n_steps=n_steps, game_id=round_row["game_id"], category=str(dialog["category"]), board_id=round_row["board_id"],
        board_number=int(round_row["board_number"]), criterion=str(board["criterion"]), instruction=str(board["instruction"]),
        boards=tuple(player_boards), event=event, event_level=level, transcript=transcript, ranks=ranks_table,
        round_complete=complete, comparison=comparison, agreement=agreement,
    )


def step_count(loaded: LoadedCorpus, dialog_id: str, round: Optional[int] = None) -> int:
    """Replay steps of one round (round 1 when none is given)."""
    return round_steps(loaded, dialog_id).get(int(round or 1), 0)


def snapshot(loaded: LoadedCorpus, dialog_id: str, step: int, round: Optional[int] = None):
    """Both players' boards after ``step`` as one picture (for presentation and GIF/PNG export)."""
    from dialogue_dashboard.plugin import image_grid

    at = _boards_at(loaded, dialog_id, step, int(round or 1))  # the boards alone: no PNG, transcript or tables
    assert at is not None, f"{dialog_id} has no round {round or 1}"
    return image_grid([image for _, _, image, _ in at.boards], [f"{role}: {username}" for username, role, _, _ in at.boards])


def same_board_plays(loaded: LoadedCorpus, dialog_id: str, round: Optional[int]) -> list[tuple[str, int]]:
    """Other (interaction, round) plays of the board played in ``dialog_id``'s ``round``, for Compare."""
    rounds = loaded.frames.get("rounds")
    if rounds is None or "board_id" not in rounds or round is None:
        return []
    mine = rounds[(rounds["interaction_id"] == dialog_id) & (rounds["round"] == round)]
    if mine.empty:
        return []
    others = rounds[(rounds["board_id"] == mine["board_id"].iloc[0]) & (rounds["interaction_id"] != dialog_id)]
    return [(str(i), int(r)) for i, r in zip(others["interaction_id"], others["round"])]
