"""The Play page's felt speed (issue 49), on the full corpora in headless Chromium (1280×720) against a warm server:

- **a move drawn**: the moves a person makes between two Dones (CoDraw: a piece dragged from the palette and across
  the canvas, flipped, resized; Minecraft: blocks placed and removed with the mouse, the grid turned; A Game Of
  Sorts: an image chosen), each timed in the page by the game itself (``shell.measure``, kept in the play area's
  trace): from the input event's timestamp to the start of the next frame, after the game's handler has redrawn.
  Target: p90 ≤ 16 ms (drawn in the next frame), and no message to the server while moving (the websocket frames
  the page sends and the requests it makes during the moves, counted: 0).
- **Done → score**: "Done" pressed until the next step is drawn with its score, timed in the page from the shell's
  own trace (``done`` to the ``update`` of the next step); the play's moves are scored whole at each step, so the
  steps are played in order from the first, the human's own moves (Minecraft's commands, A Game Of Sorts' locks)
  or a piece more a round (CoDraw, on its longest dialog). Target: p90 ≤ 300 ms.
- **the server's CPU a Done**: the server process's CPU time (``/proc``) from Done pressed until the next step is
  drawn, a figure the machine's load hardly moves.

Beside them, in the same run, the baselines of a loaded or slow machine: a bare Streamlit button's rerun
(``benchmarks/blank_button.py``, clicked as ``clicks.py`` clicks it) beside Done, and the same input-to-next-frame
latency of a pointer move that draws nothing (a listener on that bare page) beside a move, and of a click that draws
nothing (a pointer move waits for the next frame to be dispatched, a click's pointerup does not).

With ``--baseline-root`` another checkout is served beside this one (its own store) and played step by step with it,
the order alternating (``baseline`` in the results): an A/B in one run.

    python benchmarks/play.py [--shared DIR] [--steps 12] [--workdir DIR] [--baseline-root DIR]

Writes ``benchmarks/results/play.json`` (read by ``benchmarks/report.py``). Only 127.0.0.1 is contacted; every loop
is bounded in count and time.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from browser import ROOT, CheckoutServer, cpu_seconds, launch_options, real_corpora_env
from player import IDLE as BLANK_IDLE
from player import blank_click, summary

TIMEOUT_MS = 60_000
FRAME_TARGET_MS = 16.0
DONE_TARGET_MS = 300.0
IDLE = """() => { const app = document.querySelector('[data-testid="stApp"]');
  return app && app.dataset.testConnectionState === 'CONNECTED' && app.dataset.testScriptState === 'notRunning'; }"""
TRACE = "() => (document.querySelector('[data-play]').__trace || []).slice()"


def choose(shared: Path, workdir: Path) -> tuple[dict[str, str], dict[str, dict]]:
    """The server's environment and, per corpus, the dialog played and the human's moves the bench plays."""
    env = {**real_corpora_env(shared), "DIALOGUE_CACHE_DIR": str(workdir / "cache")}
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    from data_access.corpora import load_configured
    from tests.e2e.playing import gos_pair_ranks, minecraft_human_actions

    chosen: dict[str, dict] = {}
    codraw = load_configured("codraw")
    dialogs = codraw.dialogs[codraw.dialogs["target_scene"].notna()]
    chosen["codraw"] = {"dialog": str(dialogs.sort_values(["n_rounds", "dialog_id"], ascending=[False, True])
                                      ["dialog_id"].iloc[0])}
    gos = load_configured("gos")
    interaction = str(sorted(gos.dialogs["dialog_id"])[0])
    chosen["gos"] = {"dialog": interaction, "locks": [i for r in gos_pair_ranks(gos, interaction) for i in r]}
    minecraft = load_configured("minecraft")
    sizes = minecraft.frames["bap_samples"].groupby("game").size()
    game = str(sizes.sort_values(ascending=False, kind="stable").index[0])
    chosen["minecraft"] = {"dialog": game, "commands": minecraft_human_actions(minecraft, game)}
    return env, chosen


class Wire:
    """What the page sends the server: websocket frames and requests, counted."""

    def __init__(self, page):
        self.sent = 0
        page.on("request", lambda request: self._count())
        page.on("websocket", lambda socket: socket.on("framesent", lambda payload: self._count()))

    def _count(self) -> None:
        self.sent += 1


def open_play(browser, url: str, name: str, dialog: str):
    """A new tab on the Play page of ``dialog``, a play started (as tests/e2e's helper starts one) and drawn."""
    from tests.e2e.playing import open_play as start_play

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    wire = Wire(page)
    start_play(page, url, name, dialog, name="bench")
    page.wait_for_selector("[data-play][data-step]", timeout=TIMEOUT_MS)
    page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    return page, wire


# The latency of a pointer move to the next frame when the move draws nothing: the floor of ``shell.measure``.
ARM_FRAMES = """() => { window.__frames = [];
  document.addEventListener('pointermove', (event) => { const began = event.timeStamp;
    requestAnimationFrame(() => window.__frames.push(performance.now() - began)); }, {capture: true}); }"""


def bare_frames(page, moves: int = 60) -> list[float]:
    page.evaluate(ARM_FRAMES)
    for i in range(moves):
        page.mouse.move(100 + 5 * (i % 40), 300 + 3 * (i % 20))
    page.wait_for_function(f"() => window.__frames.length >= {moves}", timeout=TIMEOUT_MS)
    return page.evaluate("() => window.__frames")


# The same for a click that draws nothing (on the bare page's empty lower part), clicked as the games are clicked:
# a pointer move is dispatched with the next frame, a click's pointerup at once, so the two floors differ.
ARM_CLICKS = """() => { window.__clicks = [];
  document.addEventListener('pointerup', (event) => { const began = event.timeStamp;
    requestAnimationFrame(() => window.__clicks.push(performance.now() - began)); }, {capture: true}); }"""


def bare_click_frames(page, clicks: int = 40) -> list[float]:
    page.evaluate(ARM_CLICKS)
    for i in range(clicks):
        page.mouse.click(500 + 7 * (i % 40), 600 + 2 * (i % 20))
    page.wait_for_function(f"() => window.__clicks.length >= {clicks}", timeout=TIMEOUT_MS)
    return page.evaluate("() => window.__clicks")


def frames_since(page, count: int) -> list[list]:
    """The moves the game traced after its first ``count`` trace entries: (event type, handler ms, frame ms)."""
    return [entry[2:5] for entry in page.evaluate(TRACE)[count:] if entry[1] == "frame"]


def done(page) -> tuple[float, float]:
    """Press Done; the milliseconds (in the page) until the next step was drawn with its score, and of those the
    drawing (from the page's answer arriving to the step drawn)."""
    step = int(page.get_attribute("[data-play]", "data-step"))
    marker = len(page.evaluate(TRACE))
    page.locator("[data-play-done]").click()
    page.wait_for_selector(f'[data-play][data-step="{step + 1}"]', timeout=TIMEOUT_MS)
    page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    trace = page.evaluate(TRACE)[marker:]
    began = next(entry[0] for entry in trace if entry[1] == "done")
    drawn = next(entry[0] for entry in trace if entry[1] == "update" and entry[2] == step + 1)
    arrived = next(entry[0] for entry in trace if entry[1] == "data" and entry[2] == step + 1)
    return drawn - began, drawn - arrived


def codraw_moves(page, round_number: int) -> None:
    """A piece more: dragged from the palette, across the canvas, flipped and sized, as a Drawer does."""
    from tests.e2e.playing import drag_from_palette

    pieces = page.locator(".cd-palette [data-clipart]")
    png = pieces.nth((round_number * 7) % pieces.count()).get_attribute("data-clipart")
    drag_from_palette(page, png, 60 + 25 * (round_number % 16), 120 + 12 * (round_number % 20))
    box = page.locator("[data-play-canvas]").bounding_box()
    node = page.locator(f'[data-play-canvas] .cd-item[data-clipart="{png}"]')
    x, y = int(node.get_attribute("data-x")), int(node.get_attribute("data-y"))
    page.mouse.move(box["x"] + x + 0.5, box["y"] + y + 0.5)
    page.mouse.down()
    page.mouse.move(box["x"] + x + 40.5, box["y"] + y + 20.5, steps=20)
    page.mouse.up()
    for key in ("f", "2", "3", "1", "ArrowRight", "ArrowDown"):
        page.keyboard.press(key)


def minecraft_moves(page, commands: list[str]) -> None:
    """Blocks placed and removed with the mouse (no net change), the grid turned, then the human's actions typed."""
    canvas = page.locator("[data-play-canvas]")
    canvas.scroll_into_view_if_needed()  # a Done and the typed commands scroll the page: the turn's drag misses else
    box = canvas.bounding_box()
    readout = page.locator(".mc-readout")
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    for dx, dy in ((0, 80), (60, 100), (-60, 110), (0, 140), (30, 60), (-30, 90)):
        page.mouse.move(cx + dx, cy + dy)
        if readout.get_attribute("data-place"):
            page.mouse.click(cx + dx, cy + dy)
            page.mouse.click(cx + dx, cy + dy, button="right")
    page.mouse.move(cx - 100, cy - 100)
    page.mouse.down()
    page.mouse.move(cx - 40, cy - 90, steps=10)
    page.mouse.up()
    field = page.locator("[data-play-command]")
    for command in commands:
        field.fill(command)
        field.press("Enter")


def play(sides: dict, name: str, info: dict, steps: int) -> dict[str, dict]:
    """``steps`` steps of ``name`` on each side (its page, wire and server process), a step on one side then the same
    step on the other (the order alternating), so that a loaded machine's moments fall on both alike."""
    log: dict[str, dict] = {side: {"frames": [], "dones": [], "drawing": [], "cpu": [], "sent": 0} for side in sides}
    for number in range(1, steps + 1):
        order = list(sides) if number % 2 else list(reversed(sides))
        for side in order:
            page, wire, pid = sides[side]
            mine = log[side]
            marker = len(page.evaluate(TRACE))
            before = wire.sent
            if name == "codraw":
                codraw_moves(page, number)
            elif name == "gos":
                page.locator(f'[data-image-id="{info["locks"][number - 1]}"]').click()
            else:
                minecraft_moves(page, info["commands"][number - 1])
            mine["sent"] += wire.sent - before
            mine["frames"] += frames_since(page, marker)
            cpu = cpu_seconds(pid)
            whole, drawn = done(page)
            mine["cpu"].append(1000 * (cpu_seconds(pid) - cpu))
            mine["dones"].append(whole)
            mine["drawing"].append(drawn)
    return {side: _row(info, mine) for side, mine in log.items()}


def _row(info: dict, mine: dict) -> dict:
    frames = mine["frames"]
    drawn = summary([frame for _, _, frame in frames])
    by_type = {kind: {"frame": summary([f for k, _, f in frames if k == kind]),
                      "handler": summary([h for k, h, _ in frames if k == kind])} for kind in sorted({f[0] for f in frames})}
    return {"dialog": info["dialog"], "moves_drawn": drawn, "by_event": by_type, "sent_while_moving": mine["sent"],
            "done_to_score": summary(mine["dones"]), "done_drawing": summary(mine["drawing"]),
            "server_cpu_per_done": summary(mine["cpu"]),
            "met_moves": bool(frames) and drawn["p90_ms"] <= FRAME_TARGET_MS and mine["sent"] == 0,
            "met_done": summary(mine["dones"])["p90_ms"] <= DONE_TARGET_MS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_shared = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
                          ROOT.parent / "shared" / "data")
    parser.add_argument("--shared", type=Path, default=default_shared)
    parser.add_argument("--steps", type=int, default=12, help="steps played per corpus (at least 10 for a p90)")
    parser.add_argument("--only", default="codraw,gos,minecraft", help="the corpora played, comma-separated")
    parser.add_argument("--workdir", type=Path, default=None, help="keeps the Parquet cache for the next run")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "play.json")
    parser.add_argument("--baseline-root", type=Path, default=None,
                        help="another checkout, served beside this one (its own store) and played step by step with it")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="play-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "notes.sqlite3").unlink(missing_ok=True)  # every run plays from the first step
    env, chosen = choose(args.shared, workdir)
    server = CheckoutServer(ROOT, "server.py", env, workdir)
    servers = {"app": server}
    if args.baseline_root:
        (workdir / "baseline").mkdir(exist_ok=True)
        (workdir / "baseline" / "notes.sqlite3").unlink(missing_ok=True)
        servers["baseline"] = CheckoutServer(args.baseline_root, "server.py", env, workdir / "baseline")
    blank_server = CheckoutServer(ROOT, "benchmarks/blank_button.py", {}, workdir)
    results: dict = {"targets": {"frame_p90_ms": FRAME_TARGET_MS, "done_p90_ms": DONE_TARGET_MS}, "corpora": {}}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(**launch_options())
            blank = browser.new_page(viewport={"width": 1280, "height": 720})
            blank.goto(blank_server.url)
            blank.wait_for_function(BLANK_IDLE, timeout=TIMEOUT_MS)
            blank_click(blank)  # the first click warms the page
            clicks: list[float] = []
            for name, info in chosen.items():
                if name not in args.only.split(","):
                    continue
                sides = {side: (*open_play(browser, one.url, name, info["dialog"]), one.process.pid)
                         for side, one in servers.items()}
                steps = min(args.steps, len(info.get("locks") or info.get("commands") or range(args.steps)))
                for side, row in play(sides, name, info, steps).items():
                    (results if side == "app" else results.setdefault("baseline", {"corpora": {}}))["corpora"][name] = row
                for page, _wire, _pid in sides.values():
                    page.close()
                clicks += [blank_click(blank) for _ in range(steps)]  # the baseline's clicks beside the corpus's
            results["blank_click"] = summary([c for c in clicks if c >= 0])
            results["bare_frame"] = summary(bare_frames(blank))
            results["bare_click_frame"] = summary(bare_click_frames(blank))
            browser.close()
    finally:
        for one in servers.values():
            one.stop()
        blank_server.stop()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"baselines: a bare button's rerun median {results['blank_click'].get('median_ms')} ms, p90 "
          f"{results['blank_click'].get('p90_ms')} ms; a move that draws nothing to the next frame: median "
          f"{results['bare_frame'].get('median_ms')} ms, p90 {results['bare_frame'].get('p90_ms')} ms; a click that draws "
          f"nothing: median {results['bare_click_frame'].get('median_ms')} ms, p90 "
          f"{results['bare_click_frame'].get('p90_ms')} ms")
    for side, name, row in [("", n, r) for n, r in results["corpora"].items()] + \
            [("baseline ", n, r) for n, r in results.get("baseline", {}).get("corpora", {}).items()]:
        moves, dones, cpu = row["moves_drawn"], row["done_to_score"], row["server_cpu_per_done"]
        print(f"{side}{name:10} server CPU a Done: median {cpu.get('median_ms')} ms, p90 {cpu.get('p90_ms')} ms; "
              f"a move drawn: median {moves.get('median_ms')} ms, p90 {moves.get('p90_ms')} ms over "
              f"{moves.get('n')} moves, {row['sent_while_moving']} sent while moving "
              f"({'met' if row['met_moves'] else 'NOT met'}); Done → score: median {dones.get('median_ms')} ms, "
              f"p90 {dones.get('p90_ms')} ms ({'met' if row['met_done'] else 'NOT met'}; drawing it: median "
              f"{row['done_drawing'].get('median_ms')} ms)")


if __name__ == "__main__":
    main()
