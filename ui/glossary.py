"""Column headers and help from the one glossary in ``data_access.common`` (``COLUMN_LABELS``, ``COLUMN_HELP``),
as ``st.dataframe`` column configurations, so every table names and explains a column the same way."""
from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from data_access.common import COLUMN_HELP, COLUMN_LABELS

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
