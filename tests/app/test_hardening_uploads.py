"""Uploads on the Runs page (issue 26, item 6): an upload named like a demo or configured run is refused with a
message (it said "Saved" and the other file was scored); an upload of a name already uploaded says it
replaces the earlier one (it replaced it silently)."""
from __future__ import annotations

import re

import streamlit as st

from data_access.runs import upload_dir
from data_access.runs.demo import demo_runs

from .conftest import open_page


class _Upload:
    """What st.file_uploader returns, as far as the Runs page uses it."""

    def __init__(self, name: str, data: bytes):
        self.name, self._data, self.size = name, data, len(data)

    def getvalue(self) -> bytes:
        return self._data


def _upload(monkeypatch, name: str, data: bytes):
    monkeypatch.setattr(st, "file_uploader", lambda *args, **kwargs: _Upload(name, data))
    return open_page("pages/runs.py", timeout=180, corpus="codraw")


def _text(elements) -> list[str]:
    return [re.sub(r"\\(.)", r"\1", e.value) for e in elements]


def test_an_upload_named_like_a_demo_run_is_refused(monkeypatch):
    data = demo_runs("codraw")["noisy"].read_bytes()
    at = _upload(monkeypatch, "baseline.jsonl", data)
    assert any(e.startswith("Not saved: baseline.jsonl: a run named “baseline” already exists") for e in _text(at.error))
    assert not at.success and not (upload_dir("codraw") / "baseline.jsonl").exists()


def test_a_second_upload_of_a_name_says_it_replaces_the_first(monkeypatch):
    data = demo_runs("codraw")["noisy"].read_bytes()
    at = _upload(monkeypatch, "mine.json", data)
    assert _text(at.success) == ["Saved as mine.json."]
    at = _upload(monkeypatch, "mine.jsonl", data + b"\n")
    assert _text(at.success) == ["Saved as mine.jsonl, replacing the earlier upload mine.json."]
    assert sorted(p.name for p in upload_dir("codraw").iterdir()) == ["mine.jsonl"]
