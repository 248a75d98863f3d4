"""Worst cases first in a real browser: from the Runs page's "Step through these in the Replay" to the Replay
at the first case's worst round, then "next case ▶" to the second, the list kept in the address bar."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from .conftest import wait_for_app

pytestmark = pytest.mark.e2e


def _params(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def _case_line(page, number: int):
    return page.locator('[data-testid="stMarkdownContainer"]').filter(has_text=f"Case {number} of").first


def test_stepping_from_the_runs_page_through_the_worst_cases_in_the_replay(demo_app, page):
    page.set_viewport_size({"width": 1280, "height": 720})  # the smallest screen the workbench is laid out for
    page.goto(f"{demo_app.url}/runs?corpus=codraw")
    wait_for_app(page)
    page.get_by_role("tab", name="Worst cases first").click()
    link = page.get_by_role("link", name="Step through these in the Replay")
    link.wait_for()
    pages_before = len(page.context.pages)
    link.click()
    page.wait_for_url("**/replay?**", timeout=30_000)
    wait_for_app(page)
    assert len(page.context.pages) == pages_before  # the same tab
    first = _params(page.url)
    cases = first["cases"].split(",")
    assert first["case"] == "1" and first["run"] == "baseline" and first["dialog"] == cases[0] and len(cases) >= 2
    line = _case_line(page, 1)
    line.wait_for()
    assert cases[0] in line.inner_text()
    page.get_by_text(f"Model: baseline after round {first['turn']}").first.wait_for()
    # the model's picture beside the humans' in the step player, all on the first screen at 1280x720 (issue 47)
    model = page.locator("[data-step-player] figure").filter(has_text=f"Model (baseline) after round {first['turn']}")
    model.wait_for()
    pictures = [model.locator("img").bounding_box(), *(page.locator("[data-step-player] .sp-slot img").nth(k).bounding_box()
                                                      for k in range(2))]
    for box in pictures:
        assert box["y"] >= 0 and box["y"] + box["height"] <= 720 and box["x"] + box["width"] <= 1280, pictures

    page.get_by_role("button", name="next case ▶").click()
    page.wait_for_function("() => new URLSearchParams(window.location.search).get('case') === '2'", timeout=30_000)
    wait_for_app(page)
    second = _params(page.url)
    assert second["dialog"] == cases[1] and second["cases"] == first["cases"] and second["run"] == "baseline"
    _case_line(page, 2).wait_for()
    assert cases[1] in _case_line(page, 2).inner_text()
    page.get_by_text(f"Model: baseline after round {second['turn']}").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
