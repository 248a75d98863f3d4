"""Small generated demo layers over the demo corpora, in the published file formats.

Deterministic (seeded ``random.Random``, inputs read from the generated demo corpora), like the demo
corpora themselves (``data_access/*/demo.py``):

- ``gos-mentions.jsonl``: every demo message that names an image by one of the demo game's phrases (“the
  pug”, “the red convertible”) gets a single mention per phrase with its offsets and image id; a message
  naming two or more images also gets a group mention spanning them (``single`` false).
- ``icr-codraw-data.tsv``: about two thirds of the Drawer messages of the demo CoDraw corpus, lower-cased and
  tokenised with spaces around punctuation as the published file is; the Drawer's questions about a clip
  art ("is the tree big ?") are CRs, one row in twelve has its context hidden as ``---`` (so generic
  replies such as "ok" align ambiguously), one is marked "impossible to know", and one row quotes a
  Drawer message that is in no dialog (not aligned).
"""
from __future__ import annotations

import json
from pathlib import Path

from . import LAYER_FILES
from .codraw_icr import codraw_icr_lines  # the CoDraw demo layer is kept with the format it writes


def gos_mentions_lines(log_file: Path) -> list[str]:
    """The demo mention layer of the demo A Game Of Sorts log (``a-game-of-sorts_log_interaction_all.jsonl``)."""
    from ..gos.demo import GAMES

    phrases = {game: info["images"] for game, info in GAMES.items()}
    lines = []
    for raw in Path(log_file).read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        record = json.loads(raw)
        if "message_number" not in record:
            continue
        text = record["body_text"]
        found = []
        for image_id, phrase in phrases.get(record["game_id"], []):
            start = text.find(phrase)
            if start >= 0:
                found.append((start, start + len(phrase), image_id))
        if not found:
            continue
        found.sort()
        annotations = [{"mention": text[s:e], "single": True, "image_ids": [i], "start": s, "end": e} for s, e, i in found]
        if len(found) > 1:
            s, e = found[0][0], found[-1][1]
            annotations.append({"mention": text[s:e], "single": False, "image_ids": [i for _s, _e, i in found], "start": s, "end": e})
        lines.append(json.dumps({"interaction_id": record["interaction_id"], "round_number": record["round_number"],
                                 "message_number": record["message_number"], "annotations": annotations}))
    return lines


def write_demo_layers(folder: Path, gos_log_file: Path, codraw_file: Path) -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / LAYER_FILES["gos-mentions"]).write_text("\n".join(gos_mentions_lines(gos_log_file)) + "\n", encoding="utf-8")
    (folder / LAYER_FILES["codraw-icr"]).write_text("\n".join(codraw_icr_lines(codraw_file)) + "\n", encoding="utf-8")
