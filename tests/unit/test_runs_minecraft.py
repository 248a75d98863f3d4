"""Minecraft runs: net-action P/R/F1 on the FORMATS B.8 worked example by hand, infeasible actions,
end_config, the generated_sentences*.txt alignment, and an independent straightforward implementation."""
from __future__ import annotations

import json
import random

import pytest

from corpora.minecraft.data.scoring import apply_actions, counts, net_change, prf
from data_access.common import SourceError
from data_access.corpora import load_path
from data_access.runs import load_run, summarize
from data_access.runs.demo import demo_runs
from tests.unit.test_minecraft_bap import GAME, game_json, write_corpus


@pytest.fixture
def corpus(tmp_path):
    root = write_corpus(tmp_path / "corpus", {GAME: game_json()})
    return load_path("minecraft", root, cache_root=tmp_path / "cache")


def place(x, y, z, color="blue"):
    return {"action": "place", "x": x, "y": y, "z": z, "color": color}


def remove(x, y, z):
    return {"action": "remove", "x": x, "y": y, "z": z}


def jsonl(path, *lines):
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_the_pure_functions_by_hand():
    initial = {(0, 1, 1): "blue"}
    end, infeasible = apply_actions(initial, [
        ("placement", 0, 1, 1, "red"),   # occupied: infeasible
        ("removal", 3, 1, 3, None),      # empty: infeasible
        ("placement", 6, 1, 0, "red"),   # x = 6 is outside -5..5: infeasible
        ("placement", 0, 2, 1, "red"),
        ("removal", 0, 1, 1, None),
    ])
    assert infeasible == 3 and end == {(0, 2, 1): "red"}
    assert net_change(initial, end) == {("placement", 0, 2, 1, "red"), ("removal", 0, 1, 1, "blue")}
    # recolouring a cell is one removal plus one placement
    assert counts(initial, {(0, 1, 1): "red"}, initial) == (0, 2, 0)
    assert prf(0, 0, 0) == (0.0, 0.0, 0.0) and prf(1, 1, 0) == (0.5, 1.0, pytest.approx(2 / 3))


def test_micro_averaged_net_action_scores_on_the_worked_example(corpus, tmp_path):
    # Sample A (id 3) builds the blue tower (0,1..5,1): predicted nothing -> tp 0, fp 0, fn 5.
    # Sample B (id 9) removes (0,2,1) and (0,4,1): predicted removals of (0,2,1) and (0,3,1), a removal of an
    #   empty cell (infeasible) and a red block at (0,6,1) -> tp 1, fp 2, fn 1.
    # Sample C (id 15) places (-1,5..3,1): predicted exactly -> tp 3.
    # Sum: tp 4, fp 2, fn 6 -> P = 4/6, R = 4/10, F1 = 2PR/(P+R) = 0.5.
    run = jsonl(tmp_path / "model.jsonl",
                {"game": GAME, "sample_id": 3, "actions": []},
                {"game": GAME, "sample_id": 9, "actions": [remove(0, 2, 1), remove(0, 3, 1), remove(0, 9, 1),
                                                           place(0, 6, 1, "red")]},
                {"game": GAME, "sample_id": 15, "actions": [place(-1, 5, 1), place(-1, 4, 1), place(-1, 3, 1)]})
    loaded = load_run(corpus, run, cache_root=tmp_path / "cache")
    samples = loaded.frames["samples"].set_index("sample_id")
    assert samples[["tp", "fp", "fn"]].to_dict("index") == {3: {"tp": 0, "fp": 0, "fn": 5}, 9: {"tp": 1, "fp": 2, "fn": 1},
                                                          15: {"tp": 3, "fp": 0, "fn": 0}}
    assert samples.loc[9, "infeasible"] == 1 and samples.loc[15, "f1"] == 1.0
    summary = summarize(loaded)
    train = summary["splits"]["train"]
    assert train["samples"] == 3
    assert train["net_action_precision"] == pytest.approx(4 / 6)
    assert train["net_action_recall"] == pytest.approx(0.4)
    assert train["net_action_f1"] == pytest.approx(0.5)
    assert summary["infeasible_actions"] == 1 and summary["scored_samples"] == 3 and summary["unmatched"] == 0


def test_end_config_unmatched_and_malformed_lines(corpus, tmp_path):
    tower_minus_two_and_four = [{"x": 0, "y": y, "z": 1, "color": "blue"} for y in (1, 3, 5)]
    run = jsonl(tmp_path / "ends.jsonl",
                {"game": GAME, "sample_id": 9, "end_config": tower_minus_two_and_four},
                {"game": GAME, "sample_id": 4, "actions": []},
                {"game": "B1-A1-C1-1", "sample_id": 3, "actions": []},
                {"game": GAME, "sample_id": 15, "actions": [{"action": "jump", "x": 0, "y": 1, "z": 0}]},
                {"game": GAME, "sample_id": 15, "actions": [{"action": "place", "x": 0, "y": 1, "z": 0}]},
                "{oops")
    loaded = load_run(corpus, run, cache_root=tmp_path / "cache")
    assert loaded.frames["samples"]["f1"].tolist() == [1.0]
    assert loaded.unmatched["line"].tolist() == [2, 3]
    assert loaded.unmatched["reason"].tolist() == ["the game has no BAP sample 4", "unknown game (or a game without BAP samples)"]
    assert [s.record for s in loaded.skipped] == ["ends.jsonl:4", "ends.jsonl:5", "ends.jsonl:6"]
    assert "place or remove" in loaded.skipped[0].reason and "colour" in loaded.skipped[1].reason


def generated_sentences(entries):
    return ("action_precision 0.5\naction_recall 0.25\naction_f1 0.3333\nmean_generated_seq_length 2.0\n"
            "infeasible_actions_fraction_macro_avg 0.0\n\nmean_ground_truth_seq_length 3.0\n\n"
            + json.dumps(entries, indent=4, separators=(",\n", ": "), sort_keys=True))


def action(kind, x, y, z, color="blue"):
    return {"action_type": kind, "block": {"x": x, "y": y, "z": z, "type": color if kind == "placement" else None}}


def test_generated_sentences_entries_are_aligned_by_gold_sequence_and_utterances(tmp_path):
    # Two games with identical actions and chat: sample A's gold sequence occurs twice; the utterances
    # tell them apart only if they differ, so the second game says "red" where the first says "blue".
    other = "B7-A8-C63-1523304999999"
    second = game_json()
    for state in second["WorldStates"]:
        state["ChatHistory"] = [line.replace("blue tower", "red tower") for line in state["ChatHistory"]]
    root = write_corpus(tmp_path / "corpus", {GAME: game_json(), other: second})
    corpus = load_path("minecraft", root, cache_root=tmp_path / "cache")
    tower = [action("placement", 0, y, 1) for y in range(1, 6)]
    entries = [
        {"generated_seq": [tower[:3]], "ground_truth_seq": tower, "action_feasibilities": [[True] * 3],
         "prev_utterances": "<dialogue> <architect> start with a <unk> tower 5 high </architect> <builder> what should i do ? </builder>"},
        {"generated_seq": [tower], "ground_truth_seq": tower, "action_feasibilities": [[True] * 5],
         "prev_utterances": "<architect> start with a red tower 5 high </architect> <builder> what should i do ? </builder>"},
        {"generated_seq": [[action("removal", 0, 2, 1)]], "ground_truth_seq": [action("removal", 0, 2, 1), action("removal", 0, 4, 1)],
         "action_feasibilities": [[True]], "prev_utterances": "<architect> knock out levels 2 and 4 </architect>"},
        {"generated_seq": [[]], "ground_truth_seq": [action("placement", 4, 4, 4)], "action_feasibilities": [[]],
         "prev_utterances": ""},
    ]
    path = tmp_path / "generated_sentences-test.txt"
    path.write_text(generated_sentences(entries))
    loaded = load_run(corpus, path, cache_root=tmp_path / "cache")
    samples = loaded.frames["samples"]
    assert loaded.name == "generated_sentences-test"
    # entry 0: "<unk>" matches both colours -> ambiguous; entry 1: "red" -> the second game
    # entry 2: removals happen in both games with the same words -> ambiguous; entry 3: no such gold sequence
    assert samples[["game", "sample_id"]].values.tolist() == [[other, 3]]
    assert samples["tp"].tolist() == [5] and samples["match"].tolist() == ["actions + utterances"]
    reasons = dict(zip(loaded.unmatched["record"], loaded.unmatched["reason"]))
    assert reasons["entry 0"].startswith("matches 2 samples") and reasons["entry 2"].startswith("matches 2 samples")
    assert reasons["entry 3"] == "its ground_truth_seq is the gold action sequence of no sample"


def test_a_generated_sentences_entry_with_a_unique_gold_sequence_needs_no_utterances(corpus, tmp_path):
    path = tmp_path / "generated_sentences.txt"
    path.write_text(generated_sentences([
        {"generated_seq": [[action("placement", -1, 5, 1)]], "action_feasibilities": [[True]], "prev_utterances": "",
         "ground_truth_seq": [action("placement", -1, 5, 1), action("placement", -1, 4, 1), action("placement", -1, 3, 1)]}]))
    samples = load_run(corpus, path, cache_root=tmp_path / "cache").frames["samples"]
    assert samples[["sample_id", "tp", "fp", "fn"]].values.tolist() == [[15, 1, 0, 2]]


def test_wrong_corpus_and_empty_files_are_one_error(corpus, tmp_path):
    codraw = jsonl(tmp_path / "codraw.jsonl", {"dialog_id": "train_00001", "round": 1, "scene": "0,"})
    with pytest.raises(SourceError, match="looks like a run of CoDraw"):
        load_run(corpus, codraw, cache_root=tmp_path / "cache")
    empty = tmp_path / "generated_sentences_empty.txt"
    empty.write_text(generated_sentences([{"oops": 1}]))
    with pytest.raises(SourceError, match="generated_sentences file without one usable entry"):
        load_run(corpus, empty, cache_root=tmp_path / "cache")


def reference_micro(samples_table, initial_of, run_lines):
    """A straightforward re-implementation: replay on lists of block dicts, compare tuples, sum, divide."""
    tp = fp = fn = 0
    for line in run_lines:
        key = (line["game"], line["sample_id"])
        blocks = [dict(x=x, y=y, z=z, color=c) for (x, y, z), c in initial_of[key].items()]
        gold = [dict(b) for b in blocks]
        for kind, x, y, z, color, _state in json.loads(samples_table[key]):
            if kind == "putdown":
                gold.append(dict(x=x, y=y, z=z, color=color))
            else:
                gold = [b for b in gold if (b["x"], b["y"], b["z"]) != (x, y, z)]
        predicted = [dict(b) for b in blocks]
        for a in line["actions"]:
            cell = (a["x"], a["y"], a["z"])
            occupied = any((b["x"], b["y"], b["z"]) == cell for b in predicted)
            inside = -5 <= a["x"] <= 5 and 1 <= a["y"] <= 9 and -5 <= a["z"] <= 5
            if a["action"] == "place" and inside and not occupied:
                predicted.append(dict(x=a["x"], y=a["y"], z=a["z"], color=a["color"]))
            elif a["action"] == "remove" and inside and occupied:
                predicted = [b for b in predicted if (b["x"], b["y"], b["z"]) != cell]

        def net(end, blocks=blocks):
            start = {tuple(b.values()) for b in blocks}
            finish = {tuple(b.values()) for b in end}
            return {("p",) + b for b in finish - start} | {("r",) + b for b in start - finish}
        p, g = net(predicted), net(gold)
        tp, fp, fn = tp + len(p & g), fp + len(p - g), fn + len(g - p)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return precision, recall, (2 * precision * recall / (precision + recall) if precision + recall else 0.0)


def test_demo_runs_agree_with_an_independent_implementation(tmp_path):
    corpus = load_path("minecraft", None, cache_root=tmp_path)
    frame = corpus.frames["bap_samples"]
    table = {(g, int(s)): t for g, s, t in zip(frame["game"], frame["sample_id"], frame["next_actions"])}
    from corpora.minecraft.data.scoring import initial_configs

    initial_of = initial_configs(corpus, list(table))
    rng = random.Random(7)
    for name, file in demo_runs("minecraft", tmp_path).items():
        lines = [json.loads(line) for line in file.read_text().splitlines()]
        for line in lines:
            rng.shuffle(line["actions"])  # any order: infeasibility then depends on it
        file2 = tmp_path / f"{name}-shuffled.jsonl"
        file2.write_text("".join(json.dumps(line) + "\n" for line in lines))
        summary = summarize(load_run(corpus, file2, cache_root=tmp_path))
        for split in ("train", "val", "test"):
            part = [line for line in lines if frame.loc[(frame["game"] == line["game"]) & (frame["sample_id"] == line["sample_id"]), "split"].iloc[0] == split]
            expected = reference_micro(table, initial_of, part)
            got = summary["splits"][split]
            assert (got["net_action_precision"], got["net_action_recall"], got["net_action_f1"]) == pytest.approx(expected)
