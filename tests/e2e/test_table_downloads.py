"""Table downloads in a real browser: each file is made when its button is clicked (not on every run), and it
holds exactly the rows the page shows under its filters."""
from __future__ import annotations

import io
import json
import re

import pandas as pd
import pytest

from data_access.search import PAGE_SIZE
from data_access.store import NotesStore

from .conftest import wait_for_app
from .test_browser import assert_no_error
from .test_share_downloads import _download

pytestmark = pytest.mark.e2e


def test_browse_csv_and_parquet_hold_the_filtered_rows(demo_app, page):
    page.goto(f"{demo_app.url}/browse?corpus=codraw&split=val,test")
    wait_for_app(page)
    shown = int(re.search(r"([\d,]+) of [\d,]+ dialogs", page.get_by_text(re.compile(r"of [\d,]+ dialogs")).first.inner_text())
                .group(1).replace(",", ""))
    csv = pd.read_csv(io.BytesIO(_download(page, re.compile("table as CSV")).path().read_bytes()))
    parquet = pd.read_parquet(io.BytesIO(_download(page, re.compile("table as Parquet")).path().read_bytes()))
    assert 0 < len(csv) == len(parquet) == shown
    assert set(csv["split"]) == set(parquet["split"]) == {"val", "test"}
    assert list(csv["dialog_id"]) == list(parquet["dialog_id"])
    assert_no_error(page)


def test_search_downloads_every_hit_not_only_the_page_shown(demo_app, page):
    page.goto(f"{demo_app.url}/search?q=the")
    wait_for_app(page)
    button = page.get_by_role("button", name=re.compile(r"all [\d,]+ hits as CSV"))
    total = int(re.search(r"all ([\d,]+) hits", button.first.inner_text()).group(1).replace(",", ""))
    csv = pd.read_csv(io.BytesIO(_download(page, re.compile(r"hits as CSV")).path().read_bytes()))
    assert len(csv) == total > PAGE_SIZE  # more than one page of hits
    assert csv["match"].str.lower().str.contains("the").all()
    assert_no_error(page)


def test_notes_downloads_hold_the_filtered_notes_made_on_click(demo_app, page):
    notes = NotesStore(demo_app.notes_db)
    texts = {'a "quoted", two-line\nnote', "=SUM(A1) ünïcode"}
    for text in texts:
        notes.add_note("codraw", "demo-download", text, turn=1, tags="download-check")
    notes.add_note("codraw", "demo-download", "another tag", turn=1, tags="elsewhere")
    page.goto(f"{demo_app.url}/notes?tag=download-check")
    wait_for_app(page)
    csv = pd.read_csv(io.BytesIO(_download(page, "⬇ Notes as CSV").path().read_bytes()))
    jsonl = [json.loads(line) for line in _download(page, "⬇ Notes as JSON Lines").path().read_text("utf-8").splitlines()]
    assert set(csv["text"]) == {record["text"] for record in jsonl} == texts
    assert all(record["tags"] == ["download-check"] for record in jsonl)
    assert_no_error(page)
