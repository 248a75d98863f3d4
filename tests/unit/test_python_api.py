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
def test_the_full_codraw_corpus(real_cache, monkeypatch):
    source = SHARED_DATA / "codraw" / "CoDraw_1_0.json.gz"
    if not source.is_file():
        pytest.skip(f"{source} is not present")
    monkeypatch.setenv("DIALOGUE_CACHE_DIR", str(real_cache))  # the run's shared cache: parsed once a run
    codraw = dd.open_corpus("codraw", source)
    assert (len(codraw.dialogs), len(codraw.frames["rounds"])) == (9993, 77502)


def test_a_layer_is_read_once_and_again_when_its_file_changes(tmp_path, monkeypatch):
    import shutil

    import data_access.layers.load as layer_load
    from data_access.layers import LAYER_FILES

    codraw = dd.open_corpus("codraw")
    demo = Path(codraw.layer().path)
    folder = tmp_path / "layers"
    folder.mkdir()
    shutil.copy(demo, folder / LAYER_FILES["codraw-icr"])
    monkeypatch.setenv("DIALOGUE_LAYERS_DIR", str(folder))
    reads = []
    real = layer_load.load_layer
    monkeypatch.setattr(layer_load, "load_layer", lambda *args, **kwargs: reads.append(args[0]) or real(*args, **kwargs))
    first = codraw.layer()
    assert codraw.layer() is first and codraw.layer("codraw-icr") is first and reads == ["codraw-icr"]
    lines = (folder / LAYER_FILES["codraw-icr"]).read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / LAYER_FILES["codraw-icr"]).write_text("".join(lines[:-5]), encoding="utf-8")  # five rows fewer
    again = codraw.layer()
    assert again is not first and len(reads) == 2 and len(again.annotations) < len(first.annotations)


def test_a_slice_keeps_the_dialogs_its_features_say_and_narrows_every_frame():
    codraw = dd.open_corpus("codraw")
    dialogs = codraw.dialogs
    long = codraw.slice("n_rounds >= 5 and split = train")
    expected = dialogs.loc[(dialogs["n_rounds"] >= 5) & (dialogs["split"] == "train"), "dialog_id"].astype(str)
    assert long.ids == tuple(expected) and len(long) > 0
    assert long.text == "n_rounds >= 5 and split = train"
    assert long.description == f"CoDraw · rounds ≥ 5 · split = train · {len(long)} dialogs"
    for name in ("dialogs", "rounds", "utterances"):
        assert set(long.frames[name]["dialog_id"].astype(str)) == set(long.ids), name
    assert long.frames["cliparts"].equals(codraw.frames["cliparts"])  # the clip-art catalogue names no dialog
    assert len(long.frames["utterances"]) == dialogs.set_index("dialog_id").loc[list(long.ids), "n_utterances"].sum()


def test_a_slice_of_a_layer_feature_and_of_a_run_s_score():
    codraw = dd.open_corpus("codraw")
    annotations = codraw.layer().annotations
    with_cr = annotations.loc[annotations["label"].astype(str) == "CR", "dialog_id"].astype(str)
    assert set(codraw.slice("crs > 0").ids) == set(with_cr) and len(with_cr) > 0
    run = dd.open_run(codraw, codraw.runs()["noisy"])
    scores = run.loaded.package.run_scoring().dialog_scores(run.loaded)
    high = scores.loc[scores["score"] > 3.5, "dialog_id"].astype(str)
    assert set(codraw.slice("score(noisy) > 3.5").ids) == set(high)


def test_a_step_slice_from_python_keeps_its_moments():
    codraw = dd.open_corpus("codraw")
    rounds = codraw.frames["rounds"]
    peeked = rounds[rounds["peeked"]]
    found = codraw.slice("steps(peek and round_score > 2)")
    expected = peeked[peeked["score_final"] > 2]
    assert len(found.steps) == len(expected) and set(found.ids) == set(expected["dialog_id"])
    assert set(zip(found.frames["rounds"]["dialog_id"], found.frames["rounds"]["round"])) == set(
        zip(expected["dialog_id"], expected["round"]))  # the step frames cut to the moments
    assert found.description.endswith(f"{len(expected):,} steps in {expected['dialog_id'].nunique():,} dialogs")


@pytest.mark.parametrize("text, says", [("mentions > 0", "no feature “mentions”"), ("crs >", "expected"),
                                        ("score(nope) > 1", "no run “nope”")])
def test_a_slice_that_cannot_be_used_says_why(text, says):
    with pytest.raises(dd.SliceError, match=says):
        dd.open_corpus("codraw").slice(text)
