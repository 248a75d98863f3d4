"""Model runs in a real browser: a replay deep link with &run= shows the model beside the human and the
target, switching the run keeps the URL in step, and the Runs page renders its tables."""
from __future__ import annotations

import pytest

from .conftest import wait_for_app

pytestmark = pytest.mark.e2e


def _dialog_with_rounds(tmp_path_factory, rounds: int = 3) -> str:
    from data_access.corpora import load_path

    dialogs = load_path("codraw", None, cache_root=tmp_path_factory.mktemp("lookup")).dialogs
    return str(dialogs[dialogs["n_turns"] >= rounds]["dialog_id"].iloc[0])


def test_a_replay_link_with_a_run_shows_model_human_and_target(demo_app, page, tmp_path_factory):
    dialog = _dialog_with_rounds(tmp_path_factory)
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog={dialog}&turn=3&run=noisy")
    wait_for_app(page)
    page.get_by_text("Marked against the target:").wait_for()
    body = page.inner_text("body")
    assert "Model: noisy after round 3" in body and "Human Drawer after round 3" in body and "Target" in body
    assert page.locator('[data-testid="stImage"]').count() >= 5  # the section's two, the panel's three
    assert "run=noisy" in page.url and "turn=3" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    # switch the run: the URL follows and the model canvas is the other run's
    page.locator('[data-testid="stSelectbox"]').filter(has_text="beside the humans").locator("input").click()
    page.get_by_role("option", name="baseline").click()
    page.wait_for_function("() => /[?&]run=baseline(&|$)/.test(window.location.search)", timeout=30_000)
    wait_for_app(page)
    assert "Model: baseline after round 3" in page.inner_text("body")


def test_the_runs_page_renders_for_minecraft(demo_app, page):
    page.goto(f"{demo_app.url}/runs?corpus=minecraft")
    wait_for_app(page)
    page.get_by_text("Open a slice's dialogs").wait_for()
    page.locator('[data-testid="stDataFrame"]').nth(3).wait_for()
    body = page.inner_text("body")
    assert "Runs × metrics" in body and "Slice finder" in body and "paired bootstrap interval" in body
    assert page.locator('[data-testid="stException"]').count() == 0
