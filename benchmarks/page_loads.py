"""Fresh-session page loads on a warm server: how long each page takes until it is usable in a new
browser session, against a blank Streamlit page served and measured in the same run (the floor).

    python benchmarks/page_loads.py [--shared ../shared/data] [--sessions 5] [--cached-browser]

Prints one JSON object: per page the median seconds over ``--sessions`` fresh sessions and its ratio to
the blank page's median, and beside it when the server's script run was over and shown (``script_done_s``):
the rest is the browser's work; and the app's navigation with every page only a title
(``benchmarks/app_shell.py``, served by plain ``streamlit run``): what any page costs before its own content,
at the root (``app_shell_s``) and at a page's own path (``app_shell_deep_s``: there Streamlit first looks for its
server under that path, a 404 and a 100 ms pause before it tries the root; the app as ``make run`` serves it,
``server.py``, is spared that). Target (issue #15): every page ≤ 1.25× the blank page. Sessions go round by round (blank, shell, every page), so that a drift
of the machine's speed hits all alike. Usable means the script
run is over and no placeholder or stale element is left (``browser.USABLE``). Each session is a new
browser context (an empty HTTP cache: a first visit); with ``--cached-browser`` each is a new tab of one
context, so a new Streamlit session whose scripts and styles come from the browser's cache (a returning
visitor). Only 127.0.0.1 is contacted; every loop is bounded.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import time
from pathlib import Path

from browser import ROOT, launch_options, real_corpora_env, serve, wait_usable

# The server's script run is over and its output has reached the page; what is left until usable is the
# browser's own work (fetching and running the chunks of widgets and charts, drawing figures).
SCRIPT_DONE = ("() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
               " return app && app.dataset.testScriptState === 'notRunning' && !!document.querySelector('h1'); }")


DEEP_PATH = "agreement"  # any page's path but the root's


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
    app = serve(extra_env=real_corpora_env(args.shared))
    results: dict = {}
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(**launch_options())
            shared = await browser.new_context(viewport={"width": 1400, "height": 1000}) if args.cached_browser else None

            async def load(url: str) -> tuple[float, float]:
                return await fresh_load(browser, url, shared)

            paths = page_paths()
            # The shell once at the root, as the blank page, and once at a page's own path: there Streamlit
            # first asks for <path>/_stcore/health (a 404) and tries the root 100 ms later, a cost of every
            # deep link into a multipage app served by plain `streamlit run`.
            urls = {"blank": blank.url, "shell": f"{shell.url}/{paths[0]}", "shell_deep": f"{shell.url}/{DEEP_PATH}",
                    **{path: f"{app.url}/{path}" for path in paths}}
            for url in urls.values():  # warm: every corpus parsed and cached, every page's cached results filled
                await load(url)
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
                pages[path or "/ (overview)"] = {"median_s": round(median, 3), "ratio": round(median / floor_s, 3),
                               "script_done_s": round(script_done, 3), "script_done_ratio": round(script_done / floor_s, 3)}
            results["pages"] = pages
            results["worst_ratio"] = max(p["ratio"] for p in pages.values())
            results["target_ratio"] = 1.25
            await browser.close()
    finally:
        for server in (blank, shell, app):
            server.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--cached-browser", action="store_true",
                        help="each session a new tab of one browser context (its HTTP cache warm), not a new context")
    parser.add_argument("--out", type=Path, default=None,
                        help="default: benchmarks/results/pages.json (pages-cached-browser.json with --cached-browser)")
    args = parser.parse_args()
    results = asyncio.run(run(args))
    args.out = args.out or ROOT / "benchmarks" / "results" / ("pages-cached-browser.json" if args.cached_browser else "pages.json")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
