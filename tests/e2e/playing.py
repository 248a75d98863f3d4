"""Playing on the Play page as a person does, for the browser tests (tests/e2e/test_play_browser.py on the demo
corpora, test_play_shared.py on ../shared): mouse and keyboard only, waiting on the page's contract (``data-step``
moves once the next step is drawn, ``data-play-score`` is the score shown) and on the app's run mark, never on
sleeps. The human's own moves are read from the corpus's frames here, not asked of the app, and a play's run file
is scored by the corpus's run scoring independently of the page."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from .conftest import wait_for_app

PLAY = "[data-play]"


def open_play(page, url: str, corpus: str, dialog: str, name: str = "ann", extra: str = "") -> None:
    """The Play page on ``dialog``, playing as ``name`` (the local user's name, in the URL as a coder's is): started
    when there is no play under way, resumed when there is."""
    page.goto(f"{url}/play?corpus={corpus}&dialog={dialog}&coder={name}{extra}")
    wait_for_app(page)
    start = page.locator(".st-key-play_start button")
    if start.count():
        start.click()
        wait_for_app(page)
    page.locator(PLAY).wait_for()


def step_of(page) -> int:
    return int(page.locator(PLAY).get_attribute("data-step"))


def wait_step(page, step: int) -> None:
    page.wait_for_selector(f'{PLAY}[data-step="{step}"]', timeout=60_000)


def score_of(page) -> Optional[float]:
    value = page.locator("[data-play-score]").get_attribute("data-play-score")
    return float(value) if value else None


def done(page) -> None:
    """Press the step's Done and wait until the next step is drawn (its score with it)."""
    step = step_of(page)
    page.locator("[data-play-done]").click()
    wait_step(page, step + 1)
    wait_for_app(page)


def exported(page, folder: Path) -> Path:
    """The play's run file, downloaded as a person downloads it."""
    with page.expect_download() as download:
        page.locator("[data-play-export]").click()
    path = folder / download.value.suggested_filename
    download.value.save_as(path)
    return path


def independent_score(loaded, run_file: Path, dialog_id: str, cache: Path) -> float:
    """The dialog's score in the run file, as the Runs page reads and scores any run (the corpus's RunScoring)."""
    from data_access.contract import scoring_of
    from data_access.runs import load_run

    run = load_run(loaded, run_file, cache_root=cache)
    assert len(run.skipped) == 0 and len(run.unmatched) == 0, (run.skipped, run.unmatched)
    scores = scoring_of(loaded).dialog_scores(run)
    return float(scores.loc[scores["dialog_id"] == dialog_id, "score"].iloc[0])


# ------------------------------------------------------------------------------------------------- Minecraft

def minecraft_human_actions(loaded, game: str) -> list[list[str]]:
    """Per BAP sample of ``game``, the human Builder's actions as typed commands, each logged step's removals first
    (the order in which they can be made one after the other)."""
    samples = loaded.frames["bap_samples"]
    samples = samples[samples["game"] == game].sort_values("sample_id")
    steps = []
    for text in samples["next_actions"]:
        actions = json.loads(text)
        ordered = sorted(actions, key=lambda a: (a[5], a[0] != "pickup"))
        steps.append([f"place {a[4]} {a[1]} {a[2]} {a[3]}" if a[0] == "putdown" else f"remove {a[1]} {a[2]} {a[3]}"
                      for a in ordered])
    return steps


def type_commands(page, commands: list[str]) -> None:
    field = page.locator("[data-play-command]")
    for command in commands:
        field.fill(command)
        field.press("Enter")
        assert page.locator(".mc-feedback").inner_text().startswith(command), page.locator(".mc-feedback").inner_text()


def place_and_remove_with_the_mouse(page) -> None:
    """Click a block onto the cell under the pointer, then take it away with a right-click: the cell the readout
    names is built on, and removed again (no net change, so the step's score is the human's)."""
    canvas = page.locator("[data-play-canvas]")
    box = canvas.bounding_box()
    readout = page.locator(".mc-readout")
    for dx, dy in ((0, 80), (60, 100), (-60, 110), (0, 140)):
        x, y = box["x"] + box["width"] / 2 + dx, box["y"] + box["height"] / 2 + dy
        page.mouse.move(x, y)
        target = readout.get_attribute("data-place")
        if target:
            break
    assert target, "no cell to build on under the pointer"
    before = page.locator(".mc-actions li").count()
    page.mouse.click(x, y)
    items = page.locator(".mc-actions li")
    assert items.count() == before + 1 and items.nth(before).inner_text().endswith(target)
    assert readout.get_attribute("data-remove") == target  # the new block is what the pointer is on now
    page.mouse.click(x, y, button="right")
    assert items.count() == before + 2 and items.nth(before + 1).inner_text() == f"remove {target}"
