"""Span offsets typed by hand (issue 26, item 9): −5 or 10^20 is refused with a message saying why, never
dropped silently. The form's number boxes stopped at 0 (start) and 1 (end), so −5 changed nothing and said
nothing; they now take any integer the browser's box can hold (up to 2^53 − 1, where 10^20 typed stops) and
the save says why an offset outside the utterance is refused."""
from __future__ import annotations

import re

import pytest

from data_access.coding import codebook as cb
from data_access.corpora import demo_path, load_path
from data_access.store import CodingStore

from .conftest import open_page

BOOK = cb.Codebook("clarification", (cb.Label("refers-to", scope="span"),))


LARGEST = 2 ** 53 - 1  # what a number box holds; 10^20 typed into one stops there


@pytest.mark.parametrize("start, end", [(-5, 3), (-5, -1), (0, LARGEST), (LARGEST - 1, LARGEST)])
def test_span_offsets_outside_the_utterance_are_refused_with_a_reason(start, end):
    store = CodingStore()
    store.save_codebook(BOOK)
    dialog = load_path("codraw", demo_path("codraw")).dialogs["dialog_id"].iloc[0]
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="2", coder="ann")
    next(n for n in at.number_input if n.label.startswith("Start")).set_value(start)
    next(n for n in at.number_input if n.label.startswith("End")).set_value(end)
    next(b for b in at.button if b.label == "Save span").click().run()
    assert not at.exception
    errors = [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]
    assert any(e.startswith(f"Not saved: the selection {start}..{end} is outside the utterance") for e in errors), errors
    assert store.annotations().empty
