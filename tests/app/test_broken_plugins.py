"""Every page opens with broken corpus plugins installed (one raising ImportError on import, one raising
``SystemExit``, one whose ``build_frames`` returns a string): the two that cannot be imported are in no page's list
of corpora and the Data page names them with their errors; the one that imports but cannot load is shown as a
corpus that could not be loaded, by its name."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fixtures import broken_plugins

from .conftest import open_page

APP = (Path(__file__).resolve().parents[2] / "app.py").read_text(encoding="utf-8")
PAGES = sorted(set(re.findall(r'url_path="([a-z_]+)"', APP)))


@pytest.fixture(autouse=True)
def installed():
    with broken_plugins.installed():
        yield


def test_every_page_of_the_app_is_listed():
    assert len(PAGES) == 19 and "data" in PAGES and "play" in PAGES


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_with_the_broken_plugins_installed(page):
    at = open_page(page)  # asserts that the run raised nothing
    errors = [e.value for e in at.error]
    # the page shows no error but the text-frames plugin's load failure (and, on Data, the two broken plugins)
    assert all("textframes" in e or "Text Frames" in e or page == "data" for e in errors), errors
    offered = "\n".join(str(w.options) for w in (*at.selectbox, *at.multiselect, *at.get("button_group")))
    assert "crashes" not in offered and "exits" not in offered


def test_the_data_page_names_each_broken_plugin_with_its_error():
    at = open_page("data")
    errors = [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]
    crashes = next(e for e in errors if "crashes" in e)
    assert "cannot be used" in crashes and "No module named 'dialogue_dashboard_no_such_dependency'" in crashes
    assert any("exits" in e and "SystemExit: 3" in e for e in errors)
    assert any("Could not be loaded" in e and "build_frames returned a str" in e for e in errors), errors
    assert "Text Frames Plugin" in [s.value for s in at.subheader]


def test_a_link_to_a_broken_plugin_says_so_and_shows_the_first_corpus():
    at = open_page("browse", corpus="exits")
    assert any("corpus plugin “exits”, which cannot be used" in w.value for w in at.warning)
