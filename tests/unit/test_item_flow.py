"""``ui.replay.item_flow``'s "Done, next": marking an item done asks for the page's run, also on the last item
(nothing opens next), so that a click batched with a fragment's change (a label key just before Enter, which
Streamlit runs as the coding column's fragment alone) still moves the page's progress; nothing without a browser."""
from __future__ import annotations

import streamlit

from ui.replay import item_flow
from ui.shell.reconnect import PAGE_RUN


def test_done_on_the_last_item_asks_for_the_pages_run(monkeypatch):
    state: dict = {}
    monkeypatch.setattr(streamlit, "session_state", state)
    marked = []
    flow = item_flow.ItemList("Item", ["a", "b"], 2, lambda k: None,
                              mark_done=lambda k: marked.append(k) or f"Item {k} done.")
    item_flow._done_then_open(flow, None)  # the last item: nothing to open
    assert marked == [2] and state[PAGE_RUN] is True and state["item_flow_message"][0] == "success"
