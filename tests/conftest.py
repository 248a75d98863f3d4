"""Fixtures every test level shares: an isolated cache/notes folder and the real corpora when present."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def demo_sources(tmp_path_factory) -> Path:
    """The generated demo corpora's source files, written once a worker: each test's cache starts with them
    (23 small files, hard-linked; ``isolated_environment`` writes them again after a test that changed one)."""
    root = tmp_path_factory.mktemp("demo-sources")
    _write_demo_sources(root)
    return root / "demo"


def _write_demo_sources(root: Path) -> None:
    from data_access.corpora import demo_path
    from data_access.registry import BUILT_IN_PACKAGES

    for package in BUILT_IN_PACKAGES:
        demo_path(package.split(".")[1], root)


def _file_states(folder: Path) -> dict[str, tuple[int, int, int, int]]:
    """Each file below ``folder``: its size, modification and inode change times and mode, which every change
    of its content, its times or its permissions changes (a hard link's too: it is the same file)."""
    states = {}
    for path in sorted(folder.rglob("*")):
        st = path.stat()
        states[str(path.relative_to(folder))] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)
    return states


@pytest.fixture(scope="session", autouse=True)
def streamlit_components_scanned_once():
    """Streamlit scans every installed distribution for components at each AppTest's first run (about a tenth of
    an AppTest's time); the distributions do not change during a run, so the first scan's answer is kept."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:
        yield
        return
    scan = manifest_scanner.scan_component_manifests
    found: list = []

    def scanned_once(*args, **kwargs):
        if not found:
            found.append(scan(*args, **kwargs))
        return list(found[0])

    manifest_scanner.scan_component_manifests = scanned_once
    yield
    manifest_scanner.scan_component_manifests = scan


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path_factory, monkeypatch, demo_sources):
    """Each test gets its own cache and notes database and the demo corpora unless it says otherwise.

    The demo's files are hard links to the worker's (``demo_sources``), not copies: a copy a test wrote 1.3 MB,
    2,475 tests 3.2 GB a run, for files almost every test only reads. A test that changes a file in place (a
    flipped byte, a truncation, a chmod) changes the worker's too: that is seen after the test (a file's state,
    ``_file_states``, differs from the one it had when it was linked) and the demo is written again, so the next
    test starts from the demo as a copy would have it. A test that replaces or deletes one of its files (a
    rename onto it, an unlink) touches only its own folder."""
    import shutil

    base = tmp_path_factory.mktemp("env")
    shutil.copytree(demo_sources, base / "cache" / "demo", copy_function=os.link)
    linked = _file_states(demo_sources)  # after linking: a new link changes a file's inode change time
    monkeypatch.setenv("DIALOGUE_CACHE_DIR", str(base / "cache"))
    monkeypatch.setenv("DIALOGUE_NOTES_DB", str(base / "notes.sqlite3"))
    for name in ("CODRAW_DATA", "CODRAW_CLIPART", "GAME_OF_SORTS_DATA", "GAME_OF_SORTS_IMAGES", "MINECRAFT_DATA",
                 "DIALOGUE_LAYERS_DIR", "DIALOGUE_COLLECTIONS"):
        monkeypatch.delenv(name, raising=False)
    yield base
    if _file_states(demo_sources) != linked:  # changed through this test's links (or its unlinks): write anew
        shutil.rmtree(demo_sources)
        _write_demo_sources(demo_sources.parent)


@pytest.fixture(scope="session")
def real_cache(tmp_path_factory) -> Path:
    """One Parquet cache for the real corpora, shared by the tests that read them and by every xdist worker of the
    run: an entry is keyed by the source's files and the code's hash and written atomically (a temporary folder
    renamed into place), so a real corpus is parsed once a run instead of once a test. Tests that check the cache
    itself keep their own folder."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "real-corpus-cache"
    folder.mkdir(exist_ok=True)
    return folder


def linked_cache(real_cache: Path, folder: Path) -> Path:
    """``folder``: a cache of a server's own (a server writes into its cache) that starts with every entry of the
    run's shared cache, hard-linked (entries are written once and replaced whole, never changed in place). An entry
    another worker is still writing is left out: the server builds it again if it needs it."""
    import shutil

    try:
        shutil.copytree(real_cache, folder, copy_function=os.link, dirs_exist_ok=True)
    except shutil.Error:
        pass  # a temporary folder renamed away while it was being linked
    return folder


@pytest.fixture
def shared_data() -> Path:
    """The real corpora beside the project; the test is skipped when they are absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


from tests.postgres import postgres_cluster, store_target  # noqa: E402,F401  (both store backends)


def pytest_report_header(config):
    """Say at the top of the run what is missing, so that skips are not a surprise at the end."""
    from tests.system import missing_names

    missing = missing_names()
    return [f"missing system packages (their tests skip, see tests/system.py): {', '.join(missing)}"] if missing else []


def pytest_terminal_summary(terminalreporter):
    """Why each rerun browser test failed the time before (its error's lines, at most six a rerun): a CI log keeps
    only "RERUN" otherwise, and a test that came late there may never come late here."""
    reruns = terminalreporter.stats.get("rerun", [])
    if not reruns:
        return
    terminalreporter.section("why each rerun ran")
    for report in reruns:
        errors = [line for line in report.longreprtext.splitlines() if line.startswith("E ")]
        terminalreporter.write_line(f"{report.nodeid}:")
        for line in (errors or report.longreprtext.splitlines()[-3:])[:6]:
            terminalreporter.write_line(f"    {line[:200]}")
