"""Two generated runs per demo corpus, so that the runs pages work with nothing configured.

Both are deterministic functions of the demo corpus (fixed seeds, frames in their stored order):
- ``baseline``: a simple rule-based model. CoDraw: after round r of n it has drawn the first ⌈r·T/n⌉
  target cliparts at their target depth, unflipped, on a 100-pixel grid. Minecraft: the gold actions
  without their removals. Game Of Sorts: every in-round message refers to the image ranked next.
- ``noisy``: the human behaviour corrupted. CoDraw: the human canvas with positions jittered (σ = 30 px),
  10 % of cliparts dropped and 15 % flipped. Minecraft: gold actions shifted by one cell (25 %), recoloured
  (15 %), plus a stray removal (30 % of samples, usually infeasible). Game Of Sorts: the gold images with
  20 % swapped for another board image and an image named for 25 % of messages whose gold is empty.
"""
from __future__ import annotations

import json
import math
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import Optional

DEMO_RUNS_VERSION = 1
RUN_NAMES = ("baseline", "noisy")


def scene_string(cliparts) -> str:
    """A CoDraw scene string of Clipart-like rows (name, object, type, x, y, z, flip), trailing comma."""
    fields = [str(len(cliparts))]
    for index, c in enumerate(cliparts):
        x, y = (str(int(v)) if float(v).is_integer() else repr(float(v)) for v in (c.x, c.y))
        fields += [c.name, str(index), str(int(c.object)), str(int(c.type)), x, y, str(int(c.z)), str(int(c.flip))]
    return ",".join(fields) + ","


def _codraw(frames) -> dict[str, list[dict]]:
    from ..codraw.scenes import cliparts_of

    rounds, cliparts = frames["rounds"], frames["cliparts"]
    scenes = {int(s): cliparts_of(group) for s, group in cliparts.groupby("scene_id", sort=False)}
    baseline, noisy = [], []
    rng = random.Random(1201)
    for dialog_id, group in rounds.groupby("dialog_id", sort=False):
        n = len(group)
        for position, row in enumerate(group.itertuples(index=False), start=1):
            target = scenes.get(int(row.target_scene), []) if not _na(row.target_scene) else []
            k = math.ceil(position * len(target) / max(n, 1))
            drawn = [c.__class__(c.identity, c.name, c.type, c.object, float(round(c.x / 100) * 100),
                                 float(round(c.y / 100) * 100), c.z, 0) for c in target[:k]]
            baseline.append({"dialog_id": str(dialog_id), "round": int(row.round), "scene": scene_string(drawn)})
            if _na(row.after_scene):
                continue
            human = scenes.get(int(row.after_scene), [])
            jittered = []
            for c in human:
                if rng.random() < 0.10:
                    continue
                x = min(500.0, max(0.0, round(c.x + rng.gauss(0, 30))))
                y = min(400.0, max(0.0, round(c.y + rng.gauss(0, 30))))
                flip = 1 - c.flip if rng.random() < 0.15 else c.flip
                jittered.append(c.__class__(c.identity, c.name, c.type, c.object, x, y, c.z, flip))
            noisy.append({"dialog_id": str(dialog_id), "round": int(row.round), "scene": scene_string(jittered)})
    return {"baseline": baseline, "noisy": noisy}


def _na(value) -> bool:
    import pandas as pd

    return value is None or pd.isna(value)


def _minecraft(frames) -> dict[str, list[dict]]:
    from ..minecraft.blocks import COLORS

    samples = frames["bap_samples"]
    baseline, noisy = [], []
    rng = random.Random(1202)
    for game, sample_id, text in zip(samples["game"], samples["sample_id"], samples["next_actions"]):
        gold = json.loads(text)
        baseline.append({"game": game, "sample_id": int(sample_id), "actions": [
            {"action": "place", "x": a[1], "y": a[2], "z": a[3], "color": a[4]} for a in gold if a[0] == "putdown"]})
        actions = []
        for kind, x, y, z, color, _state in gold:
            if rng.random() < 0.25:
                x += rng.choice((-1, 1))
            if rng.random() < 0.15:
                color = rng.choice([c for c in COLORS if c != color])
            actions.append({"action": "place" if kind == "putdown" else "remove", "x": x, "y": y, "z": z, "color": color})
        if rng.random() < 0.3:
            actions.append({"action": "remove", "x": rng.randint(-5, 5), "y": rng.randint(1, 9), "z": rng.randint(-5, 5)})
        noisy.append({"game": game, "sample_id": int(sample_id), "actions": actions})
    return {"baseline": baseline, "noisy": noisy}


def _gos(frames) -> dict[str, list[dict]]:
    messages, boards = frames["messages"], frames["boards"]
    images_of = {b: list(ids) for b, ids in zip(boards["board_id"], boards["image_ids"])}
    baseline, noisy = [], []
    rng = random.Random(1203)
    for row in messages.itertuples(index=False):
        key = {"interaction_id": row.interaction_id, "round_number": int(row.round_number),
               "message_number": int(row.message_number)}
        upcoming = row.next_ranked_image_id
        named = [upcoming] if bool(row.in_round) and isinstance(upcoming, str) and upcoming not in ("", "None", "nan") else []
        baseline.append({**key, "image_ids": named})
        board = images_of.get(row.board_id, [])
        gold = [i for i in list(row.image_ids) if i]
        if gold:
            predicted = [rng.choice(board) if board and rng.random() < 0.2 else i for i in gold]
        else:
            predicted = [rng.choice(board)] if board and rng.random() < 0.25 else [None]
        noisy.append({**key, "image_ids": predicted})
    return {"baseline": baseline, "noisy": noisy}


GENERATORS = {"codraw": _codraw, "minecraft": _minecraft, "gos": _gos}


def write_demo_runs(corpus: str, frames, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, lines in GENERATORS[corpus](frames).items():
        with open(folder / f"{name}.jsonl", "w", encoding="utf-8") as out:
            for line in lines:
                out.write(json.dumps(line) + "\n")


def demo_runs(corpus: str, cache_root: Optional[Path] = None) -> dict[str, Path]:
    """name -> file of the demo runs of ``corpus`` (written on first use, atomically)."""
    from ..corpora import load_source
    from ..sources import Source, cache_dir

    root = Path(cache_root or cache_dir()) / "demo"
    folder = root / f"runs-{corpus}-v{DEMO_RUNS_VERSION}"
    if not folder.is_dir():
        loaded = load_source(Source(corpus, None, None), cache_root=cache_root)
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=root))
        write_demo_runs(corpus, loaded.frames, tmp)
        try:
            os.replace(tmp, folder)
        except OSError:  # another process won the race; its files are identical
            shutil.rmtree(tmp, ignore_errors=True)
    return {name: folder / f"{name}.jsonl" for name in RUN_NAMES}
