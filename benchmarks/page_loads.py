"""Fresh-session page loads on a warm server: how long each page takes until it is usable in a new
browser session, against a blank Streamlit page served and measured in the same run (the floor).

    python benchmarks/page_loads.py [--shared ../shared/data] [--sessions 5] [--cached-browser]
    python benchmarks/page_loads.py --restart [--restarts 3] [--first-pages ",data"]

Prints one JSON object: per page the median seconds over ``--sessions`` fresh sessions and its ratio to
the blank page's median, and beside it when the server's script run was over and shown (``script_done_s``):
the rest is the browser's work; and the app's navigation with every page only a title
(``benchmarks/app_shell.py``, served by plain ``streamlit run``): what any page costs before its own content,
at the root (``app_shell_s``) and at a page's own path (``app_shell_deep_s``: there Streamlit first looks for its
server under that path, a 404 and a 100 ms pause before it tries the root; the app as ``make run`` serves it,
``server.py``, is spared that). Target (issue #15): every page ≤ 1.25× the blank page. Beside each page, the
same page's Streamlit elements alone (``elements_s``): the kinds of element found on the page once it is usable
(``TESTID_KINDS``), one of each on a page of ``element_page.py``, loaded in turn with the rest; the page's time
over theirs, round by round (``over_elements_ratio``; target 6 of issue #29: ≤ 1.15, what the page adds to
the elements it is made of). Sessions go round by round (blank, shell, every page), so that a drift
of the machine's speed hits all alike. Usable means the script
run is over and no placeholder or stale element is left (``browser.USABLE``). Each session is a new
browser context (an empty HTTP cache: a first visit); with ``--cached-browser`` each is a new tab of one
context, so a new Streamlit session whose scripts and styles come from the browser's cache (a returning
visitor).

With ``--restart`` (issue #29, target 3: the first page after a restart with a warm cache ≤ 1.5× the blank
page's fresh load) it measures instead the first page a new server process shows: the app is served once to
fill its Parquet cache and the summaries its pages read, then, round by round, for each of ``--first-pages``
(default: the Overview at ``/`` and the Data page) and for the blank page, a new server is started on that
cache, a new Chromium is launched and one session opens the page (the server's first script run: the app's
imports, its corpora read from the cache). The floor is the blank page's fresh load, a new session on that
blank server once it has served its first; the blank page's first load after its own restart is beside it,
and each page's time from its server's start (process started, until the page is usable) against the blank
page's: what a visitor waiting for a restart sees, whatever the server does before it listens.
It writes ``benchmarks/results/restart.json``.

Only 127.0.0.1 is contacted; every loop is bounded.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Optional

from browser import ROOT, CheckoutServer, launch_options, real_corpora_env, serve, wait_usable

# The server's script run is over and its output has reached the page; what is left until usable is the
# browser's own work (fetching and running the chunks of widgets and charts, drawing figures).
SCRIPT_DONE = ("() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
               " return app && app.dataset.testScriptState === 'notRunning' && !!document.querySelector('h1'); }")


DEEP_PATH = "agreement"  # any page's path but the root's

# The kind of element (``element_page.py``) each Streamlit element on a page is, by its data-testid: what the
# page is made of, shown alone, one of each (a kind costs a fresh page about the same once or eight times).
TESTID_KINDS = {
    "stAlert": "alert", "stButton": "button", "stButtonGroup": "pills", "stCheckbox": "toggle",
    "stCode": "code", "stColumn": "columns", "stDataFrame": "dataframe", "stDownloadButton": "download button",
    "stExpander": "expander", "stFileUploader": "file uploader", "stForm": "form", "stHtml": "html",
    "stImage": "image", "stMarkdown": "markdown", "stMetric": "metric", "stMultiSelect": "multiselect",
    "stNumberInput": "number input", "stPageLink": "page link", "stPlotlyChart": "plotly chart",
    "stProgress": "progress", "stRadio": "radio", "stSelectbox": "selectbox", "stSidebarNav": "navigation",
    "stSlider": "slider", "stTable": "table", "stTabs": "tabs", "stText": "text", "stTextArea": "text area",
    "stTextInput": "text input", "stVegaLiteChart": "altair chart",
}
PAGE_TESTIDS = ("() => [...new Set([...document.querySelectorAll('[data-testid]')].map(e => e.dataset.testid)"
                ".concat(document.querySelector('[data-testid=\"stMarkdown\"] table') ? ['markdown table'] : []))]")


async def page_kinds(browser, url: str) -> list[str]:
    """The element kinds (``TESTID_KINDS``) on the page at ``url`` once it is usable, in a new session."""
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    await page.goto(url)
    await wait_usable(page, timeout=180_000)
    found = await page.evaluate(PAGE_TESTIDS)
    await context.close()
    return sorted({TESTID_KINDS.get(t, t) for t in found if t in TESTID_KINDS or t == "markdown table"})


def page_paths() -> list[str]:
    """Every page's URL path, as app.py registers them; the default page is served at the root ("", where its
    own path would greet a visitor with Streamlit's "Page not found" box)."""
    return ["" if default else path for path, default in
            re.findall(r'url_path="([^"]+)"(, default=True)?', (ROOT / "app.py").read_text())]


async def fresh_load(browser, url: str, shared_context=None) -> tuple[float, float]:
    """(seconds until usable, seconds until the script run is over and shown) of one new session: a new
    context, or a new tab of ``shared_context``."""
    context = shared_context or await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    started = time.perf_counter()
    await page.goto(url)
    await page.wait_for_function(SCRIPT_DONE, timeout=180_000)
    script_done = time.perf_counter() - started
    await wait_usable(page, timeout=180_000)
    seconds = time.perf_counter() - started
    await (page.close() if shared_context else context.close())
    return seconds, script_done


async def run(args) -> dict:
    from playwright.async_api import async_playwright

    blank = serve("benchmarks/blank_page.py")
    shell = serve("benchmarks/app_shell.py")
    elements = serve("benchmarks/element_page.py")
    app = serve(extra_env=real_corpora_env(args.shared))
    results: dict = {}
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(**launch_options())
            shared = await browser.new_context(viewport={"width": 1400, "height": 1000}) if args.cached_browser else None

            async def load(url: str) -> tuple[float, float]:
                return await fresh_load(browser, url, shared)

            paths = [p for p in page_paths() if args.pages is None or p in args.pages]
            # The shell once at the root, as the blank page, and once at a page's own path: there Streamlit
            # first asks for <path>/_stcore/health (a 404) and tries the root 100 ms later, a cost of every
            # deep link into a multipage app served by plain `streamlit run`.
            urls = {"blank": blank.url, "shell": f"{shell.url}/{paths[0]}", "shell_deep": f"{shell.url}/{DEEP_PATH}",
                    **{path: f"{app.url}/{path}" for path in paths}}
            for url in urls.values():  # warm: every corpus parsed and cached, every page's cached results filled
                await load(url)
            kinds = {path: await page_kinds(browser, f"{app.url}/{path}") for path in paths}
            for path in paths:  # each page's elements alone, one of each kind, on a page of their own
                urls[f"elements:{path}"] = f"{elements.url}/?elements={','.join(kinds[path])}"
                await load(urls[f"elements:{path}"])
            times: dict[str, list] = {name: [] for name in urls}
            for _ in range(args.sessions):  # round by round, so that a drift of the machine's speed hits all alike
                for name, url in urls.items():
                    times[name].append(await load(url))
            floor_s = statistics.median(t for t, _ in times.pop("blank"))
            shell_s = statistics.median(t for t, _ in times.pop("shell"))
            shell_deep_s = statistics.median(t for t, _ in times.pop("shell_deep"))
            results["browser_cache"] = "shared by all sessions" if args.cached_browser else "empty in every session"
            results["blank_page_s"] = round(floor_s, 3)
            results["app_shell_s"] = round(shell_s, 3)  # the navigation alone, each page only a title
            results["app_shell_ratio"] = round(shell_s / floor_s, 3)
            results["app_shell_deep_path"] = f"/{DEEP_PATH}"
            results["app_shell_deep_s"] = round(shell_deep_s, 3)  # the same title-only page at its own path
            results["app_shell_deep_ratio"] = round(shell_deep_s / floor_s, 3)
            pages = {}
            for path in paths:
                median = statistics.median(t for t, _ in times[path])
                script_done = statistics.median(d for _, d in times[path])
                alone = statistics.median(t for t, _ in times[f"elements:{path}"])
                # the page's own time over its elements', round by round (the same drift hits both)
                over = statistics.median(t / e for (t, _), (e, _) in zip(times[path], times[f"elements:{path}"]))
                pages[path or "/ (overview)"] = {"median_s": round(median, 3), "ratio": round(median / floor_s, 3),
                               "script_done_s": round(script_done, 3), "script_done_ratio": round(script_done / floor_s, 3),
                               "elements": kinds[path], "elements_s": round(alone, 3),
                               "elements_ratio": round(alone / floor_s, 3), "over_elements_ratio": round(over, 3)}
            results["pages"] = pages
            results["worst_ratio"] = max(p["ratio"] for p in pages.values())
            results["target_ratio"] = 1.25
            results["worst_over_elements_ratio"] = max(p["over_elements_ratio"] for p in pages.values())
            results["over_elements_target_ratio"] = 1.15  # issue #29, target 6: ≤ 15% over its own elements
            await browser.close()
    finally:
        for server in (blank, shell, elements, app):
            server.stop()
    return results


async def restart_loads(args) -> dict:
    """The first page of a restarted server, per page in ``args.first_pages``, against the blank page."""
    from playwright.async_api import async_playwright

    app_env = real_corpora_env(args.shared)
    checkouts = {"": ROOT, **({"baseline · ": args.baseline_root.resolve()} if args.baseline_root else {})}
    # name: (checkout, workdir, app file, environment, path)
    servers: dict[str, tuple[Path, Path, str, Optional[dict], str]] = {
        "blank": (ROOT, Path(tempfile.mkdtemp(prefix="bench-restart-blank-")), "benchmarks/blank_page.py", None, "")}
    for label, root in checkouts.items():
        workdir = Path(tempfile.mkdtemp(prefix="bench-restart-app-"))
        servers.update({f"{label}{path or '/ (overview)'}": (root, workdir, "server.py", app_env, path)
                        for path in args.first_pages})

    async with async_playwright() as playwright:
        async def first_load(name: str, then_fresh: bool = False) -> tuple[float, float, Optional[float]]:
            """(the first page's seconds until usable, the same from the server's start, a second fresh
            session's seconds when ``then_fresh``) of a new server and a new browser."""
            root, workdir, app_file, env, path = servers[name]
            spawned = time.perf_counter()
            server = CheckoutServer(root, app_file, env, workdir)
            try:
                browser = await playwright.chromium.launch(**launch_options())
                try:
                    started = time.perf_counter()
                    first, _ = await fresh_load(browser, f"{server.url}/{path}")
                    from_spawn = time.perf_counter() - started + (started - spawned)
                    fresh = (await fresh_load(browser, f"{server.url}/{path}"))[0] if then_fresh else None
                finally:
                    await browser.close()
            finally:
                server.stop()
            return first, from_spawn, fresh

        for name in servers:  # fill the Parquet cache and every summary the first pages read
            await first_load(name)
        firsts: dict[str, list[float]] = {name: [] for name in servers}
        spawns: dict[str, list[float]] = {name: [] for name in servers}
        blank_fresh: list[float] = []
        for _ in range(args.restarts):  # round by round, so that a drift of the machine's speed hits all alike
            for name in servers:
                first, from_spawn, fresh = await first_load(name, then_fresh=name == "blank")
                firsts[name].append(first)
                spawns[name].append(from_spawn)
                if fresh is not None:
                    blank_fresh.append(fresh)
    floor_s = statistics.median(blank_fresh)
    blank_first_s = statistics.median(firsts.pop("blank"))
    blank_spawn_s = statistics.median(spawns.pop("blank"))
    pages = {name: {"median_s": round(statistics.median(t), 3), "runs_s": [round(x, 3) for x in t],
                    "ratio": round(statistics.median(t) / floor_s, 3),
                    "ratio_to_blank_first": round(statistics.median(t) / blank_first_s, 3),
                    "from_server_start_s": round(statistics.median(spawns[name]), 3),
                    "from_server_start_ratio": round(statistics.median(spawns[name]) / blank_spawn_s, 3)}
             for name, t in firsts.items()}
    return {"restarts": args.restarts, "blank_page_fresh_s": round(floor_s, 3),
            "blank_page_first_after_restart_s": round(blank_first_s, 3),
            "blank_page_from_server_start_s": round(blank_spawn_s, 3), "pages": pages,
            "worst_ratio": max(p["ratio"] for p in pages.values()), "target_ratio": 1.5}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--cached-browser", action="store_true",
                        help="each session a new tab of one browser context (its HTTP cache warm), not a new context")
    parser.add_argument("--out", type=Path, default=None,
                        help="default: benchmarks/results/pages.json (pages-cached-browser.json with --cached-browser)")
    parser.add_argument("--pages", type=lambda text: [p.strip().strip("/") for p in text.split(",")], default=None,
                        help='comma-separated page paths to measure ("" is the Overview at /); default: every page')
    parser.add_argument("--restart", action="store_true",
                        help="the first page of a restarted server with a warm cache, against the blank page (target 3)")
    parser.add_argument("--baseline-root", type=Path, default=None,
                        help="with --restart: another checkout (e.g. `git worktree add /tmp/main main`) measured in turn")
    parser.add_argument("--restarts", type=int, default=3, help="with --restart: restarts per page")
    parser.add_argument("--first-pages", type=lambda text: [p.strip().strip("/") for p in text.split(",")],
                        default=["", "data"], help='with --restart: comma-separated page paths ("" is the Overview at /)')
    args = parser.parse_args()
    if args.restart:
        results = asyncio.run(restart_loads(args))
        args.out = args.out or ROOT / "benchmarks" / "results" / "restart.json"
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2))
        print(json.dumps(results, indent=2))
        return
    results = asyncio.run(run(args))
    args.out = args.out or ROOT / "benchmarks" / "results" / ("pages-cached-browser.json" if args.cached_browser else "pages.json")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
