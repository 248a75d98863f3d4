"""Every corpus package satisfies the corpus contract (``data_access.contract``): members, signatures, layout."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
from pathlib import Path

import pytest

from data_access import contract
from data_access.common import CORPUS_NAMES, DIALOG_COLUMNS, UTTERANCE_COLUMNS
from data_access.contract import CorpusPackage, OptionalCapabilities
from data_access.corpora import corpus_module, load_path

# The modules every corpus package has, each in the same role (see data_access/contract.py).
LAYOUT = ("reader", "frames", "view", "render", "summary", "demo")


def _protocol_members(protocol) -> dict[str, object]:
    return {name: getattr(protocol, name) for name in dir(protocol)
            if not name.startswith("_") and callable(getattr(protocol, name, None))}


def _parameters(function) -> list[tuple[str, object, object]]:
    """(name, kind, default) of every parameter but ``self``."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values() if p.name != "self"]


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_package_is_a_corpus_package(name):
    package = corpus_module(name)
    assert isinstance(package, CorpusPackage)
    assert package.NAME == name
    assert isinstance(package.DEMO_VERSION, int)
    assert isinstance(package.REPLAY_IN_ROUNDS, bool)
    assert {"dialogs", "utterances"} <= set(package.FRAMES)


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_functions_have_the_contract_signatures(name):
    package = corpus_module(name)
    for member, declared in _protocol_members(CorpusPackage).items():
        assert _parameters(getattr(package, member)) == _parameters(declared), f"{name}.{member}"


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_optional_capabilities_match_when_present(name):
    package = corpus_module(name)
    assert set(_protocol_members(OptionalCapabilities)) == set(contract.OPTIONAL)
    for member, declared in _protocol_members(OptionalCapabilities).items():
        offered = contract.optional(package, member)
        if offered is not None:
            assert _parameters(offered) == _parameters(declared), f"{name}.{member}"
    with pytest.raises(ValueError):
        contract.optional(package, "not_a_capability")


def test_optional_capabilities_are_offered_where_expected():
    assert contract.optional(corpus_module("gos"), "same_board_plays") is not None
    assert contract.optional(corpus_module("codraw"), "same_board_plays") is None
    from data_access.snapshots import offers_same_board_plays

    assert [offers_same_board_plays(name) for name in CORPUS_NAMES] == [name == "gos" for name in CORPUS_NAMES]


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_same_layout_in_every_package(name):
    folder = Path(importlib.import_module(f"data_access.{name}").__file__).parent
    missing = [module for module in LAYOUT if not (folder / f"{module}.py").is_file()]
    assert missing == []
    view = importlib.import_module(f"data_access.{name}.view")
    step_class = view.ReplayStep
    fields = {f.name for f in dataclasses.fields(step_class)}
    assert {"dialog_id", "step", "n_steps"} <= fields


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_demo_corpus_honours_the_contract(name, tmp_path):
    package = corpus_module(name)
    package.write_demo(tmp_path / "demo")
    loaded = load_path(name, package.demo_source(tmp_path / "demo"), cache_root=tmp_path / "cache")
    assert set(loaded.frames) == set(package.FRAMES)
    assert list(loaded.dialogs.columns[:len(DIALOG_COLUMNS)]) == DIALOG_COLUMNS
    assert list(loaded.utterances.columns) == UTTERANCE_COLUMNS
    labels = package.dialog_labels(loaded)
    assert list(labels) == loaded.dialogs["dialog_id"].tolist()
    dialog = loaded.dialogs["dialog_id"].iloc[0]
    round_ = 1 if package.REPLAY_IN_ROUNDS else None
    n_steps = package.step_count(loaded, dialog, round_)
    assert n_steps > 0
    last = package.replay_step(loaded, dialog, n_steps + 5, round_)  # clamped to the last step
    assert (last.dialog_id, last.step, last.n_steps) == (dialog, n_steps, n_steps)
    assert package.replay_step(loaded, "no such dialog", 1, round_) is None
    assert package.snapshot(loaded, dialog, 1, round_).size[0] > 0
    assert package.step_count(loaded, "no such dialog", round_) == 0
    summary = package.summarize(loaded)
    assert isinstance(summary, dict) and "skipped" in summary
