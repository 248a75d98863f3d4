"""CoDraw runs (Drawer models): read them and score every predicted canvas against the dialog's target.

Two formats (docs/formats.md, "Model runs"):
(a) JSON Lines, one line per predicted round ``{"dialog_id", "round", "scene"}`` with the Drawer's canvas
    after that round as a scene string;
(b) the corpus's own layout ``{"data": {"<dialog_id>": {"dialog": [{"abs_d": "<scene>"}, ...]}}}`` (optionally
    gzip), whose ``abs_d`` are the model's canvases (round i = i-th entry, from 1).

Scores are the two metrics the dashboard computes for humans (``codraw.metrics.score_pairs``): the stored
original 7-term metric and the paper's final metric, per predicted round and for the dialog's final drawing
(its last predicted round with a non-empty canvas, the rule used for humans). The human scores of the same
round and the human final scores sit beside them.
"""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import orjson
import pandas as pd

from corpora.codraw.data.metrics import score_pairs
from corpora.codraw.data.reader import DIALOG_KEY, decode_json, json_integer
from corpora.codraw.data.scenes import dense_scenes, parse_scene_strings
from dialogue_dashboard.plugin import (
    Lines,
    LoadedCorpus,
    SourceError,
    Tally,
    first_line,
    frame_part,
    json_lines,
    no_usable_line,
    read_bytes,
    run_lines,
    skipped_report,
)

# the corpus this scoring belongs to: its package's name (``NAME``), without importing the package, which
# imports this module in ``run_scoring()``
CORPUS = "codraw"  # the package's NAME (this module is imported by its __init__)

EXPECTED = 'one JSON object per line {"dialog_id", "round", "scene"} or the corpus layout {"data": {...}}'
ROUND_COLUMNS = ["dialog_id", "split", "round", "line", "record", "scene", "has_drawing", "score_original",
                 "score_final", "human_score_original", "human_score_final"]
DIALOG_COLUMNS = ["dialog_id", "split", "n_predicted_rounds", "final_round", "final_score", "final_score_original",
                  "human_final_round", "human_final_score", "human_final_score_original"]


def read_rows(path: Path) -> tuple[pd.DataFrame, Tally]:
    """The predicted rounds of a run file: dialog_id, round, scene, line (<NA> for format b), record."""
    path = Path(path)
    tally = Tally(path.name)
    head, lines = first_line(run_lines(path))  # JSON Lines are read as a stream, a line at a time
    layout = None
    if head is not None and _may_be_corpus_layout(head[1]):
        lines.close()  # the corpus layout is one JSON document: it is read whole (docs/bad-input.md)
        data = read_bytes(path)
        layout = _corpus_layout(data, path)
        del data  # the layout keeps what it needs of it
        if layout is None:  # JSON Lines after all, whose first line is no object: read as a stream again
            lines = Lines(None, run_lines(path))
    rows: dict[str, list] = {"dialog_id": [], "round": [], "scene": [], "line": [], "record": []}

    def add(dialog_id, round_number, scene, line, record):
        rows["dialog_id"].append(dialog_id)
        rows["round"].append(round_number)
        rows["scene"].append(scene)
        rows["line"].append(line)
        rows["record"].append(record)

    if layout is not None:
        layout, lenient, repeated = layout
        for key in repeated:  # one rule with JSON Lines: the first prediction counts, a later one is listed
            tally.skip(None, f"a second copy of dialog {key} (the first one counts)", f"data.{key}")
        for key, dialog in layout.items():
            turns = dialog.get("dialog") if isinstance(dialog, dict) else None
            if not isinstance(turns, list):
                tally.skip(None, "no dialog list", f"data.{key}")
                continue
            for index, turn in enumerate(turns):
                record = f"data.{key}.dialog[{index}]"
                scene = turn.get("abs_d") if isinstance(turn, dict) else None
                if not isinstance(scene, str):
                    tally.skip(None, "abs_d is not a scene string", record)
                    continue
                if lenient and not _is_utf8(scene):
                    tally.skip(None, "abs_d holds bytes that are not UTF-8", record)
                    continue
                add(str(key), index + 1, scene, None, record)
        if not rows["dialog_id"]:
            raise SourceError(path, "is in the corpus layout but holds no round with an abs_d scene string")
    else:
        seen, total = [], 0  # type: list, int
        for line in json_lines(lines, tally):
            total += 1
            r = line.record
            if len(seen) < 50:
                seen.append(r)
            dialog_id, round_number, scene = r.get("dialog_id"), r.get("round"), r.get("scene")
            if not isinstance(dialog_id, str) or not dialog_id:
                tally.skip(line.number, "dialog_id is missing or not a string")
            elif isinstance(round_number, bool) or not isinstance(round_number, int) or not 1 <= round_number < 2 ** 63:
                tally.skip(line.number, "round is missing or not a positive integer")
            elif not isinstance(scene, str):
                tally.skip(line.number, "scene is missing or not a string")
            else:
                add(dialog_id, round_number, scene, line.number, f"line {line.number}")
        if not rows["dialog_id"]:
            raise no_usable_line(path, CORPUS, seen, total, EXPECTED)
    frame = pd.DataFrame({
        "dialog_id": pd.array(rows["dialog_id"], dtype="str"),
        "round": np.array(rows["round"], dtype=np.int64),
        "scene": pd.array(rows["scene"], dtype="str"),
        "line": pd.array(rows["line"], dtype="Int64"),
        "record": pd.array(rows["record"], dtype="str"),
    })
    return frame, tally


_LONGEST_RECORD = 1 << 20  # a JSON Lines record is one round's scene: a few kB


def _may_be_corpus_layout(first: bytes) -> bool:
    """Whether a file whose first line that is not blank is ``first`` can be in the corpus layout: that line
    opens an object and is not a whole JSON Lines record (it is the whole document on one line, holding a
    ``data`` object, or only its start)."""
    if first.lstrip()[:1] != b"{":
        return False
    if len(first) > _LONGEST_RECORD:  # a whole document on one line (the corpus is): not parsed twice to tell
        return True
    try:
        value = orjson.loads(first)
    except orjson.JSONDecodeError:
        return True
    return isinstance(value, dict) and isinstance(value.get("data"), dict)


def _corpus_layout(data: bytes, path: Path):
    """(the ``data`` mapping, whether it was read leniently, the dialog ids given more than once) when the file is
    one JSON object in the corpus layout, else None.

    Decoded as the corpus itself is (``codraw.reader.decode_json``), so that a NaN or an undecodable byte
    somewhere costs only the rounds that hold it, not the run. On JSON Lines every parser stops with an error
    right after the first line's object, so the test is cheap. JSON parsers keep the *last* copy of a key
    given twice; a run keeps the first prediction (as in JSON Lines), so when the text holds more ``"dialog"``
    keys than the dialogs decoded it is read again keeping every first copy (``_first_copies``)."""
    if data.lstrip()[:1] != b"{":
        return None
    try:
        value, lenient = decode_json(data, path)
    except SourceError:
        return None
    if isinstance(value, dict) and isinstance(value.get("data"), dict):
        layout = value["data"]
        with_key = sum(1 for dialog in layout.values() if type(dialog) is dict and "dialog" in dialog)
        if data.count(b'"dialog"') > with_key and len(DIALOG_KEY.findall(data)) > with_key:
            first, repeated = _first_copies(data)
            if isinstance(first, dict) and isinstance(first.get("data"), dict) and repeated:
                return first["data"], True, repeated
        return layout, lenient, []
    return None


def _first_copies(data: bytes):
    """The document with the first copy of every key given twice, and the dialog ids given more than once
    (keys of ``data`` whose copies are dialogs), in file order."""
    repeated: list[str] = []

    def first_of(items):
        kept: dict = {}
        for key, value in items:
            if key not in kept:
                kept[key] = value
            elif isinstance(value, dict) and "dialog" in value and key not in repeated:
                repeated.append(key)
        return kept

    try:
        document = json.loads(data.decode("utf-8", "surrogateescape"), object_pairs_hook=first_of, parse_int=json_integer)
    except (ValueError, RecursionError):
        return None, []
    return document, repeated


def _is_utf8(text: str) -> bool:
    """False for a string read leniently whose undecodable bytes became lone surrogates."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def score(corpus: LoadedCorpus, rows: pd.DataFrame, tally: Tally) -> dict[str, pd.DataFrame]:
    """Match the predicted rounds to the corpus, score them and the final drawings; frames of the run."""
    human = corpus.frames["rounds"][["dialog_id", "split", "round", "target_scene", "score_original", "score_final"]]
    dialogs = corpus.frames["dialogs"]

    # Duplicates: the first prediction of a round counts, later ones are skipped and listed.
    duplicate = rows.duplicated(["dialog_id", "round"], keep="first")
    for row in rows[duplicate].itertuples(index=False):
        tally.skip(_line(row.line), f"a second prediction for {row.dialog_id} round {row.round}", _rec(row))
    rows = rows[~duplicate]
    merged = rows.merge(human, on=["dialog_id", "round"], how="left", indicator=True)
    known = merged["_merge"] == "both"
    rounds_of = human.groupby("dialog_id", sort=False)["round"].max()
    for row in merged[~known].itertuples(index=False):
        if row.dialog_id in rounds_of.index:
            reason = f"the dialog has no round {row.round} (it has 1..{int(rounds_of[row.dialog_id])})"
        else:
            reason = "unknown dialog"
        tally.unmatch(_line(row.line), f"{row.dialog_id} round {row.round}", reason)
    merged = merged[known].drop(columns="_merge").reset_index(drop=True)

    # Parse every distinct predicted scene once; a malformed one drops its round (skipped, listed).
    codes, uniques = pd.factorize(merged["scene"].astype(object), sort=False)
    parsed = parse_scene_strings(list(uniques))
    bad = np.zeros(len(uniques) + 1, dtype=bool)
    bad[list(parsed.problems)] = True
    bad_rows = bad[codes]
    for i in np.flatnonzero(bad_rows & (merged["scene"].to_numpy(dtype=object) != "")):
        row = merged.iloc[i]
        tally.skip(_line(row["line"]), f"scene: {parsed.problems[int(codes[i])]}", _rec(row))
    empty_scene = merged["scene"].to_numpy(dtype=object) == ""
    keep = ~bad_rows | empty_scene
    merged, codes = merged[keep].reset_index(drop=True), codes[keep]
    has_drawing = merged["scene"].to_numpy(dtype=object) != ""

    # One dense block: the targets these rounds need (renumbered 0..T-1), then the predicted scenes.
    targets = merged["target_scene"].astype("Int64")
    needed = np.unique(targets.dropna().to_numpy(dtype=np.int64))
    cliparts = corpus.frames["cliparts"]
    target_part = cliparts[cliparts["scene_id"].isin(needed)].copy()
    target_part["scene_id"] = np.searchsorted(needed, target_part["scene_id"].to_numpy()).astype(np.int32)
    run_part = parsed.cliparts.copy()
    run_part["scene_id"] = (run_part["scene_id"].to_numpy() + len(needed)).astype(np.int32)
    dense = dense_scenes(pd.concat([target_part, run_part], ignore_index=True), len(needed) + len(uniques))
    drawing = np.where(has_drawing, codes + len(needed), -1)
    target = np.where(targets.isna(), -1, np.searchsorted(needed, targets.fillna(0).to_numpy(dtype=np.int64)))
    original, final = score_pairs(dense, drawing, target)

    scored = pd.DataFrame({
        "dialog_id": merged["dialog_id"].astype("str"),
        "split": merged["split"].astype("str"),
        "round": merged["round"].astype(np.int64),
        "line": merged["line"].astype("Int64"),
        "record": merged["record"].astype("str"),
        "scene": merged["scene"].astype("str"),
        "has_drawing": has_drawing,
        "score_original": original,
        "score_final": final,
        "human_score_original": merged["score_original"].astype(np.float64),
        "human_score_final": merged["score_final"].astype(np.float64),
    }).sort_values(["dialog_id", "round"], ignore_index=True)

    # Final drawing: the last predicted round with a non-empty canvas (the human rule).
    drawn = scored[scored["has_drawing"]]
    last = drawn.groupby("dialog_id", sort=False).tail(1).set_index("dialog_id")
    per_dialog = scored.groupby("dialog_id", sort=True).agg(split=("split", "first"), n_predicted_rounds=("round", "size"))
    humans = dialogs.set_index("dialog_id")
    per_dialog["final_round"] = last["round"].reindex(per_dialog.index).astype("Int64")
    per_dialog["final_score"] = last["score_final"].reindex(per_dialog.index).astype(np.float64)
    per_dialog["final_score_original"] = last["score_original"].reindex(per_dialog.index).astype(np.float64)
    per_dialog["human_final_round"] = humans["final_round"].reindex(per_dialog.index).astype("Int64")
    per_dialog["human_final_score"] = humans["final_score"].reindex(per_dialog.index).astype(np.float64)
    per_dialog["human_final_score_original"] = humans["final_score_original"].reindex(per_dialog.index).astype(np.float64)
    per_dialog = per_dialog.reset_index()
    per_dialog["dialog_id"] = per_dialog["dialog_id"].astype("str")
    per_dialog["split"] = per_dialog["split"].astype("str")
    return {"rounds": scored[ROUND_COLUMNS], "dialogs": per_dialog[DIALOG_COLUMNS], "unmatched": tally.unmatched_frame()}


def _line(value):
    return None if pd.isna(value) else int(value)


def _rec(row) -> str:
    line = row["line"] if isinstance(row, pd.Series) else row.line
    record = row["record"] if isinstance(row, pd.Series) else row.record
    return "" if not pd.isna(line) else str(record)


def build(path: Path, corpus: LoadedCorpus) -> tuple[dict[str, pd.DataFrame], list]:
    rows, tally = read_rows(path)
    frames = score(corpus, rows, tally)
    return frames, tally.skipped


def summary(frames, skipped, name: str) -> dict:
    """The ``run-summary codraw`` object (keys fixed by the issue; floats unrounded)."""
    dialogs = frames["dialogs"]
    splits = {}
    for split, part in dialogs.groupby("split", sort=True):
        final = part["final_score"].dropna()
        splits[str(split)] = {
            "dialogs": int(len(final)),
            "mean_final_score": float(final.mean()) if len(final) else None,
            "mean_final_score_original_metric": _mean(part["final_score_original"]),
        }
    return {
        "run": name,
        "matched_dialogs": int(len(dialogs)),
        "scored_rounds": int(frame_part(frames, "rounds", ["score_final"])["score_final"].notna().sum()),
        "unmatched": int(len(frames["unmatched"])),
        "splits": splits,
        **skipped_report(skipped),
    }


def _mean(values: pd.Series):
    values = values.dropna()
    return float(values.mean()) if len(values) else None


# ----------------------------------------------------------------------------------- the run scoring contract
# ``contract.RunScoring``: what the Runs page, the replay and the exports need from a CoDraw run.

LINE_KEYS = ("dialog_id", "round", "scene")
# Kept out of each run's memory (``runs.RunFrames``): every predicted scene, 64 MB a run over the whole corpus;
# only the Replay reads it, the Runs page reads two score columns once (``frame_part``).
HEAVY_FRAMES = ("rounds",)
HAS_HUMANS = True  # the human Drawers' canvases of the same dialogs are scored alike
UNIT_STATISTIC = "mean"
STATISTIC_LABEL = "mean final score (paper's metric)"
METRIC_NOTE = "Means over dialogs of the final drawing's score, Student-t intervals; 'humans' = the human Drawers on the same dialogs."


def demo_runs(frames) -> dict[str, list[dict]]:
    """The demo runs' lines (written by ``runs.demo``). ``baseline``: after round r of n it has drawn the first
    ⌈r·T/n⌉ target cliparts at their target depth, unflipped, on a 100-pixel grid. ``noisy``: the human canvas
    with positions jittered (σ = 30 px), 10 % of cliparts dropped and 15 % flipped."""
    from corpora.codraw.data.scenes import Clipart

    rounds, cliparts = frames["rounds"], frames["cliparts"]
    # One pass over plain column lists: a groupby with a row iterator per dialog and per scene took 40 s on the
    # full corpus (pandas builds a tuple type and indexes rows for each small group).
    scenes: dict[int, list] = {}
    for scene, identity, name, type_, object_, x, y, z, flip in zip(
            *(cliparts[c].tolist() for c in ("scene_id", "identity", "name", "type", "object", "x", "y", "z", "flip"))):
        scenes.setdefault(int(scene), []).append(
            Clipart(int(identity), str(name), int(type_), int(object_), float(x), float(y), int(z), int(flip)))
    # the dialogs in order of first appearance, each dialog's rounds in frame order (a groupby's order)
    codes, _ = pd.factorize(rounds["dialog_id"])
    order = [i for i in np.argsort(codes, kind="stable").tolist() if codes[i] >= 0]
    sizes = np.bincount(codes[codes >= 0]).tolist()
    columns = {c: rounds[c].tolist() for c in ("dialog_id", "round", "target_scene", "after_scene")}
    baseline, noisy = [], []
    rng = random.Random(1201)
    position, previous = 0, None
    for i in order:
        dialog_id, code = columns["dialog_id"][i], codes[i]
        position = position + 1 if code == previous else 1
        previous, n = code, sizes[code]
        target_scene, after_scene = columns["target_scene"][i], columns["after_scene"][i]
        target = scenes.get(int(target_scene), []) if not is_missing(target_scene) else []
        k = math.ceil(position * len(target) / max(n, 1))
        drawn = [c.__class__(c.identity, c.name, c.type, c.object, float(round(c.x / 100) * 100),
                             float(round(c.y / 100) * 100), c.z, 0) for c in target[:k]]
        baseline.append({"dialog_id": str(dialog_id), "round": int(columns["round"][i]), "scene": scene_string(drawn)})
        if is_missing(after_scene):
            continue
        human = scenes.get(int(after_scene), [])
        jittered = []
        for c in human:
            if rng.random() < 0.10:
                continue
            x = min(500.0, max(0.0, round(c.x + rng.gauss(0, 30))))
            y = min(400.0, max(0.0, round(c.y + rng.gauss(0, 30))))
            flip = 1 - c.flip if rng.random() < 0.15 else c.flip
            jittered.append(c.__class__(c.identity, c.name, c.type, c.object, x, y, c.z, flip))
        noisy.append({"dialog_id": str(dialog_id), "round": int(columns["round"][i]), "scene": scene_string(jittered)})
    return {"baseline": baseline, "noisy": noisy}


def metric_rows(run) -> list[tuple]:
    """Final scores per split under both metrics (the run's and the humans'), and the per-round score."""
    from dialogue_dashboard.plugin import HUMANS, mean_ci, metric_row

    rows = []
    dialogs = run.frames["dialogs"]
    for split, part in [("all", dialogs), *dialogs.groupby("split", sort=True)]:
        scored = part[part["final_score"].notna()]
        rows.append(metric_row(run.name, split, "final score (paper's metric)", mean_ci(scored["final_score"])))
        rows.append(metric_row(run.name, split, "final score (original metric)", mean_ci(scored["final_score_original"])))
        rows.append(metric_row(HUMANS, split, "final score (paper's metric)", mean_ci(scored["human_final_score"])))
        rows.append(metric_row(HUMANS, split, "final score (original metric)", mean_ci(scored["human_final_score_original"])))
    rounds = frame_part(run.frames, "rounds", ["score_final", "human_score_final"])
    rows.append(metric_row(run.name, "all", "per-round score (paper's metric)", mean_ci(rounds["score_final"])))
    rows.append(metric_row(HUMANS, "all", "per-round score (paper's metric)",
                           mean_ci(rounds.loc[rounds["score_final"].notna(), "human_score_final"])))
    return rows


def units(run, humans: bool = False) -> pd.DataFrame:
    """One unit per scored dialog: its final drawing's score (paper's metric), the model's or the humans'."""
    d = run.frames["dialogs"]
    d = d[d["final_score"].notna()]
    return pd.DataFrame({"unit": d["dialog_id"], "dialog_id": d["dialog_id"], "turn": d["final_round" if not humans else "human_final_round"].astype("Int64"),
                         "round": pd.array([pd.NA] * len(d), dtype="Int64"),
                         "value": d["human_final_score" if humans else "final_score"].astype(float)}).reset_index(drop=True)


def dialog_scores(run) -> pd.DataFrame:
    """Per scored dialog (its one unit): the final drawing's score (paper's metric) and the human Drawer's."""
    model, humans = units(run), units(run, humans=True)
    return pd.DataFrame({"dialog_id": model["dialog_id"].astype(str), "units": 1, "score": model["value"],
                         "humans": humans["value"]})


def slice_features(corpus: LoadedCorpus, run, base: pd.DataFrame) -> pd.DataFrame:
    """Peek, clip art in the target, people in the scene, dialog length."""
    from dialogue_dashboard.plugin import bins

    dialogs = corpus.frames["dialogs"].set_index("dialog_id")
    d = dialogs.reindex(base["dialog_id"])
    cliparts = corpus.frames["cliparts"]
    people = cliparts[cliparts["identity"].isin([18, 19])].groupby("scene_id")["identity"].apply(lambda s: set(s.tolist()))
    who = d["target_scene"].map(lambda s: people.get(int(s), set()) if not pd.isna(s) else set())
    return pd.DataFrame({
        "peek": np.where(d["peek_round"].notna().to_numpy(), "peeked", "no peek"),
        "clip-art in the target": bins(d["n_target_cliparts"], [0, 4, 6, 8, 10 ** 6]).to_numpy(),
        "people in the scene": who.map(lambda s: {0: "none", 1: "boy" if 18 in s else "girl", 2: "boy and girl"}[len(s)]).to_numpy(),
        "dialog length (rounds)": bins(d["n_rounds"], [0, 5, 8, 11, 10 ** 6]).to_numpy(),
    })


def unit_turns(corpus: LoadedCorpus) -> pd.DataFrame:
    """CoDraw units carry their own round: nothing to add."""
    return pd.DataFrame({"unit": pd.Series(dtype="str"), "turn": pd.Series(dtype="Int64")})


def worst_steps(corpus: LoadedCorpus, run) -> pd.DataFrame:
    """Per scored dialog, the round whose score (paper's metric) falls furthest below the human Drawer's of the
    same round: the run's score minus the human's, smallest first, the earlier round on a tie, among the rounds
    where the model's canvas has a drawing (a case opens where there is something of the model's to see beside
    the human's, issue 47); in a dialog where the model drew nothing at all, among every round, an empty one
    counting as 0. A round without a human score is left out, and a dialog with none left opens at the model's
    final drawing."""
    rounds = run.frames["rounds"]
    gap = rounds["score_final"].fillna(0.0) - rounds["human_score_final"]
    drawn = rounds["has_drawing"].fillna(False).astype(bool) if "has_drawing" in rounds else pd.Series(True, index=rounds.index)
    compared = pd.DataFrame({"dialog_id": rounds["dialog_id"], "round": rounds["round"], "gap": gap, "drawn": drawn})
    compared = compared[compared["gap"].notna()]
    some_drawing = compared.groupby("dialog_id")["drawn"].transform("any")
    compared = compared[compared["drawn"] | ~some_drawing].sort_values(["dialog_id", "gap", "round"], kind="stable")
    worst = compared.drop_duplicates("dialog_id", keep="first").set_index("dialog_id")["round"]
    scored = units(run)
    turn = worst.reindex(scored["dialog_id"]).astype("Int64").to_numpy()
    return pd.DataFrame({"unit": scored["unit"], "turn": pd.array(turn, dtype="Int64").fillna(scored["turn"]),
                         "round": pd.array([pd.NA] * len(scored), dtype="Int64")})


def replay_view(corpus: LoadedCorpus, run, dialog_id: str, turn: int, round=None):
    """Target, human and model canvases after round ``turn`` (``views.CodrawRunView``)."""
    from corpora.codraw.data.run_views import codraw_view

    return codraw_view(corpus, run, dialog_id, turn)


def run_pictures(corpus, run, dialog_id: str, round, n_steps: int) -> list:
    """The Teller's target beside the model's canvas after each round (the HTML export)."""
    from corpora.codraw.data.run_views import codraw_view
    from dialogue_dashboard.plugin import image_grid, note_picture, png_image

    pictures = []
    for step in range(1, n_steps + 1):
        view = codraw_view(corpus, run, dialog_id, step)
        if view is None:
            pictures.append(note_picture(f"Round {step} is not in the corpus."))
            continue
        model = view.model
        canvas = png_image(model.png) if model.png is not None else note_picture(model.note, (500, 400))
        score = "" if math.isnan(model.score_final) else f" · paper's metric {model.score_final:.2f}"
        pictures.append(image_grid([png_image(view.target_png), canvas],
                                   ["Teller's target", f"Model canvas after round {step}{score}"]))
    return pictures


def scene_string(cliparts) -> str:
    """A CoDraw scene string of Clipart-like rows (name, object, type, x, y, z, flip), trailing comma."""
    fields = [str(len(cliparts))]
    for index, c in enumerate(cliparts):
        x, y = (str(int(v)) if float(v).is_integer() else repr(float(v)) for v in (c.x, c.y))
        fields += [c.name, str(index), str(int(c.object)), str(int(c.type)), x, y, str(int(c.z)), str(int(c.flip))]
    return ",".join(fields) + ","


def is_missing(value) -> bool:
    import pandas as pd

    return value is None or pd.isna(value)
