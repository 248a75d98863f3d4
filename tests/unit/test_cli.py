"""``python -m data_access summary``: one JSON object on success, exit 2 with one stderr line naming the
file on failure, never a traceback."""
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from data_access.corpora import demo_path

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args, env_cache):
    env = {"DIALOGUE_CACHE_DIR": str(env_cache), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "data_access", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name", ["codraw", "gos", "minecraft"])
def test_summary_of_the_demo_corpus_is_one_json_object(tmp_path, name):
    result = run_cli("summary", name, demo_path(name, tmp_path), env_cache=tmp_path / "c")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert isinstance(summary, dict) and isinstance(summary["skipped"], list)


def _bad_sources(tmp_path):
    not_gzip = tmp_path / "fake.json.gz"
    not_gzip.write_text('{"count": 1}')
    truncated = tmp_path / "truncated.json"
    truncated.write_text('{"count": 9993, "stat": {}, "data": {"train_00001": {"image_id": 1, "abs')
    empty = tmp_path / "empty.json"
    empty.write_text("")
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes('{"count": 1, "data": {"train_00001": {"abs_t": "caf\xe9"}}}'.encode("latin-1"))
    wrong_layout = tmp_path / "list.json"
    wrong_layout.write_text("[1, 2, 3]")
    empty_folder = tmp_path / "empty-folder"
    empty_folder.mkdir()
    gz_truncated = tmp_path / "cut.json.gz"
    gz_truncated.write_bytes(gzip.compress(b'{"count": 1, "stat": {}, "data": {}}')[:-12])
    return {
        ("codraw", "missing"): tmp_path / "nope.json",
        ("codraw", "not gzip"): not_gzip,
        ("codraw", "truncated"): truncated,
        ("codraw", "empty"): empty,
        ("codraw", "not utf-8"): latin1,
        ("codraw", "wrong layout"): wrong_layout,
        ("codraw", "empty folder"): empty_folder,
        ("codraw", "truncated gzip"): gz_truncated,
        ("gos", "missing"): tmp_path / "nope",
        ("gos", "empty folder"): empty_folder,
        ("gos", "a file, not a folder"): wrong_layout,
        ("minecraft", "missing"): tmp_path / "nope",
        ("minecraft", "empty folder"): empty_folder,
        ("minecraft", "a file, not a folder"): wrong_layout,
    }


BAD_CASES = [("codraw", "missing"), ("codraw", "not gzip"), ("codraw", "truncated"), ("codraw", "empty"),
             ("codraw", "not utf-8"), ("codraw", "wrong layout"), ("codraw", "empty folder"),
             ("codraw", "truncated gzip"), ("gos", "missing"), ("gos", "empty folder"), ("gos", "a file, not a folder"),
             ("minecraft", "missing"), ("minecraft", "empty folder"), ("minecraft", "a file, not a folder")]


@pytest.mark.parametrize("case", BAD_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_unloadable_source_exits_2_with_one_line_naming_the_file(tmp_path, case):
    path = _bad_sources(tmp_path)[case]
    result = run_cli("summary", case[0], path, env_cache=tmp_path / "c")
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert path.name in lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""


# Prints whether pandas was imported, after the summary itself.
SUMMARY_REPORTING_PANDAS = """
import sys
from data_access.__main__ import main
code = main(["summary", "codraw", sys.argv[1]])
print("pandas imported" if "pandas" in sys.modules else "pandas not imported", file=sys.stderr)
sys.exit(code)
"""


def _summary_and_pandas(path, cache):
    result = subprocess.run([sys.executable, "-c", SUMMARY_REPORTING_PANDAS, str(path)], cwd=ROOT, capture_output=True,
                            text=True, timeout=120, env={"DIALOGUE_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin",
                                                         "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), result.stderr.strip().splitlines()[-1]


def test_a_warm_codraw_summary_is_the_cold_one_without_importing_pandas(tmp_path):
    path = demo_path("codraw", tmp_path)
    cold, cold_pandas = _summary_and_pandas(path, tmp_path / "c")
    warm, warm_pandas = _summary_and_pandas(path, tmp_path / "c")
    assert (cold_pandas, warm_pandas) == ("pandas imported", "pandas not imported")
    assert warm == cold and cold["dialogs"] > 0 and cold["splits"]["test"]["mean_final_score"] is not None


def test_a_damaged_cached_dialogs_file_gives_the_same_figures_rebuilt(tmp_path):
    path = demo_path("codraw", tmp_path)
    cold, _ = _summary_and_pandas(path, tmp_path / "c")
    [dialogs] = (tmp_path / "c").glob("codraw-*/dialogs.parquet")
    data = bytearray(dialogs.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, so only the checksum can tell
    dialogs.write_bytes(bytes(data))
    again, _ = _summary_and_pandas(path, tmp_path / "c")
    assert again == cold
