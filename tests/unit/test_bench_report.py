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
    assert verdicts["ten sessions stepping with the player: ≤ 0.05 CPU-s per step, ≤ 0.9 GB, no error"].startswith("– (sessions.json lacks")


def test_the_first_page_after_a_restart_and_each_page_over_its_own_elements(tmp_path):
    (tmp_path / "restart.json").write_text(json.dumps({
        "blank_page_fresh_s": 2.0, "blank_page_first_after_restart_s": 2.2, "target_ratio": 1.5,
        "pages": {"/ (overview)": {"median_s": 2.8, "ratio": 1.4}, "data": {"median_s": 3.2, "ratio": 1.6},
                  "baseline · data": {"median_s": 9.0, "ratio": 4.5}}}))
    (tmp_path / "pages.json").write_text(json.dumps({
        "blank_page_s": 1.5, "target_ratio": 1.25, "over_elements_target_ratio": 1.15,
        "pages": {"/ (overview)": {"median_s": 1.8, "ratio": 1.2, "elements_s": 1.7, "over_elements_ratio": 1.06},
                  "data": {"median_s": 2.4, "ratio": 1.6, "elements_s": 1.9, "over_elements_ratio": 1.26}}}))
    table = {target: (measured, verdict) for target, measured, _baseline, verdict in rows(tmp_path)}
    assert table["first page after a restart, warm cache ≤ 1.5× a blank page's fresh load"] == \
        ("Overview 2.80 s (1.40×), data 3.20 s (1.60×)", "**not met**")
    assert table["Overview: ≤ 1.15× its own elements"] == ("1.80 s: 1.06× its elements (1.20× blank)", "met")
    assert table["data: ≤ 1.15× its own elements"][1] == "**not met**"


def test_the_click_targets_are_read_per_page_and_the_browse_target_against_a_fresh_replay(tmp_path):
    def scenario(median_ratio, p90_ratio, median_s=0.1, p90_s=0.2):
        return {"n": 20, "timeouts": 0, "median_s": median_s, "p90_s": p90_s, "median_ratio": median_ratio,
                "p90_ratio": p90_ratio}
    clicks = {name: scenario(1.2, 2.5) for name in ("replay · codraw", "replay · minecraft", "replay + run · codraw",
                                                   "compare · codraw", "present · codraw")}
    clicks["replay + run · minecraft"] = scenario(4.0, 9.0, median_s=0.4, p90_s=0.9)
    (tmp_path / "clicks.json").write_text(json.dumps({
        "clicks": {"this checkout": clicks}, "target": {"median_ratio": 1.5, "p90_ratio": 3.0, "browse_p90_ratio": 1.5},
        "blank_click": {"median_s": 0.03, "p90_s": 0.05},
        "browse": {"this checkout": {"codraw": {"row_click": {"n": 20, "timeouts": 0, "p90_s": 2.0, "p90_ratio": 1.8},
                                                "fresh_replay": {"median_s": 1.1}}}},
    }))
    table = {target: (measured, verdict) for target, measured, _baseline, verdict in rows(tmp_path)}
    assert table["1. Replay click ≤ 1.5× / 3× blank, each corpus"][1] == "met"
    assert table["1. Replay with a model run: click ≤ 1.5× / 3× blank"] == (
        "median / p90 × blank: codraw 1.2× / 2.5×, minecraft 4.0× / 9.0×", "**not met**")
    assert table["2. the same with a model run's panel (no WebGL scene)"][1] == "**not met**"
    assert table["4. Browse row → replay settled, p90 ≤ 1.5× a fresh replay"] == ("p90 codraw 2.00 s (1.8×)", "**not met**")


def test_the_play_targets_are_read_per_corpus_against_their_baselines(tmp_path):
    def corpus(frame_p90, sent, done_p90):
        return {"moves_drawn": {"n": 40, "median_ms": 6.0, "p90_ms": frame_p90}, "sent_while_moving": sent,
                "done_to_score": {"n": 12, "median_ms": 150.0, "p90_ms": done_p90},
                "met_moves": frame_p90 <= 16 and sent == 0, "met_done": done_p90 <= 300}
    (tmp_path / "play.json").write_text(json.dumps({
        "targets": {"frame_p90_ms": 16.0, "done_p90_ms": 300.0},
        "corpora": {"codraw": corpus(9.0, 0, 250.0), "minecraft": corpus(12.0, 2, 420.0)},
        "blank_click": {"n": 24, "median_ms": 40.0, "p90_ms": 60.0}, "bare_frame": {"n": 60, "median_ms": 8.0,
                                                                                   "p90_ms": 15.0}}))
    table = {target: (measured, baseline, verdict) for target, measured, baseline, verdict in rows(tmp_path)}
    moves = table["49. Play, codraw: a move drawn within one frame (p90 ≤ 16 ms), no request"]
    assert moves == ("p90 9.0 ms (median 6.0) over 40 moves; 0 sent", "a move that draws nothing: p90 15.0 ms", "met")
    assert table["49. Play, minecraft: a move drawn within one frame (p90 ≤ 16 ms), no request"][2] == "**not met**"
    assert table["49. Play, codraw: Done → score p90 ≤ 300 ms"][2] == "met"
    assert table["49. Play, minecraft: Done → score p90 ≤ 300 ms"] == (
        "p90 420 ms (median 150)", "a bare button's rerun: median 40.0 ms, p90 60.0 ms", "**not met**")
    report = json.loads((tmp_path / "play.json").read_text())
    report["bare_click_frame"] = {"n": 40, "median_ms": 7.0, "p90_ms": 14.0}  # the click floor, where measured
    (tmp_path / "play.json").write_text(json.dumps(report))
    table = {target: (measured, baseline, verdict) for target, measured, baseline, verdict in rows(tmp_path)}
    assert table["49. Play, codraw: a move drawn within one frame (p90 ≤ 16 ms), no request"][1] == (
        "a move that draws nothing: p90 15.0 ms; a click: p90 14.0 ms")
