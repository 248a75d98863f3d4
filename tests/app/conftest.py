"""What every AppTest shares: a clean slate (no st.cache_data / st.cache_resource entry and no module-level
cache left by an earlier test) and one way to open a page of the app or run a page section on its own."""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def clear_module_caches() -> None:
    """Empty every functools cache in the app's own modules (fonts, clip art, tile images, code hashes …)."""
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in ("data_access", "ui") or module is None:
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)) and hasattr(value, "cache_info"):
                value.cache_clear()


@pytest.fixture(autouse=True)
def fresh_caches():
    """Each AppTest starts as a fresh server would: a result cached by an earlier test (for its own
    environment) must not stand in for this test's data."""
    st.cache_data.clear()
    st.cache_resource.clear()
    clear_module_caches()
    yield


def open_page(page: str, timeout: float = 120, **params: str) -> AppTest:
    """The app (through app.py's router) at ``page`` ("browse" or "pages/browse.py") with ``params`` in the
    URL, after one run that raised nothing."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.query_params.update(params)
    at.switch_page(page if page.endswith(".py") else f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def run_function(script: Callable[[], None], timeout: float = 60, **params: str) -> AppTest:
    """``script`` alone as the page (its imports inside its body: AppTest runs its source on its own), with
    ``params`` in the URL, after one run that raised nothing."""
    at = AppTest.from_function(script, default_timeout=timeout)
    at.query_params.update(params)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def state_link(at: AppTest) -> str:
    """The replay's link to exactly the state it shows (the target of its "Link to exactly this state")."""
    return next(match.group(1) for m in at.markdown for match in [re.match(r":material/link: \[Link to exactly this state\]\(([^)]*)\)", m.value)]
                if match)


def markdown_table(at: AppTest):
    """The first markdown table on the page as a pandas frame of its displayed cells (escapes removed; a
    column of numbers as numbers, thousands separators dropped, "–" as NaN)."""
    text = next(m.value for m in at.markdown if m.value.startswith("| "))
    rows = [[re.sub(r"\\(.)", r"\1", cell.strip()) for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            for line in text.splitlines()]
    frame = pd.DataFrame(rows[2:], columns=rows[0])
    for column in frame.columns[1:]:
        shown = frame[column].mask(frame[column] == "–")  # "–" is an empty cell
        numbers = pd.to_numeric(shown.str.replace(",", ""), errors="coerce")
        if numbers.notna().sum() == shown.notna().sum() > 0:
            frame[column] = numbers
    return frame
