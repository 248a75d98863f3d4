"""A Game Of Sorts runs (reference resolution): which images a model says each message refers to.

Format: JSON Lines, one line per message ``{"interaction_id", "round_number", "message_number",
"image_ids": [...]}``; gold is the message's self-annotated ``image_ids`` in the corpus (``[null]`` = none).

Per message with non-empty gold G and predicted set P: exact match (P = G), precision |P ∩ G| / |P| (0 when
P is empty), recall |P ∩ G| / |G|, F1 their harmonic mean (0 when both are 0). The run's figures are means
over those messages. Messages whose gold is empty are scored apart: whether the model names any image.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..common import LoadedCorpus, skipped_report
from .common import Tally, json_lines, no_usable_line, read_bytes

EXPECTED = 'one JSON object per line {"interaction_id", "round_number", "message_number", "image_ids": [...]}'
MESSAGE_COLUMNS = ["interaction_id", "round_number", "message_number", "line", "record", "board_id", "criterion", "text",
                   "predicted", "gold", "gold_empty", "n_predicted", "n_gold", "exact", "precision", "recall", "f1",
                   "names_image"]


def set_scores(predicted: set, gold: set) -> tuple[bool, float, float, float]:
    """(exact, precision, recall, F1) of a predicted image set against a non-empty gold set."""
    hits = len(predicted & gold)
    precision = hits / len(predicted) if predicted else 0.0
    recall = hits / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return predicted == gold, precision, recall, f1


def _int(value):
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_rows(path: Path) -> tuple[list[dict], Tally]:
    path = Path(path)
    tally = Tally(path.name)
    rows, seen, total = [], [], 0  # type: list, list, int
    for line in json_lines(read_bytes(path), tally):
        total += 1
        r = line.record
        if len(seen) < 50:
            seen.append(r)
        interaction, round_number, message_number = r.get("interaction_id"), _int(r.get("round_number")), _int(r.get("message_number"))
        images = r.get("image_ids")
        if not isinstance(interaction, str) or not interaction:
            tally.skip(line.number, "interaction_id is missing or not a string")
        elif round_number is None or message_number is None:
            tally.skip(line.number, "round_number and message_number must be integers")
        elif not isinstance(images, list) or not all(i is None or isinstance(i, str) for i in images):
            tally.skip(line.number, "image_ids must be a list of image ids (null for none)")
        else:
            rows.append({"interaction_id": interaction, "round_number": round_number, "message_number": message_number,
                         "line": line.number, "predicted": sorted({i for i in images if i})})
    if not rows:
        raise no_usable_line(path, "gos", seen, total, EXPECTED)
    return rows, tally


def score(corpus: LoadedCorpus, rows: list[dict], tally: Tally) -> dict[str, pd.DataFrame]:
    messages = corpus.frames["messages"]
    criteria = corpus.frames["rounds"].set_index(["interaction_id", "round"])["criterion"].to_dict()
    gold_of = {(i, r, m): (sorted({x for x in ids if x}), board, text) for i, r, m, ids, board, text in zip(
        messages["interaction_id"], messages["round"], messages["message_number"], messages["image_ids"],
        messages["board_id"], messages["text"])}
    interactions = set(messages["interaction_id"])
    rounds = {(i, r) for i, r in zip(messages["interaction_id"], messages["round"])}
    out: dict[str, list] = {name: [] for name in MESSAGE_COLUMNS}
    seen: dict[tuple, int] = {}
    for row in rows:
        key = (row["interaction_id"], row["round_number"], row["message_number"])
        where = f"{key[0]} round {key[1]} message {key[2]}"
        if key not in gold_of:
            if key[0] not in interactions:
                reason = "unknown interaction"
            elif key[:2] not in rounds:
                reason = f"the interaction has no round {key[1]} with messages"
            else:
                reason = f"the round has no message {key[2]}"
            tally.unmatch(row["line"], where, reason)
            continue
        if key in seen:
            tally.skip(row["line"], f"a second prediction for {where} (first on line {seen[key]})")
            continue
        seen[key] = row["line"]
        gold, board, text = gold_of[key]
        predicted = row["predicted"]
        exact, precision, recall, f1 = set_scores(set(predicted), set(gold)) if gold else (None, None, None, None)
        values = (*key, row["line"], f"line {row['line']}", board, criteria.get(key[:2], ""), text,
                  json.dumps(predicted), json.dumps(gold), not gold, len(predicted), len(gold), exact, precision,
                  recall, f1, bool(predicted))
        for name, value in zip(MESSAGE_COLUMNS, values):
            out[name].append(value)
    frame = pd.DataFrame(out, columns=MESSAGE_COLUMNS).astype({
        "interaction_id": "str", "round_number": "int64", "message_number": "int64", "line": "Int64", "record": "str",
        "board_id": "str", "criterion": "str", "text": "str", "predicted": "str", "gold": "str", "gold_empty": "bool",
        "n_predicted": "int64", "n_gold": "int64", "exact": "boolean", "precision": "float64", "recall": "float64",
        "f1": "float64", "names_image": "bool"})
    return {"messages": frame, "unmatched": tally.unmatched_frame()}


def build(path: Path, corpus: LoadedCorpus) -> tuple[dict[str, pd.DataFrame], list]:
    rows, tally = read_rows(path)
    return score(corpus, rows, tally), tally.skipped


def figures(messages: pd.DataFrame) -> dict:
    """Means over messages with non-empty gold, and the naming rate over messages with empty gold."""
    scored = messages[~messages["gold_empty"]]
    empty = messages[messages["gold_empty"]]

    def mean(column):
        return float(scored[column].astype("float64").mean()) if len(scored) else None

    return {"scored_messages": int(len(scored)), "exact_match": mean("exact"), "precision": mean("precision"),
            "recall": mean("recall"), "f1": mean("f1"), "empty_gold_messages": int(len(empty)),
            "names_image_when_gold_empty": float(empty["names_image"].mean()) if len(empty) else None}


def summary(frames, skipped, name: str) -> dict:
    """The ``run-summary gos`` object (keys fixed by the issue)."""
    f = figures(frames["messages"])
    return {"run": name, "scored_messages": f["scored_messages"], "unmatched": int(len(frames["unmatched"])),
            "exact_match": f["exact_match"], "precision": f["precision"], "recall": f["recall"], "f1": f["f1"],
            **skipped_report(skipped)}
