"""Parsing A Game Of Sorts into the frames the dashboard uses.

``build_frames(path, progress)`` reads the six JSON Lines files, splits the mixed interaction log into
messages and lock events, reconstructs the agreed ranking of every round (``ranking.py``) and interleaves
messages and lock events into replay ``steps`` that carry the game state after each step. Everything is
keyed by ``interaction_id`` (= ``dialog_id``) and ``round`` (the play order, not the board number; the files call it
``round_number``).
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from corpora.gos.data import reader
from corpora.gos.data.ranking import LockEvent, replay_locks
from corpora.gos.data.reader import Line
from corpora.gos.data.side_tables import SURVEY_COLUMNS, read_layouts, read_survey  # noqa: F401 - SURVEY_COLUMNS: part of this module's names
from corpora.gos.data.timestamps import STEP_MESSAGE, in_logged_order
from dialogue_dashboard.plugin import (
    LIMITS,
    UTTERANCE_COLUMNS,
    ProgressCallback,
    SkippedRecord,
    SkippedRecords,
    SourceError,
    no_progress,
    read_capped,
)

CORPUS = "gos"
SPLIT = "all"

GAME_ID_PATTERN = re.compile(r"^game_(\d+)_(.+)_(\d+)$")
OBJECT_ID_PATTERN = re.compile(r"^[0-9a-fA-F]{24}$")
README_IMAGE_ROW = re.compile(r"^\|\s*([^|\s]+)\s*\|\s*\[View\]\((https?://[^)\s]+)\)\s*\|\s*(?:\[View\]\((https?://[^)\s]+)\)|View)?")
WGET_LINE = re.compile(r"^wget\s+(https?://\S+)")



def category_of(game_id: str) -> str:
    """"game_4_mobile-phones_1" → "mobile phones" (the game's image category, human readable)."""
    match = GAME_ID_PATTERN.match(game_id)
    return (match.group(2) if match else game_id).replace("-", " ").replace("_", " ")


def game_number_of(game_id: str) -> Optional[int]:
    match = GAME_ID_PATTERN.match(game_id)
    return int(match.group(1)) if match else None


def object_id_time(object_id: str) -> pd.Timestamp:
    """A MongoDB ObjectId's creation time (its first 8 hex digits are Unix seconds), NaT otherwise."""
    if not OBJECT_ID_PATTERN.match(object_id):
        return pd.NaT
    return pd.Timestamp(int(object_id[:8], 16), unit="s", tz="UTC")


def _utc(ms) -> pd.Series:
    return pd.to_datetime(pd.Series(ms, dtype="int64"), unit="ms", utc=True)


# --- image sources ----------------------------------------------------------------------------------------

def _optional_text(path: Path) -> str:
    """A text file that only adds image links: empty when it is not a readable regular file of sane size
    (only URLs are taken from it, so undecodable bytes cannot change a figure)."""
    try:
        return read_capped(path, LIMITS["text"], "text file").decode("utf-8", errors="replace")
    except SourceError:
        return ""


def image_urls(folder: Path) -> dict[str, tuple[str, str]]:
    """image_id → (image URL, info URL) from the dataset README's tables, else from get_images.sh.

    Both files sit next to the data (snapshot layout) or in ``dataset/`` (repository layout); when
    neither is present the URLs stay empty."""
    urls: dict[str, tuple[str, str]] = {}
    for base in (folder, folder.parent):
        readme = base / "README.md"
        if readme.exists():
            for line in _optional_text(readme).splitlines():
                match = README_IMAGE_ROW.match(line.strip())
                if match:
                    urls.setdefault(match.group(1), (match.group(2), match.group(3) or ""))
        script = base / "get_images.sh"
        if script.exists():
            for line in _optional_text(script).splitlines():
                match = WGET_LINE.match(line.strip())
                if match:
                    url = match.group(1)
                    out = re.search(r"-O\s+\S*/([^/\s]+)\.jpg", line)
                    image_id = out.group(1) if out else url.rsplit("/", 1)[-1].removesuffix(".jpg")
                    urls.setdefault(image_id, (url, ""))
        if urls:
            break
    return urls


# --- the pieces -------------------------------------------------------------------------------------------

def _read_boards(folder: Path, skipped: list[SkippedRecord]) -> pd.DataFrame:
    lines = reader.read_jsonl(folder / reader.GAME_CONFIG_FILE, skipped)
    rows, seen = [], set()
    for line in reader.valid_lines(lines, reader.GAME_CONFIG_FIELDS, skipped, "board"):
        r = line.record
        if r["board_id"] in seen:
            skipped.append(SkippedRecord(line.where, f"board {r['board_id']} is listed twice; the first one is kept"))
            continue
        if len(r["image_ids"]) == 0 or len(set(r["image_ids"])) != len(r["image_ids"]):
            skipped.append(SkippedRecord(line.where, "board: image_ids must be distinct and not empty"))
            continue
        seen.add(r["board_id"])
        rows.append({"board_id": r["board_id"], "game_id": r["game_id"], "board_number": r["board_number"],
                     "criterion": r["criterion"], "instruction": r["instruction"], "image_ids": list(r["image_ids"])})
    if not rows:
        raise SourceError(folder / reader.GAME_CONFIG_FILE, "holds no usable board")
    return pd.DataFrame(rows).sort_values(["game_id", "board_number"], ignore_index=True)


def _games_and_images(boards: pd.DataFrame, folder: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    urls = image_urls(folder)
    games, images = [], []
    for game_id, group in boards.groupby("game_id", sort=True):
        order: list[str] = []
        for ids in group["image_ids"]:  # the game's images in config order (the same on every board)
            order += [i for i in ids if i not in order]
        games.append({"game_id": game_id, "game_number": game_number_of(game_id), "category": category_of(game_id),
                      "n_boards": len(group), "n_images": len(order)})
        for index, image_id in enumerate(order):
            url, info = urls.get(image_id, ("", ""))
            images.append({"image_id": image_id, "game_id": game_id, "category": category_of(game_id),
                           "game_index": index, "url": url, "info_url": info})
    games_frame = pd.DataFrame(games).astype({"game_number": "Int64"})
    return games_frame, pd.DataFrame(images).drop_duplicates("image_id", ignore_index=True)


def _read_log(folder: Path, boards: pd.DataFrame, skipped: list[SkippedRecord]) -> list[tuple[str, Line]]:
    """Valid log records as (kind, line), kind = "message" or the lock event type."""
    lines = reader.read_jsonl(folder / reader.LOG_FILE, skipped)
    if not lines:
        raise SourceError(folder / reader.LOG_FILE, "holds no record")
    board_ids = set(boards["board_id"])
    board_game = dict(zip(boards["board_id"], boards["game_id"]))
    board_images = {board: set(images) for board, images in zip(boards["board_id"], boards["image_ids"])}
    boards_per_game = boards.groupby("game_id")["board_id"].size().to_dict()
    records = []
    for line in lines:
        r = line.record
        if "message_number" in r:
            fields, what = reader.MESSAGE_FIELDS, "message"
        elif "lock_event_number" in r:
            fields, what = reader.LOCK_EVENT_FIELDS, "lock event"
        else:
            skipped.append(SkippedRecord(line.where, "neither a message (message_number) nor a lock event (lock_event_number)"))
            continue
        problem = reader.field_problem(r, fields)
        if problem:
            skipped.append(SkippedRecord(line.where, f"{what}: {problem}"))
            continue
        if what == "lock event" and r["lock_event_type"] not in reader.LOCK_EVENT_TYPES:
            skipped.append(SkippedRecord(line.where, f"lock event of unknown type {r['lock_event_type']!r}"))
            continue
        if r["board_id"] not in board_ids:
            skipped.append(SkippedRecord(line.where, f"{what}: board {r['board_id']!r} is not in {reader.GAME_CONFIG_FILE}"))
            continue
        problem = _outside_the_game(r, what, board_game[r["board_id"]], boards_per_game, board_images)
        if problem:
            skipped.append(SkippedRecord(line.where, f"{what}: {problem}"))
            continue
        records.append((STEP_MESSAGE if what == "message" else r["lock_event_type"], line))
    return in_logged_order(records, skipped)


# Plausible log times (Unix ms): the game ran in 2021; anything before 2000 or after 2100 (a zero, a
# seconds value, a runaway number) is no time of this log, and would stretch durations without a word.
EARLIEST_MS, LATEST_MS = 946_684_800_000, 4_102_444_800_000
# The interaction's ObjectId is created 11-73 s before its first event (FORMATS A.2) and a session lasts
# about an hour: an event an hour before its creation or a day after it is not a time of that session.
SESSION_BEFORE_MS, SESSION_AFTER_MS = 3_600_000, 86_400_000


def _created_ms(interaction_id: str) -> Optional[int]:
    if not OBJECT_ID_PATTERN.match(interaction_id):
        return None
    return int(interaction_id[:8], 16) * 1000


def _outside_the_game(r: dict, what: str, game_of_board: str, boards_per_game: dict, board_images: dict) -> Optional[str]:
    """Why a record's values cannot belong to the game it names (None when they can)."""
    if not EARLIEST_MS <= r["timestamp"] < LATEST_MS:
        return f"timestamp {r['timestamp']} is not a time of this log (Unix milliseconds between 2000 and 2100)"
    created = _created_ms(r["interaction_id"])
    if created is not None and not created - SESSION_BEFORE_MS <= r["timestamp"] <= created + SESSION_AFTER_MS:
        return (f"timestamp {r['timestamp']} is not within the session: interaction {r['interaction_id']} was created "
                f"at {created} (its ObjectId), and a session lasts hours, not days")
    if r["game_id"] != game_of_board:
        return f"board {r['board_id']} belongs to {game_of_board}, not to {r['game_id']}"
    n_rounds = boards_per_game[game_of_board]
    if not 1 <= r["round_number"] <= n_rounds:
        return f"round_number {r['round_number']} is outside 1..{n_rounds} (the game has {n_rounds} boards)"
    number = r["message_number"] if what == "message" else r["lock_event_number"]
    if number < 1:
        return f"{'message_number' if what == 'message' else 'lock_event_number'} {number} is not a positive number"
    if what == "lock event" and r["image_id"] not in board_images[r["board_id"]]:
        return f"locks image {r['image_id']!r}, which is not on board {r['board_id']}"
    return None


def _step_order(item: tuple[str, Line]):
    kind, line = item
    r = line.record
    number = r["message_number"] if kind == STEP_MESSAGE else r["lock_event_number"]
    # Timestamps are unique within an interaction in the real log; the rest only makes odd logs deterministic.
    return (r["timestamp"], kind != STEP_MESSAGE, number, line.number)


def _replay_round(interaction_id: str, round_number: int, events: list[tuple[str, Line]], roles: dict[str, str],
                  board_images: list[str], start_ms: int, skipped: list[SkippedRecord]):
    """Steps, ranks and the round summary of one round whose events are already in step order."""
    locks = [LockEvent(line.record["username"], kind, line.record["image_id"], line.record["timestamp"])
             for kind, line in events if kind != STEP_MESSAGE]
    players = list(roles)
    replay = replay_locks(locks, players)
    outcomes = iter(replay.outcomes)
    round_start = events[0][1].record["timestamp"]
    rank_times = [ts for _image, ts in replay.ranking]
    pending: dict[str, Optional[str]] = {p: None for p in players}
    steps = []
    for step, (kind, line) in enumerate(events, start=1):
        r = line.record
        row = {
            "interaction_id": interaction_id, "round": round_number, "step": step, "kind": kind,
            "username": r["username"], "role": roles.get(r["username"], ""), "board_id": r["board_id"],
            "timestamp": r["timestamp"], "time_s": (r["timestamp"] - start_ms) / 1000,
            "round_time_s": (r["timestamp"] - round_start) / 1000, "line": line.number,
        }
        if kind == STEP_MESSAGE:
            image_ids = [i for i in r["image_ids"] if i is not None]
            # The first rank after this message: what the pair agreed on next.
            next_index = int(np.searchsorted(rank_times, r["timestamp"], side="right"))
            row.update(text=r["body_text"], image_id=None, image_ids=image_ids, message_number=r["message_number"],
                       lock_event_number=None, in_round=r["round_active"], produced_rank=None, mismatch=False,
                       anomaly="", ranks_so_far=sum(t <= r["timestamp"] for t in rank_times),
                       next_ranked_image_id=replay.ranking[next_index][0] if next_index < len(replay.ranking) else None)
        else:
            outcome = next(outcomes)
            pending = outcome.pending
            if outcome.anomaly:
                skipped.append(SkippedRecord(f"{line.file} line {line.number}",
                                             f"interaction {interaction_id} round {round_number}: {r['username']} {outcome.anomaly}"))
            row.update(text="", image_id=r["image_id"], image_ids=[], message_number=None,
                       lock_event_number=r["lock_event_number"], in_round=True, produced_rank=outcome.produced_rank,
                       mismatch=outcome.mismatch, anomaly=outcome.anomaly, ranks_so_far=outcome.ranks_so_far,
                       next_ranked_image_id=None)
        for player in players:
            row[f"pending_{roles[player][-1].lower()}"] = pending.get(player)
        steps.append(row)

    n_images = len(board_images)
    fully_ranked = len(replay.ranking) >= n_images
    end = rank_times[n_images - 1] if fully_ranked else None
    ranks = [{"interaction_id": interaction_id, "round": round_number, "board_id": events[0][1].record["board_id"],
              "rank": rank, "image_id": image_id, "timestamp": ts, "round_time_s": (ts - round_start) / 1000}
             for rank, (image_id, ts) in enumerate(replay.ranking, start=1)]
    kinds = [kind for kind, _ in events]
    summary = {
        "interaction_id": interaction_id, "round": round_number,
        "n_messages": kinds.count(STEP_MESSAGE),
        "n_messages_in_round": sum(1 for kind, line in events if kind == STEP_MESSAGE and line.record["round_active"]),
        "n_lock_events": len(locks), "n_steps": len(events),
        "start_s": (round_start - start_ms) / 1000,
        "duration_s": (end - round_start) / 1000 if end is not None else np.nan,
        "mismatches": replay.mismatches, "manual_unlocks": kinds.count("unlock manual"),
        "automatic_unlocks": kinds.count("unlock automatic"), "n_ranked": len(replay.ranking),
        "fully_ranked": fully_ranked, "anomalies": sum(bool(o.anomaly) for o in replay.outcomes),
    }
    return steps, ranks, summary


# --- assembling ------------------------------------------------------------------------------------------

def _agreeing(interaction_id: str, items: list[tuple[str, Line]], skipped: list[SkippedRecord]) -> list[tuple[str, Line]]:
    """The records of one interaction that agree with it. Its game is the one most of its records name, and each
    round's board the one most of that round's records name (on a tie, the one named first); a record naming
    another is skipped, named. The first record alone used to decide, so one damaged record could move a whole
    round to another board and criterion, or an interaction to another game, without a word."""
    game = Counter(line.record["game_id"] for _kind, line in items).most_common(1)[0][0]
    boards: dict[int, Counter] = defaultdict(Counter)
    for _kind, line in items:
        if line.record["game_id"] == game:
            boards[line.record["round_number"]][line.record["board_id"]] += 1
    board_of = {round_number: counts.most_common(1)[0][0] for round_number, counts in boards.items()}
    kept = []
    for kind, line in items:
        r = line.record
        if r["game_id"] != game:
            skipped.append(SkippedRecord(line.where, f"names game {r['game_id']}, but interaction {interaction_id} "
                                                     f"plays {game} (as most of its records say)"))
        elif r["board_id"] != board_of[r["round_number"]]:
            skipped.append(SkippedRecord(line.where, f"names board {r['board_id']}, but round {r['round_number']} of "
                                                     f"interaction {interaction_id} is played on {board_of[r['round_number']]} "
                                                     "(as most of its records say)"))
        else:
            kept.append((kind, line))
    return kept


def build_frames(path: Path, progress: ProgressCallback = no_progress) -> tuple[dict[str, pd.DataFrame], list[SkippedRecord]]:
    """All frames of A Game Of Sorts from the folder with its JSON Lines files (see module docstring)."""
    folder = reader.data_folder(Path(path))
    skipped: list[SkippedRecord] = SkippedRecords()
    progress("Reading the game configuration", 0.0)
    boards = _read_boards(folder, skipped)
    games, images = _games_and_images(boards, folder)
    progress("Reading the interaction log", 0.1)
    records = _read_log(folder, boards, skipped)
    board_images = dict(zip(boards["board_id"], boards["image_ids"]))
    board_numbers = dict(zip(boards["board_id"], boards["board_number"]))
    criteria = dict(zip(boards["board_id"], boards["criterion"]))
    categories = dict(zip(games["game_id"], games["category"]))

    by_interaction: dict[str, list[tuple[str, Line]]] = defaultdict(list)
    for item in records:
        by_interaction[item[1].record["interaction_id"]].append(item)

    progress("Reconstructing rounds and rankings", 0.4)
    step_rows, rank_rows, round_rows, dialog_rows = [], [], [], []
    for interaction_id, items in by_interaction.items():
        items.sort(key=_step_order)
        items = _agreeing(interaction_id, items, skipped)
        roles: dict[str, str] = {}
        for _kind, line in items:
            roles.setdefault(line.record["username"], f"Player {chr(ord('A') + len(roles))}")
        if len(roles) > 2:
            skipped.append(SkippedRecord(f"{reader.LOG_FILE}: interaction {interaction_id}",
                                         f"{len(roles)} players ({', '.join(roles)}); only A and B have board columns"))
        start_ms = items[0][1].record["timestamp"]
        by_round: dict[int, list] = defaultdict(list)
        for item in items:
            by_round[item[1].record["round_number"]].append(item)
        interaction_rounds = []
        for round_number in sorted(by_round):
            events = by_round[round_number]
            board_id = events[0][1].record["board_id"]
            steps, ranks, summary = _replay_round(interaction_id, round_number, events, roles,
                                                  board_images[board_id], start_ms, skipped)
            summary.update(game_id=events[0][1].record["game_id"], board_id=board_id,
                           board_number=board_numbers[board_id], criterion=criteria[board_id])
            step_rows += steps
            rank_rows += ranks
            interaction_rounds.append(summary)
        round_rows += interaction_rounds
        game_id = items[0][1].record["game_id"]
        players = list(roles)
        dialog_rows.append({
            "corpus": CORPUS, "dialog_id": interaction_id, "split": SPLIT,
            "n_rounds": len(interaction_rounds), "n_steps": len(items),
            "n_utterances": sum(kind == STEP_MESSAGE for kind, _ in items),
            "duration_s": (items[-1][1].record["timestamp"] - start_ms) / 1000,
            "game_id": game_id, "category": categories.get(game_id, category_of(game_id)),
            "players": players, "player_a": players[0], "player_b": players[1] if len(players) > 1 else "",
            "n_messages": sum(kind == STEP_MESSAGE for kind, _ in items),
            "n_lock_events": sum(kind != STEP_MESSAGE for kind, _ in items),
            "created_at": object_id_time(interaction_id), "started_at": start_ms,
            "mismatches": sum(r["mismatches"] for r in interaction_rounds),
            "manual_unlocks": sum(r["manual_unlocks"] for r in interaction_rounds),
            "n_ranks": sum(r["n_ranked"] for r in interaction_rounds),
            "rounds_fully_ranked": sum(r["fully_ranked"] for r in interaction_rounds),
        })

    progress("Building frames", 0.7)
    dialogs = pd.DataFrame(dialog_rows)
    if dialogs.empty:
        raise SourceError(folder / reader.LOG_FILE, "holds no usable message or lock event")
    dialogs["created_at"] = pd.to_datetime(dialogs["created_at"], utc=True)
    dialogs["started_at"] = _utc(dialogs["started_at"])
    dialogs = dialogs.sort_values("started_at", ignore_index=True)

    rounds = pd.DataFrame(round_rows)
    rounds = rounds[["interaction_id", "round", "game_id", "board_id", "board_number", "criterion",
                     "n_messages", "n_messages_in_round", "n_lock_events", "n_steps", "start_s", "duration_s",
                     "mismatches", "manual_unlocks", "automatic_unlocks", "n_ranked", "fully_ranked", "anomalies"]]

    steps = pd.DataFrame(step_rows)
    for column in ("pending_a", "pending_b"):
        if column not in steps:
            steps[column] = None
    steps["time"] = _utc(steps["timestamp"])
    for column in ("message_number", "lock_event_number", "produced_rank"):
        steps[column] = steps[column].astype("Int64")
    for column in ("image_id", "next_ranked_image_id", "pending_a", "pending_b"):
        steps[column] = steps[column].astype("str")
    steps = steps[["interaction_id", "round", "step", "kind", "username", "role", "text", "image_id", "image_ids",
                   "timestamp", "time", "time_s", "round_time_s", "in_round", "pending_a", "pending_b", "ranks_so_far",
                   "produced_rank", "mismatch", "anomaly", "message_number", "lock_event_number",
                   "next_ranked_image_id", "board_id", "line"]]

    is_message = steps["kind"] == STEP_MESSAGE
    messages = steps.loc[is_message, ["interaction_id", "round", "message_number", "step", "board_id", "username",
                                      "role", "text", "in_round", "image_ids", "timestamp", "time", "time_s",
                                      "round_time_s", "ranks_so_far", "next_ranked_image_id", "line"]].reset_index(drop=True)
    messages["message_number"] = messages["message_number"].astype("int64")
    messages["refers_to_image"] = messages["image_ids"].map(len) > 0
    messages["n_images_referred"] = messages["image_ids"].map(len)
    messages["refers_to_next_ranked"] = [bool(nxt) and nxt in set(ids) for ids, nxt in
                                         zip(messages["image_ids"], messages["next_ranked_image_id"].fillna(""))]
    lock_events = steps.loc[~is_message, ["interaction_id", "round", "lock_event_number", "step", "board_id",
                                          "username", "role", "kind", "image_id", "timestamp", "time", "time_s",
                                          "round_time_s", "produced_rank", "mismatch", "anomaly", "line"]]
    lock_events = lock_events.rename(columns={"kind": "lock_event_type"}).reset_index(drop=True)
    lock_events["lock_event_number"] = lock_events["lock_event_number"].astype("int64")

    ranks = pd.DataFrame(rank_rows, columns=["interaction_id", "round", "board_id", "rank", "image_id",
                                             "timestamp", "round_time_s"])
    ranks["time"] = _utc(ranks["timestamp"])
    ranks = ranks.astype({"round": "int64", "rank": "int64", "timestamp": "int64", "round_time_s": "float64"})

    utterances = pd.DataFrame({
        "corpus": CORPUS, "dialog_id": messages["interaction_id"], "round": messages["round"].astype("Int64"),
        "turn": messages["step"].astype("int64"), "speaker": messages["username"], "role": messages["role"],
        "text": messages["text"], "time_s": messages["time_s"].astype("float64"),
    }, columns=UTTERANCE_COLUMNS)

    progress("Reading board layouts and the survey", 0.85)
    layouts = read_layouts(folder, rounds, boards, skipped)
    survey = read_survey(folder, skipped)
    frames = {"games": games, "boards": boards, "images": images, "dialogs": dialogs, "rounds": rounds,
              "messages": messages, "lock_events": lock_events, "ranks": ranks, "layouts": layouts,
              "survey": survey, "steps": steps, "utterances": utterances}
    return frames, skipped
