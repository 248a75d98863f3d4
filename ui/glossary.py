"""Column headers and help from the one glossary in ``data_access.common`` (``COLUMN_LABELS``, ``COLUMN_HELP``),
as ``st.dataframe`` column configurations or as a static markdown table with its glossary, so every table
names and explains a column the same way.

A markdown table is for small read-only tables on a page's first screen: it is drawn by the markdown code
every page has already loaded, where a data grid adds about 0.3× a blank page's load to a first visit
(``benchmarks/element_costs.py``)."""
from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd
import streamlit as st

from data_access.common import COLUMN_HELP, COLUMN_LABELS
from ui.widgets import md_escape

INTEGER = {"n_rounds", "n_steps", "n_utterances", "dialogs", "messages", "tokens", "vocabulary", "rounds", "replay_steps"}
FORMATS = {"duration_s": "%.0f", "messages_per_dialog": "%.1f", "median_messages_per_dialog": "%.0f",
           "tokens_per_message": "%.1f"}


def column(name: str):
    """The column configuration of one glossary column (None for a column the glossary does not know)."""
    if name not in COLUMN_LABELS:
        return None
    label, help_text = COLUMN_LABELS[name], COLUMN_HELP.get(name)
    if name in INTEGER:
        return st.column_config.NumberColumn(label, help=help_text, format="localized")
    if name in FORMATS:
        return st.column_config.NumberColumn(label, help=help_text, format=FORMATS[name])
    return st.column_config.Column(label, help=help_text)


def column_config(columns: Iterable[str], **overrides) -> dict:
    """``st.dataframe(column_config=...)`` for ``columns``: glossary labels and help, then ``overrides``."""
    config = {name: column(name) for name in columns if name in COLUMN_LABELS}
    config.update(overrides)
    return config


def _cell(name: str, value, float_format: str) -> str:
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (name in INTEGER and isinstance(value, float) and value.is_integer()):
        return f"{int(value):,}"
    if isinstance(value, float):
        text = FORMATS.get(name, float_format) % value
        return text[1:] if text.startswith("-") and not text.strip("-0.,") else text  # no "-0.000"
    return md_escape(value)


def markdown_table(frame: pd.DataFrame, labels: dict | None = None, float_format: str = "%.2f") -> str:
    """``frame`` as a GitHub-flavoured markdown table: glossary (or ``labels``) headers, numbers right-aligned
    and formatted as ``column`` formats them, every text cell escaped (it may come from a file)."""
    labels = {**COLUMN_LABELS, **(labels or {})}
    numeric = [pd.api.types.is_numeric_dtype(frame[name]) and not pd.api.types.is_bool_dtype(frame[name])
               for name in frame.columns]
    lines = ["| " + " | ".join(md_escape(labels.get(name, name)) for name in frame.columns) + " |",
             "| " + " | ".join("--:" if is_number else ":--" for is_number in numeric) + " |"]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(name, value.item() if hasattr(value, "item") else value, float_format)
                                       for name, value in zip(frame.columns, row)) + " |")
    return "\n".join(lines)


def glossary_markdown(columns: Iterable[str]) -> str:
    """What each glossary column of a table means, one bullet per column (a help text that starts by
    naming its column does not name it twice)."""
    lines = []
    for name in columns:
        if name not in COLUMN_LABELS or name not in COLUMN_HELP:
            continue
        label, help_text = COLUMN_LABELS[name], COLUMN_HELP[name]
        if help_text.lower().startswith(label.lower() + ": "):
            help_text = help_text[len(label) + 2:]
        lines.append(f"- **{md_escape(label)}**: {md_escape(help_text)}")
    return "\n".join(lines)
