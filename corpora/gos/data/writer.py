"""Writing collected A Game Of Sorts interactions (issue 50: two people playing live) as the corpus's six JSON Lines
files, so that the same reader and frames the app uses for the released corpus (``reader``, ``frames``) read them
back.

A collected interaction is a ``CollectedInteraction``: its id (a MongoDB ObjectId whose first 8 hex digits are its
creation time, as the corpus's are), its game, its two players and, per round, the board played, each player's
layout and the round's messages and lock events in the order they happened. ``write_corpus`` writes:

- ``a-game-of-sorts_log_interaction_all.jsonl``: messages (``message_number`` per round from 1, ``round_active``
  false for a message sent after the round's ninth rank, ``image_ids`` with ``[null]`` for "no image") and lock
  events (``lock``, ``unlock manual``, ``unlock automatic``, ``lock_event_number`` per round from 1), sorted by
  ``timestamp`` over the whole file, as the corpus's is;
- ``…_board_mappings.jsonl``: each player's layout of each round (positions 1..9, left to right, top to bottom);
- ``…_game_config.jsonl``: the boards of the games played (criterion, instruction, the nine image ids);
- the three survey files, empty unless questions and answers are given (a study may run no survey).

The ranks are not written: the corpus has no rank record, the reader derives them from the lock events
(``ranking.replay_locks``), and so does ``round_active`` here.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

from corpora.gos.data import reader
from corpora.gos.data.ranking import LockEvent, replay_locks

OBJECT_ID = re.compile(r"^[0-9a-f]{24}$")


@dataclass(frozen=True)
class Message:
    """A chat message: its sender, text, the images the sender marked it as referring to (empty: "no image") and
    when the server received it (Unix milliseconds)."""

    username: str
    text: str
    image_ids: tuple[str, ...]
    timestamp: int


@dataclass(frozen=True)
class Lock:
    """A lock event: ``lock``, ``unlock manual`` or ``unlock automatic`` of ``image_id`` by ``username``."""

    username: str
    event_type: str
    image_id: str
    timestamp: int


@dataclass(frozen=True)
class Board:
    """A board of the game configuration: a scenario (criterion and instruction) over the game's images."""

    game_id: str
    board_number: int
    board_id: str
    criterion: str
    instruction: str
    image_ids: tuple[str, ...]

    def record(self) -> dict:
        return {"game_id": self.game_id, "board_number": self.board_number, "board_id": self.board_id,
                "criterion": self.criterion, "instruction": self.instruction, "image_ids": list(self.image_ids)}


@dataclass(frozen=True)
class CollectedRound:
    """One round: the board played, each player's layout (username → the nine image ids at positions 1..9) and its
    messages and lock events in the order they happened."""

    board_id: str
    layouts: Mapping[str, tuple[str, ...]]
    events: tuple[Union[Message, Lock], ...]


@dataclass(frozen=True)
class CollectedInteraction:
    interaction_id: str
    game_id: str
    players: tuple[str, str]
    rounds: tuple[CollectedRound, ...]


@dataclass(frozen=True)
class Survey:
    """A survey's questions (``survey_config`` records) and answers (per interaction and player, and per player)."""

    questions: tuple[dict, ...] = ()
    interaction_answers: tuple[dict, ...] = ()
    user_answers: tuple[dict, ...] = ()


@dataclass
class _Counters:
    messages: int = 0
    locks: int = 0


def object_id(created_ms: int, serial: int) -> str:
    """A 24-hex ObjectId whose first 8 hex digits are the creation time in Unix seconds, as the corpus's ids are
    (the reader checks the log's times against it); ``serial`` tells apart interactions created in one second."""
    return f"{created_ms // 1000:08x}{serial:016x}"[:24]


def _round_records(interaction: CollectedInteraction, number: int, turn: CollectedRound,
                   boards: Mapping[str, Board]) -> list[dict]:
    where = f"interaction {interaction.interaction_id} round {number}"
    board = boards.get(turn.board_id)
    if board is None or board.game_id != interaction.game_id:
        raise ValueError(f"{where}: board {turn.board_id} is not a board of {interaction.game_id}")
    images = set(board.image_ids)
    if set(turn.layouts) != set(interaction.players) or any(sorted(layout) != sorted(board.image_ids)
                                                            for layout in turn.layouts.values()):
        raise ValueError(f"{where}: each player's layout holds the board's images once")
    # The ninth rank's time: a message after it was sent after the round ended (round_active false).
    locks = [LockEvent(e.username, e.event_type, e.image_id, e.timestamp) for e in turn.events if isinstance(e, Lock)]
    ranking = replay_locks(locks, interaction.players).ranking
    ended = ranking[len(images) - 1][1] if len(ranking) >= len(images) else None
    base = {"interaction_id": interaction.interaction_id, "game_id": interaction.game_id, "board_id": turn.board_id,
            "round_number": number}
    counters, records = _Counters(), []
    for event in turn.events:
        if event.username not in interaction.players:
            raise ValueError(f"{where}: {event.username} is not a player of the interaction")
        if isinstance(event, Message):
            if not event.text or any(image not in images for image in event.image_ids):
                raise ValueError(f"{where}: a message needs text, and refers only to the board's images")
            counters.messages += 1
            records.append({**base, "round_active": ended is None or event.timestamp <= ended,
                            "message_number": counters.messages, "username": event.username, "body_text": event.text,
                            "image_ids": list(event.image_ids) if event.image_ids else [None], "timestamp": event.timestamp})
        else:
            if event.event_type not in reader.LOCK_EVENT_TYPES or event.image_id not in images:
                raise ValueError(f"{where}: {event.event_type!r} of {event.image_id} is no lock event of this board")
            counters.locks += 1
            records.append({**base, "lock_event_number": counters.locks, "username": event.username,
                            "lock_event_type": event.event_type, "image_id": event.image_id,
                            "timestamp": event.timestamp})
    return records


def interaction_records(interaction: CollectedInteraction, boards: Mapping[str, Board]) -> tuple[list[dict], list[dict]]:
    """(log records, board mapping records) of one interaction. ValueError naming the interaction and round when it
    cannot be written as the corpus's files are: a time not after the one before it (the reader orders by time and
    the corpus never repeats one within an interaction), a time the id's creation time does not allow, a player or
    image that is not the game's."""
    if not OBJECT_ID.match(interaction.interaction_id):
        raise ValueError(f"interaction id {interaction.interaction_id!r} is not a 24-hex ObjectId")
    if len(set(interaction.players)) != 2:
        raise ValueError(f"interaction {interaction.interaction_id}: two different players play it")
    log, mappings = [], []
    for number, turn in enumerate(interaction.rounds, start=1):
        log += _round_records(interaction, number, turn, boards)
        for username in interaction.players:
            mappings.append({"interaction_id": interaction.interaction_id, "game_id": interaction.game_id,
                             "board_id": turn.board_id, "round_number": number, "username": username,
                             "mapping": [{"position": p, "image_id": i}
                                         for p, i in enumerate(turn.layouts[username], start=1)]})
    times = [record["timestamp"] for record in log]
    created = int(interaction.interaction_id[:8], 16) * 1000
    if any(later <= earlier for earlier, later in zip(times, times[1:])):
        raise ValueError(f"interaction {interaction.interaction_id}: its events' times must increase strictly")
    if times and not created - 3_600_000 <= times[0] and times[-1] <= created + 86_400_000:
        raise ValueError(f"interaction {interaction.interaction_id}: its events lie outside the day after its creation")
    return log, mappings


def _write_lines(path: Path, records: Sequence[dict]) -> None:
    text = "".join(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n" for record in records)
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        part.write_text(text, encoding="utf-8")
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def write_corpus(folder: Path, interactions: Sequence[CollectedInteraction], boards: Sequence[Board],
                 survey: Optional[Survey] = None) -> Path:
    """Write ``interactions`` (over ``boards``, the configuration of every game they play) as the six JSON Lines
    files in ``folder``, each replaced whole; the folder. ValueError when an interaction cannot be written."""
    folder = Path(folder)
    by_id = {board.board_id: board for board in boards}
    if len(by_id) != len(boards):
        raise ValueError("a board id is given twice")
    if len({i.interaction_id for i in interactions}) != len(interactions):
        raise ValueError("an interaction id is given twice")
    log: list[dict] = []
    mappings: list[dict] = []
    for interaction in interactions:
        records, layouts = interaction_records(interaction, by_id)
        log += records
        mappings += layouts
    log.sort(key=lambda record: record["timestamp"])  # stable: within an interaction the order is the events'
    played = {interaction.game_id for interaction in interactions}
    config = sorted((b for b in boards if b.game_id in played), key=lambda b: (b.game_id, b.board_number))
    survey = survey or Survey()
    folder.mkdir(parents=True, exist_ok=True)
    files: tuple[tuple[str, Sequence[dict]], ...] = (
        (reader.LOG_FILE, log), (reader.MAPPINGS_FILE, mappings), (reader.GAME_CONFIG_FILE, [b.record() for b in config]),
        (reader.SURVEY_CONFIG_FILE, survey.questions), (reader.SURVEY_INTERACTION_FILE, survey.interaction_answers),
        (reader.SURVEY_USER_FILE, survey.user_answers))
    for name, lines in files:
        _write_lines(folder / name, lines)
    return folder
