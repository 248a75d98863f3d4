"""The step player (ui/replay/step_player.py) in Chromium on each demo corpus: keys, the buttons, dragging the
timeline, the URL's turn= following each step (one history entry per step: Back undoes one), and the round
crossing of A Game Of Sorts. Every wait is on the player's data-step contract or on the URL, never a pause."""
from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from .conftest import wait_for_app

pytestmark = pytest.mark.e2e

PLAYER = "[data-step-player]"
OPENINGS = {
    "codraw": "corpus=codraw&turn=2",
    "gos": "corpus=gos&round=1&turn=2",
    "minecraft": "corpus=minecraft&turn=2",
}


def shown(page) -> int:
    return int(page.get_attribute(PLAYER, "data-step") or 0)


def wait_shown(page, step: int) -> None:
    page.wait_for_function("s => { const r = document.querySelector('[data-step-player]'); return r && r.dataset.step === s; }",
                           arg=str(step), timeout=60_000)


def wait_url(page, name: str, value: str) -> None:
    page.wait_for_function("([n, v]) => new URLSearchParams(location.search).get(n) === v", arg=[name, value], timeout=60_000)


def url_value(page, name: str):
    return parse_qs(urlparse(page.url).query).get(name, [None])[0]


def open_player(page, app, corpus: str) -> int:
    page.goto(f"{app.url}/replay?{OPENINGS[corpus]}")
    wait_shown(page, 2)
    wait_for_app(page)
    return int(page.get_attribute(f"{PLAYER} .sp-timeline", "aria-valuemax"))


@pytest.mark.parametrize("corpus", sorted(OPENINGS))
def test_keys_step_in_the_browser_and_the_url_and_back_follow(page, demo_app, corpus):
    n_steps = open_player(page, demo_app, corpus)
    assert n_steps >= 4
    page.evaluate("() => { document.querySelector('[data-step-player]').__opened = true; }")
    page.keyboard.press("ArrowRight")
    wait_shown(page, 3)  # drawn by the player itself, whatever the server is doing
    wait_url(page, "turn", "3")
    wait_for_app(page)
    page.keyboard.press("ArrowRight")
    wait_shown(page, 4)
    wait_url(page, "turn", "4")
    wait_for_app(page)
    assert "Link to exactly this state" in page.inner_text("body")

    page.go_back()  # one history entry per step: Back undoes the last one
    wait_url(page, "turn", "3")
    wait_shown(page, 3)
    wait_for_app(page)
    page.go_forward()
    wait_url(page, "turn", "4")
    wait_shown(page, 4)
    wait_for_app(page)

    page.keyboard.press("Home")
    wait_shown(page, 1)
    wait_url(page, "turn", "1")
    wait_for_app(page)
    page.keyboard.press("End")
    wait_shown(page, n_steps)
    wait_url(page, "turn", str(n_steps))
    wait_for_app(page)
    page.keyboard.press("Home")
    wait_shown(page, 1)
    wait_url(page, "turn", "1")
    wait_for_app(page)
    page.keyboard.press("ArrowLeft")  # before the first step: nothing to go to (no earlier round at round 1)
    assert page.evaluate("() => new Promise(r => setTimeout(() => r(document.querySelector('[data-step-player]').dataset.step), 0))") == "1"
    assert url_value(page, "turn") == "1"
    # the same player throughout: one built anew (moved in the page) loses its steps, pictures and a key pressed
    assert page.evaluate("() => document.querySelector('[data-step-player]').__opened === true")


@pytest.mark.parametrize("corpus", sorted(OPENINGS))
def test_dragging_the_timeline_scrubs_and_reports_where_it_stopped(page, demo_app, corpus):
    n_steps = open_player(page, demo_app, corpus)
    box = page.locator(f"{PLAYER} .sp-timeline").bounding_box()
    y = box["y"] + box["height"] / 2

    def x_of(step: int) -> float:
        return box["x"] + (step - 0.5) * box["width"] / n_steps

    seen = []
    page.mouse.move(x_of(1), y)
    page.mouse.down()
    for step in range(1, n_steps + 1):
        page.mouse.move(x_of(step), y)
        seen.append(int(page.get_attribute(f"{PLAYER} .sp-timeline", "aria-valuenow")))
    target = max(3, n_steps - 1)
    page.mouse.move(x_of(target), y)
    page.mouse.up()
    assert seen == list(range(1, n_steps + 1))  # every step passed over was shown on the way
    wait_shown(page, target)
    wait_url(page, "turn", str(target))  # reported once, where the drag stopped
    wait_for_app(page)


def test_the_buttons_step_and_the_transcript_marks_the_step(page, demo_app):
    open_player(page, demo_app, "codraw")
    page.click(f"{PLAYER} .sp-next")
    wait_shown(page, 3)
    current = page.locator(f"{PLAYER} .sp-line.sp-current")
    assert current.count() >= 1 and all(t == "3" for t in current.evaluate_all("ls => ls.map(l => l.dataset.turn)"))
    assert page.locator(f"{PLAYER} .sp-line[data-turn='4']").first.is_hidden()  # later rounds hidden by default
    page.click(f"{PLAYER} .sp-prev")
    wait_shown(page, 2)
    wait_url(page, "turn", "2")


def test_a_game_of_sorts_round_goes_on_into_the_next_round(page, demo_app):
    n_steps = open_player(page, demo_app, "gos")
    page.keyboard.press("End")
    wait_shown(page, n_steps)
    wait_url(page, "turn", str(n_steps))
    wait_for_app(page)
    page.keyboard.press("ArrowRight")  # past the round's last step: the next round, from its first step
    wait_url(page, "round", "2")
    wait_shown(page, 1)
    wait_for_app(page)
    assert url_value(page, "turn") in (None, "1")
    page.keyboard.press("ArrowLeft")  # and back: the previous round at its last step
    wait_url(page, "round", "1")
    wait_shown(page, n_steps)
