"""Bounded memory for every input (issue 26, item 1): hostile files a hundred times larger than the ones that
took the CLI to 7.2 GB or crashed it are refused while they are read, or cost a counter per bad line, and the
peak memory of the process reading them stays within the budget of ``data_access.budgets``.

Peak memory is the kernel's: each CLI runs as the only child of a small wrapper process, which reports the
child's ``ru_maxrss`` (``RUSAGE_CHILDREN``), so nothing else the test process ran is counted."""
from __future__ import annotations

import gzip
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest

from data_access import budgets
from data_access.access import Identity
from data_access.common import SkippedRecord, SkippedRecords, skipped_report, skipped_total
from data_access.corpora import demo_path
from data_access.layers.load import demo_layer_path

ROOT = Path(__file__).resolve().parents[2]
MB = 1 << 20
# Each test takes a few seconds on an idle 2-core machine; the bound leaves room for a busy one and still
# catches a refusal that waited for the whole content (minutes).
SECONDS = 60

# Runs the command given as arguments as its only child; prints its exit code, output and peak memory.
_PEAK = ("import json, resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
         "print(json.dumps({'code': r.returncode, 'out': r.stdout, 'err': r.stderr, "
         "'peak': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))")


def cli(*args, cache: Path) -> dict:
    env = {"DIALOGUE_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PEAK, sys.executable, "-m", "data_access", *map(str, args)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    result = json.loads(done.stdout)
    result["seconds"] = time.perf_counter() - started
    return result


def gzip_members(block: bytes, repeat: int, head: bytes = b"") -> bytes:
    """Gzip data of ``head`` then ``block`` ``repeat`` times, as concatenated members (each compressed once):
    gigabytes of content in a few megabytes, written in a fraction of a second."""
    return (gzip.compress(head) if head else b"") + gzip.compress(block, compresslevel=9) * repeat


GOS_LINE = json.dumps({"interaction_id": "x", "round_number": 1, "message_number": 1, "image_ids": []}).encode() + b"\n"


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    cache = tmp_path_factory.mktemp("budget-cache")
    return cache, {name: demo_path(name, cache) for name in ("gos", "codraw")}


def test_skipped_records_keep_the_first_n_and_count_all():
    skipped = SkippedRecords(keep=3)
    for i in range(10):
        skipped.append(SkippedRecord(f"f:{i}", "bad"))
    assert [s.record for s in skipped] == ["f:0", "f:1", "f:2"] and skipped.total == 10 and skipped.left_off == 7
    more = SkippedRecords(skipped, keep=5)  # a copy keeps the count of what the first one left off
    more.append(SkippedRecord("g", "bad"))
    assert len(more) == 4 and more.total == 11
    again = pickle.loads(pickle.dumps(more))  # st.cache_data pickles it
    assert isinstance(again, SkippedRecords) and list(again) == list(more) and again.total == 11
    assert skipped_total(again) == 11 and skipped_total([SkippedRecord("a", "b")]) == 1
    assert skipped_report(again)["skipped_total"] == 11 and len(skipped_report(again)["skipped"]) == 4


def test_the_cache_keeps_the_count_of_skipped_records(tmp_path):
    import pandas as pd

    from data_access import cache

    skipped = SkippedRecords([SkippedRecord(f"f:{i}", "bad") for i in range(5)], keep=2)
    assert cache.write_entry(tmp_path / "entry", {"t": pd.DataFrame({"a": [1]})}, skipped) is None
    _frames, back = cache.read_entry(tmp_path / "entry")
    assert len(back) == 2 and skipped_total(back) == 5


def test_a_gzip_of_one_run_line_and_800_million_junk_lines_is_refused_while_it_is_read(corpora, tmp_path):
    """100 times the 16 kB gzip of eight million junk lines that took the CLI to 7.2 GB."""
    cache, paths = corpora
    run = tmp_path / "junk.jsonl.gz"
    run.write_bytes(gzip_members(b"x\n" * (8 * MB), 100, head=GOS_LINE))
    assert run.stat().st_size < 2 * MB
    result = cli("run-summary", "gos", paths["gos"], run, cache=cache)
    assert result["code"] == 2 and "Traceback" not in result["err"]
    assert result["err"].strip() == (f"error: {run}: decompresses to more than 1,000,000 lines, more than a run "
                                     "file can have")
    assert result["peak"] < budgets.RUN.max_memory and result["peak"] < 600 * MB, result["peak"]
    assert result["seconds"] < SECONDS


def test_a_100_mb_gzip_of_newlines_is_refused_not_a_crash(corpora, tmp_path):
    """100 times the 1 MB gzip of newlines that crashed the CLI (about 100 GB of content)."""
    cache, paths = corpora
    run = tmp_path / "newlines.jsonl.gz"
    run.write_bytes(gzip_members(b"\n" * (64 * MB), 1600))
    assert run.stat().st_size > 100 * 1000 * 1000
    result = cli("run-summary", "gos", paths["gos"], run, cache=cache)
    assert result["code"] == 2 and "more than 1,000,000 lines" in result["err"], result["err"]
    assert result["peak"] < budgets.RUN.max_memory and result["peak"] < 600 * MB, result["peak"]
    assert result["seconds"] < SECONDS


def test_a_gzip_past_the_byte_budget_is_refused_one_piece_past_it(corpora, tmp_path):
    """Long lines, few of them: the byte budget (512 MB of content) stops it, not the line budget."""
    cache, paths = corpora
    run = tmp_path / "wide.jsonl.gz"
    run.write_bytes(gzip_members(b"y" * (64 * MB - 1) + b"\n", 12, head=GOS_LINE))
    result = cli("run-summary", "gos", paths["gos"], run, cache=cache)
    assert result["code"] == 2 and "decompresses to more than a run file can be (512.0 MB)" in result["err"]
    assert result["peak"] < budgets.RUN.max_memory, result["peak"]


def test_bad_lines_within_the_budget_cost_a_counter_each(corpora, tmp_path):
    """Four hundred thousand junk lines beside one good one: scored, the first 1,000 listed, all counted."""
    cache, paths = corpora
    run = tmp_path / "many.jsonl"
    run.write_bytes(GOS_LINE + b"{not json\n" * 400_000)
    result = cli("run-summary", "gos", paths["gos"], run, "--compact", cache=cache)
    assert result["code"] == 0, result["err"]
    summary = json.loads(result["out"])
    assert summary["skipped_total"] == 400_000 and len(summary["skipped"]) == budgets.SKIPPED_KEPT
    assert summary["skipped"][0]["record"] == "many.jsonl:2" and summary["unmatched"] == 1
    assert result["peak"] < 600 * MB, result["peak"]
    assert result["seconds"] < SECONDS


ICR_HEADER = ("previous utterance by the teller\tdrawer's utterance\tnext utterance by the teller\tis CR?\t"
              "impossible to know?\n").encode()


def test_a_layer_of_200_million_malformed_rows_is_refused_while_it_is_read(corpora, tmp_path):
    """100 times the CR layer of two million malformed rows that cost the server 2.2 GB and 34 s."""
    cache, paths = corpora
    layer = tmp_path / "icr-codraw-data.tsv"
    layer.write_bytes(gzip_members(b"a\tb\n" * (2 * MB), 100, head=ICR_HEADER))
    result = cli("layer-summary", "codraw-icr", paths["codraw"], layer, cache=cache)
    assert result["code"] == 2 and "more than 500,000 lines, more than a layer file can have" in result["err"]
    assert result["peak"] < budgets.LAYER.max_memory, result["peak"]
    assert result["seconds"] < SECONDS


def test_a_21_gb_layer_is_refused_before_it_is_read(corpora, tmp_path):
    """100 times the 211 MB layer that ran past 400 s at 9.5 GB (a sparse file: no disk is used)."""
    cache, paths = corpora
    layer = tmp_path / "icr-codraw-data.tsv"
    with open(layer, "wb") as file:
        file.write(ICR_HEADER)
        file.truncate(21_100 * 1000 * 1000)
    result = cli("layer-summary", "codraw-icr", paths["codraw"], layer, cache=cache)
    assert result["code"] == 2 and "is 19.7 GB, more than a layer file can be (64.0 MB)" in result["err"], result["err"]
    assert result["seconds"] < SECONDS


def test_malformed_layer_rows_within_the_budget_are_counted_not_kept(corpora, tmp_path):
    cache, paths = corpora
    good = demo_layer_path("codraw-icr", cache).read_bytes()
    layer = tmp_path / "icr-codraw-data.tsv"
    layer.write_bytes(good + b"only\ttwo\n" * 300_000)
    result = cli("layer-summary", "codraw-icr", paths["codraw"], layer, "--compact", cache=cache)
    assert result["code"] == 0, result["err"]
    figures = json.loads(result["out"])
    assert figures["skipped_total"] == 300_000 and len(figures["skipped"]) == budgets.SKIPPED_KEPT
    assert figures["aligned_unique"] > 0
    assert result["peak"] < budgets.LAYER.max_memory, result["peak"]
    assert result["seconds"] < SECONDS


def test_every_kind_of_input_has_a_documented_budget():
    text = (ROOT / "docs" / "hardening.md").read_text(encoding="utf-8")
    for budget in budgets.BUDGETS.values():
        assert f"| {budget.kind} |" in text
        assert f"{budget.max_lines:,}" in text


def test_an_upload_past_its_budget_is_refused(tmp_path, monkeypatch):
    from data_access import runs

    monkeypatch.setattr(budgets, "UPLOAD", budgets.Budget("upload", "uploaded run file", 10, 10, ""))
    with pytest.raises(ValueError, match="more than an uploaded run may have"):
        runs.save_upload("gos", "big.jsonl", b"x" * 11, cache_root=tmp_path, actor=Identity.local())
    assert not (tmp_path / "uploads" / "gos" / "big.jsonl").exists()


def test_a_corpus_json_lines_file_has_a_line_budget(tmp_path, monkeypatch):
    from corpora.gos.data import reader
    from data_access.common import SourceError

    monkeypatch.setattr(budgets, "CORPUS", budgets.Budget("corpus", "corpus file", 1 << 30, 5, ""))
    monkeypatch.setattr(reader, "CORPUS", budgets.CORPUS)
    path = tmp_path / reader.LOG_FILE
    path.write_bytes(b"{}\n" * 6)
    with pytest.raises(SourceError, match="more than 5 lines"):
        reader.read_jsonl(path, SkippedRecords())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX only")
def test_zero_padding_between_gzip_members_is_passed_over_quickly(tmp_path):
    from data_access.safe_io import gunzip_capped

    data = gzip.compress(b"a\n") + b"\0" * (64 * MB) + gzip.compress(b"b\n")
    started = time.perf_counter()
    assert gunzip_capped(data, 1 << 20, tmp_path / "x.gz", "file", 10) == b"a\nb\n"
    assert time.perf_counter() - started < 10  # 0.1 s on an idle machine
