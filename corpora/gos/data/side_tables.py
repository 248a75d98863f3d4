"""Reading A Game Of Sorts' side tables into frames: the board layouts each player saw (the interaction
mappings) and the post-game survey (questions, per-interaction and per-user answers)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from corpora.gos.data import reader
from dialogue_dashboard.plugin import SkippedRecord


def read_layouts(folder: Path, rounds: pd.DataFrame, boards: pd.DataFrame, skipped: list[SkippedRecord]) -> pd.DataFrame:
    columns = ["interaction_id", "round", "board_id", "username", "position", "row", "col", "image_id"]
    path = folder / reader.MAPPINGS_FILE
    if not path.exists():
        skipped.append(SkippedRecord(reader.MAPPINGS_FILE, "file is missing; boards are shown in the game's config order"))
        return pd.DataFrame({c: pd.Series(dtype="int64" if c in ("round", "position", "row", "col") else "str") for c in columns})
    images_of = dict(zip(boards["board_id"], boards["image_ids"]))
    known_rounds = set(zip(rounds["interaction_id"], rounds["round"]))
    rows, seen = [], set()
    for line in reader.valid_lines(reader.read_optional_jsonl(path, skipped), reader.MAPPING_FIELDS, skipped, "board mapping"):
        r = line.record
        key = (r["interaction_id"], r["round_number"], r["username"])
        entries = r["mapping"]
        positions = [e.get("position") for e in entries]
        ids = [e.get("image_id") for e in entries]
        problem = None
        if key in seen:
            problem = "a second mapping for this player and round; the first one is kept"
        elif (r["interaction_id"], r["round_number"]) not in known_rounds:
            problem = "no logged round matches this mapping"
        elif not all(isinstance(p, int) and not isinstance(p, bool) for p in positions) or sorted(positions) != list(range(1, len(entries) + 1)):
            problem = "positions must be the numbers 1..n, each once"
        elif not all(isinstance(i, str) for i in ids) or sorted(ids) != sorted(images_of.get(r["board_id"], [])):
            problem = f"image ids do not match the images of board {r['board_id']}"
        if problem:
            skipped.append(SkippedRecord(line.where, f"board mapping: {problem}"))
            continue
        seen.add(key)
        for entry in sorted(entries, key=lambda e: e["position"]):
            p = entry["position"]
            rows.append({"interaction_id": r["interaction_id"], "round": r["round_number"], "board_id": r["board_id"],
                         "username": r["username"], "position": p, "row": (p - 1) // 3, "col": (p - 1) % 3,
                         "image_id": entry["image_id"]})
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype="int64" if c in ("round", "position", "row", "col") else "str") for c in columns})
    return pd.DataFrame(rows, columns=columns)


SURVEY_COLUMNS = ["level", "interaction_id", "username", "question_id", "question", "question_type", "answer",
                  "answer_text", "option_number"]


def read_survey(folder: Path, skipped: list[SkippedRecord]) -> pd.DataFrame:
    """Interaction-level and user-level answers joined to their questions, options resolved to text."""
    questions: dict[str, dict] = {}
    path = folder / reader.SURVEY_CONFIG_FILE
    files_missing = [name for name in (reader.SURVEY_CONFIG_FILE, reader.SURVEY_INTERACTION_FILE, reader.SURVEY_USER_FILE)
                     if not (folder / name).exists()]
    for name in files_missing:
        skipped.append(SkippedRecord(name, "file is missing; the survey is incomplete"))
    if path.exists():
        for line in reader.valid_lines(reader.read_optional_jsonl(path, skipped), reader.SURVEY_QUESTION_FIELDS, skipped, "survey question"):
            r = line.record
            options = {o.get("answer_id"): (number, o.get("answer_content", ""))
                       for number, o in enumerate(r["answer_options"], start=1)}
            questions[r["question_id"]] = {"question": r["question_content"], "type": r["question_type"], "options": options}
    rows = []
    for level, name, fields in (("interaction", reader.SURVEY_INTERACTION_FILE, reader.SURVEY_INTERACTION_FIELDS),
                                ("user", reader.SURVEY_USER_FILE, reader.SURVEY_USER_FIELDS)):
        if not (folder / name).exists():
            continue
        for line in reader.valid_lines(reader.read_optional_jsonl(folder / name, skipped), fields, skipped, "survey answers"):
            r = line.record
            for answer in r["answers"]:
                question_id, value = answer.get("question_id"), answer.get("answer")
                if not isinstance(question_id, str) or not isinstance(value, str):
                    skipped.append(SkippedRecord(line.where, f"survey answer {answer!r:.60}: question_id and answer must be strings"))
                    continue
                question = questions.get(question_id, {"question": "", "type": "", "options": {}})
                number, text = question["options"].get(value, (None, value))
                rows.append({"level": level, "interaction_id": r.get("interaction_id") if level == "interaction" else None,
                             "username": r["username"], "question_id": question_id, "question": question["question"],
                             "question_type": question["type"], "answer": value, "answer_text": text,
                             "option_number": number})
    frame = pd.DataFrame(rows, columns=SURVEY_COLUMNS)
    frame["option_number"] = frame["option_number"].astype("Int64")
    for column in SURVEY_COLUMNS:
        if column != "option_number":
            frame[column] = frame[column].astype("str")
    return frame
