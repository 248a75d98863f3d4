"""Playing the Drawer of a recorded dialog (``contract.PlayRules``; docs/play.md).

A step is one round: the recorded Teller's message of the round arrives (with the dialog so far), the person
builds the scene on their own canvas (it carries over from round to round, as the Drawer's did) with the clip-art
palette, may type a reply, and "Done with this round" sends the canvas. A play is a CoDraw run (docs/formats.md,
"Model runs": one line per round with the canvas as a scene string), scored by this corpus's ``RunScoring``: the
paper's scene similarity (max 5) after every round and the original 7-term metric the game stored, against the
dialog's target, beside the human Drawer's canvas of the same round. The score of the play is that of its final
drawing (the last round with a non-empty canvas), as for the humans and the models.

A move is ``{"canvas": [{"type", "object", "x", "y", "z", "flip"}, ...], "reply": "..."}``: the pieces on the canvas
in the scene string's order (which sets the drawing order within one depth), each a clip-art piece of the corpus
(people by their pose and expression), one of each clip art at most, its centre within one canvas width or height
of the canvas (where dragging can put it, ``scenes.X_REACH``), one of the three sizes (z: 0 large, 1 medium,
2 small) and facing either way.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np
import pandas as pd

from corpora.codraw.data.metrics import ORIGINAL_TERMS, original_score
from corpora.codraw.data.render import SPRITE_SIZES, TYPE_STYLES, short_label
from corpora.codraw.data.scenes import (
    CANVAS_HEIGHT,
    CANVAS_WIDTH,
    DEPTH_SCALES,
    N_PERSON_SUBTYPES,
    PEOPLE_TYPES,
    TYPE_SIZES,
    X_REACH,
    Y_REACH,
    Clipart,
    clipart_label,
    identity_of,
    parse_scene,
    png_name,
)
from dialogue_dashboard.plugin import LoadedCorpus

ROLE = "Drawer"
STEP_UNIT = "round"
SCORE_LABEL = "scene similarity, the paper's metric (max 5)"
MAX_REPLY_CHARS = 2_000
# The palette's groups as the original interface had them (its tabs), each a list of clip-art types
GROUPS = (("Sky", 0), ("Trees and large objects", 1), ("Mike", 2), ("Jenny", 3), ("Animals", 4), ("Clothing", 5),
          ("Food", 6), ("Toys", 7))


def _dialog_rounds(loaded: LoadedCorpus, dialog_id: str) -> pd.DataFrame:
    rounds = loaded.frames["rounds"]
    return rounds[rounds["dialog_id"] == dialog_id].sort_values("round").reset_index(drop=True)


def _target(loaded: LoadedCorpus, dialog_id: str) -> Optional[int]:
    dialogs = loaded.dialogs
    target = dialogs.loc[dialogs["dialog_id"] == dialog_id, "target_scene"]
    return None if target.empty or pd.isna(target.iloc[0]) else int(target.iloc[0])


def playable(loaded: LoadedCorpus) -> list[str]:
    """Dialogs with a target scene and at least one round, in the corpus's order."""
    dialogs = loaded.dialogs
    with_rounds = set(loaded.frames["rounds"]["dialog_id"].astype(str))
    kept = dialogs[dialogs["target_scene"].notna()]
    return [d for d in kept["dialog_id"].astype(str) if d in with_rounds]


def seats(loaded: LoadedCorpus, dialog_id: str) -> list[str]:
    return [ROLE] if _target(loaded, dialog_id) is not None and len(_dialog_rounds(loaded, dialog_id)) else []


def step_count(loaded: LoadedCorpus, dialog_id: str, seat: str) -> int:
    return len(_dialog_rounds(loaded, dialog_id)) if seat == ROLE and _target(loaded, dialog_id) is not None else 0


def _sprite_size(folder: Optional[str], type_id: int, object_id: int) -> tuple[int, int]:
    """The piece's size at the largest depth: the real PNG's when the clip-art folder has it, else the identity's."""
    if folder:
        path = Path(folder) / png_name(type_id, object_id)
        try:
            from PIL import Image

            with Image.open(path) as image:
                return image.size
        except (OSError, ValueError):
            pass
    return SPRITE_SIZES[identity_of(type_id, object_id)]


def setup(loaded: LoadedCorpus, dialog_id: str, seat: str) -> dict:
    """The canvas, the three sizes and the palette: every clip-art piece of the corpus, grouped as in the original
    (Mike's and Jenny's 35 poses and expressions each), with its size and the art-free rendition's colour."""
    folder = loaded.assets if loaded.assets and Path(loaded.assets, "background.png").is_file() else None
    groups = []
    for title, type_id in GROUPS:
        count = N_PERSON_SUBTYPES if type_id in PEOPLE_TYPES else TYPE_SIZES[type_id]
        pieces = []
        for object_id in range(count):
            width, height = _sprite_size(folder, type_id, object_id)
            c = Clipart(identity_of(type_id, object_id), png_name(type_id, object_id), type_id, object_id, 0, 0, 0, 0)
            pieces.append({"png": c.name, "type": type_id, "object": object_id, "identity": c.identity,
                           "label": clipart_label(type_id, object_id), "short": short_label(c), "w": width, "h": height})
        groups.append({"title": title, "people": type_id in PEOPLE_TYPES, "pieces": pieces})
    colours = {str(t): "#%02x%02x%02x" % colour for t, (colour, _shape) in TYPE_STYLES.items()}
    return {"canvas": [CANVAS_WIDTH, CANVAS_HEIGHT], "scales": list(DEPTH_SCALES), "groups": groups,
            "colours": colours, "art": folder is not None, "reach": {"x": list(X_REACH), "y": list(Y_REACH)}}


def _scene_items(loaded: LoadedCorpus, scene_id) -> list[dict]:
    if scene_id is None or pd.isna(scene_id):
        return []
    cliparts = loaded.frames["cliparts"]
    ids = cliparts["scene_id"].to_numpy()
    if len(ids) > 1 and bool(np.all(ids[1:] >= ids[:-1])):  # built in scene order: a binary search, not a mask
        start, end = np.searchsorted(ids, [int(scene_id), int(scene_id) + 1])
        rows = cliparts.iloc[start:end]
    else:
        rows = cliparts[cliparts["scene_id"] == int(scene_id)]
    by_identity: dict[int, dict] = {}
    for identity, type_id, object_id, x, y, z, flip in zip(rows["identity"], rows["type"], rows["object"], rows["x"],
                                                            rows["y"], rows["z"], rows["flip"]):
        by_identity.pop(int(identity), None)  # a clip art given twice counts once, its last copy (as the metric reads it)
        by_identity[int(identity)] = {"type": int(type_id), "object": int(object_id), "x": _coordinate(x),
                                      "y": _coordinate(y), "z": int(z), "flip": int(flip)}
    return list(by_identity.values())


def _coordinate(value) -> float | int:
    value = float(value)
    return int(value) if value.is_integer() else value


def step_view(loaded: LoadedCorpus, dialog_id: str, seat: str, step: int, moves: Sequence[Any]) -> dict:
    """The Teller's messages up to the round (the rounds before with the recorded Drawer's reply and the person's
    own), the person's canvas after the round before, and the human Drawer's canvas after it."""
    rounds = _dialog_rounds(loaded, dialog_id)
    shown = rounds[rounds["round"] <= step]
    lines = []
    for row in shown.itertuples(index=False):
        number = int(row.round)
        mine = moves[number - 1].get("reply", "") if number - 1 < len(moves) else None
        lines.append({"round": number, "teller": str(row.msg_t or ""), "peeked": bool(row.peeked),
                      "drawer": str(row.msg_d or "") if number < step else None, "reply": mine})
    view = {"step": step, "lines": lines, "canvas": list(moves[-1]["canvas"]) if moves else []}
    if step > 1:
        view["human_before"] = human_move(loaded, dialog_id, seat, step - 1)
    return view


def _number(value: Any, low: float, high: float, what: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"{what} must be a number from {low:g} to {high:g}")
    return int(value) if float(value).is_integer() else float(value)


def _piece(raw: Any, number: int) -> dict:
    where = f"piece {number}"
    if not isinstance(raw, dict):
        raise ValueError(f"{where} is not an object")
    type_id, object_id = raw.get("type"), raw.get("object")
    if isinstance(type_id, bool) or not isinstance(type_id, int) or not 0 <= type_id < len(TYPE_SIZES):
        raise ValueError(f"{where}: type must be a clip-art type from 0 to {len(TYPE_SIZES) - 1}")
    count = N_PERSON_SUBTYPES if type_id in PEOPLE_TYPES else TYPE_SIZES[type_id]
    if isinstance(object_id, bool) or not isinstance(object_id, int) or not 0 <= object_id < count:
        raise ValueError(f"{where}: object must be from 0 to {count - 1} for type {type_id}")
    z, flip = raw.get("z"), raw.get("flip")
    if z not in (0, 1, 2) or isinstance(z, bool):
        raise ValueError(f"{where}: z (its size) must be 0, 1 or 2")
    if flip not in (0, 1) or isinstance(flip, bool):
        raise ValueError(f"{where}: flip must be 0 or 1")
    return {"type": type_id, "object": object_id, "x": _number(raw.get("x"), *X_REACH, f"{where}: x"),
            "y": _number(raw.get("y"), *Y_REACH, f"{where}: y"), "z": z, "flip": flip}


def checked_move(loaded: LoadedCorpus, dialog_id: str, seat: str, step: int, move: Any, earlier: Sequence[Any]) -> dict:
    """``{"canvas": [...], "reply": "..."}`` with every piece checked, one of each clip art."""
    if seat != ROLE:
        raise ValueError(f"{dialog_id} is played as the {ROLE}, not {seat!r}")
    canvas = move.get("canvas") if isinstance(move, dict) else None
    if not isinstance(canvas, list):
        raise ValueError('the move must be {"canvas": [...], "reply": "..."}')
    if len(canvas) > len(SPRITE_SIZES):
        raise ValueError(f"a canvas holds at most {len(SPRITE_SIZES)} pieces (one of each clip art); {len(canvas)} were sent")
    pieces, seen = [], set()
    for number, raw in enumerate(canvas, start=1):
        piece = _piece(raw, number)
        identity = identity_of(piece["type"], piece["object"])
        if identity in seen:
            raise ValueError(f"piece {number}: {clipart_label(piece['type'], piece['object'])} is on the canvas twice")
        seen.add(identity)
        pieces.append(piece)
    reply = move.get("reply", "")
    if not isinstance(reply, str) or len(reply) > MAX_REPLY_CHARS:
        raise ValueError(f"the reply must be text of at most {MAX_REPLY_CHARS:,} characters")
    return {"canvas": pieces, "reply": reply}


def _cliparts(canvas: Sequence[dict]) -> list[Clipart]:
    return [Clipart(identity_of(p["type"], p["object"]), png_name(p["type"], p["object"]), p["type"], p["object"],
                    float(p["x"]), float(p["y"]), p["z"], p["flip"]) for p in canvas]


def run_lines(loaded: LoadedCorpus, dialog_id: str, seat: str, moves: Sequence[Any]) -> list[dict]:
    """One line per round played: the canvas after it as a scene string, and the reply as the corpus's ``msg_d``."""
    from corpora.codraw.data.scoring import scene_string

    return [{"dialog_id": dialog_id, "round": number, "scene": scene_string(_cliparts(move["canvas"])) if move["canvas"] else "",
             "msg_d": move.get("reply", "")} for number, move in enumerate(moves, start=1)]


def human_move(loaded: LoadedCorpus, dialog_id: str, seat: str, step: int) -> dict:
    """The human Drawer's canvas after the round (each clip art once, as the metric reads it) and their reply."""
    rounds = _dialog_rounds(loaded, dialog_id)
    row = rounds[rounds["round"] == step]
    if row.empty:
        raise ValueError(f"{dialog_id} has no round {step}")
    return {"canvas": _scene_items(loaded, row["after_scene"].iloc[0]), "reply": str(row["msg_d"].iloc[0] or "")}


def step_figures(loaded: LoadedCorpus, run, dialog_id: str, seat: str, step: int) -> list[tuple[str, float, float]]:
    """The round's scene similarity (the paper's metric) and the original metric the game stored, with that
    metric's seven terms, the person's canvas beside the human Drawer's of the same round."""
    rounds = run.frames["rounds"]
    row = rounds[(rounds["dialog_id"] == dialog_id) & (rounds["round"] == step)]
    if row.empty:
        return []
    row = row.iloc[0]
    figures = [("scene similarity after this round (paper's metric)", float(row["score_final"]), float(row["human_score_final"])),
               ("the original metric the game stored", float(row["score_original"]), float(row["human_score_original"]))]
    target_scene = _target(loaded, dialog_id)
    target = _cliparts(_scene_items(loaded, target_scene))
    mine = parse_scene(str(row["scene"])) if row["scene"] else []
    human = _cliparts(human_move(loaded, dialog_id, seat, step)["canvas"])
    yours, theirs = original_score(mine, target), original_score(human, target)
    for name, value, other in zip(ORIGINAL_TERMS, yours.terms, theirs.terms):
        figures.append((f"· {name} (term of the original metric)", float(value), float(other)))
    return figures
