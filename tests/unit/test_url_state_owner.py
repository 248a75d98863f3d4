"""URL state has one owner: ``ui/shell/url_state.py`` is the only module of the app that reads or writes
``st.query_params``, binds a widget to the URL, or keeps the per-widget record of what the URL last said
(``<key>__linked``)."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OWNER = ROOT / "ui" / "shell" / "url_state.py"
APP_MODULES = sorted([*(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").rglob("*.py"), ROOT / "app.py", ROOT / "server.py"])


def test_the_app_has_the_modules_this_test_reads():
    assert OWNER in APP_MODULES and len(APP_MODULES) > 20


@pytest.mark.parametrize("word", ["query_params", "__linked", "query-params"])  # the last: a widget bound to the URL
def test_only_url_state_touches_the_url(word):
    others = [str(path.relative_to(ROOT)) for path in APP_MODULES if path != OWNER and word in path.read_text()]
    assert others == [], f"{word} outside ui/shell/url_state.py"
