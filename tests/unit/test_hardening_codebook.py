"""Codebook import within its budget (issue 26, items 2 and 9): a large file is refused before it is parsed,
naming the file; labels are budgeted; a key given twice is refused naming key and lines; a colour is exactly
#rrggbb; a saved version's labels are parsed once, not on every rerun."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from data_access import budgets
from data_access.coding import codebook as cb
from data_access.store import CodingStore

ROOT = Path(__file__).resolve().parents[2]


def _labels(n: int, description: str = "") -> list[dict]:
    return [{"name": f"label-{i}", "scope": "turn", "description": description} for i in range(n)]


@pytest.mark.parametrize("megabytes", [5, 50])
def test_a_large_codebook_is_refused_before_it_is_parsed(megabytes):
    """5 MB took 61 s to parse and 50 MB more than two minutes, holding a server thread."""
    text = ("name: big\nlabels:\n" + "".join(f"  - {{name: l{i}, description: {'x' * 200}}}\n" for i in range(10))).encode()
    text += b"# " + b"y" * (megabytes * 1_000_000) + b"\n"
    started = time.perf_counter()
    with pytest.raises(cb.CodebookError) as info:
        cb.loads(text, "big.yaml")
    assert time.perf_counter() - started < 5  # 0.05 s on an idle machine
    assert str(info.value) == (f"big.yaml: {len(text):,} bytes, more than a codebook file may have "
                               f"({budgets.CODEBOOK.max_bytes:,})")


def test_a_codebook_of_10000_labels_is_refused_naming_the_file():
    """Such a codebook made every Replay run take 49 s (a button per label); it is refused before any label
    is built."""
    text = json.dumps({"name": "huge", "labels": _labels(10_000)})
    started = time.perf_counter()
    with pytest.raises(cb.CodebookError) as info:
        cb.loads(text, "huge.json")
    assert time.perf_counter() - started < 5  # 0.09 s on an idle machine
    assert str(info.value) == f"huge.json: 10,000 labels; a codebook has at most {budgets.MAX_LABELS}"


def test_the_largest_codebook_allowed_imports_in_seconds():
    text = json.dumps({"name": "full", "labels": _labels(budgets.MAX_LABELS, "d" * 2000)})
    assert 64 * 1024 < len(text) < budgets.CODEBOOK.max_bytes
    started = time.perf_counter()
    book = cb.loads(text, "full.json")
    assert len(book.labels) == budgets.MAX_LABELS and time.perf_counter() - started < 10  # 0.06 s idle


def test_a_saved_codebook_over_the_label_budget_is_refused_on_save():
    book = cb.Codebook("many", tuple(cb.Label(f"l{i}") for i in range(budgets.MAX_LABELS + 1)))
    with pytest.raises(cb.CodebookError, match=f"has {budgets.MAX_LABELS + 1} labels; a codebook has at most"):
        cb.check_budget(book)
    with pytest.raises(cb.CodebookError, match="a name has at most 80 characters"):
        cb.check_budget(cb.Codebook("long", (cb.Label("n" * 81),)))


def test_importing_the_largest_codebook_stays_within_its_memory_budget(tmp_path):
    """Measured as the only child of a small wrapper (a process forked from the test process would report the
    test process's own peak)."""
    from tests.unit.test_hardening_budgets import _PEAK

    path = tmp_path / "full.json"
    path.write_text(json.dumps({"name": "full", "labels": _labels(budgets.MAX_LABELS, "d" * 2000)}), encoding="utf-8")
    code = "import sys; from data_access.coding import codebook as cb; cb.loads(open(sys.argv[1], 'rb').read(), 'full.json')"
    done = subprocess.run([sys.executable, "-c", _PEAK, sys.executable, "-c", code, str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    result = json.loads(done.stdout)
    assert result["code"] == 0, result["err"]
    assert result["peak"] < budgets.CODEBOOK.max_memory


@pytest.mark.parametrize("text, message", [
    ("name: x\nlabels: [{name: a}]\nname: y\n", "book.yaml: key 'name' is given twice (lines 1 and 3); give each key once"),
    ("name: x\nlabels:\n  - name: a\n    colour: '#112233'\n    colour: '#445566'\n",
     "book.yaml: key 'colour' is given twice (lines 4 and 5); give each key once"),
    ('{"name": "x",\n "labels": [{"name": "a"}],\n "name": "y"}', "book.yaml: key 'name' is given twice (lines 1 and 3)"),
])
def test_a_key_given_twice_is_refused_naming_the_key_and_its_lines(text, message):
    with pytest.raises(cb.CodebookError) as info:
        cb.loads(text, "book.yaml")
    assert str(info.value).startswith(message)


def test_a_key_given_twice_in_a_large_file_is_refused_too():
    labels = "".join(f"  - {{name: l{i}, description: {'x' * 400}}}\n" for i in range(budgets.MAX_LABELS - 1))
    text = f"name: x\nlabels:\n{labels}  - {{name: last, scope: turn, scope: span}}\n"
    assert len(text) > 64 * 1024  # parsed by libyaml
    with pytest.raises(cb.CodebookError, match=f"key 'scope' is given twice \\(lines {budgets.MAX_LABELS + 2} and "):
        cb.loads(text, "big.yaml")


@pytest.mark.parametrize("colour", ["#112233\n", "#112233 ", "\n#112233", "#1122334"])
def test_a_colour_is_exactly_rrggbb(colour):
    with pytest.raises(cb.CodebookError, match="colour must look like #1f77b4"):
        cb.Label("a", colour=colour)
    with pytest.raises(cb.CodebookError, match="colour must look like"):
        cb.loads(json.dumps({"name": "x", "labels": [{"name": "a", "colour": colour}]}), "c.json")


def test_a_saved_version_is_parsed_once_not_per_rerun(tmp_path):
    store = CodingStore(tmp_path / "notes.sqlite")
    store.save_codebook(cb.Codebook("book", tuple(cb.Label(f"l{i}") for i in range(50))))
    cb.labels_from_json.cache_clear()
    first = store.codebook("book")
    for _ in range(20):  # a rerun reads the codebook list and the codebook again
        store.codebooks()
        again = store.codebook("book")
    assert again.labels is first.labels
    info = cb.labels_from_json.cache_info()
    assert info.misses == 1 and info.hits == 40
    assert again.label("l49") is first.labels[49]
