"""Widgets the pages share: the replay stepper (slider, previous/next buttons and the URL kept in step with them)
and table downloads. The corpus picker is ``ui.shell.corpus_edge.corpus_selector`` (it resolves the corpus chosen), the
dialog picker ``ui.replay.picker``, the transcript ``ui.replay.transcript``, URL state ``ui.shell.url_state``."""
from __future__ import annotations

import re
import string
from typing import Callable, Mapping, Optional

import pandas as pd
import streamlit as st

from data_access.links import parse_positive_int, shortened
from ui.shell.url_state import is_new_link, publish, query_param, remember_link, set_url, url_list, url_tabs  # noqa: F401 - some re-exported for the pages


def stepper(n_steps: int, requested: Optional[str], key: str, label: str = "Turn", keyboard: bool = True,
            sync_url: bool = True, param: str = "turn", narrow: bool = False) -> int:
    """Slider plus previous/next buttons over steps 1..n_steps; returns the current step.

    ``narrow`` (a stepper in half a page, e.g. each side of Compare) puts the buttons in a row of their own
    under the slider: beside it they were too narrow for their labels ("◀ Pr…").

    With ``keyboard`` the left/right arrow keys press the buttons (only one stepper per page may take
    them). With ``sync_url`` the URL's ``param`` follows the current step, so the address bar is always a
    deep link. A requested step beyond the end shows the last step, a malformed one the first (with a note)."""
    if n_steps <= 0:
        return 0
    # A link to apply: a new one, or the last one again when the step was forgotten (its slider not shown in
    # the last run, e.g. while another corpus was open).
    if requested is not None and is_new_link(key, requested):
        wanted = parse_positive_int(requested)
        digits, unit = requested.strip(), label.lower()  # one word throughout: "round 999 … rounds 1 to 8"
        if wanted is None and digits.isascii() and digits.isdigit() and digits.strip("0"):
            wanted = n_steps + 1  # a number too long to be a step: beyond the end, like any other too large
        if wanted is None:
            st.warning(f"The link asks for {unit} “{md_link_value(requested)}”, which is not a {unit} number; "
                       f"this dialog has {unit}s 1 to {n_steps}: showing {unit} 1.")
            wanted = 1
        elif wanted > n_steps:
            st.warning(f"The link asks for {unit} {md_link_value(digits)}, but this dialog has {unit}s 1 to "
                       f"{n_steps}; showing the last {unit}, {n_steps}.")
            wanted = n_steps
        st.session_state[key] = wanted
        remember_link(key, requested)
    elif key not in st.session_state:
        st.session_state[key] = 1
    st.session_state[key] = min(max(1, st.session_state[key]), n_steps)

    def move(delta: int) -> None:
        st.session_state[key] = min(max(1, st.session_state[key] + delta), n_steps)

    if narrow:
        slider_col = st.container()
        previous_col, next_col = st.columns(2)
    else:
        previous_col, slider_col, next_col = st.columns([2, 9, 2], vertical_alignment="bottom")
    previous_col.button("◀ Previous", key=f"{key}__prev", on_click=move, args=(-1,),
                        disabled=st.session_state[key] <= 1, width="stretch",
                        shortcut="Left" if keyboard else None)
    next_col.button("Next ▶", key=f"{key}__next", on_click=move, args=(1,),
                    disabled=st.session_state[key] >= n_steps, width="stretch",
                    shortcut="Right" if keyboard else None)
    if n_steps > 1:
        slider_col.slider(label, 1, n_steps, key=key)
    else:
        slider_col.caption(f"{label} 1 of 1")
    step = int(st.session_state[key])
    if sync_url:
        publish(key, param, step)
    return step


def download_buttons(frame: pd.DataFrame | Callable[[], pd.DataFrame], stem: str, label: str = "table") -> None:
    """CSV and Parquet downloads of ``frame`` (for any filtered table), or of what ``frame()`` returns.

    Each file is made when its button is clicked (Streamlit calls a callable ``data`` then): making both
    files of Browse's 9,993 CoDraw dialogs on every run cost it about 50 ms."""
    from data_access.exports import to_csv_bytes, to_parquet_bytes

    table = frame if callable(frame) else lambda: frame
    buttons = st.container(horizontal=True, gap="small")  # side by side, each as wide as its label
    buttons.download_button(f"⬇ {label} as CSV", lambda: to_csv_bytes(table()), f"{stem}.csv", "text/csv", key=f"{stem}__csv",
                            on_click="ignore")
    buttons.download_button(f"⬇ {label} as Parquet", lambda: to_parquet_bytes(table()), f"{stem}.parquet",
                            "application/vnd.apache.parquet", key=f"{stem}__parquet", on_click="ignore")


# Every ASCII punctuation character may be backslash-escaped in (Streamlit's) markdown, and escaped it
# is only text: no link, image, emphasis, HTML, LaTeX ($), colour/emoji directive (:) or autolinked URL
# (its dots and colon are escaped). Line breaks would start new blocks (headings, quotes), so they become
# spaces.
_MARKDOWN_SPECIAL = str.maketrans({**{c: "\\" + c for c in string.punctuation}, "\n": " ", "\r": " "})


# Escapes are not enough for bare URLs and e-mail addresses: Streamlit's markdown (remark-gfm) links them
# after parsing, in the text its escapes leave ("http://evil.example/u1.png" became a link however
# escaped). It links only a URL or address that starts the text or follows white space or punctuation, so
# an invisible WORD JOINER (U+2060) is put before each ``http``, ``www`` and ``@``: shown as the same text,
# and no link. A browser test checks both.
_AUTOLINK_START = re.compile(r"(?i)(?<![A-Za-z0-9])(https?|ftps?|www|mailto|xmpp)(?=\\[:.])|(?=\\@)")
_WORD_JOINER = "\u2060"


def md_escape(text) -> str:
    """The one escaping helper: any string from a file or a URL, made inert text inside our own markdown
    (st.markdown / caption / warning / info / error / subheader, ``caption=`` of st.image, widget labels and
    their ``help``, tabs, expanders, metrics): no link, image, emphasis, directive, and no bare URL linked."""
    return _AUTOLINK_START.sub(lambda m: _WORD_JOINER + (m.group(1) or ""), str(text).translate(_MARKDOWN_SPECIAL))


def md_link_value(value) -> str:
    """A value from the URL as inert markdown text, cut short (``data_access.links.shortened``)."""
    return md_escape(shortened(value))


def md_code(text) -> str:
    """``text`` as an inline code span of our own markdown (a path, a link to copy): shown verbatim, in a fence
    of more backticks than it holds itself. Cheaper for a first visit than ``st.code``, whose syntax
    highlighter is a code bundle of its own (``benchmarks/page_loads.py``)."""
    text = str(text).replace("\n", " ").replace("\r", " ")
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}"


def skipped_count(skipped, noun: str = "record(s)") -> str:
    """“12,345 record(s) (the first 1,000 listed)”: how many were skipped in all, and how many of them a
    bounded list (``data_access.common.SkippedRecords``) kept to show."""
    from data_access.common import skipped_total

    total, kept = skipped_total(skipped), len(skipped)
    return f"{total:,} {noun}" + (f" (the first {kept:,} listed)" if total > kept else "")


def views(views_by_label: Mapping[str, Callable[[], None]], key: str = "view") -> None:
    """A page's views as tabs kept in the URL (``?view=<label>``, so a view is a link) of which only the open
    one runs. What a closed view would draw is neither computed nor sent: an analysis page's first view (its
    summary) then needs neither plotly.js nor the charts' figures (one plotly chart doubles a blank page's load
    in a fresh browser session: ``benchmarks/element_costs.py``), and the Runs page opens on its leaderboard
    without the data grids of its other sections (each grid is drawn by the browser: ``benchmarks/many_runs.py``)."""
    labels = list(views_by_label)
    for label, tab in zip(labels, url_tabs(labels, key)):
        if tab.open:
            with tab:
                views_by_label[label]()
