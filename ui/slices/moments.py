"""A step slice's moments in the app (docs/slices.md, "Step slices in the app"): Browse lists them (a table of the
steps with their features, each opening the Replay at that step in its round, paged; counted by any feature, so
"which board has the most mismatched locks" is one choice; HTML tables of real links, so each is a click and
a link), the Replay walks them as a list ("Moment k of N", the previous and the next moment, Enter for the next:
``ui.replay.item_flow``), Compare offers them on each side ("moment k of N", each opening its side at that step in its
round), and the pages that read messages (Words, Search, the Coding queue) take the messages or the steps of the
moments. Every function takes the kept steps as a mask over the corpus's step table (``SliceOutcome.steps``)."""
from __future__ import annotations

import html
from typing import Optional, Sequence, overload
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st

from data_access.corpus import Corpus
from data_access.links import ITEM_PARAM, QUEUE_PARAM, REPLAY_PATH, parse_positive_int
from data_access.runs.worst_cases import CASE_PARAM, CASES_PARAM
from ui.assets import asset_text
from ui.replay.item_flow import Item, ItemList, item_flow
from ui.shell.url_state import link_with, query_param, served, set_url, url_choice
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


def _columns(keys: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The moments' dialog ids, rounds (-1: none) and turns, as arrays."""
    return (keys["dialog_id"].astype(str).to_numpy(dtype=object), keys["round"].fillna(-1).to_numpy(dtype=np.int64),
            keys["turn"].to_numpy(dtype=np.int64))


def moment_position(keys: pd.DataFrame, dialog_id: Optional[str], round_: Optional[int], turn: int) -> Optional[int]:
    """Which of the moments ``keys`` (dialog_id, round, turn) the step (``dialog_id``, ``round_``, ``turn``) is
    (0-based), None when it is none of them; the round is compared only where the moments have rounds."""
    if keys.empty:
        return None
    ids, rounds, turns = _columns(keys)
    with_rounds = bool((rounds >= 0).any())
    at = (ids == dialog_id) & (turns == turn)
    if with_rounds:
        at &= rounds == (round_ if round_ is not None else -1)
    here = np.flatnonzero(at)
    return int(here[0]) if len(here) else None


def moment_navigation(corpus: Corpus, text: str, steps: Optional[np.ndarray], dialog_id: Optional[str],
                      page: str = "pages/replay.py") -> None:
    """On the Replay (and Present, ``page``): which moment of the slice the step shown is ("moment k of N"), with
    links to the previous and the next moment on ``page``, each at its step in its round (a step outside the slice:
    the next moment after it)."""
    keys = _keys(corpus, steps) if steps is not None else pd.DataFrame()
    if steps is None or keys.empty:
        st.caption("The slice keeps no step.")
        return
    ids, rounds, turns = _columns(keys)
    round_ = parse_positive_int(query_param("round")) if keys["round"].notna().any() else None
    turn = parse_positive_int(query_param("turn")) or 1
    position = moment_position(keys, dialog_id, round_, turn)
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

    if position is not None and page == REPLAY_PAGE and not _another_list_open():
        # On the Replay, the moments are a list worked through like a Coding queue's items: Enter opens the next
        item_flow(ItemList("Moment", _Moments(ids, rounds, turns), position + 1, lambda k: link(k - 1),
                           about="of the slice", previous_label="◀ previous moment", next_label="next moment ▶"))
        return
    columns = st.columns([4, 1, 1], vertical_alignment="center")
    columns[0].caption(md_escape(where))
    if previous is not None:
        same_tab_link(page, "◀ Previous moment", link(previous), container=columns[1])
    if following is not None:
        same_tab_link(page, "Next moment ▶", link(following), container=columns[2])


REPLAY_PAGE = "pages/replay.py"


class _Moments(Sequence[Item]):
    """The slice's moments as the list ``item_flow`` walks, read from its columns when asked (77,502 CoDraw
    rounds are not made into items on every run)."""

    def __init__(self, ids: np.ndarray, rounds: np.ndarray, turns: np.ndarray):
        self.ids, self.rounds, self.turns = ids, rounds, turns

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> Item: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Item]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return Item(str(self.ids[index]), int(self.rounds[index]) if self.rounds[index] >= 0 else None,
                    int(self.turns[index]))


def _another_list_open() -> bool:
    """Whether the Replay already walks another list (a Coding queue's items, a run's worst cases): one list at a
    time has the next-item row and Enter."""
    return bool((query_param(QUEUE_PARAM) and query_param(ITEM_PARAM)) or (query_param(CASES_PARAM) and query_param(CASE_PARAM)))


# Compare's two sides: the URL parameters of each side's dialog, round and step (stepping apart), pages/compare.py
COMPARE_SIDES = {"left": ("left", "lround", "lstep"), "right": ("right", "rround", "rstep")}
MOMENT_WINDOW = 1_000  # moments a side's list offers at once, around its own (77,502 rounds would be megabytes)


def _compare_place(columns: tuple[np.ndarray, np.ndarray, np.ndarray], at: int, side: str) -> dict[str, Optional[str]]:
    """The URL parameters that open Compare's ``side`` at moment ``at`` of the moments' ``columns`` (``_columns``)."""
    ids, rounds, turns = columns
    param, round_param, step_param = COMPARE_SIDES[side]
    return {param: str(ids[at]), round_param: str(int(rounds[at])) if rounds[at] >= 0 else None,
            step_param: str(int(turns[at]))}


def _apart(boards: bool, **params: Optional[str]) -> None:
    """Compare's URL becomes ``params``, its sides stepping apart and, where the corpus has ``boards``, the right not
    bound to the left's board (a moment's play may be another board's); the toggles follow."""
    set_url(**params, together="0", step=None, **({"board": "any"} if boards else {}))
    st.session_state["compare_together"] = False
    st.session_state["compare_same_board"] = False


def _open_moment(side: str, key: str, places: dict[int, dict[str, Optional[str]]], boards: bool) -> None:
    """Callback: Compare's ``side`` opens at the moment chosen in its list."""
    chosen = st.session_state.get(key)
    if chosen in places:
        _apart(boards, **places[chosen])


def moments_on_compare(corpus: Corpus, steps: np.ndarray, columns) -> Optional[pd.DataFrame]:
    """On Compare with a step slice (its kept ``steps``; ``ui.slices.current.compare_moments``): in each of the two
    ``columns``, a list of its moments ("moment k of N: dialog · round · step") that opens that side at the moment
    chosen; a link naming no dialog opens the first two moments. The moments' keys (None: the slice keeps none)."""
    from ui.replay.state import offers_same_board_plays

    keys = _keys(corpus, steps)
    if keys.empty:
        st.caption("The slice keeps no step.")
        return None
    ids, rounds, turns = arrays = _columns(keys)
    boards = offers_same_board_plays(corpus)
    if query_param("left") is None and query_param("right") is None:
        _apart(boards, **_compare_place(arrays, 0, "left"), **_compare_place(arrays, min(1, len(keys) - 1), "right"))
    unit = corpus.package.STEP_UNIT
    for column, side in zip(columns, COMPARE_SIDES):
        param, round_param, step_param = COMPARE_SIDES[side]
        step = query_param(step_param) or query_param("step") or "1"
        here = moment_position(keys, query_param(param), parse_positive_int(query_param(round_param)),
                               parse_positive_int(step) or 1)
        key = f"compare_moment_{side}"
        if here is not None:
            st.session_state[key] = here
        centre = here if here is not None else st.session_state.get(key, 0)
        start = max(0, min(int(centre) - MOMENT_WINDOW // 2, len(keys) - MOMENT_WINDOW))
        window = range(start, min(len(keys), start + MOMENT_WINDOW))
        if st.session_state.get(key) not in window:
            st.session_state[key] = window[0]
        places = {at: _compare_place(arrays, at, side) for at in window}

        def label(at: int) -> str:
            where = f" · round {int(rounds[at])}" if rounds[at] >= 0 else ""
            return f"moment {at + 1:,} of {len(keys):,}: {ids[at]}{where} · {unit} {int(turns[at])}"

        column.selectbox(f"Moment ({side})", list(window), key=key, format_func=label, on_change=_open_moment,
                         args=(side, key, places, boards), help="The slice's moments, in its order; one opens this side at "
                         f"its {unit}" + (" in its round" if (rounds >= 0).any() else "") + (
                             f" (the {MOMENT_WINDOW:,} around this side's)" if len(keys) > MOMENT_WINDOW else ""))
    return keys


def moment_said(keys: Optional[pd.DataFrame], dialog_id: str, round_: Optional[int], step: int) -> str:
    """Under a side of Compare: which moment of the slice its step is ("moment k of N in the slice")."""
    if keys is None:
        return ""
    at = moment_position(keys, dialog_id, round_, step)
    return (f"moment {at + 1:,} of {len(keys):,} in the slice" if at is not None
            else f"this step is not one of the slice's {len(keys):,} moments")


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


__all__ = ["BY_PARAM", "COMPARE_SIDES", "OF_PARAM", "PAGE_PARAM", "PAGE_SIZE", "moment_frame", "moment_items", "moment_link",
           "moment_messages", "moment_navigation", "moment_position", "moment_said", "moments_section", "table_html",
           "moments_on_compare"]
