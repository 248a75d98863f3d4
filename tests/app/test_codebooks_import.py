"""AppTests of the Codebooks page's import: every refused file gives one "Not imported: FILE: why" error that
survives the page's rerun (nested thousands deep included, never a traceback); the example has no version."""
from __future__ import annotations

import re

import pytest
import streamlit as st

from data_access.store import CodingStore

from .conftest import open_page


def _shown(elements) -> list[str]:
    """The text of message boxes as the user reads it (md_escape's backslashes removed)."""
    return [re.sub(r"\\(.)", r"\1", e.value) for e in elements]


class _Upload:
    """What st.file_uploader returns, as far as the page uses it."""

    def __init__(self, name: str, data: bytes):
        self.name, self._data = name, data

    def getvalue(self) -> bytes:
        return self._data


def _import(monkeypatch, name: str, data: bytes):
    monkeypatch.setattr(st, "file_uploader", lambda *args, **kwargs: _Upload(name, data))
    at = open_page("pages/codebooks.py", coder="ann")
    next(b for b in at.button if b.label == "Import").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("name, data, reason", [
    ("cb_deep.json", b'{"name": "deep", "labels": ' + b"[" * 5000 + b"]" * 5000 + b"}",
     "nested too deeply to be a codebook"),
    ("cb_bad.yaml", b"name: [unclosed\n  labels: {", "not valid JSON or YAML at line 2"),
    ("cb_bad.json", b'{"name": "x", "labels": [{"name": "a", "scope": "paragraph", "colour": "red"}]}',
     "label 1: label 'a': scope must be one of dialog, turn, span; got 'paragraph'"),
    ("cb_dup.json", b'{"name": "dup", "labels": [{"name": "a"}, {"name": "a"}]}', "label 'a' appears twice"),
    ("cb_evil.yaml", b"!!python/object/apply:os.system ['echo hi']", "not valid JSON or YAML"),
    ("cb_*bold*.yaml", b"[1]", "expected a mapping"),
])
def test_a_refused_import_says_so_after_the_rerun(monkeypatch, name, data, reason):
    at = _import(monkeypatch, name, data)
    errors = _shown(at.error)
    assert len(errors) == 1 and errors[0].startswith("Not imported: ") and reason in errors[0], errors
    assert name in errors[0] and not re.search(r"(?<!\\)\*", at.error[0].value)  # named, escaped for markdown
    assert not at.success
    assert CodingStore().codebooks().empty


def test_a_good_import_is_saved_and_reported(monkeypatch):
    at = _import(monkeypatch, "cb_ok.yaml", b"name: ok\nversion: 7\nlabels: [{name: CR, scope: turn}]\n")
    assert _shown(at.success) == ["Imported cb_ok.yaml as ok version 1."]
    assert CodingStore().codebook("ok").version == 1  # a file's version is not the store's
    assert not at.error


def test_the_import_example_has_no_meaningless_version():
    at = open_page("pages/codebooks.py", coder="ann")
    example = next(t.value for t in at.text if t.value.startswith("name: example"))
    assert "version" not in example and "labels:" in example
