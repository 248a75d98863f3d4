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
