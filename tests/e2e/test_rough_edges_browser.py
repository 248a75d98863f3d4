"""Rough edges seen in the browser (docs/hardening.md, "Rough edges"): what a narrow column cut with an
ellipsis, and a link with more query parameters than Streamlit reads."""
from __future__ import annotations

import pytest

from .conftest import wait_for_app
from .test_browser import assert_no_error

pytestmark = pytest.mark.e2e

# Every element under a metric's value and under a button's label whose text is wider than its box (what CSS's
# text-overflow: ellipsis then cuts to "not sco…" or "◀ Pr…").
_CUT_TEXTS = """() => {
  const roots = document.querySelectorAll('[data-testid="stMetricValue"], [data-testid^="stBaseButton"]');
  const cut = [];
  for (const root of roots) {
    for (const el of [root, ...root.querySelectorAll('*')]) {
      if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth) cut.push(root.innerText.trim());
    }
  }
  return [...new Set(cut)];
}"""


def test_compare_stepping_apart_cuts_no_metric_and_no_button(demo_app, page):
    page.goto(f"{demo_app.url}/compare?corpus=codraw&together=0&lstep=1&rstep=1")
    wait_for_app(page)
    page.wait_for_function("() => [...document.querySelectorAll('[data-step-player]')].filter(p => p.dataset.step).length === 2")
    assert page.get_by_role("button", name="Previous step").count() == 2  # a step player per side
    assert page.locator('[data-testid="stMetricValue"]').count() == 6
    assert page.evaluate(_CUT_TEXTS) == []
    assert_no_error(page)


def test_a_link_with_more_than_1000_parameters_is_cut_and_says_so(demo_app, page):
    """Streamlit drops such a query whole and silently (the corpus below would be forgotten); the page's own
    script keeps the first 999 parameters and the app warns."""
    extra = "&".join(f"x{i}=1" for i in range(1500))
    page.goto(f"{demo_app.url}/replay?corpus=gos&{extra}")
    wait_for_app(page)
    warning = page.get_by_text("The link had 1,501 parameters; only the first 999 were read")
    assert warning.is_visible()
    query = page.evaluate("() => location.search")
    assert query.startswith("?corpus=gos&") and "&truncated=999%2C1501" in query
    assert "&dialog=" in query  # the Replay read the link: it shows a dialog of the corpus asked for
    assert "x997=1" in query and "x998=" not in query  # corpus and x0..x997: 999 parameters
    assert_no_error(page)
