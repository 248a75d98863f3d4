"""A Coding queue worked through on the Replay: opened from the queue (``queue=<name>&item=<k>`` in the link), the
Replay shows "Item k of N" of the coder's items, and "Done, next" (or Enter) marks the item done in the store
and opens the next one still to do at its step; the queue's progress follows (``ui.replay.item_flow``)."""
from __future__ import annotations

from typing import Optional
from urllib.parse import quote

import pandas as pd
import streamlit as st

from data_access.links import ITEM_PARAM, QUEUE_PARAM, parse_positive_int
from ui.coding.panel import store
from ui.replay.item_flow import Item, ItemList, item_flow
from ui.shell import auth
from ui.shell.url_state import query_param
from ui.store import QUEUE_COLUMNS, remembered
from ui.widgets import md_escape


def item_link(link: str, queue: str, position: int, coder: str) -> str:
    """A queue item's replay ``link`` (the store's) that opens it as item ``position`` of the coder's ``queue``."""
    return f"{link}&{QUEUE_PARAM}={quote(queue, safe='')}&{ITEM_PARAM}={position}&coder={quote(coder, safe='')}"


def opening_queue(progress: pd.DataFrame, coder: str) -> str:
    """The queue the Coding queue page opens at: the URL's ``queue`` (a link to one queue), else the first queue
    with items still to do for ``coder``, else the first queue. ``progress``: the store's queues, not empty."""
    names = sorted(progress["queue"].unique())
    asked = query_param(QUEUE_PARAM)
    if asked in names:
        return str(asked)
    mine = progress[(progress["coder"] == coder) & (progress["done"] < progress["items"])]
    return str(sorted(mine["queue"])[0]) if len(mine) else str(names[0])


def _place(row) -> dict[str, str]:
    params = {"corpus": str(row.corpus), "dialog": str(row.dialog_id)}
    if not pd.isna(row.round):
        params["round"] = str(int(row.round))
    if not pd.isna(row.turn):
        params["turn"] = str(int(row.turn))
    return params


def queue_flow() -> None:
    """On the Replay opened from the Coding queue: the coder's items of the queue as a list to work through."""
    name, position = query_param(QUEUE_PARAM), parse_positive_int(query_param(ITEM_PARAM))
    if not name or position is None:
        return
    coder = auth.writer().coder
    coding = store()
    if coding is None or not coder:
        return
    mine = remembered(f"queue {name} {coder}", lambda: coding.queue_items(name, coder=coder),
                      pd.DataFrame(columns=QUEUE_COLUMNS), "Coding queue")
    if mine.empty:
        st.caption(f"Nothing in the queue {md_escape(name)} is assigned to {md_escape(coder)}.")
        return
    rows = list(mine.itertuples(index=False))
    done = {k for k, row in enumerate(rows, start=1) if row.status == "done"}
    position = min(position, len(rows))

    def open_params(k: Optional[int]) -> Optional[dict[str, str]]:
        if k is None or not 1 <= k <= len(rows):
            return None
        return {**_place(rows[k - 1]), QUEUE_PARAM: name, ITEM_PARAM: str(k), "coder": coder}

    def mark_done(k: int) -> str:
        coding.set_done(int(rows[k - 1].id), True, actor=auth.writer())
        done.add(k)
        return f"Item {k} of {name} marked done."

    row = rows[position - 1]
    where = f"{row.dialog_id}" + (f", round {int(row.round)}" if not pd.isna(row.round) else "") + \
        (f", step {int(row.turn)}" if not pd.isna(row.turn) else "")
    item_flow(ItemList("Item", [Item(str(r.dialog_id), None if pd.isna(r.round) else int(r.round),
                                     None if pd.isna(r.turn) else int(r.turn)) for r in rows],
                       position, open_params, mark_done=mark_done, is_done=lambda k: k in done,
                       about=f"{md_escape(where)} · queue {md_escape(name)}"
                             + (" (done)" if position in done else "")))
