"""Two people playing CoDraw live (issue 50): the rules of its events and its finished games written in the
corpus's single-file JSON (``writer``), a ``LiveRules`` (``dialogue_dashboard.plugin``).

The item is a scene. The Teller is shown the target (``setup["roles"]["Teller"]["target"]``), the Drawer the
palette (``setup["roles"]["Drawer"]["palette"]``), each a list of cliparts ``{"type", "object", "x", "y", "z",
"flip"}``; ``setup["shared"]["image_id"]`` is the Abstract Scenes image. Events, as the original game ran:

- ``message`` (``{"text"}``), seen by both: the Teller's starts a round, the Drawer's reply ends it; the two
  alternate, the Teller first. No message while the Teller's peek is open.
- ``canvas`` (``{"cliparts": [...]}``), the Drawer's whole canvas after a move, seen by the Drawer only (drawn in
  the Drawer's browser at once; sent so that nothing is lost). A round's canvas is the last one before its reply.
- ``peek`` (``{}``) by the Teller, once a game, between rounds: stored with the Drawer's canvas at that moment
  (``{"canvas": [...]}``), seen by the Teller only; ``unpeek`` (``{}``) closes it.

A finished game is written as dialog ``<split>_<game id>``: a round per Teller message (a last one without a reply
keeps an empty reply), ``peeked`` on the round right after the peek, and each round's ``score`` computed by the
corpus's metric (``writer.score_field``); the ``stat`` sessions run from the join to the end of the game.
"""
from __future__ import annotations

import math
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from corpora.codraw.data.scenes import PALETTE, TYPE_SIZES, X_REACH, Y_REACH, Clipart, identity_of, png_name
from corpora.codraw.data.writer import CollectedDialog, CollectedRound, Session, write_corpus

ROLES = ("Teller", "Drawer")
MAX_CLIPARTS = 60  # a canvas (a palette has 28 pieces; the corpus's scenes at most 17)
SPLIT = re.compile(r"^[A-Za-z]+$")


def clipart(value: Any) -> Clipart:
    """A clipart of its JSON form; ValueError for one the game cannot show."""
    if not isinstance(value, Mapping):
        raise ValueError("a clipart is a JSON object")
    fields: list[Any] = [value.get(k) for k in ("type", "object", "z", "flip", "x", "y")]
    kind, obj, z, flip, x, y = fields
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in (kind, obj, z, flip))
    if not whole or not 0 <= kind < len(TYPE_SIZES) or not 0 <= obj < (35 if kind in (2, 3) else TYPE_SIZES[kind]):
        raise ValueError(f"{value!r:.80} is not a clipart of the palette (type, object, z and flip are whole numbers)")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (x, y)) or \
            not (X_REACH[0] <= x <= X_REACH[1] and Y_REACH[0] <= y <= Y_REACH[1]):
        raise ValueError(f"a clipart at {x!r:.20},{y!r:.20} lies far outside the canvas")
    if z not in (0, 1, 2) or flip not in (0, 1):
        raise ValueError(f"a clipart has depth {z} and flip {flip} (0..2 and 0 or 1)")
    return Clipart(identity_of(kind, obj), png_name(kind, obj), kind, obj, float(x), float(y), z, flip)


def items(loaded: Any) -> list[str]:
    """The dialogs whose target scene is known, in the corpus's order: a game is played over a dialog's scene."""
    dialogs = loaded.frames["dialogs"]
    return dialogs.loc[dialogs["target_scene"].notna() & (dialogs["n_target_cliparts"] > 0), "dialog_id"].astype(str).tolist()


def dialog_items(loaded: Any, dialog_ids: Sequence[str]) -> list[str]:
    """The items the dialogs ``dialog_ids`` (a slice's) were played over, each once in their order: each dialog's own
    scene, for those whose target scene is known."""
    known = set(items(loaded))
    return [item for item in dict.fromkeys(str(d) for d in dialog_ids) if item in known]


def setup(loaded: Any, item: str, seed: int) -> dict:
    """The Teller is shown the dialog's target scene; the Drawer a palette of the target's cliparts and every
    clipart the recorded Drawer placed (the frames keep a scene's cliparts on the canvas only, so the rest of the
    original palette is not known)."""
    dialogs, cliparts, rounds = (loaded.frames[k] for k in ("dialogs", "cliparts", "rounds"))
    row = dialogs[dialogs["dialog_id"].astype(str) == item]
    if row.empty or row["target_scene"].isna().iloc[0]:
        raise ValueError(f"the corpus has no dialog {item!r:.40} with a target scene")
    target_scene = int(row["target_scene"].iloc[0])
    drawn = rounds.loc[rounds["dialog_id"].astype(str) == item, "after_scene"].dropna().astype(int)

    def scene(scene_id: int) -> list[dict]:
        part = cliparts[cliparts["scene_id"] == scene_id]
        return [{"type": int(t), "object": int(o), "x": float(x), "y": float(y), "z": int(z), "flip": int(f)}
                for t, o, x, y, z, f in zip(part["type"], part["object"], part["x"], part["y"], part["z"], part["flip"])]

    target = scene(target_scene)
    palette: dict[tuple[int, int], dict] = {}
    for piece in target + [c for scene_id in dict.fromkeys(drawn) for c in scene(scene_id)]:
        palette.setdefault((piece["type"], piece["object"]), {**piece, "x": PALETTE, "y": PALETTE})
    return {"shared": {"image_id": int(row["image_id"].iloc[0])},
            "roles": {"Teller": {"target": target}, "Drawer": {"palette": list(palette.values())}}}


def _form(c: Clipart) -> dict:
    return {"type": c.type, "object": c.object, "x": c.x, "y": c.y, "z": c.z, "flip": c.flip}


def _canvas(value: Any) -> list[Clipart]:
    if not isinstance(value, list) or len(value) > MAX_CLIPARTS:
        raise ValueError(f"a canvas is a list of at most {MAX_CLIPARTS} cliparts")
    canvas = [clipart(c) for c in value]
    if len({c.identity for c in canvas}) != len(canvas):
        raise ValueError("a clipart is on the canvas twice")
    return canvas


def _state(earlier: Sequence[Any]) -> tuple[bool, bool, bool, list]:
    """(a Teller message awaits its reply, the peek is open, the Teller has peeked, the Drawer's last canvas)."""
    awaiting = peek_open = peeked = False
    canvas: list = []
    for event in earlier:
        if event.kind == "message":
            awaiting = event.role == "Teller"
        elif event.kind == "canvas":
            canvas = event.payload["cliparts"]
        elif event.kind == "peek":
            peek_open = peeked = True
        elif event.kind == "unpeek":
            peek_open = False
    return awaiting, peek_open, peeked, canvas


def checked_event(role: str, kind: str, payload: Any, earlier: Sequence[Any],
                  setup: Mapping[str, Any]) -> tuple[Any, Optional[str], tuple]:
    """A message in its turn, the Drawer's canvas, the Teller's one peek (see the module's docstring)."""
    if not isinstance(payload, Mapping):
        raise ValueError("an event is a JSON object")
    awaiting, peek_open, peeked, canvas = _state(earlier)
    if kind == "message":
        if peek_open:
            raise ValueError("no messages while the Teller peeks at the canvas")
        if (role == "Teller") == awaiting:
            raise ValueError("the Teller and the Drawer take turns: " +
                             ("wait for the Drawer's reply" if awaiting else "wait for the Teller's message"))
        return {"text": str(payload.get("text", ""))}, None, ()
    if kind == "canvas" and role == "Drawer":
        return {"cliparts": [_form(c) for c in _canvas(payload.get("cliparts"))]}, "Drawer", ()
    if kind in ("peek", "unpeek") and role == "Teller":
        if kind == "unpeek":
            if not peek_open:
                raise ValueError("the peek is not open")
            return {}, "Teller", ()
        if peeked or awaiting:
            raise ValueError("the Teller peeks once, between rounds" if not peeked else "the Teller has peeked already")
        return {"canvas": canvas}, "Teller", ()
    raise ValueError(f"{kind!r:.30} is not an event the {role} sends (message; canvas by the Drawer; peek by the Teller)")


def rounds(events: Sequence[Any]) -> tuple[CollectedRound, ...]:
    """The game's rounds: a Teller message, the Drawer's reply and the Drawer's canvas at the reply."""
    made: list[CollectedRound] = []
    message: Optional[str] = None
    canvas: tuple[Clipart, ...] = ()
    peek_before = False
    for event in events:
        if event.kind == "canvas":
            canvas = tuple(clipart(c) for c in event.payload["cliparts"])
        elif event.kind == "peek":
            peek_before = True
        elif event.kind == "message" and event.role == "Teller":
            message = event.payload["text"]
        elif event.kind == "message" and message is not None:
            made.append(CollectedRound(message, event.payload["text"], canvas, peek_before))
            message, peek_before = None, False
    if message is not None:
        made.append(CollectedRound(message, "", canvas, peek_before))
    return tuple(made)


def _ms(stamp: Optional[str]) -> int:
    return int(datetime.fromisoformat(stamp).timestamp() * 1000) if stamp else 0


def write_games(folder: Path, records: Sequence[Any], split: str) -> Path:
    """The finished games as ``CoDraw_1_0.json`` in ``folder``, each dialog ``<split>_<game id>``; its path."""
    if not isinstance(split, str) or not SPLIT.match(split):
        raise ValueError(f"a CoDraw collection's split is a word of letters (its dialogs are <split>_<number>), "
                         f"not {split!r}")
    dialogs = []
    for record in records:
        game, setup = record.game, record.setup
        roles = setup.get("roles") or {}
        where = f"live game {game.id}"
        image_id = (setup.get("shared") or {}).get("image_id")
        if not isinstance(image_id, int) or isinstance(image_id, bool):
            raise ValueError(f"{where}: the setup names no image (shared.image_id)")
        try:
            target = tuple(_canvas((roles.get("Teller") or {}).get("target")))
            # a palette piece's place is the palette's (-10000): only what it is counts
            palette = tuple(clipart({**c, "x": 0, "y": 0}) if isinstance(c, Mapping) else clipart(c)
                            for c in (roles.get("Drawer") or {}).get("palette") or ())
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        start, end = _ms(game.started_at), _ms(game.finished_at)
        dialogs.append(CollectedDialog(f"{split}_{game.id}", image_id, target, palette, rounds(record.events),
                                       teller=Session(f"/#live{game.id}-teller", start, end),
                                       drawer=Session(f"/#live{game.id}-drawer", start, end)))
    return write_corpus(Path(folder), dialogs)
