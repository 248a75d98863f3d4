"""Turning tables and replays into files people take away: CSV / Parquet / JSON Lines bytes for download
buttons, an animated GIF of a replay and a PNG strip of replay steps for slides.

Pure functions of their inputs (pandas, orjson and Pillow only); nothing is written to disk here.
"""
from __future__ import annotations

import io
import math
from datetime import date, datetime
from typing import Any, Iterable, Union

import numpy as np
import orjson
import pandas as pd

from ..pictures import CAPTION_FONT_SIZE, CAPTION_PADDING, animated_gif, image_grid, png_bytes, png_strip  # noqa: F401 - re-exported

Color = Union[str, tuple[int, int, int]]

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


# -- tables --------------------------------------------------------------------------------------------------

def _is_nested(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict, set, np.ndarray))


def _nested_columns(frame: pd.DataFrame) -> list[str]:
    """Object columns holding lists/arrays/dicts (checked on every non-null value, not just the first)."""
    return [
        column for column in frame.columns
        if frame[column].dtype == object and frame[column].map(_is_nested).any()
    ]


def to_csv_bytes(frame: pd.DataFrame, *, excel_safe: bool = False, bom: bool = False) -> bytes:
    """``frame`` as UTF-8 CSV without the index. List, array and dict cells become JSON text
    (``["a", "b"]``), timestamps ``YYYY-MM-DD HH:MM:SS[.ffffff][+00:00]``, missing values empty.

    ``excel_safe`` prefixes text cells starting with = + - @ with an apostrophe so spreadsheet programs do
    not run them as formulas (this changes the text, so it is off by default); ``bom`` adds the byte-order
    mark older Excel versions need to detect UTF-8."""
    out = frame.copy()
    for column in _nested_columns(out):
        out[column] = out[column].map(lambda v: _json_text(v) if _is_nested(v) else v)
    if excel_safe:
        for column in out.columns:
            if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
                out[column] = out[column].map(
                    lambda v: "'" + v if isinstance(v, str) and v.startswith(FORMULA_PREFIXES) else v)
    text = out.to_csv(index=False, lineterminator="\n")
    return ("\ufeff" if bom else "").encode("utf-8") + text.encode("utf-8")


def to_parquet_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as Parquet (list columns stay lists) without the index."""
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def _json_default(value: Any) -> Any:
    """orjson fallback for the pandas/numpy values it does not know."""
    if value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    if isinstance(value, (pd.Timedelta,)):
        return value.total_seconds()
    if isinstance(value, (set, frozenset, tuple)):
        return [_plain(v) for v in value]
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def _plain(value: Any) -> Any:
    """A JSON-ready value: NaN/NA → None, numpy → Python, containers recursively."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value


def _json_text(value: Any) -> str:
    return orjson.dumps(_plain(value), default=_json_default).decode("utf-8")


def to_jsonl_bytes(records: Iterable[dict]) -> bytes:
    """One JSON object per line (UTF-8, ``\\n``-terminated). numpy arrays become lists, numpy scalars
    numbers, NaN / NA / NaT null, timestamps ISO 8601 text."""
    lines = [orjson.dumps(_plain(dict(record)), default=_json_default) for record in records]
    return b"".join(line + b"\n" for line in lines)


def frame_to_jsonl_bytes(frame: pd.DataFrame) -> bytes:
    """Each row of ``frame`` as one JSON Lines object (column name → value)."""
    return to_jsonl_bytes(frame.to_dict(orient="records"))
