"""Issue 13, items 2, 3, 4, 11, 12: files that never end or are not files, an unwritable cache folder, a
damaged cache, ``cache`` without arguments and gold XML parsed by defusedxml.

Every reader is given a FIFO, /dev/zero, a sparse file far larger than its format can need, a folder and a
gzip bomb where a file is expected: each must end quickly in a one-line SourceError naming the file (or, for
one game / dialog / optional file, a skipped record naming it), never block or read it all."""
from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from corpora.minecraft.data import build_frames as minecraft_frames
from corpora.minecraft.data.blocks import parse_gold_xml
from data_access import cache
from data_access.common import SourceError
from data_access.corpora import demo_path, load_path
from data_access.safe_io import LIMITS, GiB, gunzip_capped, read_capped

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def deadline():
    """A reader that blocks (FIFO) or reads forever (/dev/zero) fails the test instead of hanging it."""
    def expired(signum, frame):
        raise TimeoutError("the reader blocked")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(600)  # generous: the machine may be busy; a blocked read never ends
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def copy_demo(name: str, tmp_path: Path) -> Path:
    source = demo_path(name, tmp_path / "demo-cache")
    target = tmp_path / f"{name}-copy"
    if source.is_dir():
        shutil.copytree(source, target)
        return target
    target.mkdir()
    shutil.copy(source, target / source.name)
    return target / source.name


def fifo(path: Path) -> Path:
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    return path


def sparse(path: Path, size: int = 2 * GiB) -> Path:
    if path.exists():
        path.unlink()
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


def one_line(exc: SourceError, path) -> str:
    text = str(exc)
    assert "\n" not in text
    assert str(path) in text
    return text


# ------------------------------------------------------------------------------------------ item 2

@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "sparse", "folder"])
def test_codraw_single_file_that_is_not_a_file_is_refused_quickly(tmp_path, kind):
    path = tmp_path / "CoDraw_1_0.json"
    if kind == "fifo":
        fifo(path)
    elif kind == "sparse":
        sparse(path, LIMITS["codraw file"] + 1)
    elif kind == "folder":
        path.mkdir()
        (path / "x.txt").write_text("not a corpus")
    else:
        path = Path("/dev/zero")
    with pytest.raises(SourceError) as error:
        load_path("codraw", path, cache_root=tmp_path / "c")
    text = one_line(error.value, path)
    assert any(word in text for word in ("FIFO", "character device", "GB", "folder", "no CoDraw files"))


def test_codraw_gzip_bomb_is_refused_without_decompressing_it_all(tmp_path, monkeypatch):
    # the budget's check is the same at any size: at 256 MB rather than the real 4 GB, 1 s rather than 10
    monkeypatch.setitem(LIMITS, "codraw file", 256 << 20)
    path = tmp_path / "CoDraw_1_0.json.gz"
    block = b" " * (64 << 20)
    member = gzip.compress(block, compresslevel=9)  # ~64 kB; gzip allows members one after another
    with open(path, "wb") as out:
        for _ in range(LIMITS["codraw file"] // len(block) + 1):
            out.write(member)
    with pytest.raises(SourceError) as error:
        load_path("codraw", path, cache_root=tmp_path / "c")
    assert "decompresses to more than" in one_line(error.value, path)


def test_codraw_folder_lists_a_fifo_a_sparse_file_and_a_folder_and_loads_the_rest(tmp_path):
    single = copy_demo("codraw", tmp_path)
    data = json.loads(single.read_text())["data"]
    folder = tmp_path / "dialogs"
    folder.mkdir()
    keys = list(data)[:3]
    for key in keys:
        (folder / f"{key}.json").write_text(json.dumps(data[key]))
    fifo(folder / "train_99991.json")
    sparse(folder / "train_99992.json", LIMITS["codraw dialog"] + 1)
    (folder / "train_99993.json").mkdir()
    loaded = load_path("codraw", folder, cache_root=tmp_path / "c")
    assert sorted(loaded.dialogs["dialog_id"]) == sorted(keys)
    reasons = {s.record: s.reason for s in loaded.skipped}
    assert "FIFO" in reasons["train_99991.json"]
    assert "more than" in reasons["train_99992.json"]
    assert "folder" in reasons["train_99993.json"]


def test_codraw_x_json_and_x_json_gz_are_never_merged(tmp_path):
    single = copy_demo("codraw", tmp_path)
    data = json.loads(single.read_text())["data"]
    first, second = list(data)[:2]
    folder = tmp_path / "dialogs"
    folder.mkdir()
    (folder / f"{first}.json").write_text(json.dumps(data[first]))
    with gzip.open(folder / f"{first}.json.gz", "wt") as out:
        json.dump(data[second], out)  # another dialog's rounds under the same id
    loaded = load_path("codraw", folder, cache_root=tmp_path / "c")
    assert list(loaded.dialogs["dialog_id"]) == [first]
    assert loaded.dialogs["n_rounds"].iloc[0] == len(data[first]["dialog"])
    assert any(s.record == f"{first}.json.gz" and "second file" in s.reason for s in loaded.skipped)


@pytest.mark.parametrize("kind", ["fifo", "sparse", "folder", "dev-zero"])
def test_gos_log_file_that_is_not_a_file_is_refused_quickly(tmp_path, kind):
    folder = copy_demo("gos", tmp_path)
    log = folder / "a-game-of-sorts_log_interaction_all.jsonl"
    log.unlink()
    if kind == "fifo":
        fifo(log)
    elif kind == "sparse":
        sparse(log)
    elif kind == "folder":
        log.mkdir()
    else:
        log.symlink_to("/dev/zero")
    with pytest.raises(SourceError) as error:
        load_path("gos", folder, cache_root=tmp_path / "c")
    one_line(error.value, log)


@pytest.mark.parametrize("name", ["a-game-of-sorts_log_interaction_board_mappings.jsonl",
                                  "a-game-of-sorts_survey_user_all.jsonl", "README.md"])
def test_gos_optional_file_that_is_a_fifo_is_listed_not_fatal(tmp_path, name):
    folder = copy_demo("gos", tmp_path)
    fifo(folder / name)
    loaded = load_path("gos", folder, cache_root=tmp_path / "c")
    assert len(loaded.dialogs) > 0
    if name.endswith(".jsonl"):
        assert any(s.record == name and "FIFO" in s.reason for s in loaded.skipped)


def test_gos_source_that_is_a_device_is_refused(tmp_path):
    with pytest.raises(SourceError) as error:
        load_path("gos", "/dev/zero", cache_root=tmp_path / "c")
    one_line(error.value, "/dev/zero")


def _minecraft_games(root: Path) -> list[Path]:
    return sorted(root.glob("logs/*/logs/*/postprocessed-observations.json"))


@pytest.mark.parametrize("kind", ["fifo", "sparse", "folder", "dev-zero"])
def test_minecraft_game_file_that_is_not_a_file_costs_that_game_only(tmp_path, kind):
    root = copy_demo("minecraft", tmp_path)
    games = _minecraft_games(root)
    bad = games[0]
    bad.unlink()
    if kind == "fifo":
        fifo(bad)
    elif kind == "sparse":
        sparse(bad)
    elif kind == "folder":
        bad.mkdir()
    else:
        bad.symlink_to("/dev/zero")
    frames, skipped = minecraft_frames(root, lambda *a: None)
    assert len(frames["dialogs"]) == len(games) - 1
    record = str(bad.relative_to(root))
    assert any(s.record == record for s in skipped), skipped


@pytest.mark.parametrize("kind", ["fifo", "sparse", "dev-zero"])
def test_minecraft_gold_file_that_is_not_a_file_is_listed(tmp_path, kind):
    root = copy_demo("minecraft", tmp_path)
    gold = sorted((root / "gold-configurations").glob("*.xml"))[0]
    gold.unlink()
    {"fifo": fifo, "sparse": sparse, "dev-zero": lambda p: p.symlink_to("/dev/zero")}[kind](gold)
    frames, skipped = minecraft_frames(root, lambda *a: None)
    assert len(frames["dialogs"]) == len(_minecraft_games(root))
    assert any(s.record == f"gold-configurations/{gold.name}" and "file is missing" not in s.reason for s in skipped)


@pytest.mark.parametrize("kind", ["fifo", "sparse"])
def test_minecraft_splits_file_that_is_not_a_file_is_refused(tmp_path, kind):
    root = copy_demo("minecraft", tmp_path)
    splits = root / "logs" / "splits.json"
    splits.unlink()
    {"fifo": fifo, "sparse": sparse}[kind](splits)
    with pytest.raises(SourceError) as error:
        load_path("minecraft", root, cache_root=tmp_path / "c")
    one_line(error.value, splits)


def test_read_capped_and_gunzip_capped_stop_at_the_limit(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 101)
    assert read_capped(path, 101) == b"x" * 101
    with pytest.raises(SourceError):
        read_capped(path, 100)
    packed = gzip.compress(b"y" * 1000) + gzip.compress(b"z" * 10)  # two members
    assert gunzip_capped(packed, 1010, path) == b"y" * 1000 + b"z" * 10
    with pytest.raises(SourceError):
        gunzip_capped(packed, 1009, path)
    with pytest.raises(SourceError):
        gunzip_capped(packed[:-30], 5000, path)  # truncated


def test_cli_on_dev_zero_and_a_fifo_exits_2_with_one_line(tmp_path):
    pipe = fifo(tmp_path / "CoDraw_1_0.json")
    for path in ("/dev/zero", pipe):
        result = subprocess.run([sys.executable, "-m", "data_access", "summary", "codraw", str(path)], cwd=ROOT,
                                env={"DIALOGUE_CACHE_DIR": str(tmp_path / "c"), "PATH": "/usr/bin:/bin"},
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 2
        assert result.stderr.count("\n") == 1 and str(path) in result.stderr and "Traceback" not in result.stderr


# ------------------------------------------------------------------------------------------ item 3

def unwritable(tmp_path: Path) -> Path:
    """A cache folder that cannot be created, even by root: its parent is a regular file."""
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    return blocker / "cache"


@pytest.mark.parametrize("name", ["codraw", "gos", "minecraft"])
def test_unwritable_cache_folder_loads_without_caching_and_says_why(tmp_path, name):
    source = demo_path(name, tmp_path / "writable")
    loaded = load_path(name, source, cache_root=unwritable(tmp_path))
    assert len(loaded.dialogs) > 0 and not loaded.from_cache
    assert "cannot be written" in loaded.cache_note and "blocker" in loaded.cache_note


@pytest.mark.parametrize("name", ["codraw", "gos", "minecraft"])
def test_demo_corpus_loads_when_the_cache_folder_is_unwritable(tmp_path, name):
    loaded = load_path(name, None, cache_root=unwritable(tmp_path))
    assert len(loaded.dialogs) > 0 and loaded.cache_note


def test_cli_with_unwritable_cache_exits_0_and_says_so_once(tmp_path):
    env = {"DIALOGUE_CACHE_DIR": str(unwritable(tmp_path)), "PATH": "/usr/bin:/bin"}
    source = demo_path("gos", tmp_path / "writable")
    result = subprocess.run([sys.executable, "-m", "data_access", "summary", "gos", str(source)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["interactions"] > 0
    assert result.stderr.count("cannot be written") == 1
    result = subprocess.run([sys.executable, "-m", "data_access", "cache"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("cannot be written") == 1
    assert result.stdout.count("not cached") == 3


# ------------------------------------------------------------------------------------------ item 4

def _flip_two_bytes(file: Path, at: float) -> None:
    data = bytearray(file.read_bytes())
    i = int(len(data) * at)
    data[i] ^= 0x01
    data[i + 1] ^= 0x10
    file.write_bytes(bytes(data))  # same size


@pytest.mark.parametrize("name,frame", [("codraw", "dialogs"), ("codraw", "rounds"), ("gos", "dialogs"),
                                        ("gos", "ranks"), ("minecraft", "dialogs"), ("minecraft", "actions")])
@pytest.mark.parametrize("at", [0.3, 0.5, 0.8])
def test_flipped_bytes_in_a_cached_frame_are_detected_and_rebuilt(tmp_path, name, frame, at):
    source = demo_path(name, tmp_path / "demo")
    fresh = load_path(name, source, cache_root=tmp_path / "c")
    expected = {k: fresh.frames[k].copy() for k in fresh.frames}
    (entry,) = [p for p in (tmp_path / "c").iterdir() if p.name.startswith(name + "-")]
    _flip_two_bytes(entry / f"{frame}.parquet", at)
    again = load_path(name, source, cache_root=tmp_path / "c")
    assert again.from_cache  # the manifest is intact; the damage shows when the frame is read
    for key, value in expected.items():
        assert plain(again.frames[key]).equals(plain(value)), key


def plain(frame):
    """Lists and numpy arrays in object columns alike (Parquet gives arrays back for lists)."""
    frame = frame.copy()
    for column in frame.select_dtypes(include=["object", "str"]).columns:
        frame[column] = frame[column].map(lambda v: repr(v.tolist() if hasattr(v, "tolist") else v))
    return frame


@pytest.mark.parametrize("name", ["codraw", "gos", "minecraft"])
def test_summary_is_unchanged_wherever_two_bytes_flip_in_the_dialogs_frame(tmp_path, name):
    """The issue's case: a same-size flip inside a data page used to change a mean score silently."""
    from data_access.corpora import corpus_module

    source = demo_path(name, tmp_path / "demo")
    expected = corpus_module(name).summarize(load_path(name, source, cache_root=tmp_path / "clean"))
    for step in range(1, 20, 2):
        root = tmp_path / f"c{step}"
        load_path(name, source, cache_root=root)
        (entry,) = [p for p in root.iterdir() if p.name.startswith(name + "-")]
        _flip_two_bytes(entry / "dialogs.parquet", step / 20)
        assert corpus_module(name).summarize(load_path(name, source, cache_root=root)) == expected, step


def test_damaged_manifest_is_rebuilt(tmp_path):
    source = demo_path("codraw", tmp_path / "demo")
    load_path("codraw", source, cache_root=tmp_path / "c")
    (entry,) = [p for p in (tmp_path / "c").iterdir() if p.name.startswith("codraw-")]
    manifest = json.loads((entry / cache.MANIFEST).read_text())
    manifest["skipped"] = [{"record": "invented", "reason": "never happened"}]
    (entry / cache.MANIFEST).write_text(json.dumps(manifest))
    again = load_path("codraw", source, cache_root=tmp_path / "c")
    assert not again.from_cache and all(s.record != "invented" for s in again.skipped)


def test_cli_summary_after_flipping_bytes_in_the_cache_prints_the_true_figures(tmp_path):
    source = demo_path("codraw", tmp_path / "demo")
    env = {"DIALOGUE_CACHE_DIR": str(tmp_path / "c"), "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "data_access", "summary", "codraw", str(source)]
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    (entry,) = [p for p in (tmp_path / "c").iterdir() if p.name.startswith("codraw-")]
    _flip_two_bytes(entry / "dialogs.parquet", 0.4)
    second = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0 and json.loads(second.stdout) == json.loads(first.stdout)


# ------------------------------------------------------------------------------------------ item 11

def test_cache_command_without_arguments_fills_every_cache(tmp_path):
    result = subprocess.run([sys.executable, "-m", "data_access", "cache"], cwd=ROOT,
                            env={"DIALOGUE_CACHE_DIR": str(tmp_path / "c"), "PATH": "/usr/bin:/bin"},
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["codraw", "gos", "minecraft"]


def test_cache_command_names_an_unknown_corpus(tmp_path):
    result = subprocess.run([sys.executable, "-m", "data_access", "cache", "chess"], cwd=ROOT,
                            env={"DIALOGUE_CACHE_DIR": str(tmp_path / "c"), "PATH": "/usr/bin:/bin"},
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "chess" in result.stderr and "Traceback" not in result.stderr


# ------------------------------------------------------------------------------------------ item 12

BLOCK = '<DrawBlock type="cwcmod:cwc_minecraft_red_rn" x="100" y="1" z="100"/>'


@pytest.mark.parametrize("line", [
    '<!DOCTYPE d [<!ENTITY c "cwcmod:cwc_minecraft_red_rn">]><DrawBlock type="&c;" x="100" y="1" z="100"/>',
    '<!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><DrawBlock type="&b;" x="1" y="1" z="1"/>',
    '<!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/passwd">]><DrawBlock type="&e;" x="100" y="1" z="100"/>',
    '<!DOCTYPE d SYSTEM "http://example.invalid/d.dtd"><DrawBlock type="red" x="100" y="1" z="100"/>',
])
def test_gold_xml_with_entities_or_a_dtd_is_refused(line):
    with pytest.raises(ValueError) as error:
        parse_gold_xml(BLOCK + "\n" + line, "C1.xml")
    assert "C1.xml line 2" in str(error.value)


def test_defusedxml_is_pinned():
    requirements = (ROOT / "requirements.txt").read_text().splitlines()
    assert any(line.startswith("defusedxml==") for line in requirements)
