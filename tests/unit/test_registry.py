"""The registry is the one place that turns a corpus name (or a link's spelling of its title) into its package,
and refuses a package that is not a corpus."""
from __future__ import annotations

import types

import pytest

from data_access import registry
from tests.fixtures import tinycorpus


def test_a_name_or_a_title_however_spelt_resolves_to_the_name():
    assert registry.resolve("codraw") == "codraw"
    assert registry.resolve("  a game of SORTS ") == "gos"
    assert registry.resolve("CoDraw") == "codraw"
    assert registry.resolve("no such corpus") is None


def test_an_unknown_name_is_refused_with_the_names_there_are():
    with pytest.raises(ValueError, match="expected one of codraw, gos, minecraft"):
        registry.corpus_module("nope")


def test_a_registered_package_is_listed_after_the_others_and_removed_again():
    with registry.registered(tinycorpus) as package:
        assert registry.CORPUS_NAMES[-1] == "tiny" and registry.corpus_module("tiny") is package
        assert registry.resolve("Tiny Test Corpus") == "tiny"
    assert "tiny" not in registry.CORPUS_NAMES


def test_a_plugin_that_cannot_be_imported_is_named_in_the_refusal(monkeypatch):
    monkeypatch.setitem(registry._packages, "broken", "no_such_package_anywhere")
    monkeypatch.setattr(registry, "CORPUS_NAMES", [*registry.CORPUS_NAMES, "broken"])
    with pytest.raises(ValueError, match="no_such_package_anywhere cannot be imported"):
        registry.corpus_module("broken")
    assert "broken" in registry.PLUGIN_PROBLEMS
    monkeypatch.delitem(registry.PLUGIN_PROBLEMS, "broken")


def test_a_module_without_the_contract_is_not_registered():
    with pytest.raises(ValueError, match="is not a corpus package"):
        registry.register(types.ModuleType("half_a_corpus"))
