"""Slices that cost too much, in the app (issue 45, items 2 and 6): every page that takes ``slice=`` says a slice
with a number of 400 zeros (an OverflowError on 11 pages before) or 5,000 digits and shows itself unfiltered; a
shared saved slice that cannot be evaluated is listed with its reason and the others counted (it broke every
user's Slices page); the list's counts are lazy (a run counts for ``COUNT_SECONDS``, a chosen slice at once,
kept by definition and corpus version); an admin deletes someone's shared slice from the page; and a slice
whose tests run past the evaluation budget is said, the page unfiltered."""
from __future__ import annotations

import re

import pytest

from data_access.access import Identity, Role
from data_access.store import Store
from ui.shell import auth
from ui.shell import sign_in as sign_in_module
from ui.slices import saved as slices_saved

from .conftest import open_page

TOO_LONG = "n_rounds > 1" + "0" * 400
PAGES = ["overview", "browse", "replay", "search", "words", "compare", "present", "play", "slices", "codraw_scores",
         "durations", "gos_outcomes", "minecraft_outcomes", "runs", "coding_queue", "agreement"]


def _plain(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _said(at) -> str:
    return " | ".join(_plain(w.value) for w in [*at.warning, *at.caption])


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("digits", [400, 5_000])
def test_every_page_says_a_number_too_long_and_shows_itself(page, digits):
    at = open_page(page, slice="n_rounds > 1" + "0" * digits, coder="ann")  # open_page: no exception
    assert not any(i.value.startswith("**Slice**") for i in at.info)
    if page in ("compare", "present"):  # their pickers follow a slice without saying it: here every dialog
        whole = open_page(page, coder="ann")
        assert [s.options for s in at.selectbox] == [s.options for s in whole.selectbox]
    elif page != "agreement":  # the Agreement page asks for a slice only once a codebook is coded
        said = _said(at)
        assert "a number has at most 32 characters" in said, said[:500]


def _store() -> Store:
    return Store()  # the app's own (DIALOGUE_NOTES_DB of the test)


def _plant(store: Store, name: str, text: str, owner: str) -> int:
    """A shared row as a store wrote it before the number bound: its text is no slice now."""
    with store.db.write() as conn:
        return conn.insert("INSERT INTO saved_slices (name, description, slice, corpus, owner, shared, created_at, "
                           "updated_at, changed_by) VALUES (?, '', ?, 'codraw', ?, 1, 'then', 'then', '')",
                           (name, text, owner))


def _grid(at):
    return at.dataframe[0].value.set_index("name")


def test_a_shared_slice_that_cannot_be_evaluated_is_said_and_skipped():
    store = _store()
    _plant(store, "broken", TOO_LONG, "bob")
    store.slices.save("long", "n_rounds >= 5", corpus="codraw", shared=True, owner="ann")
    at = open_page("slices")
    grid = _grid(at)
    assert "a number has at most 32 characters" in grid.loc["broken", "note"]
    assert grid.loc["broken", "CoDraw"] is None or str(grid.loc["broken", "CoDraw"]) == "<NA>"
    assert grid.loc["long", "CoDraw"] > 0 and grid.loc["long", "note"] == ""


def test_counts_are_lazy_and_kept(monkeypatch):
    store = _store()
    for n in range(30):
        store.slices.save(f"s{n:02d}", f"n_rounds >= {n % 9} and n_rounds != {100 + n}", corpus="codraw", shared=True,
                          owner="ann")
    store.slices.save("twin", "n_rounds >= 3 and n_rounds != 103", corpus="codraw", shared=True, owner="bo")
    monkeypatch.setattr(slices_saved, "COUNT_SECONDS", 0.0)  # a run that has no time to count: none counted
    at = open_page("slices")
    grid = _grid(at)
    assert (grid["note"] == slices_saved.NOT_COUNTED).all() and grid["CoDraw"].isna().all()
    assert "31 of the 31 saved slices are not counted yet" in _said(at)
    at.session_state["slices_saved"] = {"selection": {"rows": [3], "columns": [], "cells": []}}
    at.run()
    chosen = [c.value for c in at.caption if c.value.startswith("“s03”")]
    assert chosen and re.search(r"CoDraw: \d+ dialogs", _plain(chosen[0])), chosen
    at.session_state["slices_saved"] = {"selection": {"rows": [], "columns": [], "cells": []}}
    at.run()  # the chosen slice's count is kept: listed without counting again
    grid = _grid(at)
    assert grid.loc["s03", "CoDraw"] > 0 and grid.loc["s03", "note"] == ""
    assert grid.loc["twin", "CoDraw"] == grid.loc["s03", "CoDraw"]  # kept by definition: one count for both
    assert (grid.drop(index=["s03", "twin"])["note"] == slices_saved.NOT_COUNTED).all()
    monkeypatch.setattr(slices_saved, "COUNT_SECONDS", 60.0)
    next(b for b in at.button if b.label == "Count more").click().run()
    grid = _grid(at)
    assert (grid["note"] == "").all() and (grid["CoDraw"] > 0).all()


def _signed_in(monkeypatch, role: Role, coder: str) -> None:
    monkeypatch.setattr(sign_in_module, "configured", lambda: True)
    person = Identity(coder=coder, role=role, email=f"{coder}@lab.example", signed_in=True)
    monkeypatch.setattr(auth, "signed_in_identity", lambda: person)


@pytest.mark.parametrize("role, may", [(Role.ADMIN, True), (Role.ADJUDICATOR, False)])
def test_an_admin_deletes_a_shared_slice_of_someone_else_from_the_page(monkeypatch, role, may):
    store = _store()
    _plant(store, "broken", TOO_LONG, "bob")
    _signed_in(monkeypatch, role, "root")
    at = open_page("slices")
    at.session_state["slices_saved"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    buttons = [b for b in at.button if b.label == "Delete this shared slice"]
    assert bool(buttons) is may
    if may:
        buttons[0].click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        assert store.slices.list().empty


def test_a_slice_past_the_evaluation_budget_is_said(monkeypatch):
    from data_access.slices import budget

    monkeypatch.setattr(budget, "EVALUATION_SECONDS", 0.0)  # every slice's tests run past it
    at = open_page("browse", slice='re("tree") or n_rounds > 3')
    said = _said(at)
    assert "took more than 0 s in all" in said and "Showing every dialog" in said, said[:400]
