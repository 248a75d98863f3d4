"""The pages the browser benchmarks load as references run: every element kind of ``element_page.py`` and
the app shell of ``app_shell.py`` (app.py's navigation, each page only its title)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def element_kinds() -> list[str]:
    return re.findall(r'^    "([a-z ]+)": ', (BENCHMARKS / "element_page.py").read_text(), re.M)


def test_element_costs_measures_every_kind_of_the_page():
    sys.path.insert(0, str(BENCHMARKS))
    from element_costs import KINDS

    assert sorted(KINDS) == sorted(element_kinds()) and len(KINDS) > 20


@pytest.mark.parametrize("kind", element_kinds())
def test_each_element_kind_runs(kind):
    at = AppTest.from_file(str(BENCHMARKS / "element_page.py"), default_timeout=60)
    at.query_params["element"] = kind
    at.run()
    assert not at.exception and at.title[0].value == kind


def test_the_app_shell_runs_with_the_first_page_of_the_app():
    at = AppTest.from_file(str(BENCHMARKS / "app_shell.py"), default_timeout=60)
    at.run()
    assert not at.exception and at.title[0].value == "Overview"


def test_the_shell_at_a_deep_path_is_a_page_of_the_app_not_its_root():
    sys.path.insert(0, str(BENCHMARKS))
    from page_loads import DEEP_PATH, page_paths

    assert DEEP_PATH in page_paths() and DEEP_PATH != page_paths()[0] == ""


def test_several_kinds_show_together_and_as_a_page_of_a_navigation():
    at = AppTest.from_file(str(BENCHMARKS / "element_page.py"), default_timeout=60)
    at.query_params["elements"] = "slider,metric,navigation,no such kind"
    at.run()
    assert not at.exception and at.title[0].value == "Elements" and len(at.slider) == 1 and len(at.metric) == 1
