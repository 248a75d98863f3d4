"""The cache never serves stale or damaged data, and the CLI names the file that failed: a source reached
through symlinks, a source given as one of its files or sub-folders, an edit that keeps size and mtime, a
damaged run entry, symlink loops, and the "cannot be written" note on every command."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from data_access import cache, readahead
from data_access.corpora import demo_path, load_path
from data_access.runs.demo import demo_runs

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args, cache_dir):
    env = {"DIALOGUE_CACHE_DIR": str(cache_dir), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "data_access", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def _key(corpus, path):
    return cache.cache_key(corpus, path, 1)


def _grow(file: Path) -> None:
    """Change a file's content and size (a new mtime too)."""
    with open(file, "ab") as out:
        out.write(b"\n")


# a source below a symlinked folder ------------------------------------------------------------------

def test_an_edit_inside_a_symlinked_folder_changes_the_key(tmp_path):
    source = tmp_path / "corpus"
    (source / "logs").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere" / "game"
    elsewhere.mkdir(parents=True)
    (elsewhere / "observations.json").write_text("{}")
    (source / "logs" / "game").symlink_to(elsewhere, target_is_directory=True)
    key = _key("codraw", source)
    _grow(elsewhere / "observations.json")
    assert _key("codraw", source) != key


def test_a_minecraft_game_linked_in_from_elsewhere_is_rebuilt_after_an_edit(tmp_path):
    root = demo_path("minecraft", tmp_path)
    games = sorted((root / "logs").glob("*/logs/*"))
    moved = tmp_path / "elsewhere" / games[0].name
    moved.parent.mkdir()
    shutil.move(str(games[0]), moved)
    games[0].symlink_to(moved, target_is_directory=True)
    first = load_path("minecraft", root, cache_root=tmp_path / "c")
    observations = moved / "postprocessed-observations.json"
    game = json.loads(observations.read_text())
    game["WorldStates"] = game["WorldStates"][:3]
    observations.write_text(json.dumps(game))
    again = load_path("minecraft", root, cache_root=tmp_path / "c")
    assert not again.from_cache
    assert again.frames["dialogs"]["n_utterances"].sum() != first.frames["dialogs"]["n_utterances"].sum()


def _fingerprint_in_time(path: Path, seconds: float = 20.0) -> list:
    result: list = []
    worker = threading.Thread(target=lambda: result.append(cache.source_fingerprint(path)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "source_fingerprint hangs on a symlink loop"
    assert result, "source_fingerprint raised"
    return result[0]


def test_symlink_loops_neither_hang_nor_crash_and_are_fingerprinted_stably(tmp_path):
    source = tmp_path / "corpus"
    (source / "sub").mkdir(parents=True)
    (source / "sub" / "a.json").write_text("{}")
    (source / "sub" / "up").symlink_to("..", target_is_directory=True)  # a folder loop back to the root
    (source / "loop1.json").symlink_to("loop2.json")  # a link loop: stat fails with ELOOP
    (source / "loop2.json").symlink_to("loop1.json")
    (source / "dangling.json").symlink_to("nowhere.json")
    first = _fingerprint_in_time(source)
    assert _fingerprint_in_time(source) == first
    names = [entry[0] for entry in first]
    assert os.path.join("sub", "a.json") in names and "loop1.json" in names and "dangling.json" in names
    key = _key("codraw", source)
    (source / "loop1.json").unlink()
    (source / "loop1.json").symlink_to("elsewhere.json")
    assert _key("codraw", source) != key
    # the same folder reached twice is fingerprinted once, its changes still seen
    (source / "again").symlink_to("sub", target_is_directory=True)
    key = _key("codraw", source)
    _grow(source / "sub" / "a.json")
    assert _key("codraw", source) != key


# a source given as one of its files or sub-folders ---------------------------------------------------

def test_gos_given_as_one_of_its_files_is_keyed_by_its_folder(tmp_path):
    from corpora.gos.data.reader import GAME_CONFIG_FILE, LOG_FILE

    folder = demo_path("gos", tmp_path)
    key = _key("gos", folder / GAME_CONFIG_FILE)
    _grow(folder / LOG_FILE)
    assert _key("gos", folder / GAME_CONFIG_FILE) != key


def test_gos_given_as_one_of_its_files_rebuilds_after_the_log_changed(tmp_path):
    from corpora.gos.data.reader import GAME_CONFIG_FILE, LOG_FILE

    folder = demo_path("gos", tmp_path)
    first = load_path("gos", folder / GAME_CONFIG_FILE, cache_root=tmp_path / "c")
    log = folder / LOG_FILE
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[: len(lines) // 3]))
    again = load_path("gos", folder / GAME_CONFIG_FILE, cache_root=tmp_path / "c")
    assert not again.from_cache and len(again.frames["messages"]) < len(first.frames["messages"])


def test_minecraft_given_as_its_logs_folder_is_keyed_by_its_root(tmp_path):
    root = demo_path("minecraft", tmp_path)
    key = _key("minecraft", root / "logs")
    gold = sorted((root / "gold-configurations").glob("*.xml"))[0]
    gold.write_text("")
    assert _key("minecraft", root / "logs") != key


def test_an_unresolvable_source_still_gets_a_key(tmp_path):
    assert _key("gos", tmp_path / "missing") and _key("minecraft", tmp_path / "missing")
    (tmp_path / "loop").symlink_to("loop")
    assert _key("gos", tmp_path / "loop") and _key("codraw", tmp_path / "loop")


# an edit of the same size with the mtime restored (cp -p, rsync -t, touch -r, tar x) ----------------

def test_a_same_size_edit_with_the_mtime_restored_changes_the_key(tmp_path):
    source = tmp_path / "CoDraw_1_0.json"
    source.write_text('{"data": {"test_06149": {}}}')
    before = source.stat()
    key = _key("codraw", source)
    time.sleep(0.05)  # the inode's change time has a coarse clock (a few ms)
    source.write_text('{"data": {"xest_06149": {}}}')
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = source.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert _key("codraw", source) != key


def test_an_untouched_source_keeps_its_key(tmp_path):
    source = tmp_path / "CoDraw_1_0.json"
    source.write_text("{}")
    folder = demo_path("minecraft", tmp_path)
    assert _key("codraw", source) == _key("codraw", source)
    assert _key("minecraft", folder) == _key("minecraft", folder)


# a symlink loop where a file is expected -------------------------------------------------------------

def test_read_ahead_and_take_survive_a_symlink_loop(tmp_path):
    loop = tmp_path / "loop.json"
    loop.symlink_to("loop.json")
    readahead.read_ahead(loop)  # raised RuntimeError (Path.resolve on a loop, Python 3.11)
    assert readahead.take(loop) is None


def test_read_ahead_still_hands_over_a_regular_file(tmp_path):
    source = tmp_path / "a.json"
    source.write_bytes(b'{"a": 1}')
    readahead.read_ahead(source)
    assert readahead.take(tmp_path / "." / "a.json") == b'{"a": 1}'


def _per_dialog_folder(tmp_path) -> Path:
    document = json.loads(demo_path("codraw", tmp_path).read_text())
    folder = tmp_path / "dialogs"
    folder.mkdir()
    for key, dialog in document["data"].items():
        (folder / f"{key}.json").write_text(json.dumps(dialog))
    return folder


def test_a_symlink_loop_in_a_per_dialog_folder_costs_only_itself(tmp_path):
    folder = _per_dialog_folder(tmp_path)
    n_dialogs = len(list(folder.glob("*.json")))
    (folder / "test_loop1.json").symlink_to("test_loop2.json")
    (folder / "test_loop2.json").symlink_to("test_loop1.json")
    loaded = load_path("codraw", folder, cache_root=tmp_path / "c")
    assert len(loaded.dialogs) == n_dialogs
    assert {s.record for s in loaded.skipped} >= {"test_loop1.json", "test_loop2.json"}


# a damaged run cache entry ---------------------------------------------------------------------------

def _flip_middle_byte(file: Path) -> None:
    data = bytearray(file.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size: only the checksum can tell
    file.write_bytes(bytes(data))


def test_a_damaged_run_entry_is_rebuilt_from_the_run_file(tmp_path):
    from data_access.runs import load_run

    corpus = load_path("codraw", demo_path("codraw", tmp_path), cache_root=tmp_path / "c")
    run_file = demo_runs("codraw", tmp_path)["baseline"]
    first = load_run(corpus, run_file, cache_root=tmp_path / "c")
    [dialogs] = (tmp_path / "c").glob("run-codraw-*/dialogs.parquet")
    _flip_middle_byte(dialogs)
    again = load_run(corpus, run_file, cache_root=tmp_path / "c")
    assert set(again.frames) == set(first.frames)
    for name in first.frames:
        pd.testing.assert_frame_equal(again.frames[name], first.frames[name])
    third = load_run(corpus, run_file, cache_root=tmp_path / "c")
    assert third.from_cache
    pd.testing.assert_frame_equal(third.frames["dialogs"], first.frames["dialogs"])


def test_run_summary_with_a_damaged_run_entry_prints_the_same_json(tmp_path):
    corpus = demo_path("codraw", tmp_path)
    run_file = demo_runs("codraw", tmp_path)["baseline"]
    cold = run_cli("run-summary", "codraw", corpus, run_file, cache_dir=tmp_path / "c")
    assert cold.returncode == 0, cold.stderr
    [dialogs] = (tmp_path / "c").glob("run-codraw-*/dialogs.parquet")
    _flip_middle_byte(dialogs)
    again = run_cli("run-summary", "codraw", corpus, run_file, cache_dir=tmp_path / "c")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == json.loads(cold.stdout) and again.stderr == ""


# the error line names the file that failed -----------------------------------------------------------

def _one_error_line(result) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == "" and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_run_summary_names_a_looping_run_file(tmp_path):
    corpus = demo_path("codraw", tmp_path)
    run_file = tmp_path / "runloopA.jsonl"
    run_file.symlink_to("runloopB.jsonl")
    (tmp_path / "runloopB.jsonl").symlink_to("runloopA.jsonl")
    line = _one_error_line(run_cli("run-summary", "codraw", corpus, run_file, cache_dir=tmp_path / "c"))
    assert line.startswith(f"error: {run_file}:"), line


def _main_error(argv, capsys) -> str:
    from data_access.__main__ import main

    assert main([str(a) for a in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.strip().splitlines()
    return line


@pytest.mark.parametrize("failing", ["corpus", "layer"])
def test_layer_summary_names_the_file_whose_load_fails_unexpectedly(tmp_path, monkeypatch, capsys, failing):
    from data_access import corpora
    from data_access.layers import load
    from data_access.layers.load import demo_layer_path

    layer = demo_layer_path("codraw-icr", tmp_path)
    corpus = demo_path("codraw", tmp_path)

    def broken(*_args, **_kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(*((corpora, "load_path") if failing == "corpus" else (load, "load_layer")), broken)
    line = _main_error(["layer-summary", "codraw-icr", corpus, layer], capsys)
    assert line.startswith(f"error: {corpus if failing == 'corpus' else layer}: unexpected RuntimeError"), line


def test_run_summary_names_the_corpus_or_the_run_whichever_fails(tmp_path, monkeypatch, capsys):
    from data_access import corpora, runs

    corpus = demo_path("codraw", tmp_path)
    run_file = demo_runs("codraw", tmp_path)["baseline"]

    def broken(*_args, **_kwargs):
        raise RuntimeError("boom")

    with monkeypatch.context() as patch:
        patch.setattr(corpora, "load_path", broken)
        line = _main_error(["run-summary", "codraw", corpus, run_file], capsys)
        assert line.startswith(f"error: {corpus}: unexpected RuntimeError"), line
    with monkeypatch.context() as patch:
        patch.setattr(runs, "load_run", broken)
        line = _main_error(["run-summary", "codraw", corpus, run_file], capsys)
        assert line.startswith(f"error: {run_file}: unexpected RuntimeError"), line


def test_layer_summary_over_a_per_dialog_folder_with_a_symlink_loop_loads(tmp_path):
    from data_access.layers.load import demo_layer_path

    folder = _per_dialog_folder(tmp_path)
    (folder / "test_loop1.json").symlink_to("test_loop2.json")
    (folder / "test_loop2.json").symlink_to("test_loop1.json")
    result = run_cli("layer-summary", "codraw-icr", folder, demo_layer_path("codraw-icr", tmp_path),
                     cache_dir=tmp_path / "c")
    assert result.returncode == 0, result.stderr
    assert isinstance(json.loads(result.stdout), dict)


# the "cannot be written" note on every command -------------------------------------------------------

def _note_lines(result) -> list[str]:
    assert result.returncode == 0, result.stderr
    assert isinstance(json.loads(result.stdout), dict)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("note: ") and "cannot be written" in lines[0], result.stderr
    return lines


@pytest.mark.parametrize("command", ["summary", "run-summary", "layer-summary"])
def test_every_command_says_once_that_the_cache_folder_cannot_be_written(tmp_path, command):
    from data_access.layers.load import demo_layer_path

    blocker = tmp_path / "blocker"
    blocker.write_text("a regular file where the cache folder should be")
    corpus = demo_path("codraw", tmp_path)
    if command == "summary":
        args = ["summary", "codraw", corpus]
    elif command == "run-summary":
        args = ["run-summary", "codraw", corpus, demo_runs("codraw", tmp_path)["baseline"]]
    else:
        args = ["layer-summary", "codraw-icr", corpus, demo_layer_path("codraw-icr", tmp_path)]
    _note_lines(run_cli(*args, cache_dir=blocker))


def test_run_summary_notes_a_run_entry_that_cannot_be_written(tmp_path):
    """The corpus is cached, but the run's entry cannot be written (a regular file stands in its place)."""
    from data_access.runs import run_cache_key

    corpus_path = demo_path("codraw", tmp_path)
    run_file = demo_runs("codraw", tmp_path)["baseline"]
    cache_dir = tmp_path / "c"
    corpus = load_path("codraw", corpus_path, cache_root=cache_dir)
    (cache_dir / f"run-codraw-{run_cache_key(corpus, run_file)}").write_text("in the way")
    _note_lines(run_cli("run-summary", "codraw", corpus_path, run_file, cache_dir=cache_dir))
