"""Writing collected Minecraft games (issue 50: two people playing live) in the corpus's own layout, so that the same
reader and frames the app uses for the released corpus (``reader``, ``frames``) read them back::

    <folder>/logs/splits.json                                              the split of each target structure
    <folder>/logs/data-<M>-<D>/logs/B<n>-A<n>-<config>-<start ms>/postprocessed-observations.json
    <folder>/gold-configurations/<config>.xml                              each target played

A collected game is a ``CollectedGame``: who built and who instructed (numbered within the study), the target
structure's name and the game's start, and its events in order: chat lines and the Builder's placements and
removals. Its ``postprocessed-observations.json`` holds one full world state per event, as the game logged them: the
cumulative ``ChatHistory`` (opening with the game's own ``<Builder> Mission has started.``), every block in the grid
with its absolute and perspective coordinates, the Builder's position and inventory, the ``Timestamp`` and a
``ScreenshotPath`` whose milliseconds since the start give the order within a second (no screenshot is written:
the released corpus has none either), and ``TimeElapsed``. ``raw-observations.json``, ``log.txt`` and the
per-date ``dialogue*.txt`` hold the same content in other forms; they are not written (the reader does not use them).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping, Sequence, Union

from corpora.minecraft.data.blocks import (
    COLORS,
    X_MAX,
    X_MIN,
    Y_MAX,
    Y_MIN,
    Z_MAX,
    Z_MIN,
    block_perspective,
    gold_xml_text,
)
from corpora.minecraft.data.demo import INVENTORY_ORDER  # the game's inventory slots
from corpora.minecraft.data.reader import OBSERVATIONS, SPLITS

SYSTEM_LINE = "<Builder> Mission has started."
INVENTORY_START = 20  # blocks of each colour a Builder starts with
START_POSITION = (0.0, 1.0, 0.0, 0.0, 0.0)  # x, y, z, yaw, pitch where a Builder spawns
CONFIG_NAME = re.compile(r"^C\d+$")  # "C63": the reader takes it from the experiment id; "_" marks augmented data
ROLES = ("Architect", "Builder")


@dataclass(frozen=True)
class Chat:
    """A chat line by the Architect or the Builder, ``ms`` after the game started."""

    speaker: str
    text: str
    ms: int


@dataclass(frozen=True)
class Place:
    """The Builder puts down a block of ``color`` at (x, y, z) (game coordinates), ``ms`` after the start;
    ``position``: where the Builder stood and looked (x, y, z, yaw, pitch)."""

    x: int
    y: int
    z: int
    color: str
    ms: int
    position: tuple[float, float, float, float, float] = START_POSITION


@dataclass(frozen=True)
class Remove:
    """The Builder picks up the block at (x, y, z), ``ms`` after the start."""

    x: int
    y: int
    z: int
    ms: int
    position: tuple[float, float, float, float, float] = START_POSITION


@dataclass(frozen=True)
class CollectedGame:
    builder: int
    architect: int
    config: str
    start_ms: int
    events: tuple[Union[Chat, Place, Remove], ...]

    @property
    def experiment_id(self) -> str:
        return f"B{self.builder}-A{self.architect}-{self.config}-{self.start_ms}"

    @property
    def date_dir(self) -> str:
        day = datetime.fromtimestamp(self.start_ms / 1000, tz=timezone.utc)
        return f"data-{day.month}-{day.day}"


def _stamp(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def _in_region(x: int, y: int, z: int) -> bool:
    return X_MIN <= x <= X_MAX and Y_MIN <= y <= Y_MAX and Z_MIN <= z <= Z_MAX


def observations(game: CollectedGame) -> dict:
    """The game's ``postprocessed-observations.json`` document. ValueError naming the event when the game breaks the
    game's rules: a block outside the 11×9×11 build region, on an occupied cell or of an unknown colour, a removal
    of an empty cell, a Builder without blocks of a colour, an event earlier than the one before it."""
    where = f"game {game.experiment_id}"
    chat = [SYSTEM_LINE]
    blocks: dict[tuple[int, int, int], str] = {}
    inventory = dict.fromkeys(INVENTORY_ORDER, INVENTORY_START)
    position = START_POSITION
    states = []

    def state(ms: int, event: str) -> None:
        x, y, z, yaw, pitch = position
        states.append({
            "BuilderPosition": {"X": x, "Y": y, "Z": z, "Yaw": yaw, "Pitch": pitch},
            "BuilderInventory": [{"Index": i, "Type": f"cwc_minecraft_{c}_rn", "Quantity": inventory[c]}
                                 for i, c in enumerate(INVENTORY_ORDER)],
            "ChatHistory": list(chat),
            "Timestamp": _stamp(game.start_ms + ms),
            "BlocksInGrid": [{"PerspectiveCoordinates": block_perspective(cell, position),
                              "AbsoluteCoordinates": {"X": cell[0], "Y": cell[1], "Z": cell[2]},
                              "Type": f"cwc_minecraft_{color}_rn"} for cell, color in blocks.items()],
            "ScreenshotPath": f"{ms}-Builder-{event}.png",
        })

    state(0, "chat")
    last = 0
    for number, event in enumerate(game.events, start=1):
        here = f"{where} event {number}"
        if not isinstance(event.ms, int) or event.ms < last:
            raise ValueError(f"{here}: its time ({event.ms} ms) is before the event before it")
        last = event.ms
        if isinstance(event, Chat):
            if event.speaker not in ROLES or not event.text.strip() or "\n" in event.text:
                raise ValueError(f"{here}: a chat line is one line of text by the Architect or the Builder")
            chat.append(f"<{event.speaker}> {event.text}")
            state(event.ms, "chat")
            continue
        cell = (event.x, event.y, event.z)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in cell) or not _in_region(*cell):
            raise ValueError(f"{here}: {cell} is outside the build region (x, z -5..5, y 1..9)")
        position = tuple(float(v) for v in event.position)  # type: ignore[assignment]
        if isinstance(event, Place):
            if event.color not in COLORS:
                raise ValueError(f"{here}: {event.color!r} is not a block colour ({', '.join(COLORS)})")
            if cell in blocks:
                raise ValueError(f"{here}: {cell} already holds a block")
            if inventory[event.color] == 0:
                raise ValueError(f"{here}: the Builder has no {event.color} block left")
            blocks[cell] = event.color
            inventory[event.color] -= 1
            state(event.ms, "putdown")
        else:
            if cell not in blocks:
                raise ValueError(f"{here}: {cell} holds no block to pick up")
            inventory[blocks.pop(cell)] += 1
            state(event.ms, "pickup")
    return {"WorldStates": states, "NumFixedViewers": 0, "TimeElapsed": last / 1000.0}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        part.write_text(text, encoding="utf-8")
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def write_corpus(folder: Path, games: Sequence[CollectedGame], gold: Mapping[str, Sequence[int]],
                 splits: Mapping[str, str]) -> Path:
    """Write ``games`` in the corpus layout into ``folder`` (absent or empty: a study's games are written whole,
    never mixed into another corpus), with the gold configuration (block keys, ``blocks.encode``) of each target
    played and ``splits.json`` listing each target under its split (``splits``: config → train / val / test; a
    config without a split is a warm-up, as in the corpus); the folder. ValueError when a game cannot be written."""
    folder = Path(folder)
    if folder.exists() and any(folder.iterdir()):
        raise ValueError(f"{folder} is not empty; the games are written into a folder of their own")
    played = sorted({game.config for game in games})
    for config in played:
        if not CONFIG_NAME.match(config):
            raise ValueError(f"target {config!r} is not named C<number>, as the corpus's targets are")
        if config not in gold:
            raise ValueError(f"target {config} has no gold configuration")
    if len({game.experiment_id for game in games}) != len(games):
        raise ValueError("two games have the same experiment id (builder, architect, target and start)")
    documents = [(game, observations(game)) for game in games]  # every game checked before anything is written
    listed = {split: sorted(c for c in played if splits.get(c) == split) for split in SPLITS}
    _write(folder / "logs" / "splits.json", json.dumps(listed))
    for config in played:
        _write(folder / "gold-configurations" / f"{config}.xml", gold_xml_text(list(gold[config])))
    for game, document in documents:
        _write(folder / "logs" / game.date_dir / "logs" / game.experiment_id / OBSERVATIONS, json.dumps(document))
    return folder
