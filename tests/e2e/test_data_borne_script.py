"""Text from the data is shown as text: markup and script in a corpus never run in the browser."""
from __future__ import annotations

import json
import shutil

import pytest

from data_access.corpora import demo_path

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

PAYLOADS = [
    '<img src=x onerror="window.__xss=1">',
    "<script>window.__xss=2</script>",
    "[click me](javascript:window.__xss=3)",
]
MESSAGE = " ".join(PAYLOADS)
FOLDER = "gos <img src=x onerror=window.__xss=4> `tick` [a](javascript:window.__xss=5) :red[x]"


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory):
    work = tmp_path_factory.mktemp("hostile")
    codraw_file = demo_path("codraw", work / "demo")
    corpus = json.loads(codraw_file.read_text(encoding="utf-8"))
    first = sorted(corpus["data"])[0]
    for round_ in corpus["data"][first]["dialog"]:
        round_["msg_t"] = MESSAGE
    hostile_codraw = work / "CoDraw_hostile.json"
    hostile_codraw.write_text(json.dumps(corpus), encoding="utf-8")

    gos_folder = work / FOLDER  # a path is shown too (Data page)
    shutil.copytree(demo_path("gos", work / "demo"), gos_folder)
    log = next(gos_folder.glob("*log_interaction_all.jsonl"))
    lines = log.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        record = json.loads(line)
        if "message_number" in record:
            record["body_text"] = MESSAGE
            lines[index] = json.dumps(record)
            hostile_interaction = record["interaction_id"]
            break
    log.write_text("\n".join(lines), encoding="utf-8")

    server = AppServer(work, {"CODRAW_DATA": str(hostile_codraw), "GAME_OF_SORTS_DATA": str(gos_folder)})
    yield server, first, hostile_interaction
    server.stop()


def _assert_inert(page) -> None:
    assert page.evaluate("() => window.__xss") is None
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator('a[href^="javascript:"]').count() == 0


def test_codraw_message_with_markup_shows_literally(hostile_app, page):
    server, dialog, _ = hostile_app
    page.goto(f"{server.url}/replay?corpus=codraw&dialog={dialog}&turn=1")
    wait_for_app(page)
    page.get_by_text("window.__xss=2", exact=False).first.wait_for()
    assert '<img src=x onerror="window.__xss=1">' in page.inner_text("body")
    _assert_inert(page)


def test_gos_message_with_markup_shows_literally(hostile_app, page):
    server, _, interaction = hostile_app
    page.goto(f"{server.url}/replay?corpus=gos&dialog={interaction}&round=1&turn=1")
    wait_for_app(page)
    page.get_by_text("window.__xss=2", exact=False).first.wait_for()
    _assert_inert(page)


def test_a_source_path_with_markup_shows_literally(hostile_app, page):
    server, _, _ = hostile_app
    page.goto(f"{server.url}/data")
    wait_for_app(page)
    page.get_by_text(FOLDER, exact=False).first.wait_for()
    _assert_inert(page)


def test_search_results_show_markup_literally(hostile_app, page):
    server, _, _ = hostile_app
    page.goto(f"{server.url}/search?q=onerror")
    wait_for_app(page)
    page.wait_for_selector('[data-testid="stDataFrame"]')
    _assert_inert(page)
