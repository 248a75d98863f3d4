"""Issue 37's one-minute task in a real browser, on the full CoDraw corpus with the published CR layer (skipped
without ../shared): "CoDraw dialogs where the Drawer asks a clarification question and the score drops after the
peek". Browse's CR filter, "Make a slice", the slice's charts, the peek chart's bars left of 0 selected with the
box, "Make a slice" again; the slice's count equals an independent pandas computation (221); it is saved, played
in the Replay to the next dialog of the slice, one dialog is coded there, and the slice's transcripts are
exported."""
from __future__ import annotations

import io
import re
import zipfile

import pytest

from data_access.coding import codebook as cb
from data_access.store import CodingStore

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn", colour="#d62728", key="c"),))


def _expected(shared, cache) -> set[str]:
    """Independently of the slices code: dialogs with a CR row in the published layer whose final score is below
    the score of the last drawing before the peek (pandas over the frames and the layer file)."""
    from data_access.corpora import load_path
    from data_access.layers.load import load_layer

    loaded = load_path("codraw", shared / "codraw" / "CoDraw_1_0.json.gz", cache_root=cache)
    layer = load_layer("codraw-icr", loaded, shared / "annotations" / "icr-codraw-data.tsv")
    rows = layer.annotations
    with_cr = set(rows.loc[rows["is_cr"], "dialog_id"].astype(str))
    d = loaded.dialogs
    dropped = d["peek_round"].notna() & (d["final_score"] < d["score_before_peek"])
    return set(d.loc[dropped, "dialog_id"].astype(str)) & with_cr


@pytest.fixture(scope="module")
def full_app(tmp_path_factory, real_cache):
    from tests.conftest import SHARED_DATA, linked_cache

    if not (SHARED_DATA / "codraw" / "CoDraw_1_0.json.gz").is_file():
        pytest.skip("../shared/data is not present")
    workdir = tmp_path_factory.mktemp("slice-task")
    CodingStore(workdir / "notes.sqlite3").save_codebook(BOOK)
    server = AppServer(workdir, {"CODRAW_DATA": str(SHARED_DATA / "codraw" / "CoDraw_1_0.json.gz"),
                                 "DIALOGUE_LAYERS_DIR": str(SHARED_DATA / "annotations"), "DIALOGUE_CODER": "ann"},
                       ready=False)  # importing Streamlit meanwhile; it reads its cache at its first page
    expected = _expected(SHARED_DATA, real_cache)  # also builds the server's Parquet cache (once a run)
    linked_cache(real_cache, workdir / "cache")
    server.wait_ready()
    yield server, workdir / "notes.sqlite3", expected
    server.stop()


def _box_select_left_of_zero(page) -> None:
    """On the peek chart: the toolbar's box select, then a drag over every bar left of 0 (as a reader does)."""
    plot = page.locator(".js-plotly-plot").filter(has_text="before the peek").first
    plot.scroll_into_view_if_needed()
    plot.hover()
    plot.locator('[data-title="Box Select"]').click()
    box = plot.evaluate("""(gd) => {
      const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, r = gd.getBoundingClientRect();
      const x = (v) => r.left + xa._offset + xa.l2p(v), y = (v) => r.top + ya._offset + ya.l2p(v);
      return {x0: x(xa.range[0]) + 2, x1: x(-0.02), y0: y(ya.range[1]) + 2, y1: y(0) + 3};  // bars of one dialog too
    }""")
    page.mouse.move(box["x0"], box["y0"])
    page.mouse.down()
    page.mouse.move((box["x0"] + box["x1"]) / 2, (box["y0"] + box["y1"]) / 2, steps=5)
    page.mouse.move(box["x1"], box["y1"], steps=5)
    page.mouse.up()


def test_the_issues_question_in_about_a_minute(full_app, page):
    server, db, expected = full_app
    assert len(expected) == 221  # the issue's count with the published CR layer

    # Browse: only dialogs with a CR, then the view as a slice
    page.goto(f"{server.url}/browse?corpus=codraw")
    wait_for_app(page)
    page.get_by_text("Only dialogs with a CR").click()
    wait_for_app(page)
    page.get_by_role("button", name=re.compile(r"Make a slice of these [\d,]+ dialogs")).click()
    wait_for_app(page)
    assert "/slices" in page.url and "slice=crs" in page.url

    # its charts: the peek chart's bars left of 0, as a slice within it. The Slices page's first look at a slice of
    # the full corpus computes its table (once a server): on a loaded machine longer than a click's 30 s default.
    page.get_by_role("link", name="Its charts").click(timeout=120_000)
    wait_for_app(page)
    page.get_by_role("tab", name="Peek effects").click()
    wait_for_app(page)
    _box_select_left_of_zero(page)
    wait_for_app(page)
    page.get_by_role("button", name=re.compile(r"Make a slice of these [\d,]+ dialogs")).click()
    wait_for_app(page)
    said = page.locator('[data-testid="stAlertContentInfo"]').first.inner_text()
    assert "CRs > 0" in said and "peek gain < 0" in said and f"{len(expected):,} dialogs" in said, said

    # saved with a name
    page.get_by_label("Name").fill("CR and a drop after the peek")
    page.get_by_role("button", name="Save").click()
    wait_for_app(page)
    page.get_by_text("Saved as “CR and a drop after the peek”").wait_for()
    saved = page.url

    # its transcripts, one section per dialog
    with page.expect_download() as download:
        page.get_by_role("button", name=re.compile("Its transcripts as LaTeX")).click()
    names = zipfile.ZipFile(io.BytesIO(open(download.value.path(), "rb").read())).namelist()
    assert sorted(n[len("tables/codraw-"):-4] for n in names if n.startswith("tables/")) == sorted(expected)

    # played in the Replay, to the next dialog of the slice, and one dialog coded
    page.goto(saved)
    wait_for_app(page)
    page.get_by_role("link", name="Play in the Replay").click()
    wait_for_app(page)
    page.get_by_text(f"dialog 1 of {len(expected)} in the slice").wait_for()
    page.get_by_role("link", name="Next in the slice ▶").click()
    wait_for_app(page)
    page.get_by_text(f"dialog 2 of {len(expected)} in the slice").wait_for()
    dialog = re.search(r"dialog=([^&]+)", page.url).group(1)
    assert dialog in expected
    # the coding column's label: shown at once and stored behind it (no page run to wait for), then said
    page.locator("[data-coding-panel] [data-label-key='c']").click()
    page.wait_for_function("() => (document.querySelector('[data-coding-panel] .dc-status') || {})"
                           ".textContent.includes('Saved CR')", timeout=30_000)
    coded = CodingStore(db).annotations()
    assert coded["dialog_id"].tolist() == [dialog] and coded["label"].tolist() == ["CR"]
