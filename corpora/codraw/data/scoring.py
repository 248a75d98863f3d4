"""CoDraw runs (Drawer models): score every predicted canvas against the dialog's target.

A run file is read by ``corpora.codraw.data.run_file`` (JSON Lines or the corpus's own layout; docs/formats.md,
"Model runs"). Scores are the two metrics the dashboard computes for humans (``codraw.metrics.score_pairs``): the
stored original 7-term metric and the paper's final metric, per predicted round and for the dialog's final drawing
(its last predicted round with a non-empty canvas, the rule used for humans). The human scores of the same round and
the human final scores sit beside them. ``score_lines`` scores the run lines of a dialog or two held in memory (a
play on the Play page) to the same frames, without the joins and groupbys a whole run needs.
"""
from __future__ import annotations

import functools
import math
import random
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from corpora.codraw.data.metrics import score_pairs
from corpora.codraw.data.run_file import read_rows
from corpora.codraw.data.scenes import dense_scenes, parse_scene_strings
from corpora.codraw.data.steps import run_step_scores as step_scores  # noqa: F401  (RunScoring's optional member)
from dialogue_dashboard.plugin import LoadedCorpus, Tally, frame_part, skipped_report

ROUND_COLUMNS = ["dialog_id", "split", "round", "line", "record", "scene", "has_drawing", "score_original",
                 "score_final", "human_score_original", "human_score_final"]
DIALOG_COLUMNS = ["dialog_id", "split", "n_predicted_rounds", "final_round", "final_score", "final_score_original",
                  "human_final_round", "human_final_score", "human_final_score_original"]


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


# ------------------------------------------------------------------------ a dialog's lines held in memory

_LONGEST_SCENE = 1 << 16  # a scene of all 58 clip arts is a few kB; a longer one is left to ``build``'s reading


def score_lines(corpus: LoadedCorpus, lines: Sequence[dict]) -> Optional[dict[str, pd.DataFrame]]:
    """The frames ``build`` gives for a run file of ``lines`` (its JSON Lines records, in file order), reckoned from
    the rows of the few dialogs they name: a Done on the Play page scores its play so (one dialog's rounds;
    ``data_access.play.scored_run``), where ``score``'s joins and groupbys over frames cost a fixed 0.1 s however few
    the rounds. None when ``build`` would read the file otherwise or skip or not match a line (it says why): then the
    file is read. The figures and frames are ``build``'s, to the dtype (tests/unit/test_codraw_score_lines.py)."""
    keys: list[tuple[str, int]] = []
    scenes: list[str] = []
    for line in lines:
        if not isinstance(line, dict) or not all(v is None or isinstance(v, (str, int)) for v in line.values()):
            return None  # a float (NaN) or a nested value: left to the JSON reader's rules
        dialog_id, number, scene = line.get("dialog_id"), line.get("round"), line.get("scene")
        if not (isinstance(dialog_id, str) and dialog_id and type(number) is int and 1 <= number < 2 ** 63
                and isinstance(scene, str) and len(scene) <= _LONGEST_SCENE):
            return None
        keys.append((dialog_id, number))
        scenes.append(scene)
    if not keys or len(set(keys)) < len(keys):
        return None  # nothing, or a second prediction of a round: skipped and listed by ``score``
    human = _human_rounds(corpus, {dialog_id for dialog_id, _ in keys})
    if human is None or any(key not in human for key in keys):
        return None  # a round the corpus lacks (or holds twice): not matched, and listed, by ``score``

    uniques = list(dict.fromkeys(scenes))
    parsed = parse_scene_strings(uniques)
    if any(uniques[i] != "" for i in parsed.problems):
        return None  # a malformed scene: its round is skipped and listed by ``score``
    code = {scene: i for i, scene in enumerate(uniques)}
    targets = [human[key][1] for key in keys]
    needed = np.unique(np.array([t for t in targets if t is not None], dtype=np.int64))
    # one dense block, as ``score`` builds it: the targets these rounds need (renumbered), then the predicted scenes
    cliparts = corpus.frames["cliparts"]
    chosen = np.flatnonzero(np.isin(cliparts["scene_id"].to_numpy(), needed))
    block = {c: np.concatenate([np.asarray(cliparts[c].to_numpy())[chosen], parsed.table.column(c).to_numpy()])
             for c in ("identity", "x", "y", "z", "flip", "object")}
    block["scene_id"] = np.concatenate([np.searchsorted(needed, cliparts["scene_id"].to_numpy()[chosen]),
                                        parsed.table.column("scene_id").to_numpy().astype(np.int64) + len(needed)])
    dense = dense_scenes(block, len(needed) + len(uniques))
    drawing = np.array([code[scene] + len(needed) if scene != "" else -1 for scene in scenes], dtype=np.int64)
    target = np.array([-1 if t is None else int(np.searchsorted(needed, t)) for t in targets], dtype=np.int64)
    original, final = score_pairs(dense, drawing, target)

    order = sorted(range(len(keys)), key=keys.__getitem__)
    has_drawing = np.array([scenes[i] != "" for i in order], dtype=bool)
    scored = pd.DataFrame({
        "dialog_id": pd.array([keys[i][0] for i in order], dtype="str"),
        "split": pd.array([human[keys[i]][0] for i in order], dtype="str"),
        "round": np.array([keys[i][1] for i in order], dtype=np.int64),
        "line": pd.array([i + 1 for i in order], dtype="Int64"),  # ``run_text`` writes one line a round
        "record": pd.array([f"line {i + 1}" for i in order], dtype="str"),
        "scene": pd.array([scenes[i] for i in order], dtype="str"),
        "has_drawing": has_drawing,
        "score_original": original[order],
        "score_final": final[order],
        "human_score_original": np.array([human[keys[i]][2] for i in order], dtype=np.float64),
        "human_score_final": np.array([human[keys[i]][3] for i in order], dtype=np.float64),
    })
    return {"rounds": scored[ROUND_COLUMNS], "dialogs": _dialog_finals(corpus, scored),
            "unmatched": _nothing_unmatched().copy()}


def _human_rounds(corpus: LoadedCorpus, dialog_ids: set[str]) -> Optional[dict[tuple[str, int], tuple]]:
    """(dialog, round) -> (split, target scene or None, the human's original score, paper's score) of the dialogs'
    rounds; None when the corpus holds a round twice (``score``'s join would give it twice)."""
    rounds = corpus.frames["rounds"]
    rows = rounds[rounds["dialog_id"].isin(list(dialog_ids))]
    human: dict[tuple[str, int], tuple] = {}
    for dialog_id, number, split, target, original, final in zip(
            *(rows[c].tolist() for c in ("dialog_id", "round", "split", "target_scene", "score_original", "score_final"))):
        key = (str(dialog_id), int(number))
        if key in human:
            return None
        human[key] = (split, None if is_missing(target) else int(target), original, final)
    return human


def _dialog_finals(corpus: LoadedCorpus, scored: pd.DataFrame) -> pd.DataFrame:
    """``score``'s ``dialogs`` frame of the rounds scored (sorted by dialog and round): each dialog's final drawing
    (its last round with a drawing) beside the human Drawer's."""
    finals: dict[str, list] = {}  # dialog -> [split of its first round, rounds, the final drawing's row or None]
    for row, (dialog_id, split, drawn) in enumerate(zip(*(scored[c].tolist() for c in ("dialog_id", "split", "has_drawing")))):
        final = finals.setdefault(dialog_id, [split, 0, None])
        final[1] += 1
        final[2] = row if drawn else final[2]
    dialogs = corpus.frames["dialogs"]
    humans = dialogs[dialogs["dialog_id"].isin(list(finals))].drop_duplicates("dialog_id")
    human = {str(d): (r, f, o) for d, r, f, o in zip(*(humans[c].tolist() for c in (
        "dialog_id", "final_round", "final_score", "final_score_original")))}
    rounds, final_scores, originals = (scored[c].to_numpy() for c in ("round", "score_final", "score_original"))
    ids = list(finals)
    last = [finals[d][2] for d in ids]
    missing = (pd.NA, math.nan, math.nan)
    return pd.DataFrame({
        "dialog_id": pd.array(ids, dtype="str"), "split": pd.array([finals[d][0] for d in ids], dtype="str"),
        "n_predicted_rounds": np.array([finals[d][1] for d in ids], dtype=np.int64),
        "final_round": pd.array([pd.NA if i is None else int(rounds[i]) for i in last], dtype="Int64"),
        "final_score": np.array([math.nan if i is None else final_scores[i] for i in last], dtype=np.float64),
        "final_score_original": np.array([math.nan if i is None else originals[i] for i in last], dtype=np.float64),
        "human_final_round": pd.array([pd.NA if is_missing(v) else int(v)
                                       for v in (human.get(d, missing)[0] for d in ids)], dtype="Int64"),
        "human_final_score": np.array([human.get(d, missing)[1] for d in ids], dtype=np.float64),
        "human_final_score_original": np.array([human.get(d, missing)[2] for d in ids], dtype=np.float64),
    })


@functools.lru_cache(maxsize=1)
def _nothing_unmatched() -> pd.DataFrame:
    return Tally("").unmatched_frame()


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
