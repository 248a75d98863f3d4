"""Working through a list of replay places on the Replay: "Item k of N" above the step, the previous and the
next item a click (or Enter) away, each opening at its own dialog, round and step.

The flow is generic over a list of (dialog, round, step) items (``Item``): a Coding queue's items, where "Done,
next" marks the item done before it opens the next one still to do (``ui.coding.queue_flow``); the worst cases
of a model run (``ui.runs.worst_cases``); a slice's moments. A list says how item k opens (the URL parameters
of its place and of the list, ``open_params``) and, where items are marked done, how (``mark_done``). Enter on
the Replay clicks the next-item button (``ui/assets/step_player.js`` finds it by its key, ``item_flow_next``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import streamlit as st

from data_access.links import HIGHLIGHT_PARAM
from ui.replay.step_player import want_page_run
from ui.shell.url_state import drop_params, set_url
from ui.widgets import md_escape

NEXT_KEY = "item_flow_next"  # the step player's Enter clicks the button with this key


@dataclass(frozen=True)
class Item:
    """One place of a list: a dialog, its round (None where the corpus has none) and the step it opens at (None:
    the first)."""

    dialog: str
    round: Optional[int] = None
    step: Optional[int] = None


@dataclass
class ItemList:
    """A list the Replay walks through. ``noun`` names an item ("Item", "Case"); ``position`` is the one shown
    (1-based); ``open_params(k)`` the URL parameters that open item k (its place and the list's own);
    ``mark_done(k)`` marks item k done and says so (None: nothing is marked), ``is_done(k)`` whether it is;
    ``about`` says more of the item shown (markdown); ``next_label`` the next button's words."""

    noun: str
    items: Sequence[Item]
    position: int
    open_params: Callable[[int], Optional[dict[str, str]]]
    mark_done: Optional[Callable[[int], str]] = None
    is_done: Callable[[int], bool] = field(default=lambda k: False)
    about: str = ""
    next_label: str = ""
    previous_label: str = ""


def next_to_do(flow: ItemList) -> Optional[int]:
    """The item "next" opens: the one after the item shown (where items are marked done, the first after it still
    to do, else the first before it still to do); None at the end."""
    count = len(flow.items)
    if flow.mark_done is None:
        return flow.position + 1 if flow.position < count else None
    order = [*range(flow.position + 1, count + 1), *range(1, flow.position)]
    return next((k for k in order if not flow.is_done(k)), None)


def _open(params: Optional[dict[str, str]]) -> None:
    """Callback: the Replay's URL becomes the item's (its dialog, round and step); the replay follows it."""
    if params is None:
        return
    want_page_run()  # when batched with a fragment's change (a label key just before Enter), still the page's run
    drop_params(HIGHLIGHT_PARAM)
    set_url(round=params.get("round"), turn=params.get("turn"),
            **{k: v for k, v in params.items() if k not in ("round", "turn")})


def _done_then_open(flow: ItemList, params: Optional[dict[str, str]]) -> None:
    """Callback of "Done, next": the item shown is marked done (a refusal or an unreachable store says so and
    stays on the item), then the next one opens."""
    assert flow.mark_done is not None
    try:
        said = flow.mark_done(flow.position)
    except Exception as exc:  # noqa: BLE001 - AccessRefused or a store error: said, and the item stays
        st.session_state["item_flow_message"] = ("error", f"Not marked done: {md_escape(exc)}")
        return
    st.session_state["item_flow_message"] = ("success", md_escape(said))
    want_page_run()  # the page's progress moves, also past the last item (nothing to open) in a fragment's batch
    _open(params)


def item_flow(flow: ItemList) -> None:
    """The list's row: "Item k of N" and what it is, the previous item, and the next one (Enter), which first
    marks the item shown done where the list marks items."""
    count = len(flow.items)
    position = min(max(flow.position, 1), count)
    following = next_to_do(flow)
    previous = position - 1 if position > 1 else None
    row = st.container(horizontal=True, vertical_alignment="center", key="item_flow", gap="small")
    row.button(flow.previous_label or f"◀ previous {flow.noun.lower()}", key="item_flow_previous", type="tertiary",
               on_click=_open, args=(flow.open_params(previous) if previous else None,), disabled=previous is None)
    done = sum(flow.is_done(k) for k in range(1, count + 1)) if flow.mark_done is not None else None
    progress = f" · {done:,} of {count:,} done" if done is not None else ""
    row.markdown(f"**{flow.noun} {position:,} of {count:,}**{progress}" + (f": {flow.about}" if flow.about else ""))
    opens = flow.open_params(following) if following is not None else None
    if flow.mark_done is not None:
        label = flow.next_label or ("Done, next ▶" if following is not None else "Done ✓")
        row.button(f"{label} ⏎", key=NEXT_KEY, type="primary", on_click=_done_then_open, args=(flow, opens),
                   disabled=flow.is_done(position) and opens is None)
    else:
        row.button(flow.next_label or f"next {flow.noun.lower()} ▶", key=NEXT_KEY, type="tertiary", on_click=_open,
                   args=(opens,), disabled=opens is None)
    message = st.session_state.pop("item_flow_message", None)
    with st.container():  # always there: what follows (the step player, the coding column) keeps its place in the page
        if message:
            (st.success if message[0] == "success" else st.error)(message[1])
