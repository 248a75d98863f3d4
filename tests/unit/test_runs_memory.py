"""Reading a JSON Lines run (plain or gzip) or a layer holds the rows it keeps and one line, not the whole
content beside them: a run's content used to be held whole while its rows were built (and, for gzip, its
decompressed pieces and their join as well), so its peak was at least twice its size.

The figures are tracemalloc's peak of Python's own allocations while reading, in bytes, against the content's
size: no clock, nothing else the process does counted."""
from __future__ import annotations

import gzip
import tracemalloc

import orjson
import pytest

from corpora.codraw.data import scoring as codraw
from data_access.budgets import RUN, Budget
from data_access.safe_io import stream_lines

MB = 1 << 20
CONTENT = 50 * MB
SCENE = "5, 1, 2, 250, 180, 0, 1, 0, " * 180  # a long scene string: the rows hold about what the file holds


def _run_lines(size: int) -> bytes:
    """CoDraw run lines of distinct (dialog, round) keys, about ``size`` bytes of them."""
    line = orjson.dumps({"dialog_id": "train_00000", "round": 1, "scene": SCENE}) + b"\n"
    count = size // len(line)
    return b"".join(orjson.dumps({"dialog_id": f"train_{i // 10:05d}", "round": i % 10 + 1, "scene": SCENE}) + b"\n"
                    for i in range(count))


@pytest.fixture(scope="module")
def content() -> bytes:
    return _run_lines(CONTENT)


def _peak(read) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = read()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_reading_a_50_mb_json_lines_run_holds_its_rows_not_its_content_twice(content, tmp_path, packed):
    path = tmp_path / ("run.jsonl.gz" if packed else "run.jsonl")
    path.write_bytes(gzip.compress(content, 1) if packed else content)
    rows_kept = len(content) - content.count(b"\n")  # about what the rows hold: the scene strings
    peak = _peak(lambda: codraw.read_rows(path))
    # Before: the content (and for gzip its pieces and their join) beside the rows: 2x to 3x its size.
    assert peak < 1.4 * len(content), (peak / MB, len(content) / MB)
    assert peak > 0.8 * rows_kept  # the rows are really built (the figure measures the read)
    frame, tally = codraw.read_rows(path)
    assert len(frame) == content.count(b"\n") and not tally.skipped


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_a_stream_of_lines_holds_one_piece_and_one_line(content, tmp_path, packed):
    path = tmp_path / ("lines.gz" if packed else "lines")
    path.write_bytes(gzip.compress(content, 1) if packed else content)

    def count() -> int:
        return sum(1 for _ in stream_lines(path, RUN))

    peak = _peak(count)
    assert peak < 8 * MB, peak / MB  # pieces of 1 MB (read, inflated), lines of 5 kB; the content is 50 MB
    assert count() == content.count(b"\n")


def test_a_long_line_across_many_pieces_is_joined_once(tmp_path):
    """A line of 40 MB read in 1 MB pieces: its parts are joined once (its size twice at most), not copied
    again with every piece (which would also take quadratic time)."""
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"a" * (40 * MB) + b"\nb\n")
    budget = Budget("run", "run file", RUN.max_bytes, RUN.max_lines, "")
    peak = _peak(lambda: [len(line) for _, line in stream_lines(path, budget)])
    assert peak < 2.2 * 40 * MB, peak / MB
    assert [(n, len(line)) for n, line in stream_lines(path, budget)] == [(1, 40 * MB), (2, 1)]


def test_a_layer_is_read_as_a_stream(tmp_path):
    from data_access.annotation_form import read_lines

    path = tmp_path / "layer.tsv"
    path.write_bytes((b"x" * 100 + b"\ty\n") * 400_000)  # 41 MB, within the layer budget (bytes and lines)
    peak = _peak(lambda: sum(1 for _ in read_lines(path)))
    assert peak < 4 * MB, peak / MB


@pytest.mark.parametrize("indent", [None, 2], ids=["one line", "pretty-printed"])
def test_a_corpus_layout_run_is_still_read_whole_and_json_lines_with_a_bad_first_line_as_a_stream(tmp_path, indent):
    import json

    layout = {"data": {"train_00001": {"dialog": [{"abs_d": "a"}, {"abs_d": "b"}]}, "train_00002": {"dialog": [{"abs_d": "c"}]}}}
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(layout, indent=indent))
    frame, _ = codraw.read_rows(path)
    assert list(zip(frame["dialog_id"], frame["round"], frame["scene"])) == [
        ("train_00001", 1, "a"), ("train_00001", 2, "b"), ("train_00002", 1, "c")]
    lines = tmp_path / "lines.jsonl"
    lines.write_bytes(b"{oops\n" + orjson.dumps({"dialog_id": "train_00001", "round": 1, "scene": SCENE}) + b"\n")
    frame, tally = codraw.read_rows(lines)
    assert list(frame["line"]) == [2] and [s.record for s in tally.skipped] == ["lines.jsonl:1"]
