"""Every performance target of the issues beside its measured figure and baseline, from the JSON files the
benchmarks write into ``benchmarks/results/`` (``make bench`` runs them all, then this).

    python benchmarks/report.py [--results benchmarks/results]

Prints a Markdown table: target, measured, baseline of the same run, and whether it is met. A benchmark
that has not been run is listed as "not measured", never guessed.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[1]

# (results file, target, how to read (measured text, baseline text, met) from that file's JSON; or a list of
# (target, measured text, baseline text, met), one row each, as for every page's own target)
Check = tuple[str, str, Callable[[dict], tuple[str, str, bool]]]


def _codraw_cold(key: str = "codraw"):
    def read(r):
        c = r[key]
        return (f"{c['cold_s']:.2f} s: {c['cold_ratio']:.2f}× (CPU {c['cold_cpu_ratio']:.2f}×)",
                f"bare json.load of the {c.get('file', 'file')} {c['baseline_json_load_s']:.2f} s", c["cold_ratio"] <= c["cold_target"])
    return read


def _codraw_warm(key: str = "codraw"):
    def read(r):
        c = r[key]
        return (f"{c['warm_s']:.2f} s: {c['warm_ratio']:.2f}×",
                f"bare json.load of the {c.get('file', 'file')} {c['baseline_json_load_s']:.2f} s", c["warm_ratio"] <= c["warm_target"])
    return read


def _restart(r):
    pages = ", ".join(f"{'Overview' if name.startswith('/') else name} {p['median_s']:.2f} s ({p['ratio']:.2f}×)"
                      for name, p in r["pages"].items() if not name.startswith("baseline"))
    mine = [p["ratio"] for name, p in r["pages"].items() if not name.startswith("baseline")]
    return (pages, f"blank page fresh load {r['blank_page_fresh_s']:.2f} s (its first after a restart "
                   f"{r['blank_page_first_after_restart_s']:.2f} s)", max(mine) <= r["target_ratio"])


def _over_elements(r):
    """One row per page: its fresh load over the same page's Streamlit elements alone."""
    limit = r["over_elements_target_ratio"]
    return [(f"{'Overview' if name.startswith('/') else name}: ≤ {limit:.2f}× its own elements",
             f"{p['median_s']:.2f} s: {p['over_elements_ratio']:.2f}× its elements ({p['ratio']:.2f}× blank)",
             f"its elements alone {p['elements_s']:.2f} s; blank page {r['blank_page_s']:.2f} s",
             p["over_elements_ratio"] <= limit) for name, p in r["pages"].items()]


def _minecraft_cold(r):
    c = r["minecraft_scaled_to_547_games"]
    return f"{c['cold_s']:.2f} s: {c['cold_ratio']:.2f}×", f"bare json.load {c['baseline_json_load_s']:.2f} s", c["cold_ratio"] <= c["cold_target"]


def _canvas(r):
    c = r["codraw_canvas"]
    return f"{c['median_ms']:.1f} ms", "–", c["median_ms"] <= c["target_ms"]


def _reruns(r):
    c = r["replay_rerun_after_next"]
    worst = max(c[k]["median_s"] for k in ("codraw", "gos", "minecraft"))
    text = ", ".join(f"{k} {c[k]['median_s']:.3f} s" for k in ("codraw", "gos", "minecraft"))
    return text, "–", worst <= c["target_s"]


def _run_codraw(r):
    c = r["codraw"]
    return (f"JSON Lines {c['run_jsonl_ratio']:.2f}×, corpus layout {c['run_corpus_layout_ratio']:.2f}×",
            f"scoring the humans {c['human_scoring_cold_s']:.2f} s",
            max(c["run_jsonl_ratio"], c["run_corpus_layout_ratio"]) <= c["target_ratio"])


def _run_minecraft(r):
    c = r["minecraft_scaled_to_547_games"]
    return f"{c['run_s']:.2f} s", f"import floor {c['import_floor_s']:.2f} s", c["run_s"] <= c["target_s"]


def _run_switch(r):
    c = r["replay_run_switch"]
    return f"{c['median_s']:.3f} s", "–", c["median_s"] <= c["target_s"]


def _sessions(r):
    ok = (r["cpu_per_step_s"] is not None and r["cpu_per_step_s"] <= r["cpu_per_step_target_s"]
          and r["server_peak_rss_mb"] <= r["peak_rss_target_mb"] and not r["errors"])
    errors = f", {len(r['errors'])} errors" if r["errors"] else ", no error"
    return f"{r['cpu_per_step_s']} CPU-s/step, {r['server_peak_rss_mb']} MB{errors}", f"{r['steps']} steps", ok


def _pages(r):
    over = {k: v["ratio"] for k, v in r["pages"].items() if v["ratio"] > r["target_ratio"]}
    worst = max(r["pages"].items(), key=lambda kv: kv[1]["ratio"])
    text = f"{len(r['pages']) - len(over)} of {len(r['pages'])} pages within; worst {worst[0]} {worst[1]['ratio']:.2f}×"
    shell = f"; app shell {r['app_shell_ratio']:.2f}×" if "app_shell_ratio" in r else ""
    if "app_shell_deep_ratio" in r:
        shell += f" at /, {r['app_shell_deep_ratio']:.2f}× at {r['app_shell_deep_path']}"
    return text, f"blank page {r['blank_page_s']:.2f} s{shell}", not over


def _scale_load(r):
    c = r["cold_load"]
    return (f"{c['time_ratio']:.2f}× time, {c['memory_ratio']:.2f}× memory", f"real corpus {c['real_s']:.2f} s, {c['real_peak_mb']} MB",
            c["time_ratio"] <= c["time_target"] and c["memory_ratio"] <= c["memory_target"])


def _scale_replay(r):
    c = r["replay_rerun_after_next"]
    if "error" in c:
        return f"failed: {c['error']}", "–", False
    return f"{c['median_s']:.3f} s", "–", c["median_s"] <= c["target_s"]


def _scale_search(r):
    c = r["word_search"]
    if "error" in c:
        return f"failed: {c['error']}", "–", False
    return f"{c['median_s']:.3f} s median", "–", c["median_s"] <= c["target_s"]


def _words(side: str):
    def read(r):
        c = r[side]
        slowest = max(c["operations"], key=lambda name: c["operations"][name]["s"])
        return (f"{c['slowest_s']:.3f} s ({slowest.replace('_', ' ')}, {c['operations'][slowest]['ratio']:.1f}×)",
                f"bare pandas pass {c['baseline_s']:.3f} s", c["slowest_s"] <= c["target_s"])
    return read


def _clicks(r):
    mine = r["clicks"][list(r["clicks"])[-1]]  # this checkout (a baseline checkout, when clicked too, comes first)
    target = r["target"]
    within = [n for n, c in mine.items() if c.get("n") and c["median_ratio"] <= target["median_ratio"]
              and c["p90_ratio"] <= target["p90_ratio"]]
    worst = max(mine.items(), key=lambda kv: kv[1].get("median_ratio", float("inf")))
    text = (f"{len(within)} of {len(mine)} within; worst {worst[0]} {worst[1].get('median_s', float('nan')):.2f} s "
            f"({worst[1].get('median_ratio')}× median, {worst[1].get('p90_ratio')}× p90)")
    return text, f"blank page click {r['blank_click']['median_s']:.3f} s", len(within) == len(mine)


def _clicks_on(page: str):
    """Target 1 for one page (Replay, Replay with a run, Compare, Present), each corpus: the worst ratios."""
    def read(r):
        mine = {n: c for n, c in r["clicks"][list(r["clicks"])[-1]].items() if n.split(" · ")[0] == page}
        target = r["target"]
        if not mine or not all(c.get("n") for c in mine.values()):
            raise KeyError(page)
        cells = ", ".join(f"{n.split(' · ')[1]} {c['median_ratio']}× / {c['p90_ratio']}×" for n, c in mine.items())
        met = all(c["median_ratio"] <= target["median_ratio"] and c["p90_ratio"] <= target["p90_ratio"]
                  for c in mine.values())
        return (f"median / p90 × blank: {cells}",
                f"blank click {r['blank_click']['median_s']:.3f} s median, {r['blank_click']['p90_s']:.3f} s p90", met)
    return read


def _elements_alone(r):
    """Whether target 1 is reachable at all: each page's Streamlit elements alone, clicked (no app code), against
    the blank click; and what the page adds over them."""
    alone = r["elements_alone"]
    lowest = min(alone.items(), key=lambda kv: kv[1].get("median_ratio", float("inf")))
    over = [a["page_over_elements"] for a in alone.values() if a.get("page_over_elements") is not None]
    return (f"elements alone {min(a['median_ratio'] for a in alone.values())}–{max(a['median_ratio'] for a in alone.values())}× "
            f"blank (lowest: {lowest[0]}); the pages over them {min(over)}–{max(over)}×",
            f"blank click {r['blank_click']['median_s']:.3f} s",
            all(a["median_ratio"] <= r["target"]["median_ratio"] for a in alone.values()))


def _minecraft_click(with_run: bool):
    """Target 2: a Minecraft replay step (with a model run's panel, or without) beside CoDraw's."""
    scenario = "replay + run" if with_run else "replay"

    def read(r):
        mine = r["clicks"][list(r["clicks"])[-1]]
        c, codraw = mine[f"{scenario} · minecraft"], mine[f"{scenario} · codraw"]
        return (f"{c['median_s']:.2f} s median, {c['p90_s']:.2f} s p90",
                f"CoDraw's step {codraw['median_s']:.2f} s median, {codraw['p90_s']:.2f} s p90",
                c["median_s"] <= 1.25 * codraw["median_s"])
    return read


def _browse(r):
    """Target 4: a Browse row click → the replay settled, p90, against a fresh replay load of the same run."""
    mine = r["browse"][list(r["browse"])[-1]]
    limit = r["target"]["browse_p90_ratio"]
    cells = ", ".join(f"{name} {c['row_click']['p90_s']:.2f} s ({c['row_click']['p90_ratio']}×)" for name, c in mine.items())
    floors = ", ".join(f"{name} {c['fresh_replay']['median_s']:.2f} s" for name, c in mine.items())
    failed = sum(c["row_click"].get("timeouts", 0) for c in mine.values())
    return (f"p90 {cells}" + (f"; {failed} tries did not open the replay" if failed else ""), f"fresh replay {floors}",
            not failed and all(c["row_click"]["p90_ratio"] <= limit for c in mine.values()))


def _slices(size: str, what: str):
    def read(r):
        c = r[size]
        if "error" in c:
            return f"failed: {c['error']}", "–", size != "full"
        m = c[what]
        baseline = f"bare pandas {m['baseline_s']:.3f} s ({m['ratio']:.2f}×)"
        met = m["median_s"] <= m["target_s"] if size == "full" else True  # 10×: reported beside its baseline
        return f"{m['median_s']:.3f} s median", baseline, met
    return read


def _scaled_slices(what: str, times: int):
    """A figure at 10× the corpus against ``times`` its full-corpus target (the issue's "≤ 10× those")."""
    def read(r):
        c = r.get("10x", {})
        if "error" in c or what not in c:
            return f"failed: {c.get('error', 'not measured')}", "–", False
        m = c[what]
        return (f"{m['median_s']:.3f} s median", f"bare pandas {m['baseline_s']:.3f} s ({m['ratio']:.2f}×)",
                m["median_s"] <= times * m["target_s"])
    return read


def _many_runs(r):
    many = next(k for k in r["fresh_page_with_leaderboard"] if k != "one run")
    page, one = r["fresh_page_with_leaderboard"][many], r["fresh_page_with_leaderboard"]["one run"]
    slowest = max(page["median_s"], r["slice_compared_with"][many]["median_s"], r["comparison_run_b"]["median_s"],
                  r["comparison_run_a"]["median_s"],
                  *(v["median_s"] for label, v in r.get("open_view", {}).items() if label.endswith(many)))
    memory = r["server_peak_mb"][many]
    return (f"page {page['median_s']:.2f} s ({r['fresh_page_ratio']:.2f}×), slowest {slowest:.2f} s; server {memory} MB",
            f"one run: page {one['median_s']:.2f} s, server {r['server_peak_mb']['one run']} MB",
            slowest <= r["target"]["seconds"] and memory <= r["target"]["server_mb"])


def _player_keys(r):
    """One row per corpus: → tapped every 200 ms from the page's open → the next step drawn (p90) over a bare
    button rerun (median)."""
    floor = r["blank_click"]["median_ms"]
    return [(f"47. {name}: → every 200 ms from the open → next step drawn, p90 ≤ a bare button rerun's median",
             f"p90 {c['key_to_step_tapped']['p90_ms']:.0f} ms (median {c['key_to_step_tapped']['median_ms']:.0f} ms, "
             f"first press {c['first_press_ms']:.0f} ms)",
             f"bare button rerun {floor:.0f} ms", c["met"]) for name, c in r["corpora"].items()]


def _player_drag(r):
    d = r["drag"]
    return f"{d['fps']:.0f} frames/s over {d['steps']} steps", "30 frames/s", d["met"]


def _player_fresh(r):
    fresh = r["fresh"]
    base = fresh.get("baseline", {})
    if not base.get("n"):
        return f"{fresh['app']['median_ms']:.0f} ms", "no baseline checkout served (--baseline-root)", False
    return (f"{fresh['app']['median_ms']:.0f} ms (p90 {fresh['app']['p90_ms']:.0f})",
            f"before {base['median_ms']:.0f} ms (p90 {base['p90_ms']:.0f})", fresh["met"])


def _labels(r):
    """One row per corpus: key → label shown (p90) over a bare button rerun (median), stored within 1 s, 50 once."""
    floor = r["blank_click"]["median_ms"]
    return [(f"47. {name}: label key → shown p90 ≤ a bare rerun's median; stored ≤ 1 s; {c['labels_keyed']} keyed "
             "every 100 ms all stored once",
             f"shown p90 {c['key_to_shown']['p90_ms']:.1f} ms; stored p90 {c['key_to_stored']['p90_ms']:.0f} ms, max "
             f"{c['key_to_stored']['max_ms']:.0f} ms; {c['stored_rows']} stored, {c['lost']} lost, {c['doubled']} doubled",
             f"bare button rerun {floor:.0f} ms", c["shown_met"] and c["stored_met"] and c["once_met"])
            for name, c in r["corpora"].items()]


def _play_moves(r):
    """One row per corpus: a move drawn in the next frame, nothing sent while moving (beside a pointer move's and,
    when measured, a click's input-to-next-frame latency on a bare page)."""
    floor, clicks = r.get("bare_frame", {}), r.get("bare_click_frame")
    floors = f"a move that draws nothing: p90 {floor.get('p90_ms')} ms" + (
        f"; a click: p90 {clicks.get('p90_ms')} ms" if clicks else "")
    return [(f"49. Play, {name}: a move drawn within one frame (p90 ≤ {r['targets']['frame_p90_ms']:.0f} ms), no request",
             f"p90 {row['moves_drawn']['p90_ms']:.1f} ms (median {row['moves_drawn']['median_ms']:.1f}) over "
             f"{row['moves_drawn']['n']} moves; {row['sent_while_moving']} sent", floors, row["met_moves"])
            for name, row in r["corpora"].items()]


def _play_done(r):
    """One row per corpus: Done → the next step with its score."""
    floor = r.get("blank_click", {})
    return [(f"49. Play, {name}: Done → score p90 ≤ {r['targets']['done_p90_ms']:.0f} ms",
             f"p90 {row['done_to_score']['p90_ms']:.0f} ms (median {row['done_to_score']['median_ms']:.0f})",
             f"a bare button's rerun: median {floor.get('median_ms')} ms, p90 {floor.get('p90_ms')} ms", row["met_done"])
            for name, row in r["corpora"].items()]


def _live(r):
    """Issue 50: sent → shown at the partner on one server and two, and the server's CPU a message."""
    floor = f"a bare round trip p90 {r['bare_round_trip_p90_s'] * 1000:.0f} ms (load {r.get('load_average', 0):.0f})"
    rows = [(f"50. Live: sent → shown at the partner p90 ≤ 1 s, {label}",
             f"p90 {r[key]['p90_s'] * 1000:.0f} ms; {r[key]['shown']} of {r[key]['messages']} shown", floor,
             r[key]["p90_s"] <= 1.0 and r[key]["shown"] == r[key]["messages"])
            for key, label in (("one_server", "one server"), ("two_servers", "two servers"))]
    many = r["many_games"]
    rows.append((f"50. Live: {many['games']} games at once, ≤ 0.05 server CPU-s a message",
                 f"{many['cpu_s_per_message']:.4f} CPU-s a message ({many['messages']} messages)",
                 f"the same polls idle: {many['idle_cpu_s_per_message_time']:.4f} CPU-s per message's time",
                 many["cpu_s_per_message"] <= 0.05))
    return rows


CHECKS: list[Check] = [
    ("live.json", "50. Live: sent → shown ≤ 1 s on one server and two; ≤ 0.05 CPU-s a message", _live),
    ("labels.json", "47. labels at the speed of steps, each corpus", _labels),
    ("player.json", "47. the step player: → tapped every 200 ms from the open, each corpus", _player_keys),
    ("player.json", "38. dragging the timeline across 30 steps ≥ 30 frames/s", _player_drag),
    ("player.json", "38. a fresh replay opens no slower than before (≤ 1.1× the baseline's median)", _player_fresh),
    ("play.json", "49. Play: a move drawn within one frame, no request, each corpus", _play_moves),
    ("play.json", "49. Play: Done → score ≤ 0.3 s, each corpus", _play_done),
    ("clicks.json", "click Next → settled ≤ 1.5× (median), ≤ 3× (p90) a blank page's click", _clicks),
    ("clicks.json", "1. Replay click ≤ 1.5× / 3× blank, each corpus", _clicks_on("replay")),
    ("clicks.json", "1. Replay with a model run: click ≤ 1.5× / 3× blank", _clicks_on("replay + run")),
    ("clicks.json", "1. Compare click ≤ 1.5× / 3× blank", _clicks_on("compare")),
    ("clicks.json", "1. Present click ≤ 1.5× / 3× blank", _clicks_on("present")),
    ("clicks.json", "1. reachable at all: each page's Streamlit elements alone, clicked, ≤ 1.5× blank", _elements_alone),
    ("clicks.json", "2. a Minecraft replay step costs what a CoDraw step costs (≤ 1.25×)", _minecraft_click(False)),
    ("clicks.json", "2. the same with a model run's panel (no WebGL scene)", _minecraft_click(True)),
    ("clicks.json", "4. Browse row → replay settled, p90 ≤ 1.5× a fresh replay", _browse),
    ("restart.json", "first page after a restart, warm cache ≤ 1.5× a blank page's fresh load", _restart),
    ("pages.json", "a page's fresh load ≤ 1.15× its own Streamlit elements alone", _over_elements),
    ("latest.json", "CoDraw cold ≤ 1.5× bare json.load", _codraw_cold()),
    ("latest.json", "CoDraw warm ≤ 0.2× bare json.load", _codraw_warm()),
    ("latest.json", "CoDraw cold from the uncompressed .json ≤ 1.5× bare json.load", _codraw_cold("codraw_uncompressed")),
    ("latest.json", "CoDraw warm from the uncompressed .json ≤ 0.2× bare json.load", _codraw_warm("codraw_uncompressed")),
    ("latest.json", "Minecraft cold (547 games) ≤ 2.0× bare json.load", _minecraft_cold),
    ("latest.json", "one CoDraw canvas ≤ 10 ms", _canvas),
    ("latest.json", "replay rerun after Next ≤ 0.3 s", _reruns),
    ("runs.json", "CoDraw run scoring ≤ 1.5× scoring the humans", _run_codraw),
    ("runs.json", "Minecraft run of 1,616 samples ≤ 2 s", _run_minecraft),
    ("runs.json", "switching the replay's run ≤ 0.3 s", _run_switch),
    ("sessions.json", "ten sessions stepping with the player: ≤ 0.05 CPU-s per step, ≤ 0.9 GB, no error", _sessions),
    ("pages.json", "every page ≤ 1.25× a blank page", _pages),
    ("scale.json", "10× CoDraw: ≤ 10.5× time, ≤ 10× memory", _scale_load),
    ("scale.json", "10× CoDraw: replay step ≤ 0.3 s", _scale_replay),
    ("scale.json", "10× CoDraw: word search ≤ 0.5 s", _scale_search),
    ("words.json", "word lists, concordance, keyness (all corpora) ≤ 0.5 s", _words("real")),
    ("words.json", "word lists, concordance, keyness (10× CoDraw) ≤ 1.5 s", _words("scaled")),
    ("slices.json", "a slice applied to the full CoDraw corpus ≤ 0.3 s", _slices("full", "slice")),
    ("slices.json", "a SQL query over all 77,502 CoDraw rounds ≤ 1 s", _slices("full", "sql")),
    ("slices.json", "a slice applied to 10× CoDraw (reported)", _slices("10x", "slice")),
    ("slices.json", "a SQL query over 10× CoDraw's rounds (reported)", _slices("10x", "sql")),
    ("slices.json", "a step slice over all 77,502 CoDraw rounds ≤ 0.3 s", _slices("full", "step_slice")),
    ("slices.json", "a contrast with 2,000 bootstrap resamples ≤ 1 s", _slices("full", "contrast")),
    ("slices.json", "a step slice over 10× CoDraw's rounds ≤ 3 s", _scaled_slices("step_slice", 10)),
    ("slices.json", "a contrast at 10× CoDraw ≤ 10 s", _scaled_slices("contrast", 10)),
    ("many_runs.json", "50 CoDraw runs: Runs page and leaderboard ≤ 2 s after the first load, server ≤ 1.5 GB", _many_runs),
]


def rows(folder: Path) -> list[tuple[str, str, str, str]]:
    """(target, measured, baseline, verdict) per check."""
    loaded: dict[str, Optional[dict]] = {}
    out = []
    for file, target, read in CHECKS:
        if file not in loaded:
            path = folder / file
            try:
                loaded[file] = json.loads(path.read_text())
            except (OSError, ValueError):
                loaded[file] = None
        result = loaded[file]
        if result is None:
            out.append((target, "not measured", "–", f"– (no {file})"))
            continue
        try:
            read_rows = read(result)
        except (KeyError, TypeError, ValueError) as exc:
            out.append((target, "not measured", "–", f"– ({file} lacks {exc})"))
            continue
        # a check gives one (measured, baseline, met), or one (target, measured, baseline, met) per item
        for item in (read_rows if isinstance(read_rows, list) else [(target, *read_rows)]):
            name, measured, baseline, met = item
            out.append((name, measured, baseline, "met" if met else "**not met**"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    print("| target | measured | baseline (same run) | |")
    print("| --- | --- | --- | --- |")
    for row in rows(args.results):
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
