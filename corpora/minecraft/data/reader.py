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

import math
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Optional

import orjson

from corpora.minecraft.data.blocks import strict_color_id
from dialogue_dashboard.plugin import LIMITS, SkippedRecord, SkippedRecords, SourceError, read_capped, without_bom

OBSERVATIONS = "postprocessed-observations.json"
SPLITS = ("train", "val", "test")
WARMUP = "warmup"
_CONFIG_NAME = re.compile(r"B\d+-A\d+-|-\d{7,}")
_PARTICIPANTS = re.compile(r"^(B\d+)-(A\d+)-")
_AUGMENTED_SUFFIX = re.compile(r"_\d+")
_SYSTEM_LINE = re.compile(r"^<Builder>\s+mission has started\s*\.?\s*$", re.IGNORECASE)
_OFFSET = 128
# The longest real game lasts 2,304 s (FORMATS B.3); a TimeElapsed past a day is no game's duration.
MAX_TIME_ELAPSED = 86400.0


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
    """The games below a corpus root in a stable order (date folder, then experiment id).

    Contradictions are listed, never resolved by a silent choice: a config listed in more than one split of
    ``splits.json`` and an experiment id found in more than one date folder cost their games (each listed)."""
    root = find_root(path)
    logs = root / "logs"
    if not logs.is_dir():
        raise SourceError(root, "has no logs/ folder; expected logs/splits.json and logs/<date>/logs/<game>/")
    splits_file = logs / "splits.json"
    if not splits_file.exists():
        raise SourceError(splits_file, "is missing (the train/val/test lists of gold configurations)")
    try:
        raw_splits = orjson.loads(without_bom(read_capped(splits_file, LIMITS["splits"], "splits file")))
        listed_in: dict[str, list[str]] = {}
        for split in SPLITS:
            configs = raw_splits.get(split, [])
            if not isinstance(configs, list):  # a string would be taken for a list of one-letter configs
                raise TypeError(f'"{split}" is not a list')
            for config in configs:
                names = listed_in.setdefault(str(config), [])
                if split not in names:
                    names.append(split)
    except (orjson.JSONDecodeError, AttributeError, TypeError) as exc:
        raise SourceError(splits_file, f"is not a JSON object of split lists ({exc})") from exc
    splits = {config: names[0] for config, names in listed_in.items() if len(names) == 1}
    # A config in two splits: whichever split its games were put in, the figures of the other would be
    # wrong (and a test game could count as training), so its games load in none and are listed.
    contested = {config: names for config, names in listed_in.items() if len(names) > 1}
    games, skipped = [], SkippedRecords()  # type: list, list[SkippedRecord]
    skipped.extend(SkippedRecord(f"logs/splits.json config {config}",
                                 f"{config} is listed in {len(names)} splits ({', '.join(names)}); its games are not loaded")
                   for config, names in contested.items())
    for date_entry in sorted(os.scandir(logs), key=lambda e: e.name):
        game_root = os.path.join(date_entry.path, "logs")
        if not date_entry.is_dir() or not os.path.isdir(game_root):
            continue
        for game_entry in sorted(os.scandir(game_root), key=lambda e: e.name):
            if not game_entry.is_dir():
                continue
            record = f"logs/{date_entry.name}/logs/{game_entry.name}/{OBSERVATIONS}"
            file = Path(game_entry.path) / OBSERVATIONS
            if not file.exists():
                skipped.append(SkippedRecord(record, "file is missing"))
                continue
            games.append(GameFile(game_entry.name, date_entry.name, file, record))
    if not games:
        raise SourceError(logs, "contains no games (expected logs/<date>/logs/<experiment-id>/postprocessed-observations.json)")
    # One experiment id in two date folders: two copies of one game (or two games under one id); neither
    # is loaded, both are listed, as CoDraw's duplicate dialog ids are.
    copies: dict[str, int] = {}
    for game in games:
        copies[game.experiment_id] = copies.get(game.experiment_id, 0) + 1
    kept = []
    for game in games:
        if copies[game.experiment_id] > 1:
            skipped.append(SkippedRecord(game.record, f"the same experiment id appears in {copies[game.experiment_id]} "
                                                      "folders; none of its copies is loaded"))
        elif game.config in contested:
            skipped.append(SkippedRecord(game.record, f"its config {game.config} is listed in more than one split of "
                                                      f"logs/splits.json ({', '.join(contested[game.config])})"))
        else:
            kept.append(game)
    if not kept:
        raise SourceError(logs, f"none of its {len(games)} games can be loaded (first problem: {skipped[-1].record}: "
                                f"{skipped[-1].reason})")
    return CorpusLayout(root, splits, kept, skipped)


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
    skipped_states: list = field(default_factory=list)  # (where in the file, reason) of each broken state or field
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
        self[type_string] = strict_color_id(type_string)  # ValueError for an unknown block type
        return self[type_string]


def _seconds_between(start: Optional[str], stamp: Optional[str]) -> float:
    if start is None or stamp is None:
        return float("nan")
    try:
        return (datetime.fromisoformat(stamp) - datetime.fromisoformat(start)).total_seconds()
    except (TypeError, ValueError):
        return float("nan")


# Coordinate -> its byte in a block key. Integral floats (the augmented logs' 0.0) hash like ints; any
# other value (out of -128..127, fractional, NaN, text) is a KeyError: never wrapped into another block.
_COORDINATE_BYTE = {value: value + _OFFSET for value in range(-_OFFSET, _OFFSET)}
_MISSING = object()


def _block_problem(blocks) -> str:
    """Why a state's blocks cannot be keys (the slow path, run only when the fast one failed)."""
    if not isinstance(blocks, (list, tuple)):
        return "BlocksInGrid is not a list"
    for number, block in enumerate(blocks, start=1):
        try:
            coordinates = block["AbsoluteCoordinates"]
            values = [coordinates[axis] for axis in ("X", "Y", "Z")]
        except (KeyError, TypeError):
            return f"block {number} has no X, Y, Z coordinates"
        for axis, value in zip("xyz", values):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value % 1:
                return f"block {number}: {axis} = {value!r} is not an integer"
            if value not in _COORDINATE_BYTE:
                return f"block {number}: {axis} = {value!r} is outside the world this tool can hold (-128..127)"
        try:
            strict_color_id(block.get("Type"))
        except ValueError as exc:
            return f"block {number}: {exc}"
    return "a block cannot be read"


def _compact(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:5]))
    return shown + (f" … ({len(numbers)} states)" if len(numbers) > 5 else "")


def read_game(game: GameFile, split: str, temporal_order: bool = False) -> GameLog:
    """Parse one game file. Raises ValueError/KeyError/TypeError on a broken file (the caller skips it).

    A broken state (a block outside the world a key can hold or of an unknown type, no BuilderPosition,
    chat that is not text, an unreadable time) costs that state only: it is left out like the repo's
    null-position glitch states and listed in ``GameLog.skipped_states``. When the game's last state is
    broken its final build is unknown, and the whole game is refused (ValueError naming the state).

    With ``temporal_order`` each state's blocks are ordered like the repo's ``reorder`` (blocks of the
    previous raw state keep their order, new ones go last in file order; it runs before glitch states are
    dropped, so a glitch resets the order). Otherwise keys are in file order, which is all the diffs need.

    A ``TimeElapsed`` that is no duration (missing, not a number, negative, not finite, more than a day)
    leaves ``time_elapsed`` NaN and is listed in ``skipped_states``; the game loads."""
    raw = orjson.loads(without_bom(read_capped(game.path, LIMITS["minecraft game"], "game file")))
    world_states = raw["WorldStates"]
    if not isinstance(world_states, list):
        raise TypeError("WorldStates is not a list")
    time_elapsed, time_problem = _duration(raw.get("TimeElapsed", _MISSING))
    color_of = _ColorIds()
    byte, boolean = _COORDINATE_BYTE, bool
    lines: list[str] = []
    keys_per_state, n_chat, times, events, positions = [], [], [], [], []
    first_stamp = world_states[0].get("Timestamp") if world_states and isinstance(world_states[0], dict) else None
    previous_order: list[int] = []
    from_aug = False
    broken: dict[str, list[int]] = {}  # reason -> state indices (0-based, in the file)
    last_good = last_broken = -1
    for index, state in enumerate(world_states):
        try:
            blocks = state["BlocksInGrid"] or ()
        except (KeyError, TypeError):
            broken.setdefault("not a state with BlocksInGrid", []).append(index)
            last_broken = index
            continue
        try:
            # The hot loop of a load: ~635k blocks in the full corpus, one int each. A JSON true or false
            # would look up as 1 or 0 (hash(True) == hash(1)): such a block is left out here, and the
            # count check sends the state to the slow path, which names it.
            keys = [(((byte[x] << 8 | byte[y]) << 8 | byte[z]) << 3) | color_of[b["Type"]]
                    for b in blocks for c in (b["AbsoluteCoordinates"],) for x, y, z in ((c["X"], c["Y"], c["Z"]),)
                    if type(x) is not boolean and type(y) is not boolean and type(z) is not boolean]
            if len(keys) != len(blocks):
                raise ValueError("a coordinate is true or false")
        except (KeyError, TypeError, ValueError):
            broken.setdefault(_block_problem(blocks), []).append(index)
            last_broken = index
            continue
        if temporal_order:
            present = set(keys)
            kept = [k for k in previous_order if k in present]
            seen = set(kept)
            keys = kept + [k for k in keys if k not in seen]
            previous_order = keys
        position = state.get("BuilderPosition", _MISSING)
        if position is None:  # the repo's glitch state: dropped, as its loader does
            continue
        try:
            if position is _MISSING:
                raise ValueError("no BuilderPosition")
            place = tuple(position[axis] for axis in ("X", "Y", "Z", "Yaw", "Pitch"))
            # float() would read "nan" or "1e400" as text and take true for 1.0: numbers only, and finite
            if not all((type(v) is float or type(v) is int) and math.isfinite(v) for v in place):
                raise ValueError("no BuilderPosition of finite numbers")
            place = tuple(map(float, place))
            chat = state.get("ChatHistory")
            new_lines, aug = None, False
            if chat is None and "ChatHistoryTokenized" in state:
                aug = True
                tokenized = state["ChatHistoryTokenized"] or []
                if type(tokenized) is not list:
                    raise ValueError("ChatHistoryTokenized is not a list of lines")
                if len(tokenized) > len(lines):
                    if not all(type(tokens) is list for tokens in tokenized[len(lines):]):
                        raise ValueError("ChatHistoryTokenized holds a line that is not a list of tokens")
                    new_lines = [" ".join(tokens) for tokens in tokenized[len(lines):]]
            elif chat is not None:
                if type(chat) is not list:  # a string would be sliced into characters, each taken for a line
                    raise ValueError("ChatHistory is not a list of lines")
                if len(chat) > len(lines):
                    new_lines = chat[len(lines):]
            if new_lines is not None and not all(isinstance(line, str) for line in new_lines):
                raise ValueError("ChatHistory holds something that is not text")
            shot = state.get("ScreenshotPath")
            if shot:
                ms, _, rest = shot.partition("-")
                time, event = int(ms) / 1000.0, rest.rsplit("-", 1)[-1].removesuffix(".png")
            else:
                time, event = _seconds_between(first_stamp, state.get("Timestamp")), "unknown"
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            reason = str(exc) if isinstance(exc, ValueError) and str(exc).startswith(("no ", "ChatHistory")) \
                else f"unreadable state ({type(exc).__name__}: {exc})"
            broken.setdefault(reason, []).append(index)
            last_broken = index
            continue
        from_aug |= aug
        if new_lines:
            lines.extend(new_lines)
        n_chat.append(len(lines))
        keys_per_state.append(keys)
        times.append(time)
        events.append(event)
        positions.append(place)
        last_good = index
    skipped_states = [(f"state {_compact(indices)}", reason) for reason, indices in broken.items()]
    if time_problem:
        skipped_states.append(("TimeElapsed", time_problem))
    if last_broken > last_good:
        first = next(reason for reason, indices in broken.items() if last_broken in indices)
        raise ValueError(f"its last state ({last_broken}) is broken ({first}), so its final build is unknown")
    if not keys_per_state:
        raise ValueError("no world state with a Builder position")
    has_system = bool(lines) and _SYSTEM_LINE.match(lines[0]) is not None
    return GameLog(
        experiment_id=game.experiment_id, date_dir=game.date_dir, config=game.config, split=split,
        record=game.record, from_aug_data=from_aug or "_" in game.config,
        time_elapsed=time_elapsed,
        lines=lines, has_system_line=has_system, keys=keys_per_state, n_chat=n_chat, time_s=times,
        event=events, position=positions, n_raw_states=len(world_states), skipped_states=skipped_states,
    )


def _duration(value) -> tuple[float, str]:
    """(seconds, "") for a usable TimeElapsed, else (NaN, why not): never a bool taken for 1 s, a string
    read as a number, or a negative or absurd duration averaged into a split's mean."""
    if value is _MISSING or value is None:
        return math.nan, "TimeElapsed is missing; the game's duration is left absent"
    if type(value) is float or type(value) is int:  # orjson: at most 64-bit ints, no NaN, no infinity
        if 0.0 <= value <= MAX_TIME_ELAPSED:
            return float(value), ""
        return math.nan, (f"TimeElapsed = {orjson.dumps(value).decode()} is not the duration of a game "
                          f"(0 to {MAX_TIME_ELAPSED:.0f} s); the game's duration is left absent")
    shown = orjson.dumps(value).decode()  # as the file spells it
    shown = shown if len(shown) <= 40 else shown[:40] + "…"
    kind = {bool: "true/false", str: "text", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)
    return math.nan, f"TimeElapsed = {shown} is not a number of seconds ({kind}); the game's duration is left absent"


def speaker_of(line: str) -> str:
    """"Architect" or "Builder" from the ``<…>`` prefix, as the repo decides it (first token)."""
    first = line.split(maxsplit=1)
    return "Architect" if first and "Architect" in first[0] else "Builder"


def strip_speaker(line: str) -> str:
    line = line.strip()
    if line.startswith("<") and ">" in line:
        return line[line.index(">") + 1:].strip()
    return line
