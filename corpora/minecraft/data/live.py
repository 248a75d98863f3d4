"""Two people playing the Minecraft Collaborative Building game live (issue 50): the rules of its events and its
finished games written as the corpus's game logs (``writer``), a ``LiveRules`` (``dialogue_dashboard.plugin``).

The item is a target structure (``C<n>``). The Architect is shown the target (``setup["roles"]["Architect"]
["target"]``: ``[[x, y, z, colour], ...]``); the Builder builds in the 11×9×11 region; both chat, and both see the
build (the Architect watched the Builder's world). Events: ``message`` (``{"text"}``, one line), and the Builder's
``place`` (``{"x", "y", "z", "color"}``) and ``remove`` (``{"x", "y", "z"}``), checked against the build so far
with the writer's own rules (the region, an empty or a full cell, a colour the Builder still holds).

A finished game is written as ``B<game id>-A<game id>-<target>-<start ms>``, its events timed from the moment the
second player joined, with the target's gold configuration and ``splits.json`` listing it under the split given.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from corpora.minecraft.data.blocks import COLOR_IDS, COLORS, X_MAX, X_MIN, Y_MAX, Y_MIN, Z_MAX, Z_MIN, encode
from corpora.minecraft.data.reader import SPLITS
from corpora.minecraft.data.writer import INVENTORY_START, Chat, CollectedGame, Place, Remove, write_corpus

ROLES = ("Architect", "Builder")
MAX_TARGET_BLOCKS = 11 * 9 * 11


def items(loaded: Any) -> list[str]:
    """The targets with a gold configuration, in the corpus's order."""
    return sorted(set(loaded.frames["gold"]["config"].astype(str)), key=lambda c: (len(c), c))


def dialog_items(loaded: Any, dialog_ids: Sequence[str]) -> list[str]:
    """The targets the dialogs ``dialog_ids`` (a slice's) built, each once in their order, those with a gold
    configuration."""
    dialogs = loaded.frames["dialogs"]
    target_of = dict(zip(dialogs["dialog_id"].astype(str), dialogs["config"].astype(str)))
    known = set(items(loaded))
    return [t for t in dict.fromkeys(target_of.get(str(d), "") for d in dialog_ids) if t in known]


def setup(loaded: Any, item: str, seed: int) -> dict:
    """The Architect is shown the target's blocks; the Builder nothing but the empty region."""
    gold = loaded.frames["gold"]
    blocks = gold[gold["config"].astype(str) == item]
    if blocks.empty:
        raise ValueError(f"the corpus has no target {item!r:.40}")
    target = [[int(x), int(y), int(z), str(c)] for x, y, z, c in zip(blocks["x"], blocks["y"], blocks["z"], blocks["color"])]
    return {"shared": {"target_name": item}, "roles": {"Architect": {"target": target}, "Builder": {}}}


def _cell(payload: Mapping[str, Any]) -> tuple[int, int, int]:
    values = tuple(payload.get(axis) for axis in "xyz")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ValueError("a block's x, y and z are whole numbers")
    return values  # type: ignore[return-value]


def _game_events(events: Sequence[Any], start_ms: int) -> list[Union[Chat, Place, Remove]]:
    """The writer's events of the store's ``events``, timed in ms from ``start_ms`` (never earlier than the one
    before: a clock set back between two servers does not reorder a game)."""
    made: list[Union[Chat, Place, Remove]] = []
    last = 0
    for event in events:
        last = max(last, _ms(event.at) - start_ms)
        if event.kind == "message":
            made.append(Chat(event.role, event.payload["text"], last))
        elif event.kind == "place":
            made.append(Place(*_cell(event.payload), event.payload["color"], last))
        elif event.kind == "remove":
            made.append(Remove(*_cell(event.payload), last))
    return made


def _ms(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp).timestamp() * 1000)


def checked_event(role: str, kind: str, payload: Any, earlier: Sequence[Any],
                  setup: Mapping[str, Any]) -> tuple[Any, Optional[str], tuple]:
    """A chat line by either role; a placement or removal by the Builder that the game allows after ``earlier``."""
    if not isinstance(payload, Mapping):
        raise ValueError("an event is a JSON object")
    if kind == "message":
        text = " ".join(str(payload.get("text", "")).split())
        if not text:
            raise ValueError("a message needs text")
        return {"text": text}, None, ()
    if kind not in ("place", "remove"):
        raise ValueError(f"{kind!r} is not an event of this game (message, place, remove)")
    if role != "Builder":
        raise ValueError("only the Builder places and removes blocks")
    move = {"x": payload.get("x"), "y": payload.get("y"), "z": payload.get("z")}
    cell = _cell(move)
    if not (X_MIN <= cell[0] <= X_MAX and Y_MIN <= cell[1] <= Y_MAX and Z_MIN <= cell[2] <= Z_MAX):
        raise ValueError(f"{cell} is outside the build region (x, z -5..5, y 1..9)")
    blocks: dict[tuple[int, int, int], str] = {}
    for event in earlier:  # the build so far (the writer checks the same rules again when the game is written)
        if event.kind == "place":
            blocks[_cell(event.payload)] = event.payload["color"]
        elif event.kind == "remove":
            blocks.pop(_cell(event.payload), None)
    if kind == "remove":
        if cell not in blocks:
            raise ValueError(f"{cell} holds no block to pick up")
        return move, None, ()
    move["color"] = color = payload.get("color")
    if color not in COLORS:
        raise ValueError(f"{color!r:.30} is not a block colour ({', '.join(COLORS)})")
    if cell in blocks:
        raise ValueError(f"{cell} already holds a block")
    if sum(c == color for c in blocks.values()) >= INVENTORY_START:
        raise ValueError(f"the Builder has no {color} block left")
    return move, None, ()


def _target(setup: Mapping[str, Any], where: str) -> list[int]:
    target = ((setup.get("roles") or {}).get("Architect") or {}).get("target")
    if not isinstance(target, list) or not 0 < len(target) <= MAX_TARGET_BLOCKS:
        raise ValueError(f"{where}: the setup holds no target structure")
    keys = []
    for block in target:
        if not (isinstance(block, list) and len(block) == 4 and block[3] in COLOR_IDS):
            raise ValueError(f"{where}: {block!r:.60} is not a block [x, y, z, colour] of the target")
        keys.append(encode(*_cell(dict(zip("xyz", block[:3]))), COLOR_IDS[block[3]]))
    return keys


def write_games(folder: Path, records: Sequence[Any], split: str) -> Path:
    """The finished games as the corpus's game logs in ``folder`` (absent or empty), their targets' gold
    configurations and ``splits.json`` (``split``: train, val or test); the folder."""
    if split not in SPLITS:
        raise ValueError(f"a Minecraft collection's targets are listed under train, val or test, not {split!r}")
    games, gold = [], {}
    for record in records:
        game = record.game
        where = f"live game {game.id}"
        start_ms = _ms(game.started_at)
        gold[game.item] = _target(record.setup, where)
        games.append(CollectedGame(game.id, game.id, game.item, start_ms, tuple(_game_events(record.events, start_ms))))
    return write_corpus(Path(folder), games, gold, {config: split for config in gold})
