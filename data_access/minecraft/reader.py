"""Reading the Minecraft corpus from disk: finding the games of a corpus root, reading one game's
``postprocessed-observations.json`` into a compact ``GameLog`` and reading the gold configurations.

Layout (original and augmented alike)::

    <root>/logs/splits.json                                   {"train": [config...], "val": [...], "test": [...]}
    <root>/logs/<date>/logs/<experiment-id>/postprocessed-observations.json
    <root>/gold-configurations/<config>.xml

The experiment id is ``B<n>-A<n>-C<n>-<epoch ms>`` (augmented: ``B<n>-A<n>-C<n>_<k>-<epoch ms>``) and the
config name is what remains after deleting ``B\\d+-A\\d+-`` and the trailing ``-\\d{7,}``, as the repo does.
Configs listed in no split (C3, C17, C32, C38) are the warm-up games.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Optional

import orjson

from ..common import SkippedRecord, SourceError
from .blocks import COLOR_PATTERN, COLOR_IDS

OBSERVATIONS = "postprocessed-observations.json"
SPLITS = ("train", "val", "test")
WARMUP = "warmup"
_CONFIG_NAME = re.compile(r"B\d+-A\d+-|-\d{7,}")
_PARTICIPANTS = re.compile(r"^(B\d+)-(A\d+)-")
_AUGMENTED_SUFFIX = re.compile(r"_\d+")
_SYSTEM_LINE = re.compile(r"^<Builder>\s+mission has started\s*\.?\s*$", re.IGNORECASE)
_OFFSET = 128


def config_name(experiment_id: str) -> str:
    return _CONFIG_NAME.sub("", experiment_id)


def original_experiment_id(experiment_id: str) -> str:
    """The augmented copy ``B1-A3-C3_0-152…`` belongs to ``B1-A3-C3-152…``."""
    return _AUGMENTED_SUFFIX.sub("", experiment_id)


def participants(experiment_id: str) -> tuple[str, str]:
    match = _PARTICIPANTS.match(experiment_id)
    return (match.group(1), match.group(2)) if match else ("", "")


@dataclass(frozen=True)
class GameFile:
    """One game found on disk."""

    experiment_id: str
    date_dir: str
    path: Path
    record: str  # the file relative to the corpus root, for SkippedRecord

    @property
    def config(self) -> str:
        return config_name(self.experiment_id)


@dataclass
class CorpusLayout:
    root: Path
    splits: dict[str, str]  # config -> split
    games: list[GameFile]
    skipped: list[SkippedRecord] = field(default_factory=list)

    def split_of(self, config: str) -> str:
        return self.splits.get(config, WARMUP)

    def gold_path(self, config: str) -> Path:
        return self.root / "gold-configurations" / f"{config}.xml"


def find_root(path: Path) -> Path:
    """The corpus root for ``path``; ``<root>/logs`` is accepted too."""
    path = Path(path)
    if not path.exists():
        raise SourceError(path, "does not exist")
    if not path.is_dir():
        raise SourceError(path, "is a file; expected the corpus folder with logs/ and gold-configurations/")
    if not (path / "logs").is_dir() and path.name == "logs" and (path / "splits.json").is_file():
        return path.parent
    return path


def discover(path: Path) -> CorpusLayout:
    """The games below a corpus root in a stable order (date folder, then experiment id)."""
    root = find_root(path)
    logs = root / "logs"
    if not logs.is_dir():
        raise SourceError(root, "has no logs/ folder; expected logs/splits.json and logs/<date>/logs/<game>/")
    splits_file = logs / "splits.json"
    if not splits_file.is_file():
        raise SourceError(splits_file, "is missing (the train/val/test lists of gold configurations)")
    try:
        raw_splits = orjson.loads(splits_file.read_bytes())
        splits = {str(config): split for split in SPLITS for config in raw_splits.get(split, [])}
    except (orjson.JSONDecodeError, AttributeError, TypeError) as exc:
        raise SourceError(splits_file, f"is not a JSON object of split lists ({exc})") from exc
    games, skipped = [], []
    for date_entry in sorted(os.scandir(logs), key=lambda e: e.name):
        game_root = os.path.join(date_entry.path, "logs")
        if not date_entry.is_dir() or not os.path.isdir(game_root):
            continue
        for game_entry in sorted(os.scandir(game_root), key=lambda e: e.name):
            if not game_entry.is_dir():
                continue
            record = f"logs/{date_entry.name}/logs/{game_entry.name}/{OBSERVATIONS}"
            file = Path(game_entry.path) / OBSERVATIONS
            if not file.is_file():
                skipped.append(SkippedRecord(record, "file is missing"))
                continue
            games.append(GameFile(game_entry.name, date_entry.name, file, record))
    if not games:
        raise SourceError(logs, "contains no games (expected logs/<date>/logs/<experiment-id>/postprocessed-observations.json)")
    return CorpusLayout(root, splits, games, skipped)


@dataclass
class GameLog:
    """One game after dropping the null-BuilderPosition glitch states (the repo's ``remove_empty_states``).

    Per kept state: its block keys (``blocks.encode``), how many chat lines it has (cumulative), its time
    and event and the Builder position. ``lines`` is the whole chat in order, including the system line
    "Mission has started." wherever it occurs (``has_system_line`` tells whether it is the first line);
    that line is never an utterance: ``utterances_in(n)`` counts the utterances among the first n lines."""

    experiment_id: str
    date_dir: str
    config: str
    split: str
    record: str
    from_aug_data: bool
    time_elapsed: float
    lines: list[str]
    has_system_line: bool
    keys: list[list[int]]
    n_chat: list[int]
    time_s: list[float]
    event: list[str]
    position: list[tuple[float, float, float, float, float]]
    n_raw_states: int
    diffs: Optional[list] = None  # cache of bap.transitions
    _utterances_before: Optional[list[int]] = field(default=None, repr=False, compare=False)

    def is_system_line(self, index: int) -> bool:
        return is_system_line(self.lines[index])

    def utterances_in(self, n_lines: int) -> int:
        """How many of the first ``n_lines`` chat lines are utterances (system lines are not)."""
        if self._utterances_before is None:
            counts = [0]
            for line in self.lines:
                counts.append(counts[-1] + (not is_system_line(line)))
            self._utterances_before = counts
        return self._utterances_before[max(0, min(int(n_lines), len(self.lines)))]


def is_system_line(line: str) -> bool:
    """The game's own "Mission has started." line (FORMATS B.3), never an utterance wherever it occurs."""
    return _SYSTEM_LINE.match(line) is not None


class _ColorIds(dict):
    """Block type string -> colour id, resolved by regex once per spelling."""

    def __missing__(self, type_string):
        match = COLOR_PATTERN.search(type_string)
        if match is None:
            raise ValueError(f"unknown block type {type_string!r}")
        self[type_string] = COLOR_IDS[match.group(0)]
        return self[type_string]


def _seconds_between(start: str, stamp: Optional[str]) -> float:
    try:
        return (datetime.fromisoformat(stamp) - datetime.fromisoformat(start)).total_seconds()
    except (TypeError, ValueError):
        return float("nan")


def read_game(game: GameFile, split: str, temporal_order: bool = False) -> GameLog:
    """Parse one game file. Raises ValueError/KeyError/TypeError on a broken file (the caller skips it).

    With ``temporal_order`` each state's blocks are ordered like the repo's ``reorder`` (blocks of the
    previous raw state keep their order, new ones go last in file order; it runs before glitch states are
    dropped, so a glitch resets the order). Otherwise keys are in file order, which is all the diffs need."""
    raw = orjson.loads(game.path.read_bytes())
    world_states = raw["WorldStates"]
    if not isinstance(world_states, list):
        raise TypeError("WorldStates is not a list")
    time_elapsed = raw.get("TimeElapsed")
    color_of = _ColorIds()
    lines: list[str] = []
    keys_per_state, n_chat, times, events, positions = [], [], [], [], []
    first_stamp = world_states[0].get("Timestamp") if world_states else None
    previous_order: list[int] = []
    from_aug = False
    for state in world_states:
        blocks = state["BlocksInGrid"] or ()
        try:
            # The hot loop of a load: ~635k blocks in the full corpus, one int each.
            keys = [((((c["X"] + 128) << 8 | (c["Y"] + 128)) << 8 | (c["Z"] + 128)) << 3) | color_of[b["Type"]]
                    for b in blocks for c in (b["AbsoluteCoordinates"],)]
        except TypeError:  # augmented logs store float coordinates (0.0)
            keys = [((((int(c["X"]) + 128) << 8 | (int(c["Y"]) + 128)) << 8 | (int(c["Z"]) + 128)) << 3)
                    | color_of[b["Type"]] for b in blocks for c in (b["AbsoluteCoordinates"],)]
        if temporal_order:
            present = set(keys)
            kept = [k for k in previous_order if k in present]
            seen = set(kept)
            keys = kept + [k for k in keys if k not in seen]
            previous_order = keys
        position = state["BuilderPosition"]
        if position is None:
            continue
        chat = state.get("ChatHistory")
        if chat is None and "ChatHistoryTokenized" in state:
            from_aug = True
            tokenized = state["ChatHistoryTokenized"] or []
            if len(tokenized) > len(lines):
                lines.extend(" ".join(tokens) for tokens in tokenized[len(lines):])
        elif chat is not None and len(chat) > len(lines):
            lines.extend(chat[len(lines):])
        n_chat.append(len(lines))
        keys_per_state.append(keys)
        shot = state.get("ScreenshotPath")
        if shot:
            ms, _, rest = shot.partition("-")
            times.append(int(ms) / 1000.0)
            events.append(rest.rsplit("-", 1)[-1].removesuffix(".png"))
        else:
            times.append(_seconds_between(first_stamp, state.get("Timestamp")))
            events.append("unknown")
        positions.append((float(position["X"]), float(position["Y"]), float(position["Z"]),
                          float(position["Yaw"]), float(position["Pitch"])))
    if not keys_per_state:
        raise ValueError("no world state with a Builder position")
    has_system = bool(lines) and _SYSTEM_LINE.match(lines[0]) is not None
    return GameLog(
        experiment_id=game.experiment_id, date_dir=game.date_dir, config=game.config, split=split,
        record=game.record, from_aug_data=from_aug or "_" in game.config,
        time_elapsed=float(time_elapsed) if isinstance(time_elapsed, (int, float)) else float("nan"),
        lines=lines, has_system_line=has_system, keys=keys_per_state, n_chat=n_chat, time_s=times,
        event=events, position=positions, n_raw_states=len(world_states),
    )


def speaker_of(line: str) -> str:
    """"Architect" or "Builder" from the ``<…>`` prefix, as the repo decides it (first token)."""
    first = line.split(maxsplit=1)
    return "Architect" if first and "Architect" in first[0] else "Builder"


def strip_speaker(line: str) -> str:
    line = line.strip()
    if line.startswith("<") and ">" in line:
        return line[line.index(">") + 1:].strip()
    return line
