"""The one transcript renderer (Replay of every corpus, Compare, Present): chat lines in a scroll box, the
lines of the current step marked, later lines hidden or greyed, and the box scrolled so that the current
step is in view — on every step, also while Present plays by itself.

The lines are drawn as HTML (every string from the data escaped, so it shows literally) with a few lines
of script that scroll the box; Streamlit's own containers cannot be scrolled from Python."""
from __future__ import annotations

import html
import itertools
import json
from typing import Optional

import pandas as pd
import streamlit as st

from ui.assets import asset_text

LEADING_ROLES = ("Teller", "Architect", "Player A")
_counter = itertools.count()

STYLE = asset_text("transcript.css")
SCRIPT = asset_text("transcript.js")  # scrolls the box to its current line; "%(key)s" is the box's key


def speaker_label(speaker, role) -> str:
    """"Teller", "fabulous-chicken-6978 (Player A)": the role only when it adds something."""
    speaker = "" if speaker is None or (isinstance(speaker, float) and pd.isna(speaker)) else str(speaker)
    role = "" if role is None or (isinstance(role, float) and pd.isna(role)) else str(role)
    if not speaker:
        return role or "?"
    return speaker if not role or role == speaker else f"{speaker} ({role})"


def _text_html(text: str, needle: Optional[str]) -> str:
    """``text`` escaped, with every occurrence of ``needle`` (a search match) in <mark>."""
    if not needle:
        return html.escape(text)
    from data_access.links import highlight_segments

    return "".join(f"<mark>{html.escape(piece)}</mark>" if is_match else html.escape(piece)
                   for piece, is_match in highlight_segments(text, needle))


def transcript_html(lines: pd.DataFrame, current: int, show_all: bool = False, height: int = 420,
                    unit: str = "step", key: str = "transcript", font_size: Optional[str] = None,
                    highlight: Optional[str] = None) -> str:
    """The HTML of the transcript box (pure; ``transcript`` shows it). ``highlight`` is marked in the
    current step's lines (a search hit's match, from its link)."""
    visible = lines if show_all else lines[lines["turn"] <= current]
    parts = [f"<style>{STYLE}</style>",
             f'<div class="vgd-transcript" data-vgd-transcript="{html.escape(key)}" data-current="{int(current)}" '
             f'style="max-height:{int(height)}px;{f" --vgd-font:{font_size};" if font_size else ""}">']
    if visible.empty:
        parts.append('<div class="vgd-empty">Nothing said yet at this step.</div>')
    has_time = "time" in visible.columns
    for row in visible.itertuples(index=False):
        turn = int(row.turn)
        role = getattr(row, "role", "")
        classes = ["vgd-line", "vgd-lead" if str(role) in LEADING_ROLES else "vgd-follow"]
        if turn == current:
            classes.append("vgd-current")
        elif turn > current:
            classes.append("vgd-later")
        meta = f"{speaker_label(getattr(row, 'speaker', ''), role)} · {unit} {turn}"
        if has_time and isinstance(row.time, str) and row.time:
            meta += f" · {row.time}"
        if turn > current:
            meta += " (later)"
        parts.append(f'<div class="{" ".join(classes)}" data-turn="{turn}"><div class="vgd-meta">{html.escape(meta)}</div>'
                     f'<div class="vgd-text">{_text_html(str(row.text), highlight if turn == current else None)}</div></div>')
    parts.append("</div>")
    parts.append(f"<script>{SCRIPT % {'key': json.dumps(key)[1:-1]}}</script>")
    return "".join(parts)


def transcript(lines: pd.DataFrame, current: int, show_all: bool = False, height: int = 420, unit: str = "step",
               key: str = "transcript", font_size: Optional[str] = None) -> None:
    """Chat lines (columns turn, speaker, role, text; optional time) up to ``current`` (all with
    ``show_all``, later ones greyed), the current step's lines marked and scrolled into view."""
    from ui.replay.highlight import requested_highlight

    body = transcript_html(lines, current, show_all, height, unit, key, font_size, requested_highlight())
    # A comment that changes on every run makes Streamlit insert the block again, so its script runs again.
    st.html(body + f"<!-- {next(_counter)} -->", unsafe_allow_javascript=True)
