"""The SQL console's Stop in a real browser (issue 45): a query that runs on (levenshtein on long strings, which
DuckDB's own interrupt let run half a minute past Stop) is stopped by the page's Stop button, and its process on
the server is gone within two seconds of the click; what only a browser shows, as AppTest cannot click during a run.
A wide result is shown cut, with the page's warning."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from .conftest import wait_for_app

pytestmark = pytest.mark.e2e

SLOW = "SELECT max(levenshtein(repeat('a',8000)||i::VARCHAR, repeat('b',8000))) FROM range(2000) t(i)"


def _query_processes(server_pid: int) -> dict[int, float]:
    """The server's SQL query processes (its children running data_access.sql_worker) and their CPU seconds."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        if int(fields[1]) == server_pid and b"data_access.sql_worker" in command and fields[0] != "Z":
            found[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


def _poll(condition, seconds: float):
    """``condition()`` once it is true, polling the server's processes (not the page) until ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)  # the interval between looks at /proc, not a wait for an outcome of the page
    return condition()


def test_stop_kills_the_query_on_the_server(demo_app, page):
    page.goto(f"{demo_app.url}/slices?corpus=codraw")
    wait_for_app(page)
    server = demo_app.process.pid
    spares = _poll(lambda: _query_processes(server), 30)  # the console's spare, waiting for the query
    page.get_by_label("Query").fill(SLOW)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("Running…").first.wait_for()
    busy = _poll(lambda: [pid for pid, cpu in _query_processes(server).items()
                          if pid in spares and cpu > spares[pid] + 0.3], 5)
    assert busy, "no query process took the CPU"
    page.get_by_role("button", name="Stop", exact=True).click()
    clicked = time.monotonic()
    gone = _poll(lambda: busy[0] not in _query_processes(server), 5)
    assert gone and time.monotonic() - clicked <= 2
    wait_for_app(page)
    assert page.get_by_text("time limit").count() == 0 and page.get_by_text("Running…").count() == 0
    assert demo_app.process.poll() is None


def test_a_wide_result_is_shown_cut(demo_app, page):
    page.goto(f"{demo_app.url}/slices?corpus=codraw")
    wait_for_app(page)
    page.get_by_label("Query").fill("SELECT i, repeat('x', 100000) AS x FROM range(3000) t(i)")
    page.get_by_role("button", name="Run", exact=True).click()
    wait_for_app(page)
    warning = page.get_by_text("The result was cut: only the first")
    warning.wait_for()
    assert "8 MB" in warning.inner_text() and "4,000 characters were cut" in warning.inner_text()
    assert page.get_by_text(re.compile(r"^3,000 rows \([\d,]+ a page\)")).is_visible()  # paged (issue 46)
