"""A small generated Minecraft corpus in the real on-disk layout and format, for tests and for running the
app without the data: 8 games over train/val/test/warm-up building towers, L-shapes, a bridge and stairs.

It reproduces the quirks readers must handle (FORMATS B.3–B.10): the "Mission has started." system line,
cumulative ChatHistory, full-snapshot states, a null-BuilderPosition glitch state (empty blocks, null
inventory), a state with a null ScreenshotPath, multi-block putdowns, a block outside the build region,
gold XML without a root element with +100 x/z offsets in both type spellings and the `` />`` variant, a
build that matches its gold only after a rotation and shift, and one game that does not match its gold.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from corpora.minecraft.data.blocks import COLOR_IDS, block_perspective, encode, gold_xml_text, rotate_xz

INVENTORY_ORDER = ("red", "orange", "yellow", "green", "blue", "purple")

# Gold structures (x, y, z, colour), in gold coordinates (before the +100 offset).
GOLD = {
    "C1": [(1, 1, 0, "blue"), (0, 3, 0, "blue"), (1, 3, 0, "blue"), (0, 4, 0, "blue"), (0, 5, 0, "blue"), (1, 5, 0, "blue")],
    "C2": [(0, 1, 0, "red"), (1, 1, 0, "red"), (2, 1, 0, "red"), (0, 1, 1, "red"), (0, 1, 2, "red"), (0, 2, 0, "orange")],
    "C3": [(-1, 1, 2, "green"), (0, 1, 2, "green"), (1, 1, 2, "green")],
    "C4": [(-2, 1, 0, "purple"), (-2, 2, 0, "purple"), (2, 1, 0, "purple"), (2, 2, 0, "purple"),
           (-2, 3, 0, "yellow"), (-1, 3, 0, "yellow"), (0, 3, 0, "yellow"), (1, 3, 0, "yellow"), (2, 3, 0, "yellow")],
    "C5": [(0, 1, 0, "orange"), (0, 2, 0, "orange"), (0, 3, 0, "orange"), (0, 4, 0, "orange")],
    "C6": [(0, 1, 0, "yellow"), (0, 2, 0, "yellow"), (0, 3, 0, "yellow"), (1, 1, 0, "purple"), (2, 1, 0, "purple")],
    "C7": [(0, 1, 0, "green"), (1, 1, 0, "green"), (1, 2, 0, "green"), (2, 1, 0, "green"), (2, 2, 0, "green"), (2, 3, 0, "green")],
}
# How each gold file is spelled: (short "cwcmod:cwc_<c>_rn" type, " />" ending).
GOLD_SPELLING = {"C1": (False, False), "C2": (True, False), "C3": (True, False), "C4": (False, False),
                 "C5": (False, True), "C6": (True, True), "C7": (False, False)}
SPLITS = {"train": ["C1", "C2"], "val": ["C4", "C5"], "test": ["C6", "C7"]}  # C3 is a warm-up config


def _shifted(blocks, dx=0, dz=0, rotation=0):
    out = []
    for x, y, z, color in blocks:
        rx, rz = rotate_xz(x, z, rotation)
        out.append((int(rx) + dx, y, int(rz) + dz, color))
    return out


def _steps(blocks):
    return [("put", [b]) for b in blocks]


# Each script: (date dir, experiment id, steps). Steps: ("A"|"B", text), ("put", blocks), ("pick", blocks),
# ("glitch",) for a null-BuilderPosition state, ("noshot",) to give the next state a null ScreenshotPath.
_TOWER = [(0, y, 1, "blue") for y in range(1, 6)]
_L_BUILT = _shifted(GOLD["C2"], dx=-1, dz=2, rotation=90)
_BRIDGE = GOLD["C4"]
SCRIPTS = [
    ("data-4-9", "B1-A2-C1-1523304955000", [
        ("A", "start with a blue tower 5 high"), ("B", "what should i do?"), *_steps(_TOWER),
        ("A", "knock out levels 2 and 4"), ("pick", [(0, 2, 1, "blue")]), ("pick", [(0, 4, 1, "blue")]),
        ("B", "good"), ("A", "connect the top two via 3 blocks on any side"), ("B", "what color"), ("A", "also blue"),
        ("put", [(-1, 5, 1, "blue")]), ("put", [(-1, 4, 1, "blue")]), ("put", [(-1, 3, 1, "blue")]), ("B", "like that?"),
        ("A", "perfect, we're done"),
    ]),
    ("data-4-9", "B3-A4-C1-1523311200000", [
        ("A", "hi! build a 1x3 blue column on the right"), ("B", "ok"),
        ("put", [(3, 1, -2, "blue")]), ("put", [(3, 2, -2, "blue"), (3, 3, -2, "blue")]),
        ("A", "now a column on the left from level 3 up to 5, and don't keep level 2 on the right"),
        ("put", [(2, 3, -2, "blue")]), ("put", [(2, 4, -2, "blue")]), ("put", [(2, 5, -2, "blue")]),
        ("pick", [(3, 2, -2, "blue")]), ("B", "done. what next?"),
        ("A", "one more on the right at level 5"), ("put", [(3, 5, -2, "blue")]),
        ("pick", [(3, 5, -2, "blue")]), ("put", [(3, 5, -2, "blue")]), ("B", "there you go"),
    ]),
    ("data-4-9", "B5-A6-C2-1523318400000", [
        ("A", "make an L of red blocks on the ground: 3 long, and 2 more going off the corner"),
        *_steps(_L_BUILT[:5]), ("B", "like this?"), ("A", "yes. now one orange block on top of the corner"),
        ("noshot",), ("put", [_L_BUILT[5]]), ("B", "ok"), ("A", "great, that's it"),
    ]),
    ("data-4-9", "B7-A8-C3-1523325600000", [
        ("A", "warm up: three green blocks in a row"), *_steps(_shifted(GOLD["C3"], dz=-2)), ("B", "done"),
    ]),
    ("data-4-10", "B9-A10-C4-1523390000000", [
        ("A", "we're building a bridge. two purple pillars, 2 high, 5 apart"),
        ("put", [_BRIDGE[0]]), ("put", [_BRIDGE[1]]), ("glitch",), ("put", [_BRIDGE[2]]), ("put", [_BRIDGE[3]]),
        ("B", "pillars done"), ("A", "now a yellow span on top connecting them"),
        ("put", [_BRIDGE[4], _BRIDGE[5]]), ("put", [_BRIDGE[6]]), ("put", [_BRIDGE[7], _BRIDGE[8]]),
        ("B", "how's that?"), ("A", "looks great!"),
    ]),
    ("data-4-10", "B11-A12-C5-1523397200000", [
        ("A", "orange tower, 4 high"), ("put", [(1, 1, 1, "orange")]), ("put", [(1, 2, 1, "orange")]),
        ("put", [(1, 3, 1, "red")]), ("B", "is it orange all the way?"), ("A", "the third one should be orange"),
        ("B", "oops, ran out of time"),
    ]),
    ("data-4-10", "B13-A14-C6-1523404400000", [
        ("A", "three yellow blocks stacked up"), ("put", [(7, 1, 0, "yellow")]), ("B", "here?"),
        ("A", "no, closer to the middle"), ("pick", [(7, 1, 0, "yellow")]),
        *_steps([(-1, 1, -1, "yellow"), (-1, 2, -1, "yellow"), (-1, 3, -1, "yellow")]),
        ("A", "then two purple going right from the bottom"), ("put", [(0, 1, -1, "purple")]), ("put", [(1, 1, -1, "purple")]),
        ("B", "done"),
    ]),
    ("data-4-10", "B15-A16-C7-1523411600000", [
        ("A", "let's make stairs of green: 1, then 2, then 3 high"), ("B", "which direction?"),
        ("A", "any, going away from you"), *_steps([(0, 1, 0, "green"), (0, 1, 1, "green"), (0, 2, 1, "green")]),
        ("A", "good. last column 3 high"), *_steps([(0, 1, 2, "green"), (0, 2, 2, "green"), (0, 3, 2, "green")]),
        ("B", "*done"), ("A", "thanks.. that's it"),
    ]),
]


def _game_json(rng: random.Random, experiment_id: str, steps) -> dict:
    start_ms = int(experiment_id.rsplit("-", 1)[1])
    chat = ["<Builder> Mission has started."]
    blocks: list[tuple] = []
    inventory = dict.fromkeys(INVENTORY_ORDER, 20)
    position = [0.0, 1.0, 0.0, 0.0, 0.0]
    ms = 0
    states = []
    no_shot = False

    def stamp(ms_value):
        from datetime import datetime, timezone
        return datetime.fromtimestamp((start_ms + ms_value) / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")

    def snapshot(event, glitch=False):
        nonlocal no_shot
        pos = tuple(position)
        state = {
            "BuilderPosition": None if glitch else {"X": pos[0], "Y": pos[1], "Z": pos[2], "Yaw": pos[3], "Pitch": pos[4]},
            "BuilderInventory": None if glitch else [
                {"Index": i, "Type": f"cwc_minecraft_{c}_rn", "Quantity": inventory[c]} for i, c in enumerate(INVENTORY_ORDER)],
            "ChatHistory": list(chat),
            "Timestamp": stamp(ms),
            "BlocksInGrid": [] if glitch else [
                {"PerspectiveCoordinates": block_perspective(b, pos), "AbsoluteCoordinates": {"X": b[0], "Y": b[1], "Z": b[2]},
                 "Type": f"cwc_minecraft_{b[3]}_rn"} for b in blocks],
            "ScreenshotPath": None if no_shot else f"{ms}-Builder-{event}.png",
        }
        no_shot = False
        states.append(state)

    snapshot("chat")
    for step in steps:
        kind = step[0]
        ms += rng.randint(2500, 9000)
        if kind in ("A", "B"):
            chat.append(f"<{'Architect' if kind == 'A' else 'Builder'}> {step[1]}")
            snapshot("chat")
        elif kind == "noshot":
            no_shot = True
            ms -= 2000
        elif kind == "glitch":
            snapshot("putdown", glitch=True)
        else:
            position[0] = round(min(4.5, max(-4.5, position[0] + rng.uniform(-1.5, 1.5))), 3)
            position[2] = round(min(4.5, max(-4.5, position[2] + rng.uniform(-1.5, 1.5))), 3)
            position[1] = 1.0 if rng.random() < 0.7 else round(rng.uniform(1.0, 4.0), 3)
            position[3] = round(rng.uniform(-360, 360), 2)
            position[4] = round(rng.uniform(-10, 70), 2)
            for block in step[1]:
                if kind == "put":
                    blocks.append(block)
                    inventory[block[3]] -= 1
                else:
                    blocks.remove(next(b for b in blocks if b[:3] == block[:3]))
                    inventory[block[3]] += 1
            snapshot("putdown" if kind == "put" else "pickup")
    return {"WorldStates": states, "NumFixedViewers": 4, "TimeElapsed": round(ms / 1000 + rng.uniform(1, 6), 6)}


def write_demo(folder: Path) -> None:
    folder = Path(folder)
    rng = random.Random(20180409)
    logs = folder / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    (logs / "splits.json").write_text(json.dumps(SPLITS), encoding="utf-8")
    gold_dir = folder / "gold-configurations"
    gold_dir.mkdir(exist_ok=True)
    for config, blocks in GOLD.items():
        short, spaced = GOLD_SPELLING[config]
        keys = [encode(x, y, z, COLOR_IDS[c]) for x, y, z, c in blocks]
        (gold_dir / f"{config}.xml").write_text(gold_xml_text(keys, short_type=short, space_before_slash=spaced), encoding="utf-8")
    for date_dir, experiment_id, steps in SCRIPTS:
        game_dir = logs / date_dir / "logs" / experiment_id
        game_dir.mkdir(parents=True)
        (game_dir / "postprocessed-observations.json").write_text(json.dumps(_game_json(rng, experiment_id, steps)), encoding="utf-8")


def demo_source(folder: Path) -> Path:
    return Path(folder)
