"""No markup from anything a user can put in (issue 26, item 8): a run file name, a codebook's name, its
labels' names and descriptions, a coder name and a message with a bare URL are planted where each is shown,
every page that shows them is opened, and every string Streamlit renders as markdown (markdown, captions,
alerts, button and download labels, help tooltips, expander and tab labels, metric labels) is checked: the
planted markup is escaped and no planted URL can be linked (``ui.widgets.md_escape``). The browser test
``tests/e2e/test_hardening_markup_browser.py`` checks that no request leaves for another host."""
from __future__ import annotations

import re
import shutil

import pytest
from google.protobuf.json_format import MessageToDict
from streamlit.testing.v1 import AppTest

from data_access.coding import codebook as cb
from data_access.corpora import demo_path, load_path
from data_access.runs.demo import demo_runs
from data_access.store import CodingStore
from ui.widgets import md_escape

from . import conftest

RUN_NAME = "![t](x.png) **bold** :red[red]"  # a file name cannot hold "/", so the image is relative
BOOK_NAME = "book ![b](http://evil.example/b.png)"
LABEL_NAME = "![l](http://evil.example/l.png) **bold**"
LABEL_DESCRIPTION = "![d](http://evil.example/d.png) :red[red] see http://evil.example/u1.png"
CODER = "**coder** ![c](http://evil.example/c.png)"

LEAKS = [
    re.compile(r"(?<!\\)!\[[tlbdc]\]"),  # an image
    re.compile(r"(?<!\\)\]\((?:x\.png|http://evil)"),  # a link or image target
    re.compile(r"(?<!\\)\*\*(?:bold|coder)"),  # emphasis
    re.compile(r"(?<!\\):red\["),  # a colour directive
    re.compile("(?<!\u2060)https?\\\\?:\\\\?/\\\\?/evil"),  # a bare URL the renderer would link
]
MARKDOWN_FIELDS = {"body", "label", "help", "caption"}
PLAIN_TEXT = {"text", "code", "json"}  # elements that show their text as it is


def rendered_markdown(at: AppTest) -> list[str]:
    """Every string of the page that Streamlit renders as markdown, from each element's and block's proto."""
    found: list[str] = []

    def collect(value, key=None):
        if isinstance(value, dict):
            for k, v in value.items():
                collect(v, k)
        elif isinstance(value, list):
            for v in value:
                collect(v, key)
        elif isinstance(value, str) and key in MARKDOWN_FIELDS:
            found.append(value)

    def walk(node):
        proto = getattr(node, "proto", None)
        plain = getattr(node, "type", None) in PLAIN_TEXT
        if proto is not None and hasattr(proto, "DESCRIPTOR") and not plain:
            collect(MessageToDict(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return found


def assert_inert(at: AppTest) -> list[str]:
    values = rendered_markdown(at)
    leaked = [v for v in values if any(p.search(v) for p in LEAKS)]
    assert not leaked, leaked
    return values


@pytest.fixture
def planted(tmp_path, monkeypatch):
    runs = tmp_path / "runs" / "codraw"
    runs.mkdir(parents=True)
    baseline = demo_runs("codraw")["baseline"]
    shutil.copy(baseline, runs / f"{RUN_NAME}{''.join(baseline.suffixes)}")
    monkeypatch.setenv("DIALOGUE_RUNS_DIR", str(tmp_path / "runs"))
    store = CodingStore()
    store.save_codebook(cb.Codebook(BOOK_NAME, (
        cb.Label(LABEL_NAME, scope="turn", description=LABEL_DESCRIPTION),
        cb.Label("span " + LABEL_NAME, scope="span", description=LABEL_DESCRIPTION),
        cb.Label("dialog " + LABEL_NAME, scope="dialog", description=LABEL_DESCRIPTION))), created_by=CODER)
    dialog = load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].iloc[0]
    return {"dialog": dialog, "store": store}


def test_a_hostile_run_name_codebook_and_coder_on_the_replay_are_text(planted):
    at = conftest.open_page("pages/replay.py", corpus="codraw", dialog=planted["dialog"], turn="2", run=RUN_NAME,
                            coder=CODER)
    values = assert_inert(at)
    assert any(md_escape(RUN_NAME) in v for v in values)  # the Share panel's download of the run
    assert any(md_escape(LABEL_NAME) in v for v in values)  # the label buttons
    assert any(md_escape(LABEL_DESCRIPTION) == v for v in values)  # their help tooltips
    next(b for b in at.button if md_escape(LABEL_NAME) in b.label).click().run()
    assert not at.exception
    assert_inert(at)  # the "Saved …" message names the label


def test_a_hostile_run_name_on_the_runs_and_data_pages_is_text(planted):
    at = conftest.open_page("pages/runs.py", timeout=180, corpus="codraw")
    for view in [tab.label for tab in at.tabs]:  # every view of the page names the run
        at.query_params["view"] = view
        at.run()
        assert_inert(at)
    at.query_params["view"] = "Slice finder"
    at.run()
    at.selectbox(key="slice_b_codraw").set_value(RUN_NAME).run()
    values = assert_inert(at)
    assert any(f"(difference baseline − {md_escape(RUN_NAME)})" in v for v in values)  # the slice finder's caption
    at.query_params["view"] = "Compare two runs"
    at.run()
    at.selectbox(key="compare_b_codraw").set_value(RUN_NAME).run()
    assert_inert(at)
    assert_inert(conftest.open_page("pages/data.py", timeout=180))


@pytest.mark.parametrize("page", ["pages/codebooks.py", "pages/agreement.py", "pages/coding_queue.py"])
def test_a_hostile_codebook_and_coder_on_the_coding_pages_are_text(planted, page):
    planted["store"].add_annotation("codraw", planted["dialog"], codebook=planted["store"].codebook(BOOK_NAME),
                                    label=LABEL_NAME, coder=CODER, round=None, turn=2)
    at = conftest.open_page(page, coder=CODER)
    assert_inert(at)


def test_a_bare_url_in_a_message_is_not_linked():
    """A Game Of Sorts message with http://…/u1.png was shown as a link: escapes do not stop the renderer's
    autolinking, which links a URL after white space or punctuation only."""
    for text in ("see http://evil.example/u1.png", "www.evil.example", "write to me@evil.example", "https://evil.example"):
        escaped = md_escape(text)
        assert "\u2060" in escaped and not any(p.search(escaped) for p in LEAKS[:4])
        assert escaped.replace("\u2060", "").replace("\\", "") == text  # the same text, shown
