"""The small values every part of the store shares: timestamps, validated place fields, typed frames."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Optional

import pandas as pd

from ..links import step_number


def now() -> str:
    """The current UTC time as stored (ISO 8601 with microseconds): also the version token of a row."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


optional_step = step_number  # the store validates round and step as a Place does


def optional_int(value) -> Optional[int]:
    """A frame cell as an int, or None for None / NaN / pd.NA."""
    return None if value is None or value is pd.NA or (isinstance(value, float) and value != value) else int(value)


def required_text(value, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string; got {value!r}")
    return value


def timestamp_text(value) -> str:
    """A stored time (ISO text) as stored, whether the caller passes the text or a frame's Timestamp."""
    if isinstance(value, str):
        return value
    return pd.Timestamp(value).tz_convert("UTC").isoformat(timespec="microseconds")


def typed_frame(frame: pd.DataFrame, time_columns: list[str]) -> pd.DataFrame:
    """The store's column types: round/turn Int64, ids int64, texts str, times UTC datetimes (µs)."""
    for column in ("round", "turn"):
        frame[column] = frame[column].astype("Int64")
    if "id" in frame:
        frame["id"] = frame["id"].astype("int64")
    for column in ("corpus", "dialog_id", "text", "author", "link", "action"):
        if column in frame:
            frame[column] = frame[column].astype("str")
    for column in time_columns:
        # One unit whatever the rows (pandas infers seconds for an empty column, microseconds otherwise).
        frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601").astype("datetime64[us, UTC]")
    return frame
