"""AppTests of a model's labels on the Agreement page: importing a file for the chosen codebook (summary, skipped
lines with their reasons, nothing of the model's name or fields shown as markup), the models against the humans
beside the humans' own agreement, the units a model labels differently linked to their replay, and the import
kept from a signed-in viewer."""
from __future__ import annotations

import json
import re

import pytest
import streamlit as st

from data_access.access import Identity, Role
from data_access.coding import codebook as cb
from data_access.corpora import demo_path, load_path
from data_access.store import CodingStore
from ui.shell import auth, sign_in

from .conftest import open_page

BOOK = cb.Codebook("clarification", (cb.Label("CR", scope="turn"), cb.Label("success", scope="dialog")))


class _Upload:
    """What st.file_uploader returns, as far as the page uses it."""

    def __init__(self, name: str, data: bytes):
        self.name, self._data = name, data

    def getvalue(self) -> bytes:
        return self._data


def _unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text).replace("\u2060", "")


def _dialog() -> str:
    return str(load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].iloc[0])


def _humans(dialog: str) -> None:
    """ann puts CR on rounds 1 and 2, bo on 1 and 3."""
    store = CodingStore()
    book = store.save_codebook(BOOK)
    for coder, rounds in (("ann", (1, 2)), ("bo", (1, 3))):
        for r in rounds:
            store.add_annotation("codraw", dialog, codebook=book, label="CR", coder=coder, turn=r)


def _import(monkeypatch, name: str, records) -> object:
    data = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records).encode()
    monkeypatch.setattr(st, "file_uploader", lambda *args, **kwargs: _Upload(name, data))
    at = open_page("agreement", coder="judge")
    next(b for b in at.button if b.label == "Import labels").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _table(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_an_imported_model_is_compared_with_the_humans(monkeypatch):
    dialog = _dialog()
    _humans(dialog)
    model = [{"model": "gpt", "corpus": "codraw", "dialog": dialog, "round": r, "labels": ["CR"]} for r in (1, 2, 3)]
    at = _import(monkeypatch, "gpt.jsonl", [*model, {"model": "gpt", "corpus": "codraw", "dialog": dialog,
                                                     "round": 99, "labels": ["CR"]}])
    assert [_unescaped(s.value) for s in at.success] == [
        "Imported 3 item(s) with 3 label(s) of model:gpt (codebook clarification v1, CoDraw) from gpt.jsonl; 1 line(s) "
        "skipped (listed below)."]
    skipped = _table(at, "reason")
    assert skipped["record"].tolist() == ["gpt.jsonl:4"] and "“round” must be one of 1..8" in skipped["reason"][0]

    table = _table(at, "Cohen's κ (mean pairwise)").set_index(["label", "coders"])
    # rounds 1..3 (those anyone labelled): ann 1 1 0, bo 1 0 1, the model 1 1 1 — against each human it agrees
    # on 2 of 3, and its κ with either is 0 (it says CR always: no variation of its own)
    humans = table.loc[("CR", "humans (ann, bo)")]
    assert humans["units"] == 3 and humans["Cohen's κ (mean pairwise)"] == "-0.500"
    row = table.loc[("CR", "model:gpt vs the humans")]
    assert row["units"] == 3 and row["Cohen's κ (mean pairwise)"] == "0.000"
    differs = _table(at, "model:gpt")
    assert differs["turn"].tolist() == [2, 3]
    assert differs["replay"].tolist() == [f"/replay?corpus=codraw&dialog={dialog}&turn={t}" for t in (2, 3)]

    # importing the model again replaces its labels, and says so
    again = [{"model": "gpt", "corpus": "codraw", "dialog": dialog, "round": 1, "labels": ["CR"]}]
    data = json.dumps(again[0]).encode()
    monkeypatch.setattr(st, "file_uploader", lambda *args, **kwargs: _Upload("gpt2.jsonl", data))
    next(b for b in at.button if b.label == "Import labels").click().run()
    assert "they replace the 3 label(s) imported for model:gpt before" in _unescaped(at.success[0].value)
    assert CodingStore().annotations(coder="model:gpt")["turn"].tolist() == [1]


def test_hostile_names_are_plain_text_and_a_bad_file_is_said(monkeypatch):
    dialog = _dialog()
    _humans(dialog)
    at = _import(monkeypatch, "*x*.jsonl", [{"model": "[click](http://evil.example) **bold**", "corpus": "codraw",
                                             "dialog": dialog, "round": 1, "labels": ["CR"]}])
    message = at.success[0].value
    assert "[click](http" not in message and "**bold**" not in message and "\\*\\*bold\\*\\*" in message
    assert "model:[click](http://evil.example) **bold**" in _unescaped(message)

    at = _import(monkeypatch, "junk.jsonl", ["not json", "[]"])
    assert [_unescaped(e.value) for e in at.error] == ["Not imported: junk.jsonl: no usable line (2 skipped)"]
    assert _table(at, "reason")["reason"].tolist()[1] == "not a JSON object but list"


@pytest.mark.parametrize("role, may", [(Role.VIEWER, False), (Role.CODER, True)])
def test_the_import_is_for_those_who_may_code(monkeypatch, role, may):
    CodingStore().save_codebook(BOOK)
    monkeypatch.setattr(sign_in, "configured", lambda: True)
    person = Identity(coder="alice", role=role, email="alice@lab.example", signed_in=True)
    monkeypatch.setattr(auth, "signed_in_identity", lambda: person)
    at = open_page("agreement")
    assert any(b.label == "Import labels" for b in at.button) is False  # no file chosen yet
    captions = " | ".join(_unescaped(c.value) for c in at.caption)
    assert ("Read only: importing a model's labels needs the coder role" in captions) is not may


def test_people_are_compared_by_default_and_the_model_beside_them(monkeypatch):
    dialog = _dialog()
    store = CodingStore()
    book = store.save_codebook(BOOK)
    for coder in ("ann", "zoe"):  # "zoe" sorts after "model:gpt"
        store.add_annotation("codraw", dialog, codebook=book, label="CR", coder=coder, turn=1)
    at = _import(monkeypatch, "gpt.jsonl", [{"model": "gpt", "corpus": "codraw", "dialog": dialog, "round": 1,
                                             "labels": ["CR"]}])
    assert next(m for m in at.multiselect if m.label == "Compare").value == ["ann", "zoe"]
    assert "model:gpt vs the humans" in _table(at, "Cohen's κ (mean pairwise)")["coders"].tolist()
