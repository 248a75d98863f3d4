"""Two people playing A Game Of Sorts live (issue 50): the rules of its events and its finished games written as the
corpus's JSON Lines files (``writer``), a ``LiveRules`` (``dialogue_dashboard.plugin``).

The item is a game (``game_7_toys_1``): ``setup["shared"]["boards"]``, its boards in the order played (each
``{"board_id", "board_number", "criterion", "instruction", "image_ids"}`` over the game's nine images, shown to
both), ``setup["shared"]["game_id"]``, and each player's shuffled layout of each round
(``setup["roles"][role]["layouts"]``: a list of nine image ids per round). Events, as the original game ran:

- ``message`` (``{"text", "image_ids"}``), seen by both: the sender marks the images it refers to first (an empty
  list: "no image"), images of the round's board.
- ``lock`` (``{"image_id"}``) of an image not yet ranked, while the player holds no lock; seen by the locker only
  (the partner cannot see a lock). When the partner's pending lock is on the same image, the image is ranked: a
  ``rank`` event (``{"image_id", "rank"}``) both see follows; on another image, both locks are released: an
  ``unlock_automatic`` event (``{"image_id"}``) per player, each seen by that player, follows.
- ``unlock`` (``{"image_id"}``): the player takes back their pending lock (the corpus's ``unlock manual``).
- ``next_round`` (``{}``) by either player once the round's nine images are ranked: the next board begins. Until
  then, messages belong to the ranked round (the corpus's ``round_active`` false).

A finished game is written as one interaction (its ObjectId made from the moment the second player joined and the
game id), its players named ``player-a-<game id>`` and ``player-b-<game id>`` (never their sign-in), times in
milliseconds made strictly increasing (the corpus never repeats one within an interaction). The ranks are not
written: the reader derives them from the locks, as for the released corpus.
"""
from __future__ import annotations

import random
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from corpora.gos.data.ranking import LOCK, UNLOCK_AUTOMATIC, UNLOCK_MANUAL
from corpora.gos.data.writer import Board, CollectedInteraction, CollectedRound, Lock, Message, object_id, write_corpus

ROLES = ("Player A", "Player B")
IMAGES_PER_BOARD = 9


def items(loaded: Any) -> list[str]:
    """The games whose boards are known, in the corpus's order."""
    boards = loaded.frames["boards"]
    return list(dict.fromkeys(boards["game_id"].astype(str)))


def dialog_items(loaded: Any, dialog_ids: Sequence[str]) -> list[str]:
    """The games the dialogs ``dialog_ids`` (a slice's) played, each once in their order, those whose boards are
    known."""
    dialogs = loaded.frames["dialogs"]
    game_of = dict(zip(dialogs["dialog_id"].astype(str), dialogs["game_id"].astype(str)))
    known = set(items(loaded))
    return [g for g in dict.fromkeys(game_of.get(str(d), "") for d in dialog_ids) if g in known]


def setup(loaded: Any, item: str, seed: int) -> dict:
    """Both players are shown the game's boards in board order (a round each); each player a layout of the nine
    images per round, shuffled with ``seed`` (the game shuffled each player's board)."""
    boards = loaded.frames["boards"]
    mine = boards[boards["game_id"].astype(str) == item].sort_values("board_number")
    if mine.empty:
        raise ValueError(f"the corpus has no game {item!r:.40}")
    played: list[dict[str, Any]] = [{"board_id": str(b), "board_number": int(n), "criterion": str(c), "instruction": str(i),
               "image_ids": [str(image) for image in images]}
              for b, n, c, i, images in zip(mine["board_id"], mine["board_number"], mine["criterion"],
                                            mine["instruction"], mine["image_ids"])]
    draw = random.Random(seed)
    layouts = {role: [draw.sample(board["image_ids"], len(board["image_ids"])) for board in played] for role in ROLES}
    return {"shared": {"game_id": item, "boards": played},
            "roles": {role: {"layouts": layouts[role]} for role in ROLES}}


def _boards(setup: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    boards = (setup.get("shared") or {}).get("boards")
    if not isinstance(boards, list) or not boards or not all(
            isinstance(b, Mapping) and isinstance(b.get("image_ids"), list) and len(b["image_ids"]) == IMAGES_PER_BOARD
            for b in boards):
        raise ValueError("the game's setup holds no boards of nine images")
    return boards


def _state(earlier: Sequence[Any], roles: Sequence[str]) -> tuple[int, dict[str, Optional[str]], list[str]]:
    """(the round under way, from 1; each role's pending lock; the images ranked in that round, in rank order)."""
    number, pending = 1, dict.fromkeys(roles)
    ranked: list[str] = []
    for event in earlier:
        if event.kind == "next_round":
            number, pending, ranked = number + 1, dict.fromkeys(roles), []
        elif event.kind == "lock":
            pending[event.role] = event.payload["image_id"]
        elif event.kind in ("unlock", "unlock_automatic"):
            pending[event.role] = None
        elif event.kind == "rank":
            ranked.append(event.payload["image_id"])
            pending = dict.fromkeys(roles)
    return number, pending, ranked


def checked_event(role: str, kind: str, payload: Any, earlier: Sequence[Any],
                  setup: Mapping[str, Any]) -> tuple[Any, Optional[str], tuple]:
    """A marked message, a lock or unlock that the game allows, the next round (see the module's docstring)."""
    if not isinstance(payload, Mapping):
        raise ValueError("an event is a JSON object")
    boards = _boards(setup)
    number, pending, ranked = _state(earlier, ROLES)
    images = boards[number - 1]["image_ids"]
    done = len(ranked) == len(images)
    if kind == "message":
        marked = payload.get("image_ids")
        if not isinstance(marked, list) or any(image not in images for image in marked) or \
                len(set(marked)) != len(marked):
            raise ValueError("mark the images of this board the message refers to first (none: \"no image\")")
        return {"text": str(payload.get("text", "")), "image_ids": marked}, None, ()
    if kind == "next_round":
        if not done or number == len(boards):
            raise ValueError("the next round begins once this round's nine images are ranked" if not done
                             else "this was the last round")
        return {}, None, ()
    image = payload.get("image_id")
    if kind == "unlock":
        if pending[role] is None or pending[role] != image:
            raise ValueError(f"there is no lock of yours on {image!r:.40} to take back")
        return {"image_id": image}, role, ()
    if kind != "lock":
        raise ValueError(f"{kind!r:.30} is not an event of this game (message, lock, unlock, next_round)")
    if image not in images or image in ranked:
        raise ValueError(f"{image!r:.40} is not an image of this board still to rank")
    if pending[role] is not None:
        raise ValueError("take back your lock before locking another image")
    partner = ROLES[1 - ROLES.index(role)]
    if pending[partner] == image:
        return {"image_id": image}, role, ((role, "rank", {"image_id": image, "rank": len(ranked) + 1}, None),)
    if pending[partner] is not None:  # a mismatch: both locks released, each player told of their own
        return {"image_id": image}, role, ((role, "unlock_automatic", {"image_id": image}, role),
                                           (partner, "unlock_automatic", {"image_id": pending[partner]}, partner))
    return {"image_id": image}, role, ()


def _ms(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp).timestamp() * 1000)


def _interaction(record: Any) -> tuple[CollectedInteraction, list[Board]]:
    game, setup = record.game, record.setup
    where = f"live game {game.id}"
    try:
        boards_played = _boards(setup)
        game_id = str((setup.get("shared") or {}).get("game_id") or "")
        boards = [Board(game_id, int(b["board_number"]), str(b["board_id"]), str(b["criterion"]),
                        str(b["instruction"]), tuple(b["image_ids"])) for b in boards_played]
        layouts = [((setup.get("roles") or {}).get(role) or {}).get("layouts") or [] for role in ROLES]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{where}: its setup is not a game of boards ({exc})") from None
    names = {role: f"player-{role[-1].lower()}-{game.id}" for role in ROLES}
    writer_kind = {"lock": LOCK, "unlock": UNLOCK_MANUAL, "unlock_automatic": UNLOCK_AUTOMATIC}
    per_round: list[list[Union[Message, Lock]]] = [[]]
    last = 0
    for event in record.events:
        if event.kind == "next_round":
            per_round.append([])
            continue
        if event.kind not in writer_kind and event.kind != "message":
            continue  # ranks: the reader derives them from the locks
        last = max(_ms(event.at), last + 1)
        username = names[event.role]
        if event.kind == "message":
            per_round[-1].append(Message(username, event.payload["text"], tuple(event.payload["image_ids"]), last))
        else:
            per_round[-1].append(Lock(username, writer_kind[event.kind], event.payload["image_id"], last))
    rounds = []
    for number, events in enumerate(per_round):
        if number >= len(boards) or any(len(layout) <= number for layout in layouts):
            raise ValueError(f"{where}: round {number + 1} has no board or no layout for each player")
        rounds.append(CollectedRound(boards[number].board_id,
                                     {names[role]: tuple(layouts[i][number]) for i, role in enumerate(ROLES)},
                                     tuple(events)))
    interaction = CollectedInteraction(object_id(_ms(game.started_at), game.id), game_id,
                                       (names[ROLES[0]], names[ROLES[1]]), tuple(rounds))
    return interaction, boards


def write_games(folder: Path, records: Sequence[Any], split: str) -> Path:
    """The finished games as the corpus's six JSON Lines files in ``folder``; the folder. (The corpus has no
    splits; ``split`` is not written.)"""
    interactions: list[CollectedInteraction] = []
    boards: dict[str, Board] = {}
    for record in records:
        interaction, played = _interaction(record)
        interactions.append(interaction)
        for board in played:
            if boards.setdefault(board.board_id, board) != board:
                raise ValueError(f"live game {record.game.id}: board {board.board_id} differs from another game's")
    return write_corpus(Path(folder), interactions, list(boards.values()))
