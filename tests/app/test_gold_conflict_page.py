"""Two adjudicators on the Agreement page deciding the same item (issue 26 item 5): the second save is refused
with a message naming who decided and when, their choice stays in the box, gold keeps one decision, and
saving again (now knowingly) replaces it."""
from __future__ import annotations

import re

from data_access.store import CodingStore

from .conftest import open_page
from .test_coding_pages import _seed_two_coders


def _decide(at, label: str):
    next(m for m in at.multiselect if m.label == "Gold label(s)").set_value([label]).run()
    next(b for b in at.button if b.label == "Save to gold").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_second_adjudicator_is_refused_with_who_and_when_and_may_then_replace():
    store = CodingStore()
    _seed_two_coders(store)
    first = open_page("pages/agreement.py", coder="judy")
    second = open_page("pages/agreement.py", coder="kim")  # both look at the undecided item
    _decide(first, "CR")
    assert any(s.value.startswith("Saved CR as gold") for s in first.success)
    _decide(second, "CR")
    refusal = [re.sub(r"\\(.)", r"\1", e.value) for e in second.error]
    assert len(refusal) == 1 and re.search(r"Not saved: d1 · turn 2 was decided by judy at \d{4}-\d\d-\d\d "
                                           r"\d\d:\d\d:\d\d UTC while you were deciding", refusal[0]), refusal
    assert next(m for m in second.multiselect if m.label == "Gold label(s)").value == ["CR"]
    assert any("Gold decided by judy" in re.sub(r"\\(.)", r"\1", c.value) for c in second.caption)
    assert store.annotations(layer="gold")[["turn", "coder"]].values.tolist() == [[2, "judy"]]
    next(b for b in second.button if b.label == "Save to gold").click().run()  # kim has now seen judy's decision
    assert any(s.value.startswith("Saved CR as gold") for s in second.success)
    assert store.annotations(layer="gold")[["turn", "coder"]].values.tolist() == [[2, "kim"]]
