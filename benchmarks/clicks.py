"""Felt speed of a click: "click Next → the new step settled" on Replay (with a model run shown and without),
Compare and Present for each corpus, beside the floor: a click on a blank Streamlit page with one button
(``benchmarks/blank_button.py``), measured in the same run, clicks interleaved so that a drift of the
machine's speed hits all alike. Also "a fresh session opens a replay, settled" beside a fresh blank page, and
"a Browse row click → its replay settled" beside a fresh session opening a replay (target 4).

    python benchmarks/clicks.py [--shared ../shared/data] [--clicks 20] [--fresh 5] [--browse 20] [--baseline-root DIR]

Settled = the script run is over (``stApp``'s ``data-test-script-state`` went through ``running``, or what the
run shows first changed: a slider's value, the first caption; and it is ``notRunning``), the step's URL parameter moved, nothing is stale or a skeleton, every image is decoded
(``complete`` with a ``naturalWidth``) and every plotly chart is drawn. The time is taken in the page, from
the button's ``click()`` to the first check (every 4 ms) at which all of that holds. The servers run
``server.py`` on the real corpora with a warm Parquet cache; each clicked step is a new one for the server
(its per-step caches are cold unless the app computed them ahead), as for a reader going through a dialog.
Model runs: the generated ``baseline`` run of each real corpus (``data_access.runs.demo``), written to a
temporary runs folder.

Where a click's time goes (``PROBE``, put into each tab): when the server's first and last websocket message
of the click arrived (its last is the end of the script run), the browser's part from there to settled
(layout, image decoding, charts), the main thread's long tasks, and the KB the server sent; medians per
scenario in the table and the JSON (``split``).

Beside each scenario, the same page's Streamlit elements alone (``--no-elements`` to skip): the kinds found on
the page once it is open, each as often as the page has it (``COUNT_KINDS``), on a page of
``benchmarks/element_page.py`` with a Next button that moves ``turn`` and what every element shows (its images
new at each click), clicked in turn with the rest: what a click costs a page made of those elements and
nothing else, and the page's click over theirs (``elements_alone``).

A Browse row click: a fresh session opens the Browse page of a corpus, clicks the selection cell of row
``i`` (a new dialog each try), and waits until the replay it opens is settled; the floor is a fresh session
opening the replay of another dialog, in turn with it. Target: p90 ≤ 1.5× the fresh replay's median.

``--baseline-root`` serves a second checkout (e.g. ``git worktree add /tmp/main main``) beside this one in
the same run, clicked in turn with it: its figures are the "before". Prints a table, writes JSON to
``benchmarks/results/clicks.json``. Target (issue #29): median ≤ 1.5× and p90 ≤ 3× the blank page's median
click. Only 127.0.0.1 is contacted; every loop is bounded in count and time.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional
from urllib.parse import urlencode

from browser import ROOT, CheckoutServer, launch_options, real_corpora_env
from page_loads import TESTID_KINDS

CLICK_TIMEOUT_MS = 60_000
LOST_CLICK_MS = 5_000  # no script run started this long after a click: Streamlit did not take it
LOST_CLICKS: dict[str, int] = {}  # page (without its query) -> clicks not taken

# Whether the page is settled (see the module docstring); the click script below inlines it.
SETTLED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.dataset.testConnectionState !== 'CONNECTED' || app.dataset.testScriptState !== 'notRunning') return false;
  if (document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')) return false;
  for (const img of app.querySelectorAll('img')) { if (!(img.complete && img.naturalWidth > 0)) return false; }
  for (const chart of app.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    const plot = chart.querySelector('.js-plotly-plot');
    if (!plot || !plot._fullLayout || !plot.querySelector('.main-svg')) return false;
  }
  return true;
}"""

# What keeps a page from being settled (for the message of a click that timed out).
STATE = """() => { const app = document.querySelector('[data-testid="stApp"]');
  return {connection: app.dataset.testConnectionState, script: app.dataset.testScriptState, url: location.search,
          stale: [...document.querySelectorAll('[data-stale="true"], [data-testid="stSkeleton"]')].length,
          images_pending: [...app.querySelectorAll('img')].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(-40)),
          charts: app.querySelectorAll('[data-testid="stPlotlyChart"]').length}; }"""

# Run in every tab before the app's code: notes when each websocket message from the server arrives (and its
# size) and how long the main thread was busy in long tasks, so that a click's time can be split into the
# server's part (until its last message) and the browser's (from there to settled).
PROBE = """(() => {
  window.__wsLog = [];
  window.__longTasks = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Native(...args);
    socket.addEventListener('message', event => {
      const size = event.data.byteLength !== undefined ? event.data.byteLength : (event.data.size || event.data.length || 0);
      window.__wsLog.push([performance.now(), size]);
      if (window.__wsLog.length > 5000) window.__wsLog.splice(0, 2500);
    });
    return socket;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  try {
    new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
      .observe({type: 'longtask', buffered: true});
  } catch (e) {}
})();"""

# Clicks the index-th button labelled ``label`` and resolves with {ms: milliseconds until settled, server_ms: until
# the server's last message, first_ms: its first, kb: what it sent, busy_ms: the main thread's long tasks in
# between} (or -1: no such enabled button, -2: timed out, -3: no script run started within ``lost`` ms: the click
# was not taken).
CLICK = """async ({label, index, param, timeout, lost}) => {
  const settled = %s;
  const app = document.querySelector('[data-testid="stApp"]');
  const before = param ? new URLSearchParams(location.search).get(param) : null;
  // What a new run shows first: the sliders' values and the first caption (the blank page's count). A quick
  // run's "running" state may never be rendered (React batches it with the run's end), so a changed marker
  // counts as a run too.
  const marker = () => [...app.querySelectorAll('[role="slider"]')].map(s => s.getAttribute('aria-valuenow')).join(',')
    + '|' + ((app.querySelector('[data-testid="stCaptionContainer"]') || {}).textContent || '');
  const shown = marker();
  let ran = false;
  const observer = new MutationObserver(records => {
    for (const record of records) {
      if (record.oldValue === 'running' || app.dataset.testScriptState === 'running') ran = true;
    }
  });
  observer.observe(app, {attributes: true, attributeFilter: ['data-test-script-state'], attributeOldValue: true});
  const buttons = [...app.querySelectorAll('button')].filter(b => b.innerText.includes(label));
  const button = buttons[index];
  if (!button || button.disabled) { observer.disconnect(); return -1; }
  const started = performance.now();
  button.click();
  return await new Promise(resolve => {
    const poll = () => {
      const moved = !param || new URLSearchParams(location.search).get(param) !== before;
      if (!ran && marker() !== shown) ran = true;
      if (ran && moved && settled()) {
        observer.disconnect();
        const end = performance.now();
        const messages = (window.__wsLog || []).filter(m => m[0] >= started && m[0] <= end);
        const busy = (window.__longTasks || []).filter(t => t[0] >= started && t[0] <= end).reduce((a, t) => a + t[1], 0);
        resolve({ms: end - started, first_ms: messages.length ? messages[0][0] - started : null,
                 server_ms: messages.length ? messages[messages.length - 1][0] - started : null,
                 kb: messages.reduce((a, m) => a + m[1], 0) / 1024, busy_ms: busy});
      }
      else if (!ran && performance.now() - started > lost) { observer.disconnect(); resolve(-3); }
      else if (performance.now() - started > timeout) { observer.disconnect(); resolve(-2); }
      else setTimeout(poll, 4);  // not requestAnimationFrame: it stops in a tab the browser deems hidden
    };
    setTimeout(poll, 4);
  });
}""" % SETTLED


def prepare(shared: Path, workdir: Path) -> tuple[dict[str, str], dict[str, dict]]:
    """The servers' environment (real corpora, a shared warm cache, the generated runs) and, per corpus,
    the dialogs clicked through (the longest ones: fewer restarts)."""
    env = {**real_corpora_env(shared), "DIALOGUE_CACHE_DIR": str(workdir / "cache"),
           "DIALOGUE_RUNS_DIR": str(workdir / "runs")}
    os.environ.update(env)  # this process loads the corpora through the same cache (and warms it)
    sys.path.insert(0, str(ROOT))
    from data_access import snapshots
    from data_access.corpora import load_configured
    from data_access.runs.demo import write_demo_runs

    chosen = {}
    for name in ("codraw", "gos", "minecraft"):
        loaded = load_configured(name)
        if not (workdir / "runs" / name).is_dir():  # a --workdir of an earlier run has them already
            write_demo_runs(loaded, workdir / "runs" / name)
        round_ = 1 if name == "gos" else None
        ids = loaded.dialogs["dialog_id"].tolist()
        steps = {d: snapshots.step_count(loaded, d, round_) for d in ids}
        longest = sorted(ids, key=lambda d: (-steps[d], d))[:2]
        # fresh replays beside the Browse row clicks: dialogs spread over the corpus (a new one each time)
        spread = [d for d in ids[:: max(1, len(ids) // 60)] if d not in longest][:40]
        chosen[name] = {"dialogs": longest, "steps": [steps[d] for d in longest], "round": round_, "spread": spread,
                        "browse_rows": min(20, len(ids))}  # the Browse table's visible rows (A Game Of Sorts: 15)
    return env, chosen


def scenarios(chosen: dict[str, dict]) -> list[dict]:
    """(name, path and query of the step-1 URL, the URL parameter a Next click moves)."""
    out = []
    for name, info in chosen.items():
        first, second = info["dialogs"]
        rounds = {"round": info["round"]} if info["round"] else {}
        replay = {"corpus": name, "dialog": first, **rounds, "turn": 1}
        out.append({"name": f"replay · {name}", "path": "replay", "query": replay, "param": "turn"})
        out.append({"name": f"replay + run · {name}", "path": "replay", "query": {**replay, "run": "baseline"},
                    "param": "turn"})
        sides = {"lround": info["round"], "rround": info["round"]} if info["round"] else {}
        out.append({"name": f"compare · {name}", "path": "compare",
                    "query": {"corpus": name, "left": first, "right": second, **sides, "step": 1}, "param": "step"})
        out.append({"name": f"present · {name}", "path": "present", "query": {"corpus": name, "dialog": first, **rounds,
                                                                              "turn": 1}, "param": "turn"})
    return out


# The page's Streamlit elements by kind, each as often as it is on the page (``page_loads.TESTID_KINDS``), for
# the same elements alone on a page of ``element_page.py``. What element_page draws inside a kind is taken off
# its count (a column and an expander hold a markdown each there, a form a text input), so the elements alone
# are never more than the page's.
COUNT_KINDS = """(kinds) => {
  const counts = {};
  for (const e of document.querySelectorAll('[data-testid]')) {
    const kind = kinds[e.dataset.testid];
    if (kind) counts[kind] = (counts[kind] || 0) + 1;
  }
  return counts;
}"""


def elements_query(counts: dict[str, int]) -> str:
    """``element_page.py``'s ``elements=`` for a page's element counts (``COUNT_KINDS``)."""
    counts = dict(counts)
    columns = counts.pop("columns", 0)
    counts["markdown"] = max(0, counts.get("markdown", 0) - columns - counts.get("expander", 0))
    counts["text input"] = max(0, counts.get("text input", 0) - counts.get("form", 0))
    counts["columns"] = columns // 2  # element_page's "columns" is a row of two
    return ",".join(f"{kind}*{n}" if n > 1 else kind for kind, n in sorted(counts.items()) if n > 0)


async def settled(page, timeout: float = 180_000) -> None:
    """Wait until SETTLED holds twice, 150 ms apart (a widget's own rerun may follow the first run)."""
    for _ in range(2):
        await page.wait_for_function(SETTLED, timeout=timeout)
        await page.wait_for_timeout(150)
    await page.wait_for_function(SETTLED, timeout=timeout)


async def open_tab(browser, url: str):
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    await context.add_init_script(PROBE)
    page = await context.new_page()
    await page.goto(url)
    await settled(page)
    return page


async def click(page, url: str, param, parts: Optional[list] = None) -> Optional[float]:
    """Seconds from a Next click to settled (None: it timed out); at the end of a dialog the tab goes back
    to step 1 first. ``parts`` gets the click's split (``CLICK``'s result, in ms and KB)."""
    await page.bring_to_front()
    for _ in range(4):
        ms = await page.evaluate(CLICK, {"label": "Next", "index": 0, "param": param, "timeout": CLICK_TIMEOUT_MS,
                                         "lost": LOST_CLICK_MS})
        if isinstance(ms, dict):
            if parts is not None:
                parts.append({k: (round(v, 1) if isinstance(v, float) else v) for k, v in ms.items()})
            return ms["ms"] / 1000
        if ms == -3:  # seen now and then on a busy machine, on the blank page too: clicked again, counted
            LOST_CLICKS[url.split("?")[0]] = LOST_CLICKS.get(url.split("?")[0], 0) + 1
            continue
        if ms == -1:  # the last step: start the dialog again (not measured)
            await page.goto(url)
            await settled(page)
            continue
        if ms == -2:  # counted as a timeout, not a time; the tab starts afresh
            state = await page.evaluate(STATE)
            print(f"{url}: a click did not settle within {CLICK_TIMEOUT_MS / 1000:.0f} s: {state}", file=sys.stderr)
            await page.goto(url)
            await settled(page)
            return None
    raise RuntimeError(f"{url}: no Next button")


async def fresh_open(browser, url: str, ready: str = SETTLED) -> float:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    started = time.perf_counter()
    await page.goto(url)
    await page.wait_for_function(ready, timeout=180_000)
    seconds = time.perf_counter() - started
    await context.close()
    return seconds


def split(parts: list[dict]) -> dict:
    """Medians of where the clicks' time went: until the server's first and last message, the browser's part
    after the last (layout, image decoding, charts), the main thread's long tasks, what the server sent."""
    def median(values):
        values = [v for v in values if v is not None]
        return round(statistics.median(values), 1) if values else None
    return {"n": len(parts), "settled_ms": median(p["ms"] for p in parts),
            "first_message_ms": median(p["first_ms"] for p in parts),
            "server_ms": median(p["server_ms"] for p in parts),
            "browser_after_ms": median(p["ms"] - p["server_ms"] for p in parts if p["server_ms"] is not None),
            "long_tasks_ms": median(p["busy_ms"] for p in parts), "sent_kb": median(p["kb"] for p in parts)}


ROW_HEIGHT = 35  # px of a row (and the header) of a Streamlit dataframe


async def browse_row_open(browser, base: str, corpus: str, row: int) -> Optional[float]:
    """Seconds from a click on the selection cell of the Browse table's ``row`` to the replay it opens
    settled (a fresh session, so that no earlier selection stays; None: it did not settle)."""
    # tall enough for the table's 20 visible rows below the filters (a click outside the viewport is lost)
    context = await browser.new_context(viewport={"width": 1400, "height": 1600})
    page = await context.new_page()
    try:
        await page.goto(f"{base}/browse?corpus={corpus}")
        await settled(page)
        grid = page.locator('[data-testid="stDataFrame"]').first
        await grid.scroll_into_view_if_needed()
        box = await grid.bounding_box()
        started = time.perf_counter()
        # the table is drawn on a canvas: the row's selection cell, below the header
        await page.mouse.click(box["x"] + 18, box["y"] + ROW_HEIGHT * (row + 1) + ROW_HEIGHT // 2)
        await page.wait_for_url(lambda url: "/replay?" in url and "dialog=" in url, timeout=CLICK_TIMEOUT_MS)
        await page.wait_for_function(SETTLED_REPLAY, timeout=CLICK_TIMEOUT_MS)
        return time.perf_counter() - started
    except Exception as error:  # a try that did not reach the replay is counted, and said
        print(f"{corpus}: Browse row {row} did not open its replay: {error}".splitlines()[0], file=sys.stderr)
        return None
    finally:
        await context.close()


# Settled, and the page is the replay with its step in the URL.
SETTLED_REPLAY = """() => location.pathname.endsWith('/replay') && new URLSearchParams(location.search).get('turn') !== null
  && (document.querySelector('h1') || {}).innerText === 'Replay' && (%s)()""" % SETTLED


def _ratio(page: list[Optional[float]], elements: list[Optional[float]]) -> Optional[float]:
    """The median of a page's clicks over the median of its elements' alone."""
    page_times, element_times = [t for t in page if t is not None], [t for t in elements if t is not None]
    if not page_times or not element_times:
        return None
    return round(statistics.median(page_times) / statistics.median(element_times), 2)


def summary(times: list[Optional[float]], floor: float) -> dict:
    ordered = sorted(t for t in times if t is not None)
    if not ordered:
        return {"n": 0, "timeouts": len(times)}
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    median = statistics.median(ordered)
    return {"n": len(ordered), "timeouts": len(times) - len(ordered), "median_s": round(median, 3),
            "p90_s": round(p90, 3), "median_ratio": round(median / floor, 2), "p90_ratio": round(p90 / floor, 2)}


async def run(args) -> dict:
    from playwright.async_api import async_playwright

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-clicks-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print("preparing: corpora, cache and runs …", file=sys.stderr)
    env, chosen = prepare(args.shared, workdir)
    apps = {"this checkout": ROOT}
    if args.baseline_root:
        apps = {"baseline": args.baseline_root.resolve(), **apps}
    servers = {"blank": CheckoutServer(ROOT, "benchmarks/blank_button.py", {}, workdir)}
    if args.elements:
        servers["elements"] = CheckoutServer(ROOT, "benchmarks/element_page.py", {}, workdir)
    for label, root in apps.items():
        servers[label] = CheckoutServer(root, "server.py", env, workdir)
    plan = [s for s in scenarios(chosen) if not args.only or any(o in s["name"] for o in args.only)]
    results: dict = {"date": time.strftime("%Y-%m-%d %H:%M"), "clicks_per_scenario": args.clicks,
                     "dialogs": chosen, "apps": {k: str(v) for k, v in apps.items()}}
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(**launch_options())
            blank = await open_tab(browser, servers["blank"].url)
            blank_times: list[float] = []
            blank_parts: list[dict] = []
            clicks: dict[str, dict[str, list[float]]] = {label: {} for label in apps}
            parts: dict[str, dict[str, list[dict]]] = {label: {} for label in apps}
            alone: dict[str, list] = {}  # scenario -> the clicks of its elements alone
            alone_parts: dict[str, list[dict]] = {}
            alone_kinds: dict[str, str] = {}
            for scenario in plan:  # none with --only matching no click scenario (e.g. --only browse)
                print(f"clicking: {scenario['name']}", file=sys.stderr)
                tabs = {}
                for label in apps:
                    url = f"{servers[label].url}/{scenario['path']}?{urlencode(scenario['query'])}"
                    tabs[label] = (await open_tab(browser, url), url)
                    await click(*tabs[label], scenario["param"])  # warm: the page's code and first rerun
                mine = tabs[list(apps)[-1]][0]
                if args.elements:  # the same page's elements alone, as many of each kind, clicked in turn
                    kinds = elements_query(await mine.evaluate(COUNT_KINDS, TESTID_KINDS))
                    alone_kinds[scenario["name"]] = kinds
                    url = f"{servers['elements'].url}/?{urlencode({'elements': kinds, 'click': 1})}"
                    elements_tab = (await open_tab(browser, url), url)
                    await click(*elements_tab, "turn")
                for _ in range(args.clicks):  # interleaved: blank, then each app, click by click
                    blank_times.append(await click(blank, servers["blank"].url, None, blank_parts))
                    for label, (page, url) in tabs.items():
                        clicks[label].setdefault(scenario["name"], []).append(
                            await click(page, url, scenario["param"], parts[label].setdefault(scenario["name"], [])))
                    if args.elements:
                        alone.setdefault(scenario["name"], []).append(
                            await click(*elements_tab, "turn", alone_parts.setdefault(scenario["name"], [])))
                for page, _url in tabs.values():
                    await page.context.close()
                if args.elements:
                    await elements_tab[0].context.close()
            floor = statistics.median([t for t in blank_times if t is not None] or [float("nan")])
            results["blank_click"] = summary(blank_times, floor)
            results["clicks"] = {label: {name: summary(times, floor) for name, times in by.items()}
                                 for label, by in clicks.items()}
            results["click_times_s"] = {label: by for label, by in clicks.items()}
            results["blank_split"] = split(blank_parts)
            results["split"] = {label: {name: split(p) for name, p in by.items()} for label, by in parts.items()}
            if args.elements:
                results["elements_alone"] = {name: {**summary(times, floor), "elements": alone_kinds[name],
                                                    "split": split(alone_parts[name]),
                                                    "page_over_elements": _ratio(clicks[list(apps)[-1]][name], times)}
                                             for name, times in alone.items()}
            if args.fresh:
                print("fresh sessions opening a replay …", file=sys.stderr)
                fresh: dict[str, dict[str, list[float]]] = {label: {} for label in apps}
                blank_fresh = []
                for _ in range(args.fresh):
                    blank_fresh.append(await fresh_open(browser, servers["blank"].url))
                    for name, info in chosen.items():
                        rounds = {"round": info["round"]} if info["round"] else {}
                        query = urlencode({"corpus": name, "dialog": info["dialogs"][0], **rounds, "turn": 3})
                        for label in apps:
                            fresh[label].setdefault(f"fresh replay · {name}", []).append(
                                await fresh_open(browser, f"{servers[label].url}/replay?{query}"))
                fresh_floor = statistics.median(blank_fresh)
                results["blank_fresh"] = summary(blank_fresh, fresh_floor)
                results["fresh"] = {label: {name: summary(times, fresh_floor) for name, times in by.items()}
                                    for label, by in fresh.items()}
            if args.browse:
                results["browse"] = await browse_scenarios(browser, servers, apps, chosen, args.browse)
            await browser.close()
    finally:
        for server in servers.values():
            server.stop()
    results["lost_clicks"] = LOST_CLICKS
    results["target"] = {"median_ratio": 1.5, "p90_ratio": 3.0, "browse_p90_ratio": 1.5}
    return results


async def browse_scenarios(browser, servers: dict, apps: dict, chosen: dict, tries: int) -> dict:
    """Target 4: a Browse row click → its replay settled, beside a fresh session opening a replay (another
    dialog each time, without a step in its link, as the row's link has none), tries interleaved. A corpus with
    fewer dialogs than tries (A Game Of Sorts has 15) has its rows clicked again from the first."""
    out: dict = {label: {} for label in apps}
    for name, info in chosen.items():
        print(f"browse rows → replay: {name}", file=sys.stderr)
        rows: dict[str, list] = {label: [] for label in apps}
        fresh: dict[str, list] = {label: [] for label in apps}
        for i in range(tries):
            dialog = info["spread"][i % len(info["spread"])]
            for label in apps:
                base = servers[label].url
                rows[label].append(await browse_row_open(browser, base, name, i % info["browse_rows"]))
                fresh[label].append(await fresh_open(browser, f"{base}/replay?{urlencode({'corpus': name, 'dialog': dialog})}",
                                                     SETTLED_REPLAY))
        for label in apps:
            floor = statistics.median(fresh[label])
            out[label][name] = {"row_click": summary(rows[label], floor), "fresh_replay": summary(fresh[label], floor),
                                "row_click_s": rows[label], "fresh_replay_s": fresh[label]}
    return out


def table(results: dict) -> str:
    labels = list(results["clicks"])
    floor = results["blank_click"]
    lines = [f"blank page, one button: median {floor['median_s']:.3f} s, p90 {floor['p90_s']:.3f} s "
             f"({floor['n']} clicks)" if floor.get("n") else "no click scenario", "",
             "| click Next → settled | " + " | ".join(f"{label}: median (×blank), p90 (×blank)" for label in labels) + " |",
             "| --- |" + " --- |" * len(labels)]
    names = list(results["clicks"][labels[-1]])
    for name in names:
        cells = []
        for label in labels:
            s = results["clicks"][label].get(name)
            cells.append("–" if not s or not s["n"] else
                         f"{s['median_s']:.2f} s ({s['median_ratio']}×), {s['p90_s']:.2f} s ({s['p90_ratio']}×)"
                         + (f", {s['timeouts']} timed out" if s["timeouts"] else ""))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if "elements_alone" in results:
        lines += ["", "| the same page's Streamlit elements alone, clicked | median (× blank), p90 (× blank) | "
                  "the page over them (medians) | its elements |", "| --- | --- | --- | --- |"]
        for name, s in results["elements_alone"].items():
            lines.append(f"| {name} | " + ("–" if not s.get("n") else
                         f"{s['median_s']:.2f} s ({s['median_ratio']}×), {s['p90_s']:.2f} s ({s['p90_ratio']}×)")
                         + f" | {s['page_over_elements']}× | {s['elements']} |")
    if "split" in results:
        lines += ["", "| where a click's time goes (medians, ms) | settled | server's first message | its last | "
                  "browser after it | long tasks | sent (KB) |", "| --- |" + " --- |" * 6]
        rows = [("blank page", results["blank_split"])] + [
            (f"{name} ({label})" if len(labels) > 1 else name, s)
            for label in labels for name, s in results["split"][label].items()]
        for name, s in rows:
            lines.append(f"| {name} | " + " | ".join("–" if s.get(k) is None else f"{s[k]:g}" for k in
                         ("settled_ms", "first_message_ms", "server_ms", "browser_after_ms", "long_tasks_ms", "sent_kb")) + " |")
    if "browse" in results:
        lines += ["", "| Browse row → replay settled | " + " | ".join(
            f"{label}: row click median, p90 (× fresh median) · fresh replay median, p90" for label in labels) + " |",
            "| --- |" + " --- |" * len(labels)]
        for name in results["browse"][labels[-1]]:
            cells = []
            for label in labels:
                b = results["browse"][label][name]
                row, fresh = b["row_click"], b["fresh_replay"]
                cells.append("–" if not row.get("n") else
                             f"{row['median_s']:.2f} s, {row['p90_s']:.2f} s ({row['p90_ratio']}×) · "
                             f"{fresh['median_s']:.2f} s, {fresh['p90_s']:.2f} s"
                             + (f", {row['timeouts']} failed" if row["timeouts"] else ""))
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if "fresh" in results:
        blank = results["blank_fresh"]
        lines += ["", f"fresh blank page: median {blank['median_s']:.3f} s", ""]
        for name in results["fresh"][labels[-1]]:
            cells = [f"{results['fresh'][label][name]['median_s']:.2f} s ({results['fresh'][label][name]['median_ratio']}×)"
                     for label in labels]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--clicks", type=int, default=20, help="clicks per scenario and app (at least 20 for a p90)")
    parser.add_argument("--fresh", type=int, default=5, help="fresh sessions opening each corpus's replay (0: none)")
    parser.add_argument("--baseline-root", type=Path, default=None,
                        help="another checkout of the app to serve and click beside this one (the 'before')")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="the folder for the cache, runs and logs (default: a new temporary one); reusing "
                             "one skips the first parse of the corpora")
    parser.add_argument("--browse", type=int, default=20,
                        help="Browse row clicks (and fresh replays) per corpus and app, for target 4 (0: none)")
    parser.add_argument("--no-elements", dest="elements", action="store_false",
                        help="do not click each page's elements alone beside it (element_page.py)")
    parser.add_argument("--only", nargs="*", default=None, help="only scenarios whose name contains one of these")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "clicks.json")
    args = parser.parse_args()
    results = asyncio.run(run(args))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(table(results))


if __name__ == "__main__":
    main()
