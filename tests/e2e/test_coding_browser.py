"""Coding in a real browser: select a span of an utterance on the Replay, label it with its keyboard shortcut,
link a referent by clicking it on the target picture, reload, and see the span highlighted and linked."""
from __future__ import annotations

import pytest

from data_access.coding import codebook as cb
from data_access.store import CodingStore

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

BOOK = cb.Codebook("clarification", (
    cb.Label("CR", scope="turn", colour="#d62728", key="c"),
    cb.Label("refers-to", scope="span", links_referents=True, colour="#1f77b4", key="r"),
))


@pytest.fixture(scope="module")
def coding_app(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("coding-app")
    CodingStore(workdir / "notes.sqlite3").save_codebook(BOOK)
    server = AppServer(workdir)
    yield server, workdir / "notes.sqlite3"
    server.stop()


def _dialog(demo_corpus) -> tuple[str, str]:
    loaded = demo_corpus("codraw")
    dialog = loaded.dialogs["dialog_id"].iloc[0]
    u = loaded.utterances
    text = u[(u["dialog_id"] == dialog) & (u["turn"] == 2)]["text"].iloc[0]
    return dialog, text


def test_select_a_span_link_a_referent_and_see_it_after_reload(coding_app, page, demo_corpus):
    server, db = coding_app
    dialog, text = _dialog(demo_corpus)
    assert len(text) >= 8
    page.goto(f"{server.url}/replay?corpus=codraw&dialog={dialog}&turn=2&coder=ann")
    wait_for_app(page)
    utterance = page.locator('.dc-text[data-utterance="0"]')
    utterance.scroll_into_view_if_needed()
    assert utterance.inner_text() == text
    # select characters 3..8 with the mouse's equivalent (a DOM range), then press the label's key
    page.evaluate("""() => {
      const node = document.querySelector('.dc-text[data-utterance="0"]').firstChild.firstChild;
      const range = document.createRange(); range.setStart(node, 3); range.setEnd(node, 8);
      const selection = window.getSelection(); selection.removeAllRanges(); selection.addRange(range);
    }""")
    page.keyboard.press("r")
    page.get_by_text("Link referents of").first.wait_for(timeout=60_000)
    wait_for_app(page)
    store = CodingStore(db)
    span = store.annotations().iloc[-1]
    assert (span["label"], span["start"], span["end"], span["span_text"]) == ("refers-to", 3, 8, text[3:8])

    points = page.locator(".js-plotly-plot .scatterlayer .points path")
    points.first.wait_for(timeout=60_000)
    points.first.click(force=True)
    page.wait_for_function("() => document.body.innerText.includes('→ clipart:0')", timeout=60_000)
    assert store.get_annotation(int(span["id"]))["referents"] == ["clipart:0"]

    page.reload()
    wait_for_app(page)
    mark = page.locator(".dc-text mark.dc-span").first
    mark.wait_for(timeout=60_000)
    assert mark.inner_text() == text[3:8]
    assert mark.get_attribute("title") == "refers-to → clipart:0"
    assert page.get_by_text("#1 refers-to (span)").count() == 1
