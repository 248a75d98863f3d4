"""A slice's evaluation stops when its tab is closed (issue 45, item 6), on a real server with the full CoDraw corpus
(skipped without ../shared): the issue's forty slow ``re()`` tests held a server core for 61 s and went on after the
tab closed; now the server says it stopped them, within a chunk of utterances of the close and long before the
slice's budget, and its CPU goes quiet."""
from __future__ import annotations

import os
import re
import time
from urllib.parse import urlencode

import pytest

from data_access.slices import EVALUATION_SECONDS

from .conftest import AppServer, wait_for_app

pytestmark = pytest.mark.e2e

# The forty tests with {3} for {5}: each about 0.8 s on CoDraw (40 in all, 32 s), within the search's own
# per-test limit on a busy machine, where the issue's own (1.8 to 4 s each) may be refused by that limit at once.
SLOW = " or ".join(['re("([^x]{9}[^y]{9}){3}z")'] * 40)


@pytest.fixture(scope="module")
def codraw_app(tmp_path_factory, real_cache):
    from data_access.corpora import load_path
    from tests.conftest import SHARED_DATA, linked_cache

    source = SHARED_DATA / "codraw" / "CoDraw_1_0.json.gz"
    if not source.is_file():
        pytest.skip("../shared/data is not present")
    workdir = tmp_path_factory.mktemp("slice-budget")
    load_path("codraw", source, cache_root=real_cache)  # the server's Parquet cache, built beforehand (once a run)
    linked_cache(real_cache, workdir / "cache")
    server = AppServer(workdir, {"CODRAW_DATA": str(source)})
    yield server, workdir / "streamlit.log"
    server.stop()


def _cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _poll(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, f"{what} within {timeout} s"
        time.sleep(0.05)  # the interval between polls of the server's log and CPU time, not a wait for an outcome
    return found


def test_closing_the_tab_stops_the_slices_evaluation(codraw_app, browser):
    server, log = codraw_app
    pid = server.process.pid
    context = browser.new_context()
    try:
        warm = context.new_page()  # the slice features and the search index built, as a reader before would have
        warm.goto(f"{server.url}/slices?" + urlencode({"corpus": "codraw", "slice": 're("left") and n_rounds > 3'}))
        wait_for_app(warm)
        warm.close()
        page = context.new_page()
        page.goto(f"{server.url}/slices?" + urlencode({"corpus": "codraw", "slice": SLOW}))
        page.get_by_text("The current slice").wait_for(timeout=60_000)  # the run is at the slice's evaluation
        started = _cpu_seconds(pid)
        # soon after it began (a loaded machine gives the server a fraction of a core: 10 s of budget can be 1 s of CPU)
        _poll(lambda: _cpu_seconds(pid) - started > 0.4, 30, "the server working on the slice")
        page.close()
        closed = time.monotonic()
        said = _poll(lambda: re.search(r"stopped after ([\d.]+) s \(([\d,]+) test\(s\) begun\): the session that "
                                       r"asked for it is gone", log.read_text(errors="replace")), 10,
                     "the server saying it stopped the evaluation")
    finally:
        context.close()
    seconds, tests = float(said.group(1)), int(said.group(2).replace(",", ""))
    assert time.monotonic() - closed < 5 and seconds < EVALUATION_SECONDS and 1 <= tests < 40, said.group(0)
    quiet = _cpu_seconds(pid)
    time.sleep(1.5)  # a window to measure the server's CPU time in
    assert _cpu_seconds(pid) - quiet < 0.5
