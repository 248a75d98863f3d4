"""Charts exported through kaleido (driving the installed Chromium): the SVG parses and carries the
caption, source line and axis titles; the PDF's text holds them too."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from corpora.codraw.data.figures import score_by_round_chart
from data_access.corpora import load_configured
from data_access.exports.figures import browser_path, corpora_of_chart, figure_bytes, source_line
from tests.system import require

from .latex_tools import squash


@pytest.fixture(autouse=True)
def _chromium():
    """kaleido drives the installed Chromium: without one these tests skip (or fail) naming the package."""
    if browser_path() is None:
        require("chromium")


@pytest.fixture(scope="module")
def chart():
    return score_by_round_chart(load_configured("codraw"))


def _svg_text(data: bytes) -> str:
    root = ET.fromstring(data)
    assert root.tag.endswith("svg")
    return " ".join("".join(element.itertext()) for element in root.iter() if element.tag.endswith("text"))


def test_svg_has_the_chart_its_caption_and_source(chart):
    source = source_line(corpora_of_chart(chart.key))
    assert source == "Data: CoDraw (built-in demo corpus)."
    data = figure_bytes(chart.figure, "svg", chart.caption + " <b>&", source)
    text = _svg_text(data)
    assert source in text
    assert squash(chart.caption)[:60] in squash(text)
    assert "<b>&" in text  # shown literally, not as markup
    axis_title = chart.figure.layout.xaxis.title.text
    assert axis_title and axis_title in text
    assert ET.fromstring(data).findall(".//{http://www.w3.org/2000/svg}path")  # the drawn data


def test_pdf_has_the_caption_and_source(chart, tmp_path):
    from .latex_tools import pdf_text

    data = figure_bytes(chart.figure, "pdf", chart.caption, source_line(["codraw"]))
    assert data.startswith(b"%PDF")
    path = tmp_path / "chart.pdf"
    path.write_bytes(data)
    text = squash(pdf_text(path))
    assert squash("Data: CoDraw (built-in demo corpus).") in text
    assert squash(chart.caption)[:60] in text


def test_unknown_format_is_refused(chart):
    with pytest.raises(ValueError):
        figure_bytes(chart.figure, "gif")


def test_exports_share_one_browser_and_the_later_ones_are_quick(chart):
    import time

    from data_access.exports.figures import chart_browser, close_browser

    close_browser()
    browser = chart_browser()
    starts = browser.starts
    figure_bytes(chart.figure, "svg", chart.caption)
    started = time.perf_counter()
    assert figure_bytes(chart.figure, "pdf", chart.caption).startswith(b"%PDF")
    second = time.perf_counter() - started
    assert ET.fromstring(figure_bytes(chart.figure, "svg", "another caption")).tag.endswith("svg")
    assert browser.starts == starts + 1  # three exports, one browser start
    assert second < 5  # a new browser per export took 3.7–6.3 s; a warm one well under 1 s on an idle machine
    close_browser()
    figure_bytes(chart.figure, "svg")
    assert browser.starts == starts + 2  # closed, then started again on demand
    close_browser()
