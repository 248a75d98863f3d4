"""The text a search hit matched, marked where the replay shows it: a search result's link carries the
match in its ``hl`` parameter; the utterances at the linked step show it highlighted.

The text is escaped for HTML and rendered with ``st.html`` (no markdown), so data never runs as markup."""
from __future__ import annotations

import html
from typing import Optional

import streamlit as st

from data_access.links import HIGHLIGHT_PARAM, highlight_segments
from ui.shell.url_state import query_param

_MARK = "background:#ffd54f;color:inherit;padding:0 1px;border-radius:2px"


def requested_highlight() -> Optional[str]:
    value = query_param(HIGHLIGHT_PARAM)
    return value if value and value.strip() else None


def marked_html(text: str, needle: str) -> Optional[str]:
    """HTML of ``text`` with every occurrence of ``needle`` in <mark>, or None when it does not occur."""
    pieces = highlight_segments(text, needle)
    if not any(is_match for _piece, is_match in pieces):
        return None
    body = "".join(f'<mark style="{_MARK}">{html.escape(piece)}</mark>' if is_match else html.escape(piece)
                   for piece, is_match in pieces)
    return f'<div class="search-match" style="white-space:pre-wrap">{body}</div>'


def show_text(text: str, highlight: bool = True) -> None:
    """``text`` as plain text, with the URL's search match marked in it when asked and present."""
    needle = requested_highlight() if highlight else None
    marked = marked_html(text, needle) if needle else None
    if marked is None:
        st.text(text)
    else:
        st.html(marked)
