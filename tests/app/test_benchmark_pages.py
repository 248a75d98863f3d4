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


def test_kinds_shown_as_often_as_asked_and_a_click_moves_the_step_and_the_pictures():
    at = AppTest.from_file(str(BENCHMARKS / "element_page.py"), default_timeout=60)
    at.query_params.update(elements="navigation,slider*3,image*2,form*2,button*2", click="1")
    at.run()
    def pictures() -> list[str]:
        return [image.proto.imgs[0].url for image in at.get("image")]

    assert not at.exception and len(at.slider) == 3 and len(at.get("form")) == 2
    first = pictures()
    assert len(set(first)) == 2 and at.caption[0].value == "0 clicks"
    at.button(key="next").click().run()
    assert not at.exception and at.caption[0].value == "1 clicks" and at.query_params["turn"]
    assert len(set(pictures())) == 2 and not set(pictures()) & set(first)  # new pictures at each step


def test_the_click_benchmark_counts_a_page_as_its_elements_without_what_element_page_nests():
    sys.path.insert(0, str(BENCHMARKS))
    from clicks import elements_query

    # two columns hold two markdowns, a form holds a text input: element_page draws those itself
    assert elements_query({"columns": 2, "markdown": 5, "form": 1, "text input": 1, "image": 2}) == \
        "columns,form,image*2,markdown*3"
