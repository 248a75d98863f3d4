"""Every corpus package satisfies the corpus contract (``data_access.contract``): members, their types and
signatures, layout, its run scoring; a fourth corpus registered from outside (``tests/fixtures/tinycorpus``)
satisfies it too; and no code outside the corpus packages names a corpus."""
from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import typing
from collections.abc import Mapping
from pathlib import Path

import pytest

from data_access import contract, corpora
from data_access.common import BUILT_IN_PACKAGES, CORPUS_NAMES, DIALOG_COLUMNS, UTTERANCE_COLUMNS
from data_access.contract import CorpusPackage, OptionalCapabilities, RunScoring
from data_access.corpora import corpus_module, load_path
from tests.fixtures import tinycorpus

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = tuple(package.split(".")[1] for package in BUILT_IN_PACKAGES)
WITH_TINY = (*BUILT_IN, tinycorpus.NAME)


@pytest.fixture
def tiny():
    """The tiny fourth corpus, registered for the test."""
    with corpora.registered(tinycorpus) as package:
        yield package


def _package(name: str):
    """The package of a built-in corpus, or the tiny one registered (for the rest of the test)."""
    if name == tinycorpus.NAME and name not in CORPUS_NAMES:
        corpora.register(tinycorpus)
    return corpus_module(name)


@pytest.fixture(autouse=True)
def _unregister_tiny():
    yield
    corpora.unregister(tinycorpus.NAME)

# The modules every corpus package has, each in the same role (see data_access/contract.py).
LAYOUT = ("reader", "frames", "view", "render", "summary", "demo")


def _protocol_members(protocol) -> dict[str, object]:
    return {name: getattr(protocol, name) for name in dir(protocol)
            if not name.startswith("_") and callable(getattr(protocol, name, None))}


def _parameters(function) -> list[tuple[str, object, object]]:
    """(name, kind, default) of every parameter but ``self``."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values() if p.name != "self"]


@pytest.mark.parametrize("name", WITH_TINY)
def test_package_is_a_corpus_package(name):
    package = _package(name)
    assert isinstance(package, CorpusPackage)
    assert contract.missing_members(package) == []
    assert package.NAME == name
    assert isinstance(package.DEMO_VERSION, int)
    assert isinstance(package.REPLAY_IN_ROUNDS, bool)
    assert {"dialogs", "utterances"} <= set(package.FRAMES)


@pytest.mark.parametrize("name", WITH_TINY)
def test_functions_have_the_contract_signatures(name):
    package = _package(name)
    for member, declared in _protocol_members(CorpusPackage).items():
        assert _parameters(getattr(package, member)) == _parameters(declared), f"{name}.{member}"


def _has_type(value, annotation) -> bool:
    """Whether ``value`` is of the declared type (the simple types the contract's data members use)."""
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union:
        return any(_has_type(value, argument) for argument in arguments)
    if origin is typing.Literal:
        return value in arguments
    if origin is tuple:
        return isinstance(value, tuple) and all(isinstance(v, arguments[0]) for v in value)
    if origin is Mapping or annotation is Mapping:
        return isinstance(value, Mapping) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    if annotation is type(None):
        return value is None
    return isinstance(value, origin or annotation)


def _data_members(protocol) -> dict[str, object]:
    hints = typing.get_type_hints(protocol, vars(contract) | {"Provenance": __import__("data_access.provenance").provenance.Provenance})
    return {name: hint for name, hint in hints.items() if not name.startswith("_")}


@pytest.mark.parametrize("name", WITH_TINY)
def test_data_members_have_the_contract_types(name):
    package = _package(name)
    for member, annotation in _data_members(CorpusPackage).items():
        assert _has_type(getattr(package, member), annotation), f"{name}.{member}: {getattr(package, member)!r}"
    assert package.NAME == name and package.TITLE and package.SHORT_TITLE
    assert package.EXPORT_BUDGET > 0
    from data_access.layers import LAYER_NAMES

    assert set(package.LAYERS) <= set(LAYER_NAMES)


@pytest.mark.parametrize("name", WITH_TINY)
def test_run_scoring_honours_its_contract(name):
    scoring = _package(name).run_scoring()
    assert isinstance(scoring, RunScoring)
    assert [m for m in contract.run_members() if not hasattr(scoring, m)] == []
    for member, declared in _protocol_members(RunScoring).items():
        assert _parameters(getattr(scoring, member)) == _parameters(declared), f"{name} run scoring: {member}"
    for member, annotation in _data_members(RunScoring).items():
        assert _has_type(getattr(scoring, member), annotation), f"{name} run scoring: {member}"


def test_the_demo_runs_of_every_corpus_load_score_and_show(tiny, tmp_path):
    from data_access.runs import analysis, available_runs, load_run

    for name in CORPUS_NAMES:
        package = corpus_module(name)
        package.write_demo(tmp_path / name)
        loaded = load_path(name, package.demo_source(tmp_path / name), cache_root=tmp_path / "cache")
        runs = available_runs(name, True, tmp_path / "cache")
        assert set(runs) == {"baseline", "noisy"}, name
        run = load_run(loaded, runs["baseline"][0], cache_root=tmp_path / "cache")
        table = analysis.metric_table(run)
        assert list(table.columns) == analysis.METRIC_COLUMNS and len(table), name
        units = analysis.units(run)
        assert {"unit", "dialog_id", "value"} <= set(units.columns), name
        features = analysis.slice_features(loaded, run)
        assert len(features) == len(units), name
        dialog = units["dialog_id"].iloc[0]
        round_ = 1 if package.REPLAY_IN_ROUNDS else None
        n_steps = package.step_count(loaded, dialog, round_)
        assert len(package.run_scoring().run_pictures(loaded, run, dialog, round_, n_steps)) == n_steps, name


def test_register_refuses_a_package_that_misses_members_or_takes_a_name():
    import types

    with pytest.raises(ValueError, match="lacks"):
        corpora.register(types.ModuleType("half_a_corpus"))
    with pytest.raises(ValueError, match="already registered"):
        corpora.register(corpus_module("codraw"))


def test_a_registered_corpus_is_listed_and_then_gone(tiny):
    from data_access.common import CORPUS_TITLES
    from data_access.sources import configured_source

    assert CORPUS_NAMES[-1] == tinycorpus.NAME and CORPUS_TITLES[tinycorpus.NAME] == tinycorpus.TITLE
    assert configured_source(tinycorpus).is_demo
    corpora.unregister(tinycorpus.NAME)
    assert tinycorpus.NAME not in CORPUS_NAMES and list(CORPUS_NAMES) == list(BUILT_IN)


# ------------------------------------------------------------------------ nothing outside names a corpus

# Modules still waiting for their own change to drop their corpus names (remove each when it lands): the Words
# filters, merged after the contract (their round, CR and mention facts are per corpus).
PENDING: set[str] = set()


def _outside_the_corpus_packages() -> list[Path]:
    files = [ROOT / "app.py"]
    for folder in ("data_access", "ui", "pages", "dialogue_dashboard"):
        files += sorted((ROOT / folder).rglob("*.py"))
    corpus_folders = {ROOT / "corpora" / name for name in BUILT_IN}
    return [f for f in files if not any(folder in f.parents for folder in corpus_folders)
            and f.relative_to(ROOT).as_posix() not in PENDING]


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def corpus_literals(source: str) -> list[int]:
    """The lines of every string literal that is a corpus's name (compared with, a dict key, passed, defaulted),
    docstrings left aside."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in BUILT_IN and id(node) not in docstrings]


def corpus_names_outside_the_packages() -> list[str]:
    """``corpus_literals`` of every module outside the corpus packages, as "file:line"."""
    return [f"{file.relative_to(ROOT)}:{line}" for file in _outside_the_corpus_packages()
            for line in corpus_literals(file.read_text(encoding="utf-8"))]


def test_no_code_outside_the_corpus_packages_names_a_corpus():
    assert corpus_names_outside_the_packages() == []


def test_the_count_sees_comparisons_keys_and_arguments_but_not_prose():
    source = ('"""A docstring naming gos."""\nif corpus == "gos":\n    pass\nUNITS = {"codraw": 1}\n'
              'load("minecraft")\nname in ("gos", "x")\nTEXT = "codraw files"\n')
    assert corpus_literals(source) == [2, 4, 5, 6]


def _imported_modules(file: Path) -> list[str]:
    tree = ast.parse(file.read_text(encoding="utf-8"))
    package = ".".join(file.relative_to(ROOT).with_suffix("").parts[:-1])
    modules = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            modules += [target] + [f"{target}.{alias.name}" for alias in node.names]
    return modules


def test_the_cache_imports_no_corpus_package():
    imported = _imported_modules(ROOT / "data_access" / "cache.py")
    assert [m for m in imported if m.split(".")[:2] in [p.split(".") for p in BUILT_IN_PACKAGES]] == []


def test_no_private_name_of_a_corpus_package_is_imported_from_outside():
    private = []
    for file in _outside_the_corpus_packages() + sorted((ROOT / "data_access").glob("*/*.py")):
        tree = ast.parse(file.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and any(name in (node.module or "").split(".") for name in BUILT_IN):
                inside = any(name == file.parent.name for name in BUILT_IN)
                private += [f"{file.relative_to(ROOT)}:{node.lineno} {alias.name}" for alias in node.names
                            if alias.name.startswith("_") and not inside]
    assert private == []


@pytest.mark.parametrize("name", WITH_TINY)
def test_optional_capabilities_match_when_present(name):
    package = _package(name)
    data_members = set(getattr(OptionalCapabilities, "__annotations__", {}))
    assert set(_protocol_members(OptionalCapabilities)) | data_members == set(contract.OPTIONAL)
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

    assert [offers_same_board_plays(name) for name in BUILT_IN] == [name == "gos" for name in BUILT_IN]


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_same_layout_in_every_package(name):
    folder = Path(importlib.import_module(f"corpora.{name}.data").__file__).parent
    missing = [module for module in LAYOUT if not (folder / f"{module}.py").is_file()]
    assert missing == []
    view = importlib.import_module(f"corpora.{name}.data.view")
    step_class = view.ReplayStep
    fields = {f.name for f in dataclasses.fields(step_class)}
    assert {"dialog_id", "step", "n_steps"} <= fields


@pytest.mark.parametrize("name", WITH_TINY)
def test_demo_corpus_honours_the_contract(name, tmp_path):
    package = _package(name)
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
    assert package.source_root(Path(loaded.source)).exists()
    points = package.referents(loaded, dialog, round_, 1)
    from data_access.coding.referents import REFERENT_COLUMNS

    assert list(points.columns) == REFERENT_COLUMNS


def test_the_exports_take_the_fourth_corpus(tiny, tmp_path):
    from data_access import snapshots
    from data_access.exports import html as export_html
    from data_access.runs import available_runs, load_run

    package = corpus_module(tinycorpus.NAME)
    package.write_demo(tmp_path / "demo")
    loaded = load_path(tinycorpus.NAME, package.demo_source(tmp_path / "demo"), cache_root=tmp_path / "cache")
    document = export_html.dialog_replay_html(loaded, "t3")
    assert f"{tinycorpus.TITLE} · t3" in document and "4 turns" in document
    run = load_run(loaded, available_runs(tinycorpus.NAME, True, tmp_path / "cache")["noisy"][0], cache_root=tmp_path / "cache")
    assert "humans and model run: noisy" in export_html.run_replay_html(loaded, run, "t3")
    assert snapshots.replay_gif(loaded, "t3", [1, 2])[:3] == b"GIF"


def test_every_layer_module_honours_the_annotation_layer_contract():
    from data_access.contract import AnnotationLayer
    from data_access.layers import LAYER_CORPUS, LAYER_NAMES, layer_module

    assert set(LAYER_CORPUS) == set(LAYER_NAMES)  # each layer belongs to exactly the corpus that lists it
    for name in LAYER_NAMES:
        module = layer_module(name)
        assert isinstance(module, AnnotationLayer) and module.LAYER == name
        for member, declared in _protocol_members(AnnotationLayer).items():
            assert _parameters(getattr(module, member)) == _parameters(declared), f"{name}.{member}"
        assert name in corpus_module(LAYER_CORPUS[name]).LAYERS
    with pytest.raises(ValueError):
        layer_module("no-such-layer")
