"""A Game Of Sorts runs: reference resolution (which images a model says each message refers to) and rankings (the
order in which a player, a person on the Play page or a model, ranks a round's images).

Format: JSON Lines, one line per message ``{"interaction_id", "round_number", "message_number",
"image_ids": [...]}``; gold is the message's self-annotated ``image_ids`` in the corpus (``[null]`` = none). Or one
line per round ``{"interaction_id", "round_number", "ranking": [image ids, the first ranked first]}`` (docs/play.md).

Per message with non-empty gold G and predicted set P: exact match (P = G), precision |P ∩ G| / |P| (0 when
P is empty), recall |P ∩ G| / |G|, F1 their harmonic mean (0 when both are 0). The run's figures are means
over those messages. Messages whose gold is empty are scored apart: whether the model names any image.

Per ranking: its agreement with the pair's final ranks of the round, on the images it ranked (``agreement.
ranking_agreement``, the definition the outcomes page uses between plays): Spearman's rho (the unit's value) and
Kendall's tau, and the exact positions (images at the pair's rank). A ranking of fewer than two images has no
correlation and is not a unit. Ranking units stand in the split ``ranking`` of the Runs page (reference-resolution
units in ``all``), so a leaderboard never ranks a correlation against an F1.
"""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pandas as pd

from dialogue_dashboard.plugin import LoadedCorpus, Tally, json_lines, no_usable_line, run_lines, skipped_report

# the corpus this scoring belongs to: its package's name (``NAME``), without importing the package, which
# imports this module in ``run_scoring()``
CORPUS = "gos"  # the package's NAME (this module is imported by its __init__)

EXPECTED = 'one JSON object per line {"interaction_id", "round_number", "message_number", "image_ids": [...]}'
RANKING_SPLIT = "ranking"  # the split the Runs page puts ranking units in (message units: "all")
RANKING_COLUMNS = ["interaction_id", "round_number", "line", "record", "board_id", "criterion", "ranking", "n_ranked",
                   "n_common", "exact_positions", "kendall_tau", "spearman_rho", "split"]
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


MAX_RANKED = 100  # images of one ranking line (a board has 9)


def _int(value):
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_rows(path: Path) -> tuple[list[dict], Tally]:
    path = Path(path)
    tally = Tally(path.name)
    rows, seen, total = [], [], 0  # type: list, list, int
    for line in json_lines(run_lines(path), tally):  # a stream: the rows and one line in memory
        total += 1
        r = line.record
        if len(seen) < 50:
            seen.append(r)
        interaction, round_number, message_number = r.get("interaction_id"), _int(r.get("round_number")), _int(r.get("message_number"))
        images = r.get("image_ids")
        if not isinstance(interaction, str) or not interaction:
            tally.skip(line.number, "interaction_id is missing or not a string")
        elif "ranking" in r:
            ranking = r.get("ranking")
            if round_number is None:
                tally.skip(line.number, "round_number must be an integer")
            elif (not isinstance(ranking, list) or not all(isinstance(i, str) and i for i in ranking)
                  or len(set(ranking)) != len(ranking) or len(ranking) > MAX_RANKED):
                tally.skip(line.number, f"ranking must be a list of distinct image ids (at most {MAX_RANKED})")
            else:
                rows.append({"interaction_id": interaction, "round_number": round_number, "line": line.number,
                             "ranking": list(ranking)})
        elif round_number is None or message_number is None:
            tally.skip(line.number, "round_number and message_number must be integers")
        elif not isinstance(images, list) or not all(i is None or isinstance(i, str) for i in images):
            tally.skip(line.number, "image_ids must be a list of image ids (null for none)")
        else:
            rows.append({"interaction_id": interaction, "round_number": round_number, "message_number": message_number,
                         "line": line.number, "predicted": sorted({i for i in images if i})})
    if not rows:
        raise no_usable_line(path, CORPUS, seen, total, EXPECTED)
    return rows, tally


def score(corpus: LoadedCorpus, rows: list[dict], tally: Tally) -> dict[str, pd.DataFrame]:
    rankings = score_rankings(corpus, [r for r in rows if "ranking" in r], tally)
    rows = [r for r in rows if "ranking" not in r]
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
    scored = {"messages": frame, "unmatched": tally.unmatched_frame()}
    if len(rankings):  # a run of messages keeps the frames it always had
        scored["rankings"] = rankings
    return scored


def score_rankings(corpus: LoadedCorpus, rows: list[dict], tally: Tally) -> pd.DataFrame:
    """Each ranking line against the pair's final ranks of its round (the first line of a round counts)."""
    from corpora.gos.data.agreement import ranking_agreement

    ranks = corpus.frames["ranks"]
    pairs: dict[tuple, dict[str, int]] = {}
    for interaction, round_number, rank, image in zip(ranks["interaction_id"], ranks["round"], ranks["rank"], ranks["image_id"]):
        pairs.setdefault((interaction, int(round_number)), {})[image] = int(rank)
    played = corpus.frames["rounds"].set_index(["interaction_id", "round"])
    interactions = set(corpus.frames["rounds"]["interaction_id"])
    boards = corpus.frames["boards"].set_index("board_id")["image_ids"]
    out: dict[str, list] = {name: [] for name in RANKING_COLUMNS}
    seen: dict[tuple, int] = {}
    for row in rows:
        key = (row["interaction_id"], row["round_number"])
        where = f"{key[0]} round {key[1]}"
        if key not in played.index:
            tally.unmatch(row["line"], where, "unknown interaction" if key[0] not in interactions
                          else f"the interaction has no round {key[1]}")
            continue
        if key in seen:
            tally.skip(row["line"], f"a second ranking of {where} (first on line {seen[key]})")
            continue
        board = played.loc[key]
        board_images = set(boards.loc[board["board_id"]])
        stray = [i for i in row["ranking"] if i not in board_images]
        if stray:
            tally.skip(row["line"], f"ranks {stray[0]}, which is not on the board of {where}")
            continue
        seen[key] = row["line"]
        pair = pairs.get(key, {})
        mine = {image: position for position, image in enumerate(row["ranking"], start=1)}
        n_common, tau, rho = ranking_agreement(mine, pair)
        exact = sum(1 for image, position in mine.items() if pair.get(image) == position)
        values = (*key, row["line"], f"line {row['line']}", board["board_id"], board["criterion"], json.dumps(row["ranking"]),
                  len(row["ranking"]), n_common, exact, tau, rho, RANKING_SPLIT)
        for name, value in zip(RANKING_COLUMNS, values):
            out[name].append(value)
    return pd.DataFrame(out, columns=RANKING_COLUMNS).astype({
        "interaction_id": "str", "round_number": "int64", "line": "Int64", "record": "str", "board_id": "str",
        "criterion": "str", "ranking": "str", "n_ranked": "int64", "n_common": "int64", "exact_positions": "int64",
        "kendall_tau": "float64", "spearman_rho": "float64", "split": "str"})


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


def _rankings(frames) -> pd.DataFrame:
    """A run's ranking lines scored (an empty frame for a run without them)."""
    if "rankings" in frames:
        return frames["rankings"]
    return pd.DataFrame({c: pd.Series(dtype="float64" if c in ("kendall_tau", "spearman_rho") else "object")
                         for c in RANKING_COLUMNS})


def summary(frames, skipped, name: str) -> dict:
    """The ``run-summary gos`` object (keys fixed by the issue; a run of rankings adds ``ranked_rounds``,
    ``mean_spearman_rho`` and ``mean_exact_positions``)."""
    f = figures(frames["messages"])
    ranked = _rankings(frames)
    scored = ranked[ranked["spearman_rho"].notna()]
    rankings = {"ranked_rounds": int(len(ranked)),
                "mean_spearman_rho": float(scored["spearman_rho"].mean()) if len(scored) else None,
                "mean_exact_positions": float(ranked["exact_positions"].mean())} if len(ranked) else {}
    return {"run": name, "scored_messages": f["scored_messages"], "unmatched": int(len(frames["unmatched"])),
            "exact_match": f["exact_match"], "precision": f["precision"], "recall": f["recall"], "f1": f["f1"],
            **rankings, **skipped_report(skipped)}


# ----------------------------------------------------------------------------------- the run scoring contract
# ``contract.RunScoring``: what the Runs page, the replay and the exports need from an A Game Of Sorts run.

LINE_KEYS = ("interaction_id", "round_number", "message_number", "image_ids")
HAS_HUMANS = False  # the gold is the sender's own marking (the pair's own ranks): there is no second human figure
UNIT_STATISTIC = "mean"
STATISTIC_LABEL = "mean F1 (split “ranking”: mean Spearman rho with the pair's ranks)"
METRIC_NOTE = "Means over messages whose gold is non-empty (the naming rate over messages with empty gold), Student-t intervals."


def demo_runs(frames) -> dict[str, list[dict]]:
    """The demo runs' lines (written by ``runs.demo``). ``baseline``: every in-round message refers to the image
    ranked next. ``noisy``: the gold images with 20 % swapped for another board image and an image named for
    25 % of messages whose gold is empty."""
    messages, boards = frames["messages"], frames["boards"]
    images_of = {b: list(ids) for b, ids in zip(boards["board_id"], boards["image_ids"])}
    baseline, noisy = [], []
    rng = random.Random(1203)
    for row in messages.itertuples(index=False):
        key = {"interaction_id": row.interaction_id, "round_number": int(row.round),
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


def metric_rows(run) -> list[tuple]:
    """Exact match, P, R, F1 over messages with gold, the naming rate without, F1 per round and criterion."""
    from dialogue_dashboard.plugin import mean_ci, metric_row

    rows = []
    messages = run.frames["messages"]
    scored, empty = messages[~messages["gold_empty"]], messages[messages["gold_empty"]]
    for metric, column in (("exact match", "exact"), ("precision", "precision"), ("recall", "recall"), ("F1", "f1")):
        rows.append(metric_row(run.name, "all", metric, mean_ci(scored[column].astype("float64"))))
    rows.append(metric_row(run.name, "all", "names an image when gold is empty", mean_ci(empty["names_image"].astype("float64"))))
    for round_number, part in scored.groupby("round_number", sort=True):
        rows.append(metric_row(run.name, f"round {round_number}", "F1", mean_ci(part["f1"])))
    for criterion, part in scored.groupby("criterion", sort=True):
        rows.append(metric_row(run.name, f"criterion: {criterion}", "F1", mean_ci(part["f1"])))
    ranked = _rankings(run.frames)
    if len(ranked):
        for metric, column in (("Spearman rho with the pair's ranks", "spearman_rho"), ("Kendall tau with the pair's ranks", "kendall_tau"),
                               ("exact positions", "exact_positions")):
            values = ranked[column].astype("float64").dropna()
            rows.append(metric_row(run.name, RANKING_SPLIT, metric, mean_ci(values)))
    return rows


def units(run, humans: bool = False) -> pd.DataFrame:
    """One unit per message whose gold is non-empty: its F1 (1 for the humans, whose marking is the gold); then one per
    ranked round with a correlation: its Spearman rho with the pair's ranks (1 for the humans: their own ranks)."""
    m = run.frames["messages"]
    m = m[~m["gold_empty"]]
    messages = pd.DataFrame({
        "unit": m["interaction_id"] + "|" + m["round_number"].astype(str) + "|" + m["message_number"].astype(str),
        "dialog_id": m["interaction_id"], "round": m["round_number"].astype("int64"),
        "message_number": m["message_number"].astype("Int64"), "value": 1.0 if humans else m["f1"].astype(float)})
    r = _rankings(run.frames)
    r = r[r["spearman_rho"].notna()]
    if r.empty:
        return messages.reset_index(drop=True)
    ranked = pd.DataFrame({
        "unit": r["interaction_id"].astype(str) + "|" + r["round_number"].astype(str) + "|ranking",
        "dialog_id": r["interaction_id"].astype(str), "round": r["round_number"].astype("int64"),
        "message_number": pd.array([pd.NA] * len(r), dtype="Int64"),
        "value": 1.0 if humans else r["spearman_rho"].astype(float)})
    return pd.concat([messages, ranked], ignore_index=True)


def dialog_scores(run) -> pd.DataFrame:
    """Per interaction: the mean F1 over its messages whose gold is non-empty (the Runs page's statistic); no
    human figure (the gold is the humans' own marking)."""
    grouped = units(run).groupby("dialog_id", sort=True)["value"]
    frame = pd.DataFrame({"units": grouped.size(), "score": grouped.mean()}).reset_index()
    frame["dialog_id"] = frame["dialog_id"].astype(str)
    frame["humans"] = float("nan")
    return frame[["dialog_id", "units", "score", "humans"]]


def slice_features(corpus: LoadedCorpus, run, base: pd.DataFrame) -> pd.DataFrame:
    """Round played, criterion, message length, gold image count."""
    from dialogue_dashboard.plugin import bins

    messages = run.frames["messages"]
    m = messages[~messages["gold_empty"]].reset_index(drop=True)
    features = pd.DataFrame({
        "round played": ("round " + m["round_number"].astype(str)).to_numpy(),
        "criterion": m["criterion"].to_numpy(),
        "message length (words)": bins(m["text"].map(lambda t: len(str(t).split())), [0, 6, 11, 21, 10 ** 6]).to_numpy(),
        "gold image count": bins(m["n_gold"], [1, 2, 3, 10 ** 6]).to_numpy(),
    })
    r = _rankings(run.frames)
    r = r[r["spearman_rho"].notna()].reset_index(drop=True)
    if r.empty:
        return features
    ranked = pd.DataFrame({"round played": ("round " + r["round_number"].astype(str)).to_numpy(),
                           "criterion": r["criterion"].to_numpy(), "message length (words)": "a ranking",
                           "gold image count": "a ranking"})
    return pd.concat([features, ranked], ignore_index=True)


def unit_turns(corpus: LoadedCorpus) -> pd.DataFrame:
    """unit "interaction|round|message" -> the message's replay step; "interaction|round|ranking" -> the step of the
    round's last rank (the round's ranking complete)."""
    steps = corpus.frames["steps"]
    said = steps[steps["kind"] == "message"]
    unit = said["interaction_id"] + "|" + said["round"].astype(str) + "|" + said["message_number"].astype("int64").astype(str)
    turns = pd.DataFrame({"unit": unit, "turn": said["step"].astype("Int64")})
    if "produced_rank" not in steps.columns:
        return turns
    ranked = steps[steps["produced_rank"].notna()].groupby(["interaction_id", "round"], as_index=False)["step"].max()
    return pd.concat([turns,
                      pd.DataFrame({"unit": ranked["interaction_id"] + "|" + ranked["round"].astype(str) + "|ranking",
                                    "turn": ranked["step"].astype("Int64")})], ignore_index=True)


def _first_difference(corpus: LoadedCorpus, run) -> dict[str, int]:
    """Ranking unit -> the replay step where the pair made the first rank the ranking gives another image."""
    ranked = _rankings(run.frames)
    if ranked.empty:
        return {}
    steps = corpus.frames["steps"]
    made = steps[steps["produced_rank"].notna()]
    step_of = {(i, int(r), int(k)): int(s) for i, r, k, s in zip(made["interaction_id"], made["round"], made["produced_rank"], made["step"])}
    ranks = corpus.frames["ranks"]
    pair = {(i, int(r), int(k)): image for i, r, k, image in zip(ranks["interaction_id"], ranks["round"], ranks["rank"], ranks["image_id"])}
    found = {}
    for interaction, round_number, ranking in zip(ranked["interaction_id"], ranked["round_number"], ranked["ranking"]):
        mine = json.loads(ranking)
        first = next((k for k, image in enumerate(mine, start=1) if pair.get((interaction, int(round_number), k)) != image), len(mine))
        step = step_of.get((interaction, int(round_number), max(1, first)))
        if step is not None:
            found[f"{interaction}|{round_number}|ranking"] = step
    return found


def worst_steps(corpus: LoadedCorpus, run) -> pd.DataFrame:
    """A unit is one message: its own replay step, in its round; a ranked round: the step where the pair made the
    first rank the ranking differs from (its last when none does)."""
    scored = units(run)
    steps = scored[["unit", "round"]].merge(unit_turns(corpus).drop_duplicates("unit"), on="unit", how="left")
    turns = steps["turn"].astype("Int64")
    differ = _first_difference(corpus, run)
    if differ:
        turns = pd.array([differ.get(u, t) for u, t in zip(steps["unit"], turns)], dtype="Int64")
    return pd.DataFrame({"unit": steps["unit"], "turn": turns, "round": steps["round"].astype("Int64")})


def replay_view(corpus: LoadedCorpus, run, dialog_id: str, turn: int, round=None):
    """The message of step ``turn`` of the round, its predicted and gold images on both boards
    (``views.GosRunView``); None without a round."""
    from corpora.gos.data.run_views import gos_view

    return None if round is None else gos_view(corpus, run, dialog_id, int(round), turn)


def run_pictures(corpus, run, dialog_id: str, round, n_steps: int) -> list:
    """Both players' boards with the model's and the gold images marked, at each step of the round."""
    round_number = int(round or 1)
    from corpora.gos.data.run_views import gos_view
    from dialogue_dashboard.plugin import image_grid, note_picture, png_image

    pictures = []
    for step in range(1, n_steps + 1):
        view = gos_view(corpus, run, dialog_id, round_number, step)
        if not view.boards:
            pictures.append(note_picture(view.note or "No prediction at this step."))
            continue
        f1 = view.scores.get("f1")
        score = f" · F1 {f1:.2f}" if isinstance(f1, float) and not math.isnan(f1) else ""
        what = "model (magenta) vs gold (green)"
        if view.ranking is not None:
            rho = view.ranking.get("spearman_rho")
            score, what = (f" · rho {rho:.2f}" if isinstance(rho, float) and not math.isnan(rho) else ""), "the run's ranks"
        pictures.append(image_grid([png_image(png) for _, png in view.boards],
                                   [f"{name}: {what}{score}" for name, _ in view.boards]))
    return pictures
