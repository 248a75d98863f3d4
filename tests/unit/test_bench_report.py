"""``benchmarks/report.py``: every target beside its figure, "not met" when it is not, and "not measured"
(never a guess) when its benchmark has not written results."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from report import CHECKS, rows  # noqa: E402


def test_a_missing_benchmark_is_not_measured_and_a_missed_target_is_not_met(tmp_path):
    (tmp_path / "runs.json").write_text(json.dumps({
        "codraw": {"run_jsonl_ratio": 1.1, "run_corpus_layout_ratio": 1.6, "human_scoring_cold_s": 3.0, "target_ratio": 1.5},
        "minecraft_scaled_to_547_games": {"run_s": 0.8, "import_floor_s": 0.5, "target_s": 2.0},
        "replay_run_switch": {"median_s": 0.06, "target_s": 0.3},
    }))
    table = {target: (measured, verdict) for target, measured, _baseline, verdict in rows(tmp_path)}
    assert len(table) == len(CHECKS)
    assert table["CoDraw run scoring ≤ 1.5× scoring the humans"] == ("JSON Lines 1.10×, corpus layout 1.60×", "**not met**")
    assert table["Minecraft run of 1,616 samples ≤ 2 s"] == ("0.80 s", "met")
    assert table["CoDraw cold ≤ 1.5× bare json.load"] == ("not measured", "– (no latest.json)")


def test_a_results_file_without_a_figure_is_not_measured(tmp_path):
    (tmp_path / "sessions.json").write_text(json.dumps({"sessions": 10}))
    verdicts = {target: verdict for target, _m, _b, verdict in rows(tmp_path)}
    assert verdicts["ten sessions: ≤ 0.08 CPU-s per step, ≤ 0.9 GB, no error"].startswith("– (sessions.json lacks")
