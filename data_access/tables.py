"""Frames built as Arrow tables, handed to pandas only when somebody asks for a pandas frame.

A cold command-line summary of CoDraw needs eight columns of one frame, yet every frame was built in pandas
only to be converted back to Arrow for the Parquet cache (writing the cache took 0.39 s then, 0.16 s now,
in timed cold loads of the real corpus). The loader builds
``pyarrow.Table`` objects instead, the cache writes them as they are, and the summary reads its columns
from them. (pandas is still imported: pyarrow's pandas shim imports it at the first conversion of
anything.) The app gets exactly the pandas frames a cache hit gives, because each table carries the pandas
schema metadata (the ``b"pandas"`` entry that ``DataFrame.to_parquet`` writes) that restores the nullable
and string dtypes on the way back.
"""
from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING

import pyarrow as pa

from .types import FramesByName

if TYPE_CHECKING:
    import pandas as pd

# pandas' own name of each Arrow type, as ``pa.Table.from_pandas`` records it.
_PANDAS_TYPES = {
    pa.int8(): "int8", pa.int16(): "int16", pa.int32(): "int32", pa.int64(): "int64",
    pa.float64(): "float64", pa.bool_(): "bool",
}


def _pandas_version() -> str:
    import pandas  # already imported by pyarrow's first conversion; only its version is wanted

    return pandas.__version__


def _column_metadata(field: pa.Field, dtype: str | None) -> dict:
    if pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
        pandas_type, numpy_type = "object", "str"
    elif pa.types.is_list(field.type) or pa.types.is_large_list(field.type):
        pandas_type, numpy_type = f"list[{_PANDAS_TYPES[field.type.value_type]}]", "object"
    else:
        pandas_type = numpy_type = _PANDAS_TYPES[field.type]
    return {"name": field.name, "field_name": field.name, "pandas_type": pandas_type,
            "numpy_type": dtype or numpy_type, "metadata": None}


def frame_table(columns: dict[str, pa.Array], nullable: dict[str, str] | None = None) -> pa.Table:
    """A table of ``columns`` (in order) that pandas reads back as the frame it would have written.

    ``nullable`` names the columns that are pandas extension dtypes ("Int64", "Int32", "boolean"); text
    columns become pandas' "str" dtype, the others their plain numpy dtype."""
    nullable = nullable or {}
    table = pa.table(columns)
    unknown = set(nullable) - set(table.column_names)
    if unknown:
        raise ValueError(f"nullable columns {sorted(unknown)} are not in the table")
    metadata = {
        "index_columns": [], "column_indexes": [], "attributes": {},
        "columns": [_column_metadata(field, nullable.get(field.name)) for field in table.schema],
        "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": _pandas_version(),
    }
    return table.replace_schema_metadata({b"pandas": json.dumps(metadata).encode()})


def to_pandas(table: pa.Table) -> "pd.DataFrame":
    """The table as ``pandas.read_parquet`` would return it after writing it to Parquet."""
    # What pandas.read_parquet does with pyarrow >= 19 (pandas.io._util.arrow_table_to_pandas): the
    # metadata's dtypes restore "str", "Int64" and "boolean" columns.
    return table.to_pandas()


class BuiltFrames(FramesByName):
    """Frames a loader has just built as Arrow tables: each becomes a pandas frame the first time it is
    asked for (and its table is then let go). ``table`` and ``columns`` read a frame not yet converted
    without pandas. Pickling (e.g. by st.cache_data) yields a plain dict of pandas frames."""

    def __init__(self, tables: dict[str, pa.Table]):
        self._tables = dict(tables)
        self._names = list(tables)
        self._frames: dict[str, pd.DataFrame] = {}
        self._lock = threading.Lock()  # the app's sessions share one corpus: convert each frame once

    def __getitem__(self, name: str) -> "pd.DataFrame":
        if name not in self._frames:
            if name not in self._names:
                raise KeyError(name)
            with self._lock:
                if name not in self._frames:
                    self._frames[name] = to_pandas(self._tables[name])
                    del self._tables[name]
        return self._frames[name]

    def table(self, name: str) -> pa.Table:
        """The frame as an Arrow table (converted back when it is already a pandas frame)."""
        table = self._tables.get(name)
        if table is not None:
            return table
        return pa.Table.from_pandas(self[name], preserve_index=False)

    def columns(self, name: str, names: list[str]) -> dict[str, list]:
        """Some columns as Python lists, missing values None (as ``cache.frame_columns`` gives them)."""
        table = self.table(name)
        return {column: table.column(column).to_pylist() for column in names}
