"""Frames built as Arrow tables (data_access.tables): pandas must get back exactly the frame it would have
written, from memory and from Parquet alike, and a shared table must be converted once."""
from __future__ import annotations

import json
import pickle
import threading

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from data_access.tables import BuiltFrames, frame_table, to_pandas


def _table() -> pa.Table:
    return frame_table({
        "text": pa.array(["a", "b", ""]),
        "count": pa.array(np.array([1, 2, 3], dtype=np.int64)),
        "small": pa.array(np.array([1, -1, 0], dtype=np.int8)),
        "maybe": pa.array(np.array([5, 0, 7]), mask=np.array([False, True, False])),
        "maybe32": pa.array(np.array([5, 0, 7], dtype=np.int32), mask=np.array([True, False, False])),
        "checked": pa.array(np.array([True, False, False]), mask=np.array([False, False, True])),
        "score": pa.array(np.array([0.5, np.nan, 2.0]), from_pandas=True),
        "terms": pa.array([[1.0, 2.0], [], [3.0]], type=pa.list_(pa.float64())),
        "flag": pa.array(np.array([True, False, True])),
    }, nullable={"maybe": "Int64", "maybe32": "Int32", "checked": "boolean"})


def test_pandas_reads_the_dtypes_the_table_declares():
    frame = to_pandas(_table())
    assert {c: str(t) for c, t in frame.dtypes.items()} == {
        "text": "str", "count": "int64", "small": "int8", "maybe": "Int64", "maybe32": "Int32",
        "checked": "boolean", "score": "float64", "terms": "object", "flag": "bool"}
    assert frame["maybe"].isna().tolist() == [False, True, False]
    assert frame["checked"].isna().tolist() == [False, False, True]
    assert np.isnan(frame["score"].iloc[1])


def test_the_metadata_is_what_pandas_itself_writes(tmp_path):
    """Written by pandas after a round trip, the same frame carries the same pandas metadata (apart from
    who wrote it), and reads back equal from our Parquet file and from pandas' own."""
    table = _table()
    frame = to_pandas(table)
    ours = json.loads(table.schema.metadata[b"pandas"])
    theirs = json.loads(pa.Table.from_pandas(frame, preserve_index=False).schema.metadata[b"pandas"])
    assert ours["columns"] == theirs["columns"]
    assert ours["index_columns"] == theirs["index_columns"] == []
    pq.write_table(table, tmp_path / "ours.parquet")
    frame.to_parquet(tmp_path / "theirs.parquet", index=False)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "ours.parquet"), frame)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "theirs.parquet"), frame)


def test_an_unknown_nullable_column_is_refused():
    with pytest.raises(ValueError, match="typo"):
        frame_table({"a": pa.array([1])}, nullable={"typo": "Int64"})


def test_built_frames_give_columns_without_converting_and_the_same_after():
    frames = BuiltFrames({"t": _table()})
    before = frames.columns("t", ["text", "maybe", "score"])
    assert before == {"text": ["a", "b", ""], "maybe": [5, None, 7], "score": [0.5, None, 2.0]}
    assert "t" in frames._tables  # not converted by reading columns
    assert isinstance(frames["t"], pd.DataFrame) and "t" not in frames._tables  # the table is let go
    assert frames.columns("t", ["text", "maybe", "score"]) == before
    with pytest.raises(KeyError):
        frames["nothing"]
    assert list(frames) == ["t"] and len(frames) == 1


def test_built_frames_pickle_as_plain_pandas_frames():
    back = pickle.loads(pickle.dumps(BuiltFrames({"t": _table()})))
    assert type(back) is dict
    pd.testing.assert_frame_equal(back["t"], to_pandas(_table()))


def test_sessions_asking_at_once_share_one_converted_frame():
    frames = BuiltFrames({"t": _table()})
    start = threading.Barrier(8)
    seen, errors = [], []

    def ask():
        start.wait()
        try:
            seen.append(frames["t"])
        except Exception as exc:  # noqa: BLE001 - the test reports any failure
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(seen) == 8 and all(frame is seen[0] for frame in seen)
