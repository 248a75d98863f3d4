"""Many runs at once (issue 27): 50 CoDraw runs of all 77,502 rounds loaded together, beside the same page with
one run, measured in the same run.

    python benchmarks/many_runs.py [--shared ../shared/data] [--workdir DIR] [--runs 50] [--visits 5]

- The runs: each the human Drawers' canvases of every round of the real corpus perturbed with its own seeded
  RNG (clip art moved by a Gaussian, some dropped, some flipped), as gzipped JSON Lines (docs/formats.md,
  "Model runs"). Written once into ``<workdir>/runs/codraw/``; ``--workdir`` of an earlier run reuses them and
  their Parquet cache (scoring 50 runs the first time takes about ten minutes on two busy cores).
- ``python -m data_access leaderboard codraw <corpus> <runs>``: wall time and peak memory, the first time (the
  runs scored, unless the work folder has them cached) and then warm (``--repeat`` times).
- The app served for real (``server.py`` on the full CoDraw corpus, ``DIALOGUE_RUNS_DIR`` = the 50 runs, and
  a second server on a folder of one of them: the baseline), in headless Chromium: the Runs page for CoDraw
  the first time (every run read, the leaderboard computed), then, ``--visits`` times, interleaved with the
  baseline: a fresh session opening the page until it is settled with its leaderboard on screen (the view it
  opens on), opening the "Slice finder" view and changing its "Compared with" (both servers), opening "Compare
  two runs" and changing its "Run B" and "Run A" (the 50 runs only: one run has no second run), and going back
  to the leaderboard. Settled as in benchmarks/clicks.py (docs/speed.md), timed in the page from the click on
  the view's tab or the key press that picks the option. Then each server's peak resident memory (VmHWM of the process and its
  children). Beside them, each visit, a fresh session of a blank Streamlit page: the machine's floor.

Targets: the page and its interactions ≤ 2 s after the first load, the server ≤ 1.5 GB. Writes
``benchmarks/results/many_runs.json``. Only 127.0.0.1 is contacted; every loop is bounded in count and time.
"""
from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser import ROOT, CheckoutServer, launch_options  # noqa: E402
from clicks import SETTLED, fresh_open  # noqa: E402
from run import PY, measure_with_memory  # noqa: E402

PAGE_TIMEOUT_MS = 1_800_000  # the first load scores or reads every run
STEP_TIMEOUT_MS = 120_000
TARGET_S = 2.0
TARGET_MB = 1536
FIELDS = 8  # per clip art in a scene string: png, index, object, type, x, y, z, flip
ABSENT = "-10000"

# The leaderboard on screen: its caption (the view's last element) and at least one of its tables.
LEADERBOARD_SHOWN = ("() => [...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')].some(c => "
                     "c.textContent.includes('Holm-corrected across runs')) && "
                     "document.querySelectorAll('[data-testid=\"stDataFrame\"]').length >= 1")
# Settled with the leaderboard on screen, seen once drawn (not only its heading).
PAGE_DONE = "() => { const settled = %s; return settled() && !!window.__leaderboardSeen; }" % SETTLED

# Before a key press or a click on a tab: the clock starts at the press (keydown or pointerdown, capture), a
# script run is noticed as clicks.py does (the script state went through "running", or what a run shows
# changed), and the end is the first check at which the page is settled after that.
ARM = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const marker = () => [...app.querySelectorAll('[data-testid="stMetric"], [data-testid="stCaptionContainer"]')]
    .map(e => e.textContent).join('|');
  window.__marker = marker; window.__shown = marker(); window.__ran = false; window.__t0 = null; window.__t1 = null;
  if (window.__observer) window.__observer.disconnect();
  window.__observer = new MutationObserver(records => {
    for (const record of records) {
      if (record.oldValue === 'running' || app.dataset.testScriptState === 'running') window.__ran = true;
    }
  });
  window.__observer.observe(app, {attributes: true, attributeFilter: ['data-test-script-state'], attributeOldValue: true});
  const start = () => { if (window.__t0 === null) window.__t0 = performance.now(); };
  document.addEventListener('keydown', e => { if (e.key === 'Enter') start(); }, {capture: true});
  document.addEventListener('pointerdown', start, {capture: true, once: true});
}"""

DONE = """() => {
  const settled = %s;
  if (window.__t0 === null) return false;
  if (!window.__ran && window.__marker() !== window.__shown) window.__ran = true;
  if (window.__ran && settled()) { window.__t1 = performance.now(); return true; }
  return false;
}""" % SETTLED


# ----------------------------------------------------------------------------------------------- the runs

def perturbed(scene: str, rng: random.Random, spread: float, drop: float) -> str:
    """``scene`` with each placed clip art moved by a Gaussian of ``spread`` px, dropped with probability
    ``drop`` and flipped now and then; an empty canvas stays empty."""
    if not scene:
        return scene
    fields = scene.split(",")
    kept: list[str] = []
    for k in range(int(fields[0])):
        part = fields[1 + FIELDS * k: 1 + FIELDS * (k + 1)]
        if len(part) < FIELDS:
            break
        if part[4] != ABSENT and part[5] != ABSENT:
            if rng.random() < drop:
                continue
            part[4] = str(min(500, max(0, round(float(part[4]) + rng.gauss(0, spread)))))
            part[5] = str(min(400, max(0, round(float(part[5]) + rng.gauss(0, spread)))))
            if rng.random() < 0.05:
                part[7] = "1" if part[7] == "0" else "0"
        kept.extend(part)
    return ",".join([str(len(kept) // FIELDS), *kept, ""])


def write_runs(corpus: Path, folder: Path, count: int) -> list[Path]:
    """``run-00.jsonl.gz`` … (``count`` runs over every round) in ``folder``; runs already there are kept
    (the same seeds would write the same files)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"run-{number:02d}.jsonl.gz" for number in range(count)]
    if all(path.is_file() for path in paths):
        return paths
    data = json.load(gzip.open(corpus))["data"]
    rounds = [(key, index + 1, turn.get("abs_d", "") or "") for key, dialog in data.items()
              for index, turn in enumerate(dialog["dialog"])]
    for number, path in enumerate(paths):
        if path.is_file():
            continue
        rng = random.Random(1000 + number)
        spread, drop = 5.0 + 2.0 * number, 0.01 * (number % 10)
        partial = path.with_name("." + path.name + ".part")  # a dot file is no run until complete
        with gzip.open(partial, "wt", compresslevel=1) as out:
            for dialog_id, round_number, scene in rounds:
                out.write(json.dumps({"dialog_id": dialog_id, "round": round_number,
                                      "scene": perturbed(scene, rng, spread, drop)}) + "\n")
        partial.rename(path)
    return paths


# ------------------------------------------------------------------------------------------------ memory

def tree_peak_mb(pid: int) -> float:
    """Peak resident memory (VmHWM) of the process plus that of each of its live children, in MB."""
    def hwm(p: int) -> float:
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    children: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return hwm(pid) + sum(hwm(c) for c in children if Path(f"/proc/{c}").exists())


# ---------------------------------------------------------------------------------------------- browsing

async def open_runs_page(browser, url: str, timeout: float = PAGE_TIMEOUT_MS):
    """A new session on the Runs page; (its tab, seconds until settled with the leaderboard on screen)."""
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    # a leaderboard table seen once: the page's end is rendered, not only its heading
    await page.add_init_script("new MutationObserver(() => { if ((%s)()) window.__leaderboardSeen = true; })"
                               ".observe(document, {childList: true, subtree: true});" % LEADERBOARD_SHOWN)
    started = time.perf_counter()
    await page.goto(url)
    await page.wait_for_function(PAGE_DONE, timeout=timeout, polling=10)
    seconds = time.perf_counter() - started
    for _ in range(2):  # a widget's own rerun may follow the first run
        await page.wait_for_timeout(150)
        await page.wait_for_function(PAGE_DONE, timeout=timeout, polling=10)
    return page, seconds


async def _timed(page, act) -> float:
    """Seconds from the press ``act`` makes to settled (ARM and DONE above)."""
    await page.evaluate(ARM)
    await act()
    await page.wait_for_function(DONE, timeout=STEP_TIMEOUT_MS, polling=4)
    seconds = await page.evaluate("() => (window.__t1 - window.__t0) / 1000")
    await page.wait_for_timeout(200)
    await page.wait_for_function(SETTLED, timeout=STEP_TIMEOUT_MS)
    return seconds


async def pick(page, label: str, option: str) -> float:
    """Seconds from the Enter that picks ``option`` in the selectbox labelled ``label`` to settled."""
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).locator("input")
    await box.click()
    await page.keyboard.type(option)
    await page.wait_for_timeout(100)
    return await _timed(page, lambda: page.keyboard.press("Enter"))


async def open_view(page, label: str) -> float:
    """Seconds from the click on the Runs page's tab ``label`` to its view settled."""
    return await _timed(page, lambda: page.get_by_role("tab", name=label).click())


def summary(times: list[float]) -> dict:
    return {"n": len(times), "median_s": round(statistics.median(times), 3), "max_s": round(max(times), 3)}


async def browse(args, env: dict, workdir: Path) -> dict:
    from playwright.async_api import async_playwright

    one = workdir / "one-run"
    (one / "codraw").mkdir(parents=True, exist_ok=True)
    link = one / "codraw" / "run-00.jsonl.gz"
    if not link.exists():
        os.symlink(workdir / "runs" / "codraw" / "run-00.jsonl.gz", link)
    servers = {}
    for label, runs in (("one run", one), (f"{args.runs} runs", workdir / "runs")):
        folder = workdir / label.replace(" ", "-")
        folder.mkdir(exist_ok=True)
        servers[label] = CheckoutServer(ROOT, "server.py", {**env, "DIALOGUE_RUNS_DIR": str(runs)}, folder)
    # the floor: a fresh session of a blank Streamlit page (benchmarks/blank_page.py), the machine's state
    blank = CheckoutServer(ROOT, "benchmarks/blank_page.py", {}, workdir)
    results: dict = {}
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(**launch_options())
            tabs, first = {}, {}
            for label, server in servers.items():
                print(f"first load: {label} …", file=sys.stderr)
                tabs[label], first[label] = await open_runs_page(browser, f"{server.url}/runs?corpus=codraw")
            fresh: dict[str, list[float]] = {label: [] for label in servers}
            slices: dict[str, list[float]] = {label: [] for label in servers}
            run_b: list[float] = []
            run_a: list[float] = []
            views: dict[str, list[float]] = {}
            blank_fresh: list[float] = []
            many = f"{args.runs} runs"
            for visit in range(args.visits):
                print(f"visit {visit + 1} of {args.visits} …", file=sys.stderr)
                blank_fresh.append(await fresh_open(browser, blank.url))
                for label, server in servers.items():
                    page, seconds = await open_runs_page(browser, f"{server.url}/runs?corpus=codraw", STEP_TIMEOUT_MS)
                    fresh[label].append(seconds)
                    await page.context.close()
                    tab = tabs[label]
                    views.setdefault(f"Slice finder · {label}", []).append(await open_view(tab, "Slice finder"))
                    slices[label].append(await pick(tab, "Compared with", "humans" if visit % 2 == 0 else "its own"))
                    if label == many:
                        views.setdefault(f"Compare two runs · {label}", []).append(
                            await open_view(tab, "Compare two runs"))
                        run_b.append(await pick(tab, "Run B", f"run-{2 + visit % 2:02d}"))
                        run_a.append(await pick(tab, "Run A", f"run-{10 + visit:02d}"))
                    views.setdefault(f"Leaderboard · {label}", []).append(await open_view(tab, "Leaderboard"))
            await browser.close()
        results = {
            "first_load_s": {label: round(s, 2) for label, s in first.items()},
            "blank_page_fresh": summary(blank_fresh),
            "fresh_page_with_leaderboard": {label: summary(t) for label, t in fresh.items()},
            "slice_compared_with": {label: summary(t) for label, t in slices.items()},
            "comparison_run_b": summary(run_b),
            "comparison_run_a": summary(run_a),
            "open_view": {label: summary(t) for label, t in views.items()},
            "server_peak_mb": {label: round(tree_peak_mb(server.process.pid)) for label, server in servers.items()},
        }
    finally:
        for server in [*servers.values(), blank]:
            server.stop()
    baseline = results["fresh_page_with_leaderboard"]["one run"]["median_s"]
    results["fresh_page_ratio"] = round(results["fresh_page_with_leaderboard"][many]["median_s"] / baseline, 2)
    results["slice_ratio"] = round(results["slice_compared_with"][many]["median_s"]
                                   / results["slice_compared_with"]["one run"]["median_s"], 2)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="where the runs, their cache and the logs go (default: a new temporary folder); "
                             "reusing one skips writing and scoring the runs")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--visits", type=int, default=5, help="fresh sessions and interactions per server")
    parser.add_argument("--repeat", type=int, default=3, help="warm runs of the leaderboard command")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "many_runs.json")
    args = parser.parse_args()
    corpus = args.shared / "codraw" / "CoDraw_1_0.json.gz"
    if not corpus.is_file():
        raise SystemExit(f"no CoDraw corpus at {corpus}: pass --shared <the shared data folder>")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-many-runs-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"writing {args.runs} runs into {workdir / 'runs' / 'codraw'} …", file=sys.stderr)
    paths = write_runs(corpus, workdir / "runs" / "codraw", args.runs)
    env = {"CODRAW_DATA": str(corpus), "CODRAW_CLIPART": str(args.shared / "codraw" / "clipart"),
           "DIALOGUE_CACHE_DIR": str(workdir / "cache")}
    command = [PY, "-m", "data_access", "leaderboard", "codraw", str(corpus), str(workdir / "runs" / "codraw")]
    print("leaderboard command: first time …", file=sys.stderr)
    first = measure_with_memory(command, env)
    board = json.loads(first["stdout"])
    warm = []
    for _ in range(args.repeat):
        warm.append(measure_with_memory(command, env))
    results: dict = {
        "date": time.strftime("%Y-%m-%d %H:%M"), "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "runs": len(paths), "rounds_per_run": sum(1 for _ in gzip.open(paths[0])),
        "runs_on_the_leaderboard": len(board["runs"]),
        "leaderboard_command": {
            "first_s": round(first["seconds"], 2), "first_peak_mb": round(first["peak_mb"]),
            "warm_s": round(statistics.median(m["seconds"] for m in warm), 2),
            "warm_peak_mb": round(max(m["peak_mb"] for m in warm)),
        },
    }
    results.update(asyncio.run(browse(args, env, workdir)))
    results["target"] = {"seconds": TARGET_S, "server_mb": TARGET_MB}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
