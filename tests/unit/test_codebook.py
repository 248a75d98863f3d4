"""Codebook model: validation with messages naming the label, JSON / YAML round trips, hostile files."""
from __future__ import annotations

import pytest

from data_access.coding import codebook as cb

YAML = """
name: mentions
description: referring expressions
labels:
  - name: refers-to
    scope: span
    links_referents: true
    colour: "#1f77b4"
    key: r
  - {name: CR, scope: turn, description: "asks \\"what?\\"", key: c}
  - {name: success, scope: dialog}
"""


def test_yaml_and_json_round_trip():
    book = cb.loads(YAML, "mentions.yaml")
    assert [(label.name, label.scope, label.links_referents, label.key) for label in book.labels] == [
        ("refers-to", "span", True, "r"), ("CR", "turn", False, "c"), ("success", "dialog", False, "")]
    assert book.labels[1].colour == cb.DEFAULT_COLOURS[1]  # a colour is given when the file has none
    assert cb.loads(cb.to_json(book)) == book
    assert cb.loads(cb.to_yaml(book)) == book
    assert cb.loads(cb.to_yaml(book).encode()) == book
    assert book.labels_for("span") == [book.labels[0]]


@pytest.mark.parametrize("text, message", [
    ("[1, 2]", "expected a mapping"),
    ("name: x\nlabels: []", "has no labels"),
    ("name: x\nlabels: [{name: a, scope: utterance}]", "label 1: label 'a': scope must be one of"),
    ("name: x\nlabels: [{name: a}, {name: a}]", "label 'a' appears twice"),
    ("name: x\nlabels: [{name: a, key: q}, {name: b, key: Q}]", "shortcut 'Q' is used twice"),
    ("name: x\nlabels: [{name: a, colour: red}]", "colour must look like"),
    ("name: x\nlabels: [{name: a, links_referents: 'yes'}]", "links_referents must be true or false"),
    ("name: x\nlabels: [{name: a, extra: 1}]", "unknown field(s) extra"),
    ("name: x\nsecret: 1\nlabels: [{name: a}]", "unknown field(s) secret"),
    ("name: [unclosed", "not valid JSON or YAML at line 1"),
    ("!!python/object/apply:os.system ['echo hi']", "not valid JSON or YAML"),
    (b"\xff\xfe", "not UTF-8"),
])
def test_bad_files_give_one_line_messages(text, message):
    with pytest.raises(cb.CodebookError) as info:
        cb.loads(text, "book.yaml")
    assert str(info.value).startswith("book.yaml: ") and message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name, text", [
    ("deep.json", '{"name": "deep", "labels": ' + "[" * 5000 + "]" * 5000 + "}"),
    ("deep.yaml", "name: deep\nlabels:\n" + "- " * 3000 + "x\n"),
    ("deep.yml", "name: deep\nlabels: [{name: a, description: " + "{a: " * 5000 + "1" + "}" * 5000 + "}]"),
])
def test_a_file_nested_thousands_deep_is_refused_with_its_name(name, text):
    """The YAML parser (which also reads .json) recurses once per level: RecursionError becomes a CodebookError."""
    with pytest.raises(cb.CodebookError) as info:
        cb.loads(text.encode(), name)
    assert str(info.value) == f"{name}: nested too deeply to be a codebook"


def test_values_in_messages_are_bounded():
    """A nested or huge value is named by its type (never repr'd: an alias bomb would take gigabytes); long
    text is cut."""
    anchors = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], " + ", ".join(
        f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]" for p, c in zip("abcdefgh", "bcdefghi"))
    bomb = f"name: x\ndescription: {{{anchors}}}\nlabels: [{{name: a, key: *i}}]\n"  # 10^9 leaves if expanded
    with pytest.raises(cb.CodebookError) as info:
        cb.loads(bomb, "bomb.yaml")
    assert str(info.value) == "bomb.yaml: label 1: label 'a': key must be one letter or digit; got a list"
    with pytest.raises(cb.CodebookError) as info:
        cb.loads("name: x\nlabels: [{name: " + "[" * 200 + "]" * 200 + "}]", "nested.yaml")
    assert str(info.value) == "nested.yaml: label 1: a label needs a name; got a list"
    with pytest.raises(cb.CodebookError) as info:
        cb.loads(f"name: x\nlabels: [{{name: a, colour: '{'r' * 10_000}'}}]", "long.yaml")
    assert str(info.value).endswith("colour must look like #1f77b4; got '" + "r" * 60 + "'…")
    with pytest.raises(cb.CodebookError, match="description must be text"):
        cb.loads("name: x\ndescription: [1]\nlabels: [{name: a}]", "d.yaml")


def test_keys_written_as_numbers_are_digits():
    book = cb.loads("name: x\nlabels: [{name: a, key: 1}, {name: b, key: null}]")
    assert [label.key for label in book.labels] == ["1", ""]
    with pytest.raises(cb.CodebookError, match="key must be one letter or digit; got True"):
        cb.loads("name: x\nlabels: [{name: a, key: true}]")


def test_an_unsaved_codebook_exports_without_a_version():
    """version 0 means "not saved yet": the exchange form (the Codebooks page's import example) leaves it out;
    a saved codebook's export names its version, and import accepts (and ignores) it."""
    book = cb.Codebook("example", (cb.Label("CR"),))
    assert "version" not in cb.to_yaml(book) and "version" not in book.to_dict()
    assert cb.loads(cb.to_yaml(book)) == book
    saved = cb.Codebook("example", (cb.Label("CR"),), version=3)
    assert saved.to_dict()["version"] == 3 and "version: 3" in cb.to_yaml(saved)
    assert cb.loads(cb.to_json(saved)) == book  # the store, not the file, numbers versions
