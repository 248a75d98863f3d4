"""The share downloads from the served app: the Replay page's HTML replay and LaTeX transcript, Compare's
HTML, and a chart's SVG / PDF / LaTeX table, each downloaded in Chromium and then opened or compiled."""
from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile

import pytest

from tests.unit.latex_tools import compile_pdf, pdf_text, squash

from .conftest import wait_for_app
from .test_browser import _demo_dialog, assert_no_error

pytestmark = pytest.mark.e2e


def _download(page, name):
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name=name).first.click()
    return info.value


def test_replay_html_and_latex_downloads(demo_app, page, tmp_path, demo_corpus):
    dialog = _demo_dialog("codraw", demo_corpus)
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog={dialog}&turn=2")
    wait_for_app(page)
    page.get_by_text("Share: HTML replay, LaTeX transcript").click()
    html_file = tmp_path / "replay.html"
    _download(page, re.compile("Self-contained HTML replay")).save_as(html_file)
    assert_no_error(page)

    requests = []
    viewer = page.context.new_page()
    viewer.on("request", lambda request: requests.append(request.url))
    viewer.goto(html_file.as_uri())
    label = viewer.inner_text("#step-label")
    viewer.keyboard.press("ArrowRight")
    assert viewer.inner_text("#step-label") != label
    assert viewer.locator("img.frame:not([hidden])").count() == 1
    assert [u for u in requests if not u.startswith(("data:", "file:"))] == []
    viewer.close()

    page.get_by_text("With a thumbnail of the state after each step").click()
    wait_for_app(page)
    archive = _download(page, re.compile("LaTeX transcript")).path().read_bytes()
    with zipfile.ZipFile(io.BytesIO(archive)) as bundle:
        bundle.extractall(tmp_path / "tex")
        names = bundle.namelist()
    assert any(n.startswith("images/") for n in names)
    tex = tmp_path / "tex" / f"codraw-{dialog}.tex"
    assert "Drawer" in pdf_text(compile_pdf(tex))


def test_compare_html_download(demo_app, page, tmp_path):
    page.goto(f"{demo_app.url}/compare?corpus=minecraft")
    wait_for_app(page)
    html_file = tmp_path / "compare.html"
    _download(page, re.compile("Both as a self-contained HTML")).save_as(html_file)
    viewer = page.context.new_page()
    viewer.goto(html_file.as_uri())
    assert viewer.locator("section.panel").count() == 2
    viewer.close()


def test_chart_svg_pdf_and_latex_downloads(demo_app, page, tmp_path):
    page.goto(f"{demo_app.url}/codraw_scores?view=Scores")
    wait_for_app(page)
    svg = _download(page, re.compile(r"^SVG$")).path().read_bytes()
    root = ET.fromstring(svg)
    text = " ".join("".join(e.itertext()) for e in root.iter() if e.tag.endswith("text"))
    assert "Data: CoDraw (built-in demo corpus)." in text
    pdf = tmp_path / "chart.pdf"
    _download(page, re.compile(r"^PDF$")).save_as(pdf)
    assert "Data: CoDraw (built-in demo corpus)." in pdf_text(pdf)
    table = _download(page, re.compile("LaTeX table")).path().read_text(encoding="utf-8")
    assert r"\toprule" in table
    from data_access.exports.latex import standalone_document

    (tmp_path / "table.tex").write_text(standalone_document(table), encoding="utf-8")
    assert re.search(r"\d\.\d\d \[\d\.\d\d, \d\.\d\d\]", pdf_text(compile_pdf(tmp_path / "table.tex")))
    assert squash("train") in squash(pdf_text(tmp_path / "table.pdf"))


def test_replay_html_with_a_model_run(demo_app, page, tmp_path, tmp_path_factory, demo_corpus):
    from data_access.runs.demo import demo_runs

    run = next(iter(demo_runs("codraw", tmp_path_factory.mktemp("runs"))))
    dialog = _demo_dialog("codraw", demo_corpus)
    page.goto(f"{demo_app.url}/replay?corpus=codraw&dialog={dialog}&turn=2&run={run}")
    wait_for_app(page)
    page.get_by_text("Share: HTML replay, LaTeX transcript").click()
    html_file = tmp_path / "run.html"
    _download(page, re.compile("with the model run")).save_as(html_file)
    viewer = page.context.new_page()
    viewer.goto(html_file.as_uri())
    titles = viewer.eval_on_selector_all("section.panel h2", "els => els.map(e => e.textContent)")
    assert titles[1] == f"Model run: {run}" and dialog in titles[0]
    before = viewer.eval_on_selector_all("img.frame:not([hidden])", "els => els.map(e => e.src)")
    viewer.keyboard.press("ArrowRight")
    after = viewer.eval_on_selector_all("img.frame:not([hidden])", "els => els.map(e => e.src)")
    assert len(before) == len(after) == 2 and before[1] != after[1]  # the model's canvas moves with the step
    viewer.close()
