"""Many sessions at once: N browser sessions (default 10, a mix of the three corpora) step replays with the step
player on one server with the real corpora, and the server's CPU time per step and peak resident memory are
measured.

    python benchmarks/sessions.py [--shared ../shared/data] [--sessions 10] [--steps 8]

Each session presses → in the player, waits until the player shows the next step and the run its report starts
is over (the URL names the step, the page is idle: a reader reading), and checks that its URL names its own
dialog. Prints one JSON object. Targets: CPU ≤ 0.05 s per step (issue 47: a step the browser has should cost
the server almost nothing; issue #15's 0.08 s before the player), peak RSS ≤ 0.9 GB, no error, and no session
ever shown another session's state. Only 127.0.0.1 is contacted; every loop is bounded.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from browser import ROOT, cpu_seconds, launch_options, peak_rss_mb, real_corpora_env, serve, wait_usable

# (corpus, dialog, extra query) — dialogs long enough for the steps asked for
REPLAYS = [
    ("codraw", "test_00009", ""),
    ("gos", "61bcbb1fe90a3cc04fda05de", "&round=1"),
    ("minecraft", None, ""),  # the first game of the shared subset, found at start
]


def first_minecraft_game(shared: Path) -> str:
    games = sorted(p.parent.name for p in (shared / "minecraft").rglob("postprocessed-observations.json"))
    if not games:
        raise SystemExit(f"no Minecraft game under {shared / 'minecraft'}: pass --shared <the shared data folder>")
    return games[0]


PLAYER = "[data-step-player]"
# the step drawn, the URL names it (the report's run has put it there) and the page is idle
REPORTED = ("s => document.querySelector('[data-step-player]').dataset.step === s"
            " && new URLSearchParams(location.search).get('turn') === s && (() => {"
            " const app = document.querySelector('[data-testid=\"stApp\"]');"
            " return app && app.dataset.testConnectionState === 'CONNECTED' && app.dataset.testScriptState === 'notRunning'; })()")


async def open_replay(context, url: str):
    page = await context.new_page()
    page.set_default_timeout(120_000)
    await page.goto(url)
    await page.wait_for_selector(f"{PLAYER}[data-step]", timeout=180_000)
    await wait_usable(page, timeout=180_000)
    return page


async def step_session(page, index: int, corpus: str, dialog: str, steps: int, errors: list[str]) -> int:
    """Press → ``steps`` times in the player (← from the last step); after each, the step must be drawn, the URL
    must name it and this session's dialog, and the report's run must be over."""
    done = 0
    current = 1
    last = int(await page.get_attribute(f"{PLAYER} .sp-timeline", "aria-valuemax"))
    for _ in range(steps):
        key, expected = ("ArrowRight", current + 1) if current < last else ("ArrowLeft", current - 1)
        await page.keyboard.press(key)
        try:
            await page.wait_for_function(REPORTED, arg=str(expected), timeout=60_000)
            await wait_usable(page)
        except Exception as exc:  # noqa: BLE001 - reported, not raised: the other sessions go on
            errors.append(f"session {index} ({corpus}): step {expected} did not arrive: {exc}")
            return done
        query = await page.evaluate("() => Object.fromEntries(new URL(location.href).searchParams)")
        if query.get("dialog") != dialog or query.get("corpus") != corpus:
            errors.append(f"session {index}: expected {corpus}/{dialog}, page shows {query}")
        if await page.locator("[data-testid='stException']").count():
            errors.append(f"session {index} ({corpus}): exception on step {expected}")
        current = expected
        done += 1
    return done


async def run(args) -> dict:
    from playwright.async_api import async_playwright

    replays = [(c, d or first_minecraft_game(args.shared), q) for c, d, q in REPLAYS]
    server = serve(extra_env=real_corpora_env(args.shared))
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(**launch_options())
            # Warm the server as a lab's server is: every corpus parsed, cached and each replay shown once, its
            # player's window of steps with it (the steps around the first that the player asks for once drawn).
            warm = await browser.new_context()
            for corpus, dialog, extra in replays:
                page = await open_replay(warm, f"{server.url}/replay?corpus={corpus}&dialog={dialog}&turn=1{extra}")
                last = int(await page.get_attribute(f"{PLAYER} .sp-timeline", "aria-valuemax"))
                await page.wait_for_function("n => Number(document.querySelector('[data-step-player]').dataset.loaded) >= n",
                                             arg=min(last, 7), timeout=180_000)
                await page.close()
            await warm.close()

            contexts, pages, plan = [], [], []
            for index in range(args.sessions):
                corpus, dialog, extra = replays[index % len(replays)]
                context = await browser.new_context(viewport={"width": 1400, "height": 1000})
                contexts.append(context)
                plan.append((index, corpus, dialog))
                pages.append(open_replay(context, f"{server.url}/replay?corpus={corpus}&dialog={dialog}&turn=1{extra}"))
            pages = await asyncio.gather(*pages)

            errors: list[str] = []
            cpu_before = cpu_seconds(server.process.pid)
            started = time.perf_counter()
            done = await asyncio.wait_for(asyncio.gather(*(
                step_session(page, index, corpus, dialog, args.steps, errors)
                for page, (index, corpus, dialog) in zip(pages, plan))), timeout=args.timeout)
            wall = time.perf_counter() - started
            cpu = cpu_seconds(server.process.pid) - cpu_before
            peak = peak_rss_mb(server.process.pid)
            for context in contexts:
                await context.close()
            await browser.close()
    finally:
        server.stop()
    steps = sum(done)
    return {
        "sessions": args.sessions, "steps": steps, "wall_s": round(wall, 2),
        "server_cpu_s": round(cpu, 2), "cpu_per_step_s": round(cpu / steps, 4) if steps else None,
        "cpu_per_step_target_s": 0.05, "server_peak_rss_mb": round(peak), "peak_rss_target_mb": 900,
        "errors": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=600, help="seconds the stepping may take in all")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "sessions.json")
    args = parser.parse_args()
    results = asyncio.run(run(args))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
