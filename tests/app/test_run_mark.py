"""app.py marks runs for a browser only (``mark_run``): an AppTest session, which has no browser, gets no mark,
so the elements the page tests count are the page's own."""
from __future__ import annotations

from .conftest import open_page


def test_apptest_sessions_get_no_run_mark():
    at = open_page("replay", corpus="codraw")
    assert not [h for h in at.get("html") if "data-app-run" in h.proto.body]
    assert "app_run" not in at.session_state
