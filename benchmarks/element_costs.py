"""What each kind of Streamlit element adds to a fresh browser session's page load: one page per kind
(``element_page.py?element=<kind>``), against the same page with only its title, round by round on one
server. A page's elements cost roughly the sum of their kinds (each kind's code is a bundle the browser
fetches, evaluates and mounts once per session), which is what the page-load target leaves room for.

    python benchmarks/element_costs.py [--sessions 5] [--kinds "slider,replay controls"]

Prints one JSON object: per kind the median seconds until usable (``browser.USABLE``) and the ratio to the
title-only page. Only 127.0.0.1 is contacted; every loop is bounded.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import urllib.parse
from pathlib import Path

from browser import ROOT, launch_options, serve
from page_loads import fresh_load

KINDS = ["blank", "markdown", "markdown table", "html", "tabs", "expander", "page link", "pills", "segmented control",
         "button", "download button", "metric", "image", "slider", "toggle", "text input", "selectbox", "multiselect",
         "table", "dataframe", "code", "altair chart", "plotly chart", "replay controls", "native replay controls",
         "alert", "columns", "file uploader", "form", "number input", "radio", "text area", "text", "progress", "navigation"]


async def run(sessions: int, kinds: list[str]) -> dict:
    from playwright.async_api import async_playwright

    server = serve("benchmarks/element_page.py")
    urls = {kind: f"{server.url}/?element={urllib.parse.quote(kind)}" for kind in ["blank", *kinds]}
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(**launch_options())
            for url in urls.values():
                await fresh_load(browser, url)
            times: dict[str, list[float]] = {kind: [] for kind in urls}
            for _ in range(sessions):
                for kind, url in urls.items():
                    times[kind].append((await fresh_load(browser, url))[0])
            await browser.close()
    finally:
        server.stop()
    floor = statistics.median(times["blank"])
    return {"title_only_s": round(floor, 3),
            "kinds": {kind: {"median_s": round(statistics.median(t), 3), "ratio": round(statistics.median(t) / floor, 3)}
                      for kind, t in times.items() if kind != "blank"}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--kinds", type=lambda text: [k.strip() for k in text.split(",") if k.strip()],
                        default=[k for k in KINDS if k != "blank"], help="comma-separated; default: every kind")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "element-costs.json")
    args = parser.parse_args()
    unknown = sorted(set(args.kinds) - set(KINDS))
    if unknown:
        parser.error(f"unknown kinds: {', '.join(unknown)}")
    results = asyncio.run(run(args.sessions, [k for k in args.kinds if k != "blank"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
