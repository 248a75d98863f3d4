"""The run mark (ui/shell/run_mark.py) is for a browser only: an AppTest session, which has no browser, gets no mark,
so the elements the page tests count are the page's own. And the app ends a run early only through
``stop_run``, which marks the run first: after a bare ``st.stop()`` no mark would reach the browser, and every
browser test's wait on that page would run into its time-out."""
from __future__ import annotations

import ast
from pathlib import Path

from .conftest import open_page

ROOT = Path(__file__).resolve().parents[2]


def test_apptest_sessions_get_no_run_mark():
    at = open_page("replay", corpus="codraw")
    assert not [h for h in at.get("html") if "data-app-run" in h.proto.body]
    assert "app_run" not in at.session_state


def bare_stops(paths) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "stop" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "st":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_run_ends_with_a_bare_st_stop():
    code = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]
    assert bare_stops([p for p in code if p.name != "run_mark.py"]) == []
    assert len(bare_stops([ROOT / "ui" / "shell" / "run_mark.py"])) == 1  # the scan sees the one in stop_run
