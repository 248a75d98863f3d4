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
import random
import re
from pathlib import Path

from . import LAYER_FILES
from .codraw_icr import HEADER, NOT_GIVEN

SEED = 20230502
_PUNCTUATION = re.compile(r"([^\w\s'])")


def tokenise(text: str) -> str:
    """Roughly the published file's form: lower case, spaces around punctuation, ``it's`` → ``it 's``."""
    text = _PUNCTUATION.sub(r" \1 ", text.lower())
    text = re.sub(r"(\w)'(\w)", r"\1 '\2", text)
    return " ".join(text.split())


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


def codraw_icr_lines(corpus_file: Path) -> list[str]:
    """The demo CR layer of the demo CoDraw corpus (``CoDraw_1_0.json``)."""
    rng = random.Random(SEED)
    document = json.loads(Path(corpus_file).read_text(encoding="utf-8"))
    lines = ["\t".join(HEADER)]
    for key in sorted(document["data"]):
        rounds = document["data"][key]["dialog"]
        for k, turn in enumerate(rounds):
            drawer = turn.get("msg_d", "")
            if not drawer.strip() or rng.random() < 0.33:
                continue
            previous = tokenise(turn.get("msg_t", ""))
            following = tokenise(rounds[k + 1].get("msg_t", "")) if k + 1 < len(rounds) else ""
            if rng.random() < 1 / 12:
                previous = following = NOT_GIVEN
            is_cr = drawer.startswith("is the ")
            impossible = not is_cr and drawer.endswith("?") and rng.random() < 0.2
            lines.append("\t".join([previous, tokenise(drawer), following, "1" if is_cr else "0", "1" if impossible else ""]))
    lines.append("\t".join(["there is a big tree on the left", "sorry , which tree ?", "the pine tree", "1", ""]))
    return lines


def write_demo_layers(folder: Path, gos_log_file: Path, codraw_file: Path) -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / LAYER_FILES["gos-mentions"]).write_text("\n".join(gos_mentions_lines(gos_log_file)) + "\n", encoding="utf-8")
    (folder / LAYER_FILES["codraw-icr"]).write_text("\n".join(codraw_icr_lines(codraw_file)) + "\n", encoding="utf-8")
