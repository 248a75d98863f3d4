"""URL state has one owner: ``ui/shell/url_state.py`` is the only module of the app that reads or writes
``st.query_params``, binds a widget to the URL, or keeps the per-widget record of what the URL last said
(``<key>__linked``)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OWNER = ROOT / "ui" / "shell" / "url_state.py"
APP_MODULES = sorted([*(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").rglob("*.py"), ROOT / "app.py", ROOT / "server.py"])
# HTTP routes beside the app read their own request's query (Starlette's ``request.query_params``), never a page's URL
NOT_A_PAGES_URL = {ROOT / "ui" / "server" / "live_routes.py": "query_params"}


def test_the_app_has_the_modules_this_test_reads():
    assert OWNER in APP_MODULES and len(APP_MODULES) > 20


@pytest.mark.parametrize("word", ["query_params", "__linked", "query-params"])  # the last: a widget bound to the URL
def test_only_url_state_touches_the_url(word):
    others = [str(path.relative_to(ROOT)) for path in APP_MODULES
              if path != OWNER and word in path.read_text() and NOT_A_PAGES_URL.get(path) != word]
    assert others == [], f"{word} outside ui/shell/url_state.py"


def test_a_route_module_reads_only_its_requests_query():
    for path, word in NOT_A_PAGES_URL.items():
        text = path.read_text()
        assert word in text and not re.search(r"\bst\.query_params", text) and "import streamlit" not in text, path
