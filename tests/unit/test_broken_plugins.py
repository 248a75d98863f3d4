"""A broken corpus plugin is contained: one that raises on import (``SystemExit`` too) is left out of the corpora,
named with its error by the registry and ``dd.corpora()``, and refused by ``dd.open_corpus`` with a clear
``PluginError``; one whose ``build_frames`` returns something else than the frames is refused when it loads."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import dialogue_dashboard as dd
from data_access import registry
from data_access.corpora import checked_frames, load_path, load_source
from data_access.sources import configured_source
from data_access.types import PluginError, SkippedRecord
from tests.fixtures import broken_plugins, tinycorpus

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def installed():
    with broken_plugins.installed():
        yield


def test_a_plugin_that_raises_on_import_is_left_out_and_named_with_its_error():
    assert "crashes" in registry.CORPUS_NAMES  # listed, not imported, until it is used
    with pytest.raises(PluginError, match="crashes.*No module named 'dialogue_dashboard_no_such_dependency'"):
        registry.corpus_module("crashes")
    assert "crashes" not in registry.CORPUS_NAMES
    assert "ModuleNotFoundError" in registry.PLUGIN_PROBLEMS["crashes"]
    with pytest.raises(PluginError, match="crashes"):  # asked again: the same refusal, not "unknown corpus"
        registry.corpus_module("crashes")


def test_a_plugin_that_raises_system_exit_on_import_is_contained():
    with pytest.raises(PluginError, match=r"exits_on_import cannot be imported \(SystemExit: 3\)"):
        registry.corpus_module("exits")
    assert "exits" not in registry.CORPUS_NAMES


def test_check_plugins_leaves_only_usable_corpora():
    problems = registry.check_plugins()
    assert set(problems) == {"crashes", "exits"}
    assert registry.CORPUS_NAMES == ["codraw", "gos", "minecraft", "textframes"]
    assert dict(registry.CORPUS_TITLES)["textframes"] == "Text Frames Plugin"  # every table reads every name


def test_the_api_lists_the_broken_plugins_with_their_errors():
    names = dd.corpora()
    assert list(names) == ["codraw", "gos", "minecraft", "textframes"]
    assert set(names.broken) == {"crashes", "exits"} and "SystemExit: 3" in names.broken["exits"]
    assert "broken plugins" in repr(names) and "'crashes'" in repr(names)


@pytest.mark.parametrize("name, problem", [("crashes", "ModuleNotFoundError"), ("exits", "SystemExit: 3"),
                                           ("textframes", "build_frames returned a str, not (frames, skipped")])
def test_opening_a_broken_plugin_raises_a_clear_error(name, problem):
    with pytest.raises(dd.PluginError) as raised:
        dd.open_corpus(name)
    assert raised.value.corpus == name and problem in str(raised.value)
    assert isinstance(raised.value, ValueError)  # as an unknown name is


def test_open_corpus_on_a_plugin_that_exits_does_not_end_the_callers_process():
    code = ("import dialogue_dashboard as dd\nfrom tests.fixtures import broken_plugins\n"
            "with broken_plugins.installed('exits'):\n"
            "    try:\n        dd.open_corpus('exits')\n    except dd.PluginError as error:\n        print(error)\n"
            "print('still here')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "still here" and "SystemExit: 3" in done.stdout


def test_the_command_line_names_the_broken_plugin_in_one_line():
    code = ("import sys\nfrom tests.fixtures import broken_plugins\nfrom data_access.__main__ import main\n"
            "with broken_plugins.installed('exits'):\n    sys.exit(main(['summary', 'exits', '.']))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "the corpus plugin 'exits' cannot be used" in done.stderr and "SystemExit: 3" in done.stderr


def test_build_frames_that_returns_text_is_refused_by_name_before_the_cache(tmp_path):
    package = registry.corpus_module("textframes")
    with pytest.raises(PluginError, match="'textframes'.*returned a str"):
        load_source(configured_source(package), cache_root=tmp_path)
    assert not list((tmp_path).glob("**/*.parquet"))


FRAMES = {"dialogs": pd.DataFrame(), "utterances": pd.DataFrame()}


@pytest.mark.parametrize("built, problem", [
    ("frames", "a str"), (("a", "b", "c"), "a tuple of 3"), (([], []), "a list as its frames"),
    (({"dialogs": pd.DataFrame()}, []), "frames without utterances"),
    (({"dialogs": "x", "utterances": "y"}, []), "dialogs, utterances as a str"),
    ((FRAMES, "none"), "a str as its skipped records"), ((FRAMES, ["none"]), "a list as its skipped records")])
def test_what_build_frames_returns_is_checked(built, problem):
    with pytest.raises(PluginError, match=problem):
        checked_frames(tinycorpus, built)


def test_the_built_in_corpora_and_the_tiny_corpus_pass_the_check(tmp_path):
    for name in ("codraw", "gos", "minecraft"):
        assert len(load_path(name, None, cache_root=tmp_path).dialogs) > 0
    with registry.registered(tinycorpus) as package:
        assert len(load_source(configured_source(package), cache_root=tmp_path).dialogs) == 3
    assert checked_frames(tinycorpus, (FRAMES, [SkippedRecord("f", "r")]))[0] is FRAMES


def test_a_title_or_a_layer_is_resolved_past_a_broken_plugin_met_on_the_way():
    assert registry.resolve("Text Frames Plugin") == "textframes"  # after crashes and exits in the list
    assert registry.resolve("no such title") is None
    assert registry.layer_corpus("gos-mentions").NAME == "gos"
    assert "crashes" not in registry.CORPUS_NAMES and "exits" not in registry.CORPUS_NAMES
