"""A step slice's moments in the app (docs/slices.md, "Step slices in the app"): Browse lists them (a table of the
steps with their features, each opening the Replay at that step in its round, paged; counted by any feature, so
"which board has the most mismatched locks" is one choice; HTML tables of real links, so each is a click and
a link), the Replay walks them ("moment k of N", the previous
and the next moment), and the pages that read messages (Words, Search, the Coding queue) take the messages or the
steps of the moments. Every function takes the kept steps as a mask over the corpus's step table
(``SliceOutcome.steps``)."""
from __future__ import annotations

import html
from typing import Optional
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st

from data_access.corpus import Corpus
from data_access.links import REPLAY_PATH, parse_positive_int
from ui.assets import asset_text
from ui.shell.url_state import link_with, query_param, served, url_choice
from ui.shell.url_state import page_link as same_tab_link
from ui.slices.base import slice_base
from ui.widgets import md_escape

PAGE_SIZE = 1_000  # moments a table shows at once (77,502 CoDraw rounds would be megabytes per rerun)
MAX_COUNTED = 500  # values a count of the moments lists (the most frequent first)
SLICE_PARAM = "slice"
BY_PARAM, OF_PARAM, PAGE_PARAM = "moments_by", "moments_of", "moments_page"


def as_text(values: pd.Series) -> pd.Series:
    """A list feature (CoDraw's roles of a round) as its items joined with “, ”; any other column as it is."""
    if values.dtype == object and len(values) and isinstance(values.iloc[0], tuple):
        return values.map(lambda v: ", ".join(map(str, v)) if isinstance(v, tuple) else v)
    return values


def moment_frame(corpus: Corpus, steps: Optional[np.ndarray], lists_as_text: bool = True) -> pd.DataFrame:
    """The kept steps with their features, in the step table's order (with ``lists_as_text``, a list feature
    written as its items joined with “, ”)."""
    base = slice_base(corpus)
    if base is None or steps is None:
        return pd.DataFrame()
    frame = base.steps.frame[np.asarray(steps, dtype=bool)].reset_index(drop=True)
    if lists_as_text:
        for column in frame.columns:
            frame[column] = as_text(frame[column])
    return frame


def moment_link(corpus: str, text: str, dialog_id: str, round_: Optional[int], turn: int) -> str:
    """The Replay at one moment, in its round, walking the slice ``text``."""
    params: dict[str, object] = {"corpus": corpus, "dialog": dialog_id}
    if round_ is not None:
        params["round"] = int(round_)
    params["turn"] = int(turn)
    params[SLICE_PARAM] = text
    return served(f"{REPLAY_PATH}?{urlencode(params)}")


def _round(value) -> Optional[int]:
    return None if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)) else int(value)


def _cell(value) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return "<td></td>"
    if isinstance(value, (bool, np.bool_)):
        return f"<td>{'yes' if value else 'no'}</td>"
    if isinstance(value, (int, np.integer)):
        return f'<td class="num">{int(value):,}</td>'
    if isinstance(value, (float, np.floating)):
        return f'<td class="num">{float(value):,.3f}</td>'
    return f"<td>{html.escape(str(value))}</td>"


def table_html(frame: pd.DataFrame, links: list[str], label: str, key: str, link_column: Optional[str] = None) -> str:
    """``frame`` as an HTML table (the Words page's style) with a link per row (same tab): in the ``link_column``'s
    cells, or in a first column of ``label``; every value escaped."""
    head = ([] if link_column else [f"<th>{html.escape(label)}</th>"]) + [
        f"<th>{html.escape(str(c).replace('_', ' '))}</th>" for c in frame.columns]
    rows = []
    for link, row in zip(links, frame.itertuples(index=False)):
        anchor = f'<a href="{html.escape(link)}" target="_self">'
        cells = [] if link_column else [f"<td>{anchor}{html.escape(label)}</a></td>"]
        for column, value in zip(frame.columns, row):
            cells.append(f"<td>{anchor}{html.escape(str(value))}</a></td>" if column == link_column else _cell(value))
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f"<style>{asset_text('words.css')}</style>"
            f'<div style="overflow-x:auto"><table class="vgd-words" data-table="{html.escape(key)}">'
            f"<thead><tr>{''.join(head)}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def _here(**changed: Optional[str]) -> str:
    """Browse's link with ``changed`` parameters (None: dropped)."""
    return link_with("/browse", **changed)


def moments_section(corpus: Corpus, text: str, steps: np.ndarray, key: str) -> None:
    """Browse's moments: how many, counted by a feature of the reader's choice (``moments_by=``; each value a link to
    its moments, ``moments_of=``), and a page of them (``moments_page=``), each row a link to the Replay at that
    step in its round, walking the moments."""
    frame = moment_frame(corpus, steps, lists_as_text=False)  # lists joined for what is shown only (77,502 rounds)
    st.subheader("Moments")
    if frame.empty:
        st.caption("The slice keeps no step.")
        return
    dialogs = frame["dialog_id"].nunique()
    features = [c for c in frame.columns if c != "turn"]
    by = url_choice("selectbox", "Count the moments by", ["(none)", *features], BY_PARAM, key=f"{key}_by",
                    default="(none)", help="How many of the moments have each value of a feature, most first (board: "
                                           "the boards with the most of them); a value opens its moments")
    of = query_param(OF_PARAM) if by != "(none)" else None
    if by != "(none)":
        values = as_text(frame[by]).astype(str)
        counted = values.value_counts().rename_axis(by).reset_index(name="moments")
        counted["dialogs"] = counted[by].map(frame.groupby(values)["dialog_id"].nunique())
        counted = counted.head(MAX_COUNTED)
        links = [_here(**{OF_PARAM: value, PAGE_PARAM: None}) for value in counted[by]]
        st.html(table_html(counted, links, "", "moment-counts", link_column=by))
        if of is not None:
            frame = frame[values == of].reset_index(drop=True)
            st.caption(md_escape(f"The moments of {by} {of}:") + f" [all of them]({_here(**{OF_PARAM: None})})")
    pages = max(1, -(-len(frame) // PAGE_SIZE))
    page = min(max(1, parse_positive_int(query_param(PAGE_PARAM)) or 1), pages)
    shown = frame.iloc[(page - 1) * PAGE_SIZE: page * PAGE_SIZE].reset_index(drop=True)
    shown = shown.assign(**{c: as_text(shown[c]) for c in shown.columns})
    links = [moment_link(corpus.name, text, d, _round(r), int(t)) for d, r, t in
             zip(shown["dialog_id"], shown["round"], shown["turn"])]
    st.caption(f"{len(frame):,} moments in {frame['dialog_id'].nunique():,} of the slice's {dialogs:,} dialogs"
               + (f"; page {page:,} of {pages:,} ({PAGE_SIZE:,} each)" if pages > 1 else "")
               + ". “open ▶” opens the Replay at that step, in its round, walking the moments.")
    if pages > 1:
        step = st.columns(2)
        if page > 1:
            step[0].markdown(f"[◀ Previous {PAGE_SIZE:,}]({_here(**{PAGE_PARAM: str(page - 1)})})")
        if page < pages:
            step[1].markdown(f"[Next {PAGE_SIZE:,} ▶]({_here(**{PAGE_PARAM: str(page + 1)})})")
    st.html(table_html(shown, links, "open ▶", "moments"))


def _keys(corpus: Corpus, steps: np.ndarray) -> pd.DataFrame:
    base = slice_base(corpus)
    return pd.DataFrame() if base is None else base.steps.keys(steps)


def moment_navigation(corpus: Corpus, text: str, steps: Optional[np.ndarray], dialog_id: Optional[str],
                      page: str = "pages/replay.py") -> None:
    """On the Replay (and Present, ``page``): which moment of the slice the step shown is ("moment k of N"), with
    links to the previous and the next moment on ``page``, each at its step in its round (a step outside the slice:
    the next moment after it)."""
    keys = _keys(corpus, steps) if steps is not None else pd.DataFrame()
    if steps is None or keys.empty:
        st.caption("The slice keeps no step.")
        return
    ids = keys["dialog_id"].astype(str).to_numpy(dtype=object)
    rounds = keys["round"].fillna(-1).to_numpy(dtype=np.int64)
    turns = keys["turn"].to_numpy(dtype=np.int64)
    round_ = parse_positive_int(query_param("round")) if keys["round"].notna().any() else None
    turn = parse_positive_int(query_param("turn")) or 1
    here = np.flatnonzero((ids == dialog_id) & (rounds == (round_ if round_ is not None else -1)) & (turns == turn))
    position = int(here[0]) if len(here) else None
    if position is None:  # where the step shown stands among the moments: the next one after it (in table order)
        base = slice_base(corpus)
        table = base.steps if base is not None else None
        row = table.rows_of([dialog_id or ""], pd.array([round_], dtype="Int64"), [turn])[0] if table is not None else -1
        kept_rows = np.flatnonzero(steps)
        after = int(np.searchsorted(kept_rows, row, side="right")) if row >= 0 else 0
        previous, following = (after - 1 if after > 0 else None), (after if after < len(keys) else None)
        where = f"this step is not one of the slice's {len(keys):,} moments"
    else:
        previous = position - 1 if position > 0 else None
        following = position + 1 if position + 1 < len(keys) else None
        where = f"moment {position + 1:,} of {len(keys):,} in the slice"

    def link(at: int) -> dict[str, str]:
        params = {"corpus": corpus.name, "dialog": str(ids[at]), "turn": str(int(turns[at])), SLICE_PARAM: text}
        if rounds[at] >= 0:
            params["round"] = str(int(rounds[at]))
        return params

    columns = st.columns([4, 1, 1], vertical_alignment="center")
    columns[0].caption(md_escape(where))
    if previous is not None:
        same_tab_link(page, "◀ Previous moment", link(previous), container=columns[1])
    if following is not None:
        same_tab_link(page, "Next moment ▶", link(following), container=columns[2])


def moment_messages(corpus: Corpus, steps: Optional[np.ndarray], frame: pd.DataFrame) -> np.ndarray:
    """Which rows of ``frame`` (utterances of any corpus: corpus, dialog_id, round, turn) are messages of the
    moments of ``corpus``."""
    base = slice_base(corpus)
    keep = np.zeros(len(frame), dtype=bool)
    if base is None or steps is None:
        return keep
    mine = np.flatnonzero(frame["corpus"].astype(str).to_numpy() == corpus.name)
    part = frame.iloc[mine]
    rows = base.steps.rows_of(part["dialog_id"], part["round"], part["turn"])
    found = rows >= 0
    keep[mine[found]] = np.asarray(steps, dtype=bool)[rows[found]]
    return keep


def moment_items(corpus: Corpus, steps: np.ndarray) -> list[tuple[str, Optional[int], int]]:
    """The moments as (dialog_id, round, turn): the Coding queue samples its turns from them."""
    keys = _keys(corpus, steps)
    return [(str(d), _round(r), int(t)) for d, r, t in keys.itertuples(index=False)]


__all__ = ["BY_PARAM", "OF_PARAM", "PAGE_PARAM", "PAGE_SIZE", "moment_frame", "moment_items", "moment_link",
           "moment_messages", "moment_navigation", "moments_section", "table_html"]
