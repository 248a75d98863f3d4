"""A model's labels in a real browser: upload a model labels file on the Agreement page, see the model against
the humans, and follow one of its disagreements to the replay of that turn."""
from __future__ import annotations

import json

import pytest

from data_access.coding import codebook as cb
from data_access.store import CodingStore

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn"),))


@pytest.fixture(scope="module")
def model_app(tmp_path_factory, demo_corpus):
    workdir = tmp_path_factory.mktemp("model-labels-app")
    dialog = str(demo_corpus("codraw").dialogs["dialog_id"].iloc[0])
    store = CodingStore(workdir / "notes.sqlite3")
    book = store.save_codebook(BOOK)
    for coder, rounds in (("ann", (1, 2)), ("bo", (1, 3))):
        for r in rounds:
            store.add_annotation("codraw", dialog, codebook=book, label="CR", coder=coder, turn=r)
    server = AppServer(workdir)
    yield server, dialog
    server.stop()


def test_upload_a_models_labels_and_follow_a_disagreement_to_its_replay(model_app, page, tmp_path):
    server, dialog = model_app
    labels = tmp_path / "gpt.jsonl"
    labels.write_text("".join(json.dumps({"model": "gpt", "corpus": "codraw", "dialog": dialog, "round": r,
                                          "labels": ["CR"]}) + "\n" for r in (1, 2, 3)))
    page.goto(f"{server.url}/agreement?coder=judge")
    wait_for_app(page)
    page.get_by_text("Import a model's labels").click()  # opening an expander runs nothing
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(labels))
    wait_for_app(page)
    page.get_by_role("button", name="Import labels").click()
    page.get_by_text("Imported 3 item(s) with 3 label(s) of model:gpt").wait_for(timeout=60_000)
    wait_for_app(page)
    page.get_by_text("Models against the humans").wait_for()
    page.get_by_text("Where model:gpt differs from a human (2)").wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0

    # the disagreements are the page's last table, its replay link in the first column; the grid is drawn on a
    # canvas, and its accessible table beside it holds each cell's text (a link cell's: its address)
    grid = page.locator('[data-testid="stDataFrame"]').last
    grid.scroll_into_view_if_needed()
    grid.locator("table td").first.wait_for(state="attached")
    cells = grid.evaluate("el => Array.from(el.querySelectorAll('table td')).map(c => c.textContent)")
    assert cells[:8] == [f"/replay?corpus=codraw&dialog={dialog}&turn=2", "codraw", dialog, "", "2", "CR", "CR", "none"]
    page.goto(server.url + cells[0])
    wait_for_app(page)
    assert page.locator("h1").first.inner_text() == "Replay"
    assert "dialog=" + dialog in page.url and "turn=2" in page.url
    page.wait_for_function("() => document.querySelector('[data-step-player]')?.dataset.step === '2'")  # at that round
    assert page.locator('[data-testid="stException"]').count() == 0
