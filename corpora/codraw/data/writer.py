"""Writing collected CoDraw games (issue 50: two people playing live) in the corpus's own single-file layout, so that
the same reader and frames the app uses for the released corpus (``reader``, ``frames``) read them back.

A collected game is a ``CollectedDialog``: the target scene, the Drawer's palette and, per round, the Teller's
message, the Drawer's reply and the Drawer's canvas after the round, and whether the Teller peeked before it.
``write_corpus`` writes a list of them as ``CoDraw_1_0.json`` (``{"count", "stat", "data"}``), each round with
``seq_t``, ``seq_d``, ``msg_t``, ``msg_d``, ``abs_b`` (the canvas before: the previous round's ``abs_d``, empty before
the first drawing), ``abs_d`` (every palette item, at -10000 when it is not on the canvas, as the game wrote it),
``abs_t``, ``peeked`` (only on the round right after the peek, as in the corpus) and ``score``: the original 7-term
metric the game stored (``metrics.original_score``), ``[]`` while nothing is drawn. ``stat`` holds each player's
session (``start``, ``end``, ``duration`` in seconds, ``round``) under the player's socket id; the dialog's
``socketId`` joins the Teller's and the Drawer's, as the corpus's do (FORMATS.md 0.1, 0.2).
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from corpora.codraw.data.metrics import original_score
from corpora.codraw.data.reader import SINGLE_FILE_NAMES
from corpora.codraw.data.scenes import PALETTE, X_REACH, Y_REACH, Clipart

FILE_NAME = SINGLE_FILE_NAMES[0]
DIALOG_KEY = re.compile(r"^[A-Za-z]+_\d+$")  # "<split>_<number>": the reader takes the split from the key


@dataclass(frozen=True)
class CollectedRound:
    """One round: the Teller's message, the Drawer's reply and the Drawer's canvas after it (its on-canvas cliparts,
    in drawing order). ``peeked``: the Teller looked at the Drawer's canvas before this round."""

    msg_t: str
    msg_d: str
    canvas: tuple[Clipart, ...]
    peeked: bool = False


@dataclass(frozen=True)
class Session:
    """One player's connection: its socket id and when it began and ended (Unix milliseconds)."""

    socket_id: str
    start_ms: int
    end_ms: int


@dataclass(frozen=True)
class CollectedDialog:
    """One collected game. ``key`` is ``<split>_<number>`` (the split a study's games load under); ``image_id`` the
    Abstract Scenes image of ``target``; ``palette`` the cliparts the Drawer could choose from (written at -10000
    where they are not on the canvas; a canvas clipart not in it is written all the same)."""

    key: str
    image_id: int
    target: tuple[Clipart, ...]
    palette: tuple[Clipart, ...]
    rounds: tuple[CollectedRound, ...]
    teller: Session
    drawer: Session


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _checked(c: Clipart, where: str) -> Clipart:
    if not (math.isfinite(c.x) and math.isfinite(c.y)):
        raise ValueError(f"{where}: {c.name} has no position")
    on_canvas = c.x != PALETTE and c.y != PALETTE
    if on_canvas and not (X_REACH[0] <= c.x <= X_REACH[1] and Y_REACH[0] <= c.y <= Y_REACH[1]):
        raise ValueError(f"{where}: {c.name} at {c.x:g},{c.y:g} lies far outside the canvas")
    if not (0 <= c.z <= 2 and c.flip in (0, 1)):
        raise ValueError(f"{where}: {c.name} has depth {c.z} and flip {c.flip} (0..2 and 0 or 1)")
    return c


def scene_string(cliparts: Sequence[Clipart]) -> str:
    """The corpus's scene string: ``"<N>,"`` and 8 fields per clipart (png, local index, object, type, x, y, z,
    flip), with the trailing comma most of the corpus's strings carry."""
    fields = [str(len(cliparts))]
    for index, c in enumerate(cliparts):
        fields += [c.name, str(index), str(c.object), str(c.type), _number(c.x), _number(c.y), str(c.z), str(c.flip)]
    return ",".join(fields) + ","


def drawer_scene(palette: Sequence[Clipart], canvas: Sequence[Clipart]) -> list[Clipart]:
    """The Drawer's scene as the game logged it: every palette item, those on the canvas at their place (matched by
    png name, so that only the pose of a person that is drawn is on the canvas), then any drawn clipart the palette
    lacks."""
    drawn = {c.name: c for c in canvas}
    scene = [drawn.pop(p.name, Clipart(p.identity, p.name, p.type, p.object, PALETTE, PALETTE, p.z, p.flip))
             for p in palette]
    return scene + list(drawn.values())


def score_field(canvas: Sequence[Clipart], target: Sequence[Clipart]) -> list:
    """The round's stored ``score``: ``[score, [7 weights], [7 terms], [7 weighted terms]]`` of the original metric."""
    score = original_score(list(canvas), list(target))
    return [score.score, list(score.weights), list(score.terms), list(score.weighted)]


def dialog_record(dialog: CollectedDialog) -> dict:
    """The dialog object of ``dialog`` (the value under its key in ``data``). ValueError naming the round when a
    clipart cannot be written."""
    where = f"dialog {dialog.key}"
    target = [_checked(c, f"{where} target") for c in dialog.target]
    target_string = scene_string(target)
    rounds, before, drawn = [], "", False
    for number, turn in enumerate(dialog.rounds, start=1):
        canvas = [_checked(c, f"{where} round {number}") for c in turn.canvas]
        if len({c.identity for c in canvas}) != len(canvas):
            raise ValueError(f"{where} round {number}: a clipart is on the canvas twice")
        drawn = drawn or bool(canvas)
        after = scene_string(drawer_scene(dialog.palette, canvas)) if drawn else ""
        record: dict = {"seq_t": str(number), "abs_b": before, "msg_d": turn.msg_d, "abs_d": after,
                        "seq_d": str(number), "msg_t": turn.msg_t, "abs_t": target_string}
        if turn.peeked:
            record["peeked"] = True
        record["score"] = score_field(canvas, target) if after else []
        rounds.append(record)
        before = after
    if sum(turn.peeked for turn in dialog.rounds) > 1:
        raise ValueError(f"{where}: the Teller peeks once, and this dialog marks {sum(t.peeked for t in dialog.rounds)} peeks")
    return {"image_id": dialog.image_id, "abs_t": target_string,
            "socketId": dialog.teller.socket_id + dialog.drawer.socket_id, "dialog": rounds}


def session_record(session: Session, n_rounds: int) -> dict:
    """A ``stat`` entry: the session's ``start`` (a list, as the game kept one per reconnection), ``end``,
    ``duration`` in seconds and ``round`` count."""
    return {"start": [session.start_ms], "end": session.end_ms,
            "duration": max(0.0, (session.end_ms - session.start_ms) / 1000.0), "round": n_rounds}


def corpus_document(dialogs: Sequence[CollectedDialog]) -> dict:
    """The single-file document ``{"count", "stat", "data"}`` of ``dialogs``; ValueError for a key that is not
    ``<split>_<number>`` or is used twice, or a socket id that is not ``/#<id>``."""
    data, stat = {}, {}
    for dialog in dialogs:
        if not DIALOG_KEY.match(dialog.key):
            raise ValueError(f"dialog key {dialog.key!r} is not <split>_<number>")
        if dialog.key in data:
            raise ValueError(f"dialog key {dialog.key} is used twice")
        for session in (dialog.teller, dialog.drawer):
            if not re.fullmatch(r"/#[A-Za-z0-9_-]+", session.socket_id):
                raise ValueError(f"dialog {dialog.key}: socket id {session.socket_id!r} is not /#<letters and digits>")
            stat[session.socket_id] = session_record(session, len(dialog.rounds))
        data[dialog.key] = dialog_record(dialog)
    return {"count": len(data), "stat": stat, "data": data}


def write_corpus(folder: Path, dialogs: Sequence[CollectedDialog]) -> Path:
    """Write ``dialogs`` as ``CoDraw_1_0.json`` in ``folder`` (replacing it whole, never half-written); its path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / FILE_NAME
    text = json.dumps(corpus_document(dialogs), ensure_ascii=False, allow_nan=False)
    part = folder / f".{FILE_NAME}.{os.getpid()}.part"
    try:
        part.write_text(text, encoding="utf-8")
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)
    return path
