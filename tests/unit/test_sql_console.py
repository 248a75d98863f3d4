"""The read-only SQL console (issue 37): queries over the registered tables; hostile queries refused or stopped
with one line (files, COPY, ATTACH, INSTALL / LOAD, SET, several statements, a query running forever, a huge
result, memory); a cancel from another thread; nothing written on disk; and ``python -m data_access sql``
(one JSON object, or exit 2 with one stderr line)."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from data_access.corpora import demo_path
from data_access.sql_console import COUNT_LIMIT, MAX_ROWS, SqlConsole, SqlRefused

ROOT = Path(__file__).resolve().parents[2]
FOREVER = "SELECT count(*) FROM range(1000000000000) a, range(1000) b"


@pytest.fixture(scope="module")
def console():
    dialogs = pd.DataFrame({"dialog_id": ["d1", "d2", "d3"], "split": pd.array(["train", "val", None], dtype="string"),
                            "score": [1.5, float("nan"), 3.0], "players": [["a", "b"], ["b"], []],
                            "started_at": pd.to_datetime(["2021-01-01", None, "2022-05-01"], utc=True)})
    rounds = pd.DataFrame({"dialog_id": ["d1", "d1", "d2"], "round": [1, 2, 1]})
    opened = SqlConsole({"dialogs": dialogs, "rounds": rounds})
    yield opened
    opened.close()


def test_a_query_returns_columns_rows_and_the_count(console):
    result = console.run("SELECT d.dialog_id, count(r.round) AS n FROM dialogs d LEFT JOIN rounds r USING (dialog_id) "
                         "GROUP BY 1 ORDER BY 1")
    assert result.columns == ["dialog_id", "n"] and result.rows == [["d1", 2], ["d2", 1], ["d3", 0]]
    assert result.row_count == 3 and result.row_count_complete and not result.truncated
    assert result.dialog_ids == ["d1", "d2", "d3"]


def test_values_become_json(console):
    result = console.run("SELECT score, players, started_at, split FROM dialogs ORDER BY dialog_id")
    json.dumps(result.as_json(), allow_nan=False)  # NaN is null; times are text
    assert result.rows[1][0] is None and result.rows[0][1] == ["a", "b"] and result.rows[0][2].startswith("2021-01-01")


@pytest.mark.parametrize("query, words", [
    ("SELECT * FROM read_csv('/etc/passwd')", "disabled by configuration"),
    ("SELECT * FROM read_text('/etc/hostname')", "disabled by configuration"),
    ("SELECT * FROM read_parquet('https://example.org/x.parquet')", "disabled by configuration"),
    ("SELECT * FROM glob('/*')", "disabled by configuration"),
    ("COPY dialogs TO '/tmp/out.csv'", "“COPY …” is refused"),
    ("ATTACH '/tmp/other.duckdb' AS other", "“ATTACH …” is refused"),
    ("INSTALL httpfs", "“INSTALL …” is refused"),
    ("LOAD httpfs", "“LOAD …” is refused"),
    ("SET enable_external_access = true", "“SET …” is refused"),
    ("PRAGMA enable_external_access", "“PRAGMA …” is refused"),
    ("CREATE TABLE x AS SELECT 1", "“CREATE …” is refused"),
    ("DROP TABLE dialogs", "“DROP …” is refused"),
    ("EXPORT DATABASE '/tmp/dump'", "“EXPORT …” is refused"),
    ("SELECT 1; DROP TABLE dialogs", "One query at a time"),
    ("SELECT * FROM nowhere", "nowhere"),
    ("SELEKT 1", "Not a query"),
    ("", "Type a query"),
    ("SELECT 1 -- " + "x" * 30_000, "characters long"),
])
def test_hostile_and_broken_queries_are_refused_in_one_line(console, query, words):
    with pytest.raises(SqlRefused) as refused:
        console.run(query)
    assert words in str(refused.value) and "\n" not in str(refused.value)
    assert console.run("SELECT count(*) FROM dialogs").rows == [[3]]  # the tables are still there


def test_the_settings_stay_locked_and_nothing_is_written(console, tmp_path):
    settings = dict(console.run("SELECT name, value FROM duckdb_settings() WHERE name IN "
                                "('enable_external_access', 'lock_configuration', 'threads', "
                                "'autoload_known_extensions', 'autoinstall_known_extensions')").rows)
    assert settings == {"enable_external_access": "false", "lock_configuration": "true", "threads": "1",
                        "autoload_known_extensions": "false", "autoinstall_known_extensions": "false"}
    target = tmp_path / "written.csv"
    with pytest.raises(SqlRefused):
        console.run(f"SELECT * FROM dialogs; COPY dialogs TO '{target}'")
    with pytest.raises(SqlRefused):
        console.run(f"SELECT * FROM (FROM dialogs) WHERE EXISTS (FROM read_csv('{target}'))")
    assert not target.exists()


def test_a_query_running_forever_is_stopped_at_its_time_limit(console):
    started = time.monotonic()
    with pytest.raises(SqlRefused, match="time limit of 0.5 s"):
        console.run(FOREVER, timeout_s=0.5)
    assert time.monotonic() - started < 5


def test_a_running_query_is_cancelled_from_another_thread(console):
    running = console.start(FOREVER, timeout_s=60)
    assert running.wait(0.2) is None and not running.done()
    threading.Timer(0.1, running.cancel).start()
    started = time.monotonic()
    with pytest.raises(SqlRefused, match="cancelled"):
        running.wait(30)
    assert time.monotonic() - started < 5


def test_a_huge_result_returns_the_cap_and_counts_up_to_its_limit(console):
    result = console.run("SELECT range AS i FROM range(5000000000)", timeout_s=30)
    assert len(result.rows) == MAX_ROWS and result.rows[-1] == [MAX_ROWS - 1]
    assert result.row_count == COUNT_LIMIT and not result.row_count_complete and result.truncated
    small = console.run("SELECT range FROM range(25)", max_rows=10)
    assert len(small.rows) == 10 and small.row_count == 25 and small.row_count_complete


def test_a_query_past_the_memory_limit_is_refused(console):
    with pytest.raises(SqlRefused) as refused:
        console.run("SELECT list(repeat('x', 1000)) FROM range(5000000)", timeout_s=30)
    assert "memory" in str(refused.value).lower() or "time limit" in str(refused.value)


# ------------------------------------------------------------------------------------------ the command

def run_cli(*args, cache: Path):
    env = {"DIALOGUE_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "data_access", "sql", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_command_prints_one_json_object(tmp_path):
    source = demo_path("codraw", tmp_path)
    done = run_cli("codraw", source, "SELECT split, count(*) AS n FROM rounds GROUP BY split ORDER BY split",
                   cache=tmp_path / "c")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed["columns"] == ["split", "n"] and printed["row_count"] == len(printed["rows"]) > 0
    assert all(isinstance(row, list) for row in printed["rows"])
    features = run_cli("codraw", source, "SELECT count(*) FROM features WHERE peek_gain < 0", cache=tmp_path / "c")
    assert features.returncode == 0, features.stderr


@pytest.mark.parametrize("query, words", [
    ("COPY rounds TO '/tmp/x.csv'", "is refused"),
    ("SELECT * FROM read_csv('/etc/passwd')", "disabled by configuration"),
    (FOREVER, "time limit of 1 s"),
])
def test_the_command_exits_2_with_one_stderr_line(tmp_path, query, words):
    done = run_cli("codraw", demo_path("codraw", tmp_path), query, "--timeout", "1", cache=tmp_path / "c")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and words in done.stderr and done.stderr.startswith("error: ")


def test_the_installed_command_runs_the_same_tool(tmp_path):
    env = {"DIALOGUE_CACHE_DIR": str(tmp_path / "c"), "PATH": "/usr/bin:/bin"}
    script = ("import sys; from dialogue_dashboard.cli import main; "
              "sys.exit(main(sys.argv[1:]))")
    args = ["sql", "codraw", str(demo_path("codraw", tmp_path)), "SELECT count(*) AS n FROM dialogs", "--compact"]
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["columns"] == ["n"]
    refused = subprocess.run([sys.executable, "-c", script, *args[:3], "ATTACH 'x.db'"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
