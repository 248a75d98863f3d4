"""The generated CoDraw demo corpus: ~40 deterministic dialogs in the official single-file layout.

Target scenes are plausible (a sky object up high, people and things on the grass), the Teller
describes them in templated English, the Drawer places the cliparts one by one with some error, and
the file carries every quirk of the real data (FORMATS.md PART 0): sequence numbers as text in most
rounds and as numbers in some, empty ``abs_b`` before the first drawing, rounds without ``score`` and
with ``[]``, stored scores from the original metric, ``peeked`` only on the round after the peek,
Drawer-first rounds, float and slightly negative positions, 28-item palettes with -10000 for what is
not on the canvas, trailing commas, per-round ``abs_t`` in some dialogs and a ``stat`` section with a
couple of sessions missing.
"""
from __future__ import annotations

import json
import random
import string
from pathlib import Path

from corpora.codraw.data.metrics import original_score
from corpora.codraw.data.scenes import (
    EXPRESSIONS,
    OBJECT_NAMES,
    PEOPLE_TYPES,
    POSES,
    TYPE_PREFIXES,
    TYPE_SIZES,
    Clipart,
    identity_of,
)

FILE_NAME = "CoDraw_1_0.json"
SPLIT_SIZES = (("train", 28), ("val", 6), ("test", 6))
SIZE_WORDS = ("big", "medium-sized", "small")
MOOD_WORDS = {"angry": "an angry", "laughing": "a laughing", "smiling": "a happy", "sad": "a sad", "surprised": "a surprised"}
POSE_WORDS = {"standing": "standing", "arms up": "with both arms up", "kicking": "kicking", "running": "running",
              "sitting cross-legged": "sitting cross-legged", "sitting": "sitting", "waving": "waving"}


def demo_source(folder: Path) -> Path:
    return Path(folder) / FILE_NAME


def _item(rng: random.Random, type_id: int, used: set[int], **place) -> Clipart | None:
    for _ in range(20):
        object_id = rng.randrange(35) if type_id in PEOPLE_TYPES else rng.randrange(TYPE_SIZES[type_id])
        identity = identity_of(type_id, object_id)
        if identity not in used:
            used.add(identity)
            return Clipart(identity, f"{TYPE_PREFIXES[type_id]}_{object_id}s.png", type_id, object_id, **place)
    return None


def _target_scene(rng: random.Random) -> list[Clipart]:
    """A sky object up high, one or two people on the grass, then a few things around them."""
    used: set[int] = set()
    scene = [_item(rng, 0, used, x=float(rng.randrange(40, 460)), y=float(rng.randrange(25, 90)), z=rng.choice((1, 2)),
                   flip=rng.randrange(2))]
    for type_id in rng.sample(PEOPLE_TYPES, rng.choice((1, 2))):
        scene.append(_item(rng, type_id, used, x=float(rng.randrange(60, 440)), y=float(rng.randrange(230, 300)),
                           z=rng.choice((0, 0, 1)), flip=rng.randrange(2)))
    for type_id in rng.sample((1, 4, 5, 6, 7, 7), rng.randrange(2, 5)):
        y = rng.randrange(150, 230) if type_id == 1 else rng.randrange(240, 370)
        scene.append(_item(rng, type_id, used, x=float(rng.randrange(40, 460)), y=float(y), z=rng.choice((0, 1, 1, 2)),
                           flip=rng.randrange(2)))
    return [c for c in scene if c is not None]


def _describe(c: Clipart) -> str:
    side = "on the left" if c.x < 170 else "on the right" if c.x > 330 else "in the middle"
    if c.type in PEOPLE_TYPES:
        person = "boy" if c.type == 2 else "girl"
        mood, pose = EXPRESSIONS[c.object % 5], POSES[c.object // 5]
        return (f"{MOOD_WORDS[mood]} {person} {POSE_WORDS[pose]}, {SIZE_WORDS[c.z]}, {side}, "
                f"facing {'left' if c.flip else 'right'}")
    name = OBJECT_NAMES[c.type][c.object]
    if c.type == 0:
        return f"a {SIZE_WORDS[c.z]} {name} in the sky, top {side.split()[-1]}"
    return f"a {SIZE_WORDS[c.z]} {name} {side}" + (", near the bottom" if c.y > 330 else "")


def _scene_string(cliparts: list[Clipart], trailing_comma: bool) -> str:
    fields = [str(len(cliparts))]
    for index, c in enumerate(cliparts):
        fields += [c.name, str(index), str(c.object), str(c.type), _number(c.x), _number(c.y), str(c.z), str(c.flip)]
    return ",".join(fields) + ("," if trailing_comma else "")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _palette(rng: random.Random, target: list[Clipart]) -> list[Clipart]:
    """The Drawer's 28 palette items: the target's cliparts plus distractors (extra poses of the people)."""
    items = {c.identity: c for c in target}
    palette = [Clipart(c.identity, c.name, c.type, c.object, -10000.0, -10000.0, 0, c.flip) for c in target]
    while len(palette) < 28:
        type_id = rng.randrange(8)
        object_id = rng.randrange(35) if type_id in PEOPLE_TYPES else rng.randrange(TYPE_SIZES[type_id])
        name = f"{TYPE_PREFIXES[type_id]}_{object_id}s.png"
        if any(p.name == name for p in palette) or (type_id not in PEOPLE_TYPES and identity_of(type_id, object_id) in items):
            continue
        palette.append(Clipart(identity_of(type_id, object_id), name, type_id, object_id, -10000.0, -10000.0, 0, rng.randrange(2)))
    return sorted(palette, key=lambda c: (c.type, c.identity))


def _drawer_scene(palette: list[Clipart], placed: dict[int, Clipart]) -> list[Clipart]:
    """Every palette item; the placed ones at their canvas position (by png name, so that only the
    right pose of a person is on the canvas)."""
    by_name = {c.name: c for c in placed.values()}
    return [by_name.get(p.name, p) for p in palette]


def _place(rng: random.Random, c: Clipart) -> Clipart:
    """The Drawer's attempt: roughly right, sometimes a half-pixel position, depth or facing off."""
    x = min(max(c.x + rng.gauss(0, 30), 5), 495)
    y = c.y + rng.gauss(0, 15)
    if c.type == 0 and rng.random() < 0.3:
        y = -rng.choice((1.0, 2.5, 4.0))  # a sky object dragged against the top edge
    x = round(x) + (0.5 if rng.random() < 0.2 else 0.0)
    z = c.z if rng.random() < 0.8 else min(2, c.z + 1)
    flip = c.flip if rng.random() < 0.85 else 1 - c.flip
    return Clipart(c.identity, c.name, c.type, c.object, float(x), float(round(y, 1) if y < 0 else round(y)), z, flip)


def _dialog(rng: random.Random, key: str, image_id: int) -> tuple[dict, dict | None]:
    target = _target_scene(rng)
    palette = _palette(rng, target)
    target_string = _scene_string(target, trailing_comma=rng.random() < 0.5)
    per_round_target = rng.random() < 0.3
    peek_after = None if rng.random() < 0.15 else rng.randrange(1, len(target) + 1)  # after describing that many items
    rounds: list[dict] = []
    placed: dict[int, Clipart] = {}
    before = ""
    seq_as_int = rng.random() < 0.25

    def add_round(msg_t: str, msg_d: str, draw: bool, peeked: bool = False) -> None:
        nonlocal before
        number = len(rounds) + 1
        after = _scene_string(_drawer_scene(palette, placed), trailing_comma=True) if draw or before else ""
        turn: dict[str, object] = {"seq_t": number if seq_as_int and number > 1 else str(number), "abs_b": before, "msg_d": msg_d,
                "abs_d": after, "seq_d": str(number), "msg_t": msg_t}
        if per_round_target:
            turn["abs_t"] = target_string
        if peeked:
            turn["peeked"] = True
        if not after:
            turn["score"] = []
        elif rng.random() > 0.07:  # a few rounds lost their score in the logs
            score = original_score(list(placed.values()), target)
            turn["score"] = [score.score, list(score.weights), list(score.terms), list(score.weighted)]
        rounds.append(turn)
        before = after

    if rng.random() < 0.2:
        add_round("", "hi, i am ready when you are", draw=False)  # the Drawer speaks first
    else:
        add_round("hi", "hello", draw=False)
    order = sorted(target, key=lambda c: (c.type != 0, c.type not in PEOPLE_TYPES, c.x))
    peek_pending = False
    for count, c in enumerate(order, start=1):
        placed[c.identity] = _place(rng, c)
        reply = rng.choice(("ok", "got it", "done, what else?", "ok next", f"is the {OBJECT_NAMES.get(c.type, ('one',) * 58)[0] if c.type not in PEOPLE_TYPES else 'kid'} big?"))
        add_round(f"there is {_describe(c)}", reply, draw=True, peeked=peek_pending)
        peek_pending = False
        if peek_after == count:
            peek_pending = True
    # After the peek, the Teller corrects the worst-placed clipart.
    if peek_after is not None:
        worst = max(placed.values(), key=lambda p: abs(p.x - next(t.x for t in target if t.identity == p.identity)))
        right = next(t for t in target if t.identity == worst.identity)
        placed[worst.identity] = Clipart(worst.identity, worst.name, worst.type, worst.object, right.x + rng.choice((-6.0, 4.0, 0.5)),
                                         right.y, right.z, right.flip)
        add_round(f"i peeked: move the {OBJECT_NAMES.get(right.type, ['person'] * 58)[right.object] if right.type not in PEOPLE_TYPES else 'boy' if right.type == 2 else 'girl'} "
                  f"{'left' if worst.x > right.x else 'right'} a little and make it {SIZE_WORDS[right.z]}", "fixed", draw=True, peeked=peek_pending)
        peek_pending = False
    add_round("that's it, well done", "thanks, bye", draw=True, peeked=peek_pending)

    socket = "/#" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(20)) \
        + "/#" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(20))
    dialog = {"image_id": image_id, "abs_t": target_string, "socketId": socket, "dialog": rounds}
    start = 1_500_000_000_000 + image_id * 3_600_000
    seconds = 40 * len(rounds) + rng.randrange(0, 120)
    session = {"start": [start], "end": start + seconds * 1000, "round": len(rounds)}
    if rng.random() < 0.6:
        session["duration"] = seconds  # otherwise only start/end: the loader falls back to end - start
    return dialog, (session if rng.random() > 0.06 else None)


def write_demo(folder: Path) -> None:
    """Write the demo corpus (one ``CoDraw_1_0.json``) into ``folder``; deterministic."""
    rng = random.Random(20190728)
    data, stat = {}, {}
    image_id = 0
    for split, size in SPLIT_SIZES:
        for _ in range(size):
            image_id += rng.randrange(1, 40)
            key = f"{split}_{image_id:05d}"
            dialog, session = _dialog(rng, key, image_id)
            data[key] = dialog
            if session is not None:
                stat[dialog["socketId"]] = session
    document = {"count": len(data), "stat": stat, "data": data}
    Path(folder).mkdir(parents=True, exist_ok=True)
    demo_source(folder).write_text(json.dumps(document), encoding="utf-8")
