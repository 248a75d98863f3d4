"""Widgets the pages share: the dialog picker, the replay stepper (slider, previous/next buttons and the
URL kept in step with them) and the transcript."""
from __future__ import annotations

import string
from typing import Optional, Sequence

import pandas as pd
import streamlit as st

from data_access.links import parse_positive_int


def query_param(name: str) -> Optional[str]:
    value = st.query_params.get(name)
    return value if value not in ("", None) else None


def dialog_picker(dialog_ids: Sequence[str], requested: Optional[str], key: str, label: str = "Dialog",
                  format_func=str) -> Optional[str]:
    """A selectbox over ``dialog_ids`` that starts at the deep-linked dialog when it exists."""
    if len(dialog_ids) == 0:
        st.info("This corpus has no dialogs to show.")
        return None
    ids = list(dialog_ids)
    if requested is not None and requested not in ids:
        st.warning(f"The link asks for dialog “{md_escape(requested)}”, which is not in the loaded corpus; showing the first one instead.")
        requested = None
    # A deep link wins over the widget's remembered value on the first run of this dialog.
    if requested is not None and st.session_state.get(key) != requested and st.session_state.get(f"{key}__linked") != requested:
        st.session_state[key] = requested
        st.session_state[f"{key}__linked"] = requested
    return st.selectbox(label, ids, key=key, format_func=format_func)


def stepper(n_steps: int, requested: Optional[str], key: str, label: str = "Turn", keyboard: bool = True,
            sync_url: bool = True) -> int:
    """Slider plus previous/next buttons over steps 1..n_steps; returns the current step.

    With ``keyboard`` the left/right arrow keys press the buttons (only one stepper per page may take
    them). With ``sync_url`` the URL's ``turn`` parameter follows the current step, so the address bar
    is always a deep link."""
    if n_steps <= 0:
        return 0
    wanted = parse_positive_int(requested)
    if requested is not None and (wanted is None or wanted > n_steps):
        st.warning(f"The link asks for {label.lower()} “{md_escape(requested)}”, but this dialog has steps 1 to {n_steps}; showing step 1.")
        wanted = 1
    if key not in st.session_state or (wanted is not None and st.session_state.get(f"{key}__linked") != requested):
        st.session_state[key] = wanted or 1
        st.session_state[f"{key}__linked"] = requested
    st.session_state[key] = min(max(1, st.session_state[key]), n_steps)

    def move(delta: int) -> None:
        st.session_state[key] = min(max(1, st.session_state[key] + delta), n_steps)

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
        st.query_params["turn"] = str(step)
        st.session_state[f"{key}__linked"] = str(step)
    return step


def transcript(lines: pd.DataFrame, current_turn: int, show_all: bool) -> None:
    """Chat lines (columns turn, speaker, text) up to ``current_turn``; later ones only when asked.

    Text is rendered with st.text-like escaping (st.chat_message + st.text) so data never runs as HTML; at the
    current turn a search match from the URL is marked (``ui.highlight``)."""
    from ui.highlight import show_text

    visible = lines if show_all else lines[lines["turn"] <= current_turn]
    if visible.empty:
        st.caption("No messages yet at this step.")
    for row in visible.itertuples(index=False):
        with st.chat_message("user" if getattr(row, "role", "") in ("Teller", "Architect", "Player A") else "assistant"):
            st.caption(f"{md_escape(row.speaker)} · turn {row.turn}" + ("  (later)" if row.turn > current_turn else ""))
            show_text(row.text, highlight=row.turn == current_turn)


def corpus_selector(key: str, default: str = "codraw", label: str = "Corpus") -> str:
    """Segmented control over the three corpora, kept in the URL's ``corpus`` parameter."""
    from data_access.common import CORPUS_NAMES, CORPUS_TITLES

    requested = query_param("corpus")
    if requested is not None and requested not in CORPUS_NAMES:
        st.warning(f"The link names an unknown corpus “{md_escape(requested)}”; showing {CORPUS_TITLES[default]}.")
        requested = None
    if key not in st.session_state:
        st.session_state[key] = requested or default
    choice = st.segmented_control(label, CORPUS_NAMES, format_func=CORPUS_TITLES.get, key=key,
                                  on_change=st.query_params.clear) or default
    # Another corpus's dialog, turn and filters mean nothing here, hence the clear() on change.
    st.query_params["corpus"] = choice
    return choice


def url_list(name: str) -> tuple[str, ...]:
    """A comma-separated URL parameter as a tuple (empty when absent)."""
    value = query_param(name)
    return tuple(v for v in value.split(",") if v) if value else ()


def set_url(**params) -> None:
    """Write filter values into the URL (None, empty and False values are removed) so views can be shared."""
    for name, value in params.items():
        if value in (None, "", False, ()) or (isinstance(value, (list, tuple)) and not value):
            if name in st.query_params:
                del st.query_params[name]
        elif isinstance(value, (list, tuple)):
            st.query_params[name] = ",".join(map(str, value))
        elif value is True:
            st.query_params[name] = "1"
        else:
            st.query_params[name] = str(value)


def download_buttons(frame: pd.DataFrame, stem: str, label: str = "table") -> None:
    """CSV and Parquet downloads of ``frame`` (for any filtered table)."""
    from data_access.export import to_csv_bytes, to_parquet_bytes

    left, right, _ = st.columns([1, 1, 4])
    left.download_button(f"⬇ {label} as CSV", to_csv_bytes(frame), f"{stem}.csv", "text/csv", key=f"{stem}__csv")
    right.download_button(f"⬇ {label} as Parquet", to_parquet_bytes(frame), f"{stem}.parquet",
                          "application/vnd.apache.parquet", key=f"{stem}__parquet")


# Every ASCII punctuation character may be backslash-escaped in (Streamlit's) markdown, and escaped it
# is only text: no link, image, emphasis, HTML, LaTeX ($), colour/emoji directive (:) or autolinked URL
# (its dots and colon are escaped). Line breaks would start new blocks (headings, quotes), so they become
# spaces.
_MARKDOWN_SPECIAL = str.maketrans({**{c: "\\" + c for c in string.punctuation}, "\n": " ", "\r": " "})


def md_escape(text) -> str:
    """The one escaping helper: any string from a file or a URL, made inert text inside our own markdown
    (st.markdown / caption / warning / info / error / subheader, ``caption=`` of st.image, widget labels)."""
    return str(text).translate(_MARKDOWN_SPECIAL)
