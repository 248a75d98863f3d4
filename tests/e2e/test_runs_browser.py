"""Model runs in a real browser: a replay deep link with &run= shows the model beside the human and the
target, switching the run keeps the URL in step, and the Runs page renders its tables."""
from __future__ import annotations

import pytest

from .conftest import wait_for_app

pytestmark = pytest.mark.e2e


def _dialog_with_rounds(tmp_path_factory, rounds: int = 3) -> str:
    from data_access.corpora import load_path

    dialogs = load_path("codraw", None, cache_root=tmp_path_factory.mktemp("lookup")).dialogs
    return str(dialogs[dialogs["n_steps"] >= rounds]["dialog_id"].iloc[0])


def test_a_replay_link_with_a_run_shows_model_human_and_target(demo_app, page, tmp_path_factory):
    dialog = _dialog_with_rounds(tmp_path_factory)
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog={dialog}&turn=3&run=noisy")
    wait_for_app(page)
    page.get_by_text("Marked against the target:").wait_for()
    # The pictures and their captions stream in after the text around them: wait for them, not the first.
    page.get_by_text("Model: noisy after round 3").first.wait_for()
    page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stImage\"]').length >= 3"
                           " && document.querySelectorAll('[data-step-player][data-step] .sp-slot img').length >= 2",
                           timeout=30_000)  # the panel's three, the step player's two
    body = page.inner_text("body")
    assert "Model: noisy after round 3" in body and "Human Drawer after round 3" in body and "Target" in body
    assert "run=noisy" in page.url and "turn=3" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    # switch the run: the URL follows and the model canvas is the other run's
    # Typed into the focused selectbox (a rerun of the page's other panels may close an opened list)
    page.locator('[data-testid="stSelectbox"]').filter(has_text="beside the humans").locator("input").click()
    page.keyboard.type("baseline")
    page.keyboard.press("Enter")
    page.wait_for_function("() => /[?&]run=baseline(&|$)/.test(window.location.search)", timeout=30_000)
    wait_for_app(page)
    page.get_by_text("Model: baseline after round 3").first.wait_for()


def test_the_runs_page_renders_for_minecraft(demo_app, page):
    page.goto(f"{demo_app.url}/runs?corpus=minecraft")
    wait_for_app(page)
    page.get_by_text("Holm-corrected across runs").wait_for()  # it opens on the leaderboard
    assert "Open a slice's dialogs" not in page.inner_text("body")  # the other views are not drawn
    page.get_by_role("tab", name="Slice finder").click()
    page.get_by_text("Open a slice's dialogs").wait_for()
    wait_for_app(page)
    page.locator('[data-testid="stDataFrame"]').nth(1).wait_for()  # the slices and the chosen slice's samples
    assert "view=Slice+finder" in page.url or "view=Slice%20finder" in page.url  # the view is a link
    page.get_by_role("tab", name="Compare two runs").click()
    page.get_by_text("paired bootstrap interval").first.wait_for()
    body = page.inner_text("body")
    assert "Runs × metrics" in body and "Slice finder" in body
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_run_uploaded_in_the_browser_is_scored_and_listed(demo_app, page, tmp_path):
    from data_access.corpora import load_path

    messages = load_path("gos", None, cache_root=tmp_path / "lookup").frames["messages"]
    lines = [{"interaction_id": r.interaction_id, "round_number": int(r.round), "message_number": int(r.message_number),
              "image_ids": list(r.image_ids)} for r in messages.itertuples(index=False)]
    run = tmp_path / "my-resolver.jsonl"
    import json

    run.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"interaction_id": "nope", "round_number": 1, "message_number": 1, "image_ids": []}\n')
    page.goto(f"{demo_app.url}/runs?corpus=gos")
    wait_for_app(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(run))
    page.get_by_text("Saved as my-resolver.jsonl").wait_for(timeout=60_000)
    wait_for_app(page)
    page.get_by_text("Run “my-resolver”: 1 unmatched row(s)").wait_for(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    # the uploaded run is a run of the corpus now: a replay link with it opens with it selected
    page.goto(f"{demo_app.url}/replay?corpus=gos&dialog={lines[0]['interaction_id']}&round={lines[0]['round_number']}&turn=1&run=my-resolver")
    wait_for_app(page)
    assert "run=my-resolver" in page.url
    body = page.inner_text("body")
    assert "Model says it refers to" in body  # only shown with a run chosen (step 1 of the demo round is a message)


def test_the_slice_to_open_keeps_its_label_and_its_dialogs_when_the_comparison_changes(demo_app, page):
    page.goto(f"{demo_app.url}/runs?corpus=codraw&view=Slice+finder")
    wait_for_app(page)
    picker = page.locator('[data-testid="stSelectbox"]').filter(has_text="Open a slice's dialogs")
    picker.wait_for()
    def shown() -> str:
        text = picker.inner_text().replace("Open a slice's dialogs", "").strip()
        return (text or picker.locator("input").input_value()).split("\n")[0].strip()

    chosen = shown()
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Compared with").locator("input").click()
    page.keyboard.type("humans")
    page.keyboard.press("Enter")
    page.get_by_text("(baseline − humans).").first.wait_for(timeout=30_000)
    wait_for_app(page)
    caption = page.get_by_text("(baseline − humans).").last.inner_text()
    assert chosen and shown() == chosen and caption.startswith(f"{chosen}:")  # the same slice, its figures beside it
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_views_choice_is_kept_while_the_reader_looks_at_another_view(demo_app, page):
    page.goto(f"{demo_app.url}/runs?corpus=codraw&view=Compare+two+runs")
    wait_for_app(page)
    run_b = page.locator('[data-testid="stSelectbox"]').filter(has_text="Run B")
    run_b.locator("input").click()
    page.keyboard.type("humans")
    page.keyboard.press("Enter")
    page.get_by_text("B: humans").wait_for(timeout=30_000)
    wait_for_app(page)
    page.get_by_role("tab", name="Leaderboard").click()
    page.get_by_text("Holm-corrected across runs").wait_for()
    wait_for_app(page)
    page.get_by_role("tab", name="Compare two runs").click()
    run_b.wait_for()
    wait_for_app(page)
    shown = run_b.inner_text().replace("Run B", "").strip() or run_b.locator("input").input_value()
    assert shown.startswith("humans")  # not the default pair again
    assert page.get_by_text("B: humans").count() == 1


def test_two_runs_side_by_side_follow_the_replay_step(demo_app, page, tmp_path_factory):
    import re

    dialog = _dialog_with_rounds(tmp_path_factory, rounds=3)
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog={dialog}&turn=2&run=baseline,noisy")
    wait_for_app(page)
    for run in ("baseline", "noisy"):
        page.get_by_text(f"Model: {run} after round 2").first.wait_for()
    assert page.get_by_text("Paper's metric", exact=True).count() == 3  # the human and each run
    page.get_by_role("button", name=re.compile("Next")).click()
    page.wait_for_function("() => /[?&]turn=3(&|$)/.test(window.location.search)", timeout=30_000)
    wait_for_app(page)
    for run in ("baseline", "noisy"):
        page.get_by_text(f"Model: {run} after round 3").first.wait_for()
    body = page.inner_text("body")
    assert "after round 2" not in body  # both panels follow the step
    assert re.search(r"[?&]run=baseline(,|%2C)noisy(&|$)", page.url), page.url
    assert page.locator('[data-testid="stException"]').count() == 0
