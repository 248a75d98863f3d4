"""Browse by run (issue 27) in a real browser: a range set on a demo run's score column shrinks the table, the
URL holds it, and a reload keeps it."""
from __future__ import annotations

import re
import urllib.parse

from .conftest import wait_for_app
from .test_browser import assert_no_error

COLUMN = "baseline · score"


def _counts(page) -> tuple[int, int]:
    caption = page.get_by_text(re.compile(r"^[\d,]+ of [\d,]+ dialogs")).inner_text()
    shown, total = re.match(r"([\d,]+) of ([\d,]+) dialogs", caption).groups()
    return int(shown.replace(",", "")), int(total.replace(",", ""))


def _url_range(page):
    return urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query).get(COLUMN)


def test_a_run_score_range_shrinks_the_table_and_survives_a_reload(demo_app, page):
    page.goto(f"{demo_app.url}/browse?corpus=codraw")
    wait_for_app(page)
    shown, total = _counts(page)
    assert shown == total and _url_range(page) is None
    page.get_by_text("Range filters").click()
    slider = page.get_by_test_id("stSlider").filter(has_text=COLUMN)
    slider.get_by_role("slider").first.focus()
    page.keyboard.press("PageUp")  # the lower end up by a tenth of the column's span
    wait_for_app(page)
    wanted = _url_range(page)
    assert wanted and re.fullmatch(r"\d+(\.\d+)?\.\.", wanted[0]), page.url
    low = float(wanted[0][:-2])
    shrunk, same_total = _counts(page)
    assert same_total == total and 0 < shrunk < total
    page.reload()
    wait_for_app(page)
    assert _url_range(page) == wanted
    assert _counts(page) == (shrunk, total)
    thumb = page.get_by_test_id("stSlider").filter(has_text=COLUMN).get_by_test_id("stSliderThumbValue").first
    assert float(thumb.inner_text()) == low
    assert_no_error(page)
