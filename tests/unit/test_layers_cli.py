"""``python -m data_access layer-summary``: one JSON object with exactly the issue's keys, or exit 2 with one
stderr line naming the file; and the figures on the real published layers (shared)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from data_access.corpora import demo_path
from data_access.layers.load import demo_layer_path

ROOT = Path(__file__).resolve().parents[2]
GOS_KEYS = ["messages", "mentions", "mentions_single", "images_linked", "unmatched_messages", "spans_out_of_range", "skipped",
            "skipped_total"]
ICR_KEYS = ["rows", "aligned_unique", "aligned_ambiguous", "not_aligned", "crs", "crs_aligned", "splits", "skipped",
            "skipped_total"]


def run_cli(*args, cache):
    env = {"DIALOGUE_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "data_access", "layer-summary", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("layer,corpus,keys", [("gos-mentions", "gos", GOS_KEYS), ("codraw-icr", "codraw", ICR_KEYS)])
def test_demo_layer_summary_has_exactly_the_issue_keys(tmp_path, layer, corpus, keys):
    result = run_cli(layer, demo_path(corpus, tmp_path), demo_layer_path(layer, tmp_path), cache=tmp_path / "c")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert list(figures) == keys
    if layer == "codraw-icr":
        assert all(list(v) == ["dialogs_with_cr", "rounds_with_cr"] for v in figures["splits"].values())


def test_bad_files_exit_2_with_one_line_naming_the_file(tmp_path):
    gos, codraw = demo_path("gos", tmp_path), demo_path("codraw", tmp_path)
    not_json = tmp_path / "gos-mentions.jsonl"
    not_json.write_text("nothing here\n")
    wrong_header = tmp_path / "icr.tsv"
    wrong_header.write_text("a\tb\n")
    cases = [("gos-mentions", gos, tmp_path / "missing.jsonl"), ("gos-mentions", gos, not_json),
             ("codraw-icr", codraw, wrong_header), ("codraw-icr", codraw, tmp_path),
             ("codraw-icr", tmp_path / "no-corpus.json", demo_layer_path("codraw-icr", tmp_path))]
    for layer, corpus, path in cases:
        result = run_cli(layer, corpus, path, cache=tmp_path / "c")
        assert result.returncode == 2, (layer, path, result.stdout)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in result.stderr
        named = path if corpus.exists() else corpus
        assert str(named) in lines[0]


@pytest.mark.shared
def test_real_gos_mentions_figures(shared_data, real_cache):
    result = run_cli("gos-mentions", shared_data / "game-of-sorts", shared_data / "annotations" / "gos-mentions.jsonl",
                     cache=real_cache)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"messages": 1086, "mentions": 1486, "mentions_single": 1319, "images_linked": 1908,
                                         "unmatched_messages": 0, "spans_out_of_range": 0, "skipped": [],
                                         "skipped_total": 0}


@pytest.mark.shared
def test_real_codraw_icr_figures(shared_data, real_cache):
    result = run_cli("codraw-icr", shared_data / "codraw" / "CoDraw_1_0.json.gz",
                     shared_data / "annotations" / "icr-codraw-data.tsv", cache=real_cache)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "rows": 13727, "aligned_unique": 12214, "aligned_ambiguous": 1513, "not_aligned": 0, "crs": 7593, "crs_aligned": 7142,
        "splits": {"train": {"dialogs_with_cr": 2732, "rounds_with_cr": 5689},
                   "val": {"dialogs_with_cr": 354, "rounds_with_cr": 740},
                   "test": {"dialogs_with_cr": 365, "rounds_with_cr": 713}},
        "skipped": [], "skipped_total": 0}
