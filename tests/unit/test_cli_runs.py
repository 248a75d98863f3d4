"""``python -m data_access run-summary``: exactly the issue's keys, exit 2 with one stderr line naming the run
file, never a traceback; and on the real corpora a run that copies the humans reproduces their scores."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from data_access.corpora import demo_path
from data_access.runs.demo import demo_runs

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args, cache):
    env = {"DIALOGUE_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "data_access", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


KEYS = {
    "codraw": {"run", "matched_dialogs", "scored_rounds", "unmatched", "splits", "skipped", "skipped_total"},
    "minecraft": {"run", "scored_samples", "unmatched", "infeasible_actions", "splits", "skipped", "skipped_total"},
    "gos": {"run", "scored_messages", "unmatched", "exact_match", "precision", "recall", "f1", "skipped", "skipped_total"},
}
SPLIT_KEYS = {
    "codraw": {"dialogs", "mean_final_score", "mean_final_score_original_metric"},
    "minecraft": {"samples", "net_action_precision", "net_action_recall", "net_action_f1"},
}


@pytest.mark.parametrize("corpus", ["codraw", "gos", "minecraft"])
def test_the_demo_runs_print_exactly_the_issue_keys(tmp_path, corpus):
    for name, file in demo_runs(corpus, tmp_path).items():
        result = run_cli("run-summary", corpus, demo_path(corpus, tmp_path), file, cache=tmp_path)
        assert result.returncode == 0, result.stderr
        summary = json.loads(result.stdout)
        assert set(summary) == KEYS[corpus] and summary["run"] == name
        if corpus in SPLIT_KEYS:
            assert set(summary["splits"]) == {"train", "val", "test"}
            for figures in summary["splits"].values():
                assert set(figures) == SPLIT_KEYS[corpus]
        else:
            assert isinstance(summary["f1"], float)


def test_bad_run_files_exit_2_with_one_line_naming_the_file(tmp_path):
    corpus = demo_path("minecraft", tmp_path)
    bad = {
        "missing": tmp_path / "missing.jsonl",
        "folder": tmp_path,
        "binary": tmp_path / "noise.jsonl",
        "truncated gzip": tmp_path / "cut.jsonl.gz",
        "wrong corpus": tmp_path / "codraw.jsonl",
    }
    bad["fifo"] = tmp_path / "pipe.jsonl"
    os.mkfifo(bad["fifo"])
    bad["gzip bomb"] = tmp_path / "bomb.jsonl.gz"
    # 1 GiB + 64 MiB of spaces, ~1 MB on disk: 17 gzip members of 64 MiB each (one compressed, written 17 times)
    bad["gzip bomb"].write_bytes(gzip.compress(b" " * (64 << 20), compresslevel=1) * 17)
    bad["binary"].write_bytes(bytes(range(256)) * 4)
    bad["truncated gzip"].write_bytes(gzip.compress(b'{"game": "x", "sample_id": 1, "actions": []}\n' * 50)[:-10])
    bad["wrong corpus"].write_text('{"dialog_id": "train_00001", "round": 1, "scene": "0,"}\n')
    for what, path in bad.items():
        result = run_cli("run-summary", "minecraft", corpus, path, cache=tmp_path)
        assert result.returncode == 2, what
        assert result.stdout == "" and "Traceback" not in result.stderr, what
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0], (what, result.stderr)


@pytest.mark.shared
def test_a_run_copying_the_humans_reproduces_their_scores_on_the_real_corpora(shared_data, real_cache):
    codraw = shared_data / "codraw" / "CoDraw_1_0.json.gz"
    human = json.loads(run_cli("summary", "codraw", codraw, cache=real_cache).stdout)
    # the corpus file itself is a run in the corpus layout whose abs_d are the human canvases
    run = json.loads(run_cli("run-summary", "codraw", codraw, codraw, cache=real_cache).stdout)
    assert run["matched_dialogs"] == 9993 and run["unmatched"] == 0 and run["skipped"] == []
    for split in ("train", "val", "test"):
        assert round(run["splits"][split]["mean_final_score"], 4) == human["splits"][split]["mean_final_score"]
        assert round(run["splits"][split]["mean_final_score_original_metric"], 4) == \
            human["splits"][split]["mean_final_score_original_metric"]
    assert round(run["splits"]["test"]["mean_final_score"], 2) == 4.17


@pytest.mark.shared
def test_a_minecraft_run_of_the_gold_actions_scores_one(shared_data, real_cache, tmp_path):
    from corpora.minecraft.data.bap import iter_bap_samples

    root = shared_data / "minecraft"
    path = tmp_path / "gold.jsonl"
    with open(path, "w") as out:
        for split in ("train", "val", "test"):
            for sample in iter_bap_samples(root, split, perspective=False):
                actions = [{"action": "place" if a["action"]["action_type"] == "placement" else "remove",
                            **{k: a["action"]["block"][k] for k in "xyz"}, "color": a["action"]["block"]["type"]}
                           for a in sample["next_builder_actions"]]
                out.write(json.dumps({"game": sample["orig_experiment_id"], "sample_id": sample["sample_id"],
                                      "actions": actions}) + "\n")
    run = json.loads(run_cli("run-summary", "minecraft", root, path, cache=real_cache).stdout)
    assert run["scored_samples"] == 394 and run["unmatched"] == 0 and run["infeasible_actions"] == 0
    for figures in run["splits"].values():
        assert figures["net_action_f1"] == 1.0 and figures["net_action_precision"] == 1.0
