"""The step player's felt speed (issue 38), on the full corpora in headless Chromium against warm servers:

- **key → next step, tapped** (issue 47): a fresh session opens the Replay of each corpus's longest dialog and,
  from the moment the page looks ready (its first run over, its pictures decoded, the player's step drawn:
  ``FIRST_SETTLED``), presses → every 200 ms, 20 times, as a person taps through a dialog; each press is timed
  in the page from its ``keydown`` event's time stamp (so a press that waited for a busy main thread counts its
  wait) until the player's root says another step is shown (``data-step``: set once the step's pictures are
  decoded and drawn). The first press is the one right after the page opens. Target: p90 ≤ the median of a
  bare Streamlit button rerun (``benchmarks/blank_button.py``, clicked 20 times in the same run, as
  ``clicks.py`` clicks it).
- **key → next step, reading** (issue 38, for information): on a replay opened earlier, one press, then a wait
  until the run its report starts is over (a reader reading), 20 times.
- **drag across 30 steps**: the mouse held on the timeline of a Minecraft game and moved across 30 steps,
  one step a move; each move waits until that step is drawn. Frames per second = 30 / the time taken.
  Target: ≥ 30.
- **a fresh replay**: a new browser session opening a replay until its first script run is over with every
  image decoded and the player's step drawn (``FIRST_SETTLED``; the runs that bring the player's window later
  are not waited on: the page is usable); with ``--baseline-root`` the same for
  another checkout (e.g. ``git archive main | tar -x -C /tmp/base``) served beside this one, opened in turn.
  Target: median ≤ the baseline's median (× 1.1 for noise).
- **the payload**: what the window of a step sends (the pictures' bytes on the media endpoint, the JSON).

    python benchmarks/player.py [--shared DIR] [--presses 20] [--fresh 5] [--baseline-root DIR] [--workdir DIR]

Writes ``benchmarks/results/player.json`` (read by ``benchmarks/report.py``). Only 127.0.0.1 is contacted;
every loop is bounded in count and time.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from browser import ROOT, CheckoutServer, launch_options, real_corpora_env
from clicks import CLICK

TIMEOUT_MS = 60_000
CORPORA = ("codraw", "gos", "minecraft")

# Resolves with the milliseconds from the next keydown to the player showing another step.
ARM_KEY = """() => {
  const root = document.querySelector('[data-step-player]');
  const before = root.dataset.step;
  window.__keyTime = new Promise(resolve => {
    document.addEventListener('keydown', () => {
      const start = performance.now();
      const poll = () => {
        if (root.dataset.step !== before) resolve(performance.now() - start);
        else if (performance.now() - start > %d) resolve(-1);
        else setTimeout(poll, 1);
      };
      poll();
    }, {capture: true, once: true});
  });
}""" % TIMEOUT_MS

IDLE = """() => { const app = document.querySelector('[data-testid="stApp"]');
  return app && app.dataset.testConnectionState === 'CONNECTED' && app.dataset.testScriptState === 'notRunning'; }"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict:
    return {"n": len(values), "median_ms": round(statistics.median(values), 1), "p90_ms": round(percentile(values, 0.9), 1)} \
        if values else {"n": 0}


def choose(shared: Path, workdir: Path) -> tuple[dict[str, str], dict[str, dict]]:
    """The servers' environment and per corpus the dialog pressed through (the longest: fewest restarts)."""
    env = {**real_corpora_env(shared), "DIALOGUE_CACHE_DIR": str(workdir / "cache")}
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    from data_access import snapshots
    from data_access.corpora import load_configured

    chosen = {}
    for name in CORPORA:
        loaded = load_configured(name)
        round_ = 1 if name == "gos" else None
        ids = loaded.dialogs["dialog_id"].tolist()
        steps = {d: snapshots.step_count(loaded, d, round_) for d in ids}
        longest = sorted(ids, key=lambda d: (-steps[d], d))[0]
        spread = ids[:: max(1, len(ids) // 40)][:20]
        chosen[name] = {"dialog": longest, "steps": steps[longest], "round": round_, "spread": spread}
    return env, chosen


def replay_url(base: str, name: str, dialog: str, round_, turn: int = 1) -> str:
    rounds = f"&round={round_}" if round_ else ""
    return f"{base}/replay?corpus={name}&dialog={dialog}{rounds}&turn={turn}"


def open_player(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("[data-step-player][data-step]", timeout=TIMEOUT_MS)
    page.wait_for_function(IDLE, timeout=TIMEOUT_MS)


def window_loaded(page, wanted: int) -> None:
    page.wait_for_function("n => Number(document.querySelector('[data-step-player]').dataset.loaded || 0) >= n",
                           arg=wanted, timeout=TIMEOUT_MS)


def walk_until_loaded(page, wanted: int) -> None:
    """Step on (→, each step drawn) to step ``wanted``: the window holds 4 steps behind and 12 ahead (issue 47),
    so the drag's 30 steps are in the browser once a reader has gone through them (each step drawn is), as the
    drag measures drawing, not the server. The steps before the one shown were drawn by the presses before."""
    for _ in range(wanted):
        step = int(page.get_attribute("[data-step-player]", "data-step"))
        if step >= wanted:
            return
        page.keyboard.press("ArrowRight")
        page.wait_for_function("s => document.querySelector('[data-step-player]').dataset.step === s", arg=str(step + 1),
                               timeout=TIMEOUT_MS)


# The run a step's report starts is over: the URL names the step (the run's own turn=) and the page is idle. The
# report is sent after the step's paint, so right after the step is drawn the page is idle *before* that run.
REPORTED = f"s => new URLSearchParams(location.search).get('turn') === s && ({IDLE})()"


def press(page) -> float:
    page.evaluate(ARM_KEY)
    page.keyboard.press("ArrowRight")
    ms = page.evaluate("() => window.__keyTime")
    step = page.get_attribute("[data-step-player]", "data-step")
    try:
        page.wait_for_function(REPORTED, arg=step, timeout=TIMEOUT_MS)  # the page's run after the step is over
    except Exception as exc:  # say where it stopped: the address bar and what the player did last
        trace = page.evaluate("() => (document.querySelector('[data-step-player]').__trace || []).slice(-30)")
        raise RuntimeError(f"step {step} never reported at {page.url}: {json.dumps(trace)}") from exc
    return ms


# Put into a fresh page before its code: each → press's time from its keydown event's time stamp (the moment the
# browser took the key, before any wait for a busy main thread) until the player shows another step.
TAP_RECORDER = """(() => {
  window.__taps = [];
  document.addEventListener('keydown', (event) => {
    const root = document.querySelector('[data-step-player]');
    if (event.key !== 'ArrowRight' || !root) return;
    const entry = {before: root.dataset.step, ms: null};
    window.__taps.push(entry);
    const poll = () => {
      if (root.dataset.step !== entry.before) entry.ms = performance.now() - event.timeStamp;
      else if (performance.now() - event.timeStamp > 20000) entry.ms = -1;
      else setTimeout(poll, 1);
    };
    poll();
  }, {capture: true});
})();"""


def tapped(browser, url: str, presses: int, interval_s: float = 0.2) -> list[float]:
    """A fresh session opens ``url`` and, from the moment it looks ready, presses → every ``interval_s``,
    ``presses`` times: each press's time to the next step drawn (ms; -1: never)."""
    import time

    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script("window.__withPlayer = true;" + FIRST_SETTLED + TAP_RECORDER)
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_function("() => window.__firstSettled !== null", timeout=TIMEOUT_MS, polling=10)
        start = time.perf_counter()
        for number in range(presses):
            pause = start + number * interval_s - time.perf_counter()
            if pause > 0:
                time.sleep(pause)  # the reader's own rhythm, not a wait for the app
            page.keyboard.press("ArrowRight")
        page.wait_for_function("n => window.__taps.length >= n && window.__taps.every(t => t.ms !== null)",
                               arg=presses, timeout=TIMEOUT_MS)
        return page.evaluate("() => window.__taps.map(t => Math.round(t.ms * 10) / 10)")
    finally:
        context.close()


def blank_click(page) -> float:
    result = page.evaluate(CLICK, {"label": "Next", "index": 0, "param": None, "timeout": TIMEOUT_MS, "lost": 5000})
    return result["ms"] if isinstance(result, dict) else -1


# The pointer held on the timeline and moved one step at a time across ``n`` steps, in the page (as a mouse
# would send its moves, without a driver's round trip per move); each move waits until its step is drawn.
DRAG = """async (n) => {
  const root = document.querySelector('[data-step-player]');
  const line = root.querySelector('.sp-timeline');
  const box = line.getBoundingClientRect();
  const total = Number(line.getAttribute('aria-valuemax'));
  n = Math.min(n, total - 1);
  const at = (step) => ({clientX: box.left + (step - 0.5) * box.width / total, clientY: box.top + box.height / 2,
                         pointerId: 1, bubbles: true, isPrimary: true, buttons: 1});
  const drawn = (step) => new Promise((resolve, reject) => {
    const start = performance.now();
    const poll = () => root.dataset.step === String(step) ? resolve()
      : performance.now() - start > 10000 ? reject(new Error('step ' + step + ' not drawn')) : setTimeout(poll, 0);
    poll();
  });
  line.dispatchEvent(new PointerEvent('pointerdown', at(1)));
  await drawn(1);
  const start = performance.now();
  for (let step = 2; step <= n + 1; step++) {
    line.dispatchEvent(new PointerEvent('pointermove', at(step)));
    await drawn(step);
  }
  const ms = performance.now() - start;
  line.dispatchEvent(new PointerEvent('pointerup', at(n + 1)));
  return {steps: n, ms: Math.round(ms * 10) / 10, fps: Math.round(n / (ms / 1000) * 10) / 10};
}"""


def drag(page, n: int = 30) -> dict:
    return page.evaluate(DRAG, n)


def payload_sizes(page) -> dict:
    """What the window sent: its steps, the pictures' bytes (each URL once) and the JSON of the component."""
    return page.evaluate("""async () => {
      const player = document.querySelector('[data-step-player]').parentElement.__stepPlayer;
      const urls = [...new Set(Object.values(player.steps).flatMap(s => s.pictures.map(p => p.src)).filter(Boolean))];
      let bytes = 0;
      for (const url of urls) { const r = await fetch(url); bytes += (await r.arrayBuffer()).byteLength; }
      return {steps: Object.keys(player.steps).length, pictures: urls.length, picture_kb: Math.round(bytes / 1024),
              json_kb: Math.round(JSON.stringify(player.data).length / 1024)};
    }""")


# Put into a fresh page before its code: the time at which the page's first script run was over (its state
# went from running to notRunning) with its images in the page and every one decoded, and, on a page with the
# player, its step drawn. (Until 5 December an empty image list counted as decoded, so a page without the player
# was timed when its run ended, before its pictures were there: its fresh replay looked ~0.35 s quicker.)
FIRST_SETTLED = """(() => {
  window.__firstSettled = null;
  let idle = null, drawn = null;  // the first run over (its images decoded); the player's step drawn
  const check = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (window.__firstSettled !== null || !app) return;
    // a step's pictures are on the page and decoded (a run can be over before its images are in the page: an
    // empty list is not a drawn step)
    const images = [...app.querySelectorAll('img')];
    if (idle === null && app.dataset.testScriptState === 'notRunning' && window.__ran && images.length
        && images.every(img => img.complete && img.naturalWidth > 0)) idle = performance.now();
    if (drawn === null && (!window.__withPlayer || (document.querySelector('[data-step-player]') || {dataset: {}}).dataset.step)) drawn = performance.now();
    if (idle !== null && drawn !== null) window.__firstSettled = Math.max(idle, drawn);
  };
  new MutationObserver(records => {
    for (const r of records) { if (r.attributeName === 'data-test-script-state' && r.target.dataset.testScriptState === 'running') window.__ran = true; }
    check();
  }).observe(document, {attributes: true, subtree: true, childList: true, attributeFilter: ['data-test-script-state', 'data-step', 'src']});
  setInterval(check, 4);
})();"""


def fresh_open(browser, url: str, with_player: bool) -> float:
    """A new session opening ``url`` until its first run is over, its images decoded and (with the player) its
    step drawn: what the reader waits for. (Later runs, e.g. the player asking for its window, are not waited on.)"""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(f"window.__withPlayer = {str(with_player).lower()};" + FIRST_SETTLED)
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_function("() => window.__firstSettled !== null", timeout=TIMEOUT_MS, polling=50)
        return page.evaluate("() => window.__firstSettled")  # from the navigation's start
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_shared = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
                          ROOT.parent / "shared" / "data")
    parser.add_argument("--shared", type=Path, default=default_shared)
    parser.add_argument("--presses", type=int, default=20, help="key presses per corpus (at least 20 for a p90)")
    parser.add_argument("--taps", type=int, default=20, help="→ presses every 200 ms on a fresh replay of each corpus")
    parser.add_argument("--fresh", type=int, default=5, help="fresh sessions opening each corpus's replay")
    parser.add_argument("--baseline-root", type=Path, default=None, help="another checkout, opened fresh beside this one")
    parser.add_argument("--workdir", type=Path, default=None, help="keeps the Parquet cache for the next run")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "player.json")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="player-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    env, chosen = choose(args.shared, workdir)
    servers = {"app": CheckoutServer(ROOT, "server.py", env, workdir),
               "blank": CheckoutServer(ROOT, "benchmarks/blank_button.py", {}, workdir)}
    if args.baseline_root:
        servers["baseline"] = CheckoutServer(args.baseline_root, "server.py", env, workdir)
    results: dict = {"corpora": {}, "dialogs": chosen}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(**launch_options())
            blank = browser.new_page(viewport={"width": 1400, "height": 900})
            blank.goto(servers["blank"].url)
            blank.wait_for_function(IDLE, timeout=TIMEOUT_MS)
            blank_click(blank)  # the first click warms the page
            pages = {}
            for name, info in chosen.items():
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                open_player(page, replay_url(servers["app"].url, name, info["dialog"], info["round"]))
                window_loaded(page, min(info["steps"], 2))
                pages[name] = page
            presses: dict[str, list[float]] = {name: [] for name in chosen}
            blanks: list[float] = []
            for _ in range(args.presses):
                blanks.append(blank_click(blank))
                for name, page in pages.items():
                    step = int(page.get_attribute("[data-step-player]", "data-step"))
                    if step >= chosen[name]["steps"]:  # at the end of the dialog: start it again
                        page.keyboard.press("Home")
                        page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
                        page.wait_for_function("() => document.querySelector('[data-step-player]').dataset.step === '1'")
                    presses[name].append(press(page))
            taps: dict[str, list[float]] = {}
            for name, info in chosen.items():
                taps[name] = tapped(browser, replay_url(servers["app"].url, name, info["dialog"], info["round"]), args.taps)
                blanks.append(blank_click(blank))
            floor = summary([b for b in blanks if b >= 0])
            results["blank_click"] = floor
            for name in chosen:
                measured = [p for p in presses[name] if p >= 0]
                tapped_ms = [t for t in taps[name] if t >= 0]
                row = {"key_to_step": summary(measured), "lost": len(presses[name]) - len(measured),
                       "payload": payload_sizes(pages[name]), "key_to_step_tapped": summary(tapped_ms),
                       "tapped_ms": taps[name], "first_press_ms": taps[name][0] if taps[name] else None}
                row["met"] = bool(tapped_ms) and len(tapped_ms) == len(taps[name]) \
                    and row["key_to_step_tapped"]["p90_ms"] <= floor["median_ms"]
                results["corpora"][name] = row
            mc = pages["minecraft"]
            walk_until_loaded(mc, min(chosen["minecraft"]["steps"], 31))
            mc.keyboard.press("Home")
            mc.wait_for_function(IDLE, timeout=TIMEOUT_MS)
            results["drag"] = drag(mc)
            results["drag"]["met"] = results["drag"]["fps"] >= 30
            fresh: dict[str, list[float]] = {"app": [], "baseline": []}
            for i in range(args.fresh):
                for name, info in chosen.items():
                    dialog = info["spread"][i % len(info["spread"])]
                    fresh["app"].append(fresh_open(browser, replay_url(servers["app"].url, name, dialog, info["round"]), True))
                    if "baseline" in servers:
                        fresh["baseline"].append(fresh_open(browser, replay_url(servers["baseline"].url, name, dialog,
                                                                                info["round"]), False))
            results["fresh"] = {key: summary(values) for key, values in fresh.items()}
            if fresh["baseline"]:
                results["fresh"]["met"] = results["fresh"]["app"]["median_ms"] <= 1.1 * results["fresh"]["baseline"]["median_ms"]
            browser.close()
    finally:
        for server in servers.values():
            server.stop()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"bare button rerun: median {results['blank_click'].get('median_ms')} ms")
    for name, row in results["corpora"].items():
        print(f"{name:10} tapped every 200 ms from the open: median {row['key_to_step_tapped'].get('median_ms')} ms, "
              f"p90 {row['key_to_step_tapped'].get('p90_ms')} ms, first press {row['first_press_ms']} ms "
              f"({'met' if row['met'] else 'NOT met'}); reading: median {row['key_to_step'].get('median_ms')} ms, "
              f"p90 {row['key_to_step'].get('p90_ms')} ms; window {row['payload']}")
    print(f"drag across {results['drag']['steps']} steps: {results['drag']['fps']} frames/s "
          f"({'met' if results['drag']['met'] else 'NOT met'})")
    print(f"fresh replay: {results['fresh']}")


if __name__ == "__main__":
    main()
