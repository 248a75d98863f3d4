"""The Python API (docs/python-api.md) on the demo corpora: every code block of the page runs, in order, and the
example notebook runs whole; ``import dialogue_dashboard`` stays light and never imports Streamlit; the frames are
the app's own."""
from __future__ import annotations

import re
import runpy
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import dialogue_dashboard as dd
from data_access.corpora import load_configured
from tests.conftest import SHARED_DATA

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "python-api.md"


def code_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_every_example_of_the_page_runs():
    blocks = code_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    namespace: dict = {}
    for number, block in enumerate(blocks, 1):
        exec(compile(block, f"{PAGE.name} block {number}", "exec"), namespace)  # noqa: S102 - our own documentation
    assert isinstance(namespace["codraw"], dd.Corpus) and isinstance(namespace["run"], dd.Run)


def test_the_example_notebook_runs(capsys):
    runpy.run_path(str(ROOT / "docs" / "example_notebook.py"), run_name="__main__")
    printed = capsys.readouterr().out
    assert "CoDraw from the demo corpus" in printed and "http://localhost:8501/replay?corpus=codraw" in printed


def test_importing_the_package_imports_neither_the_api_nor_streamlit():
    code = ("import sys, dialogue_dashboard as dd\nprint('data_access' in sys.modules)\n"
            "c = dd.open_corpus('gos')\nprint('streamlit' in sys.modules, len(c.dialogs) > 0)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "True"]


def test_the_frames_are_the_apps():
    for name in dd.corpora():
        corpus = dd.open_corpus(name)
        app = load_configured(name)
        assert list(corpus.frames) == list(app.frames)
        for frame in corpus.frames:
            pd.testing.assert_frame_equal(corpus.frames[frame], app.frames[frame], obj=f"{name} {frame}")


def test_a_corpus_is_a_value_keyed_by_name_and_source():
    assert dd.Corpus.resolve("codraw") == dd.Corpus.resolve("codraw")
    assert hash(dd.Corpus.resolve("codraw")) == hash(dd.Corpus.resolve("codraw"))
    assert dd.Corpus.resolve("codraw") != dd.Corpus.resolve("codraw", "/elsewhere/CoDraw_1_0.json")
    with pytest.raises(ValueError, match="unknown corpus"):
        dd.open_corpus("no-such-corpus")


@pytest.mark.shared
def test_the_full_codraw_corpus():
    source = SHARED_DATA / "codraw" / "CoDraw_1_0.json.gz"
    if not source.is_file():
        pytest.skip(f"{source} is not present")
    codraw = dd.open_corpus("codraw", source)
    assert (len(codraw.dialogs), len(codraw.frames["rounds"])) == (9993, 77502)
