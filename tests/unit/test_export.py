"""Export helpers: table bytes round-trip (list columns included), JSON Lines, GIF and PNG strips."""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from data_access.exports import files as export


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "dialog_id": pd.Series(["d1", "d2", "d3"], dtype="str"),
        "turn": pd.Series([1, 2, 3], dtype="int64"),
        "round": pd.array([1, None, 3], dtype="Int64"),
        "score": [0.5, np.nan, 2.25],
        "tags": [["repair", "spatial"], [], ["à la \"quote\", comma"]],
        "text": pd.Series(["plain", "line\nbreak, comma", "=SUM(A1)"], dtype="str"),
    })


def test_csv_round_trip_writes_list_columns_as_json():
    frame = _frame()
    back = pd.read_csv(io.BytesIO(export.to_csv_bytes(frame)))
    assert list(back.columns) == list(frame.columns)
    assert back["tags"].map(json.loads).tolist() == frame["tags"].tolist()
    assert back["text"].tolist() == frame["text"].tolist()
    assert back["turn"].tolist() == [1, 2, 3]
    assert back["score"].isna().tolist() == [False, True, False]


def test_csv_excel_safe_and_bom():
    data = export.to_csv_bytes(_frame(), excel_safe=True, bom=True)
    assert data.startswith("\ufeff".encode())
    back = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")
    assert back["text"].tolist()[2] == "'=SUM(A1)"
    assert back["dialog_id"].tolist() == ["d1", "d2", "d3"]


def test_parquet_round_trip_keeps_list_column():
    frame = _frame()
    back = pd.read_parquet(io.BytesIO(export.to_parquet_bytes(frame)))
    assert [list(v) for v in back["tags"]] == frame["tags"].tolist()
    pd.testing.assert_frame_equal(back.drop(columns="tags"), frame.drop(columns="tags"))


def test_jsonl_lines_parse_back_with_numpy_and_nan():
    records = [
        {"id": np.int64(1), "vector": np.array([1.0, np.nan]), "score": float("nan"), "missing": pd.NA,
         "at": pd.Timestamp("2024-05-01T12:00:00Z"), "tags": ("a", "b")},
        {"id": 2, "vector": [], "score": np.float32(0.5), "missing": None, "at": None, "tags": []},
    ]
    lines = export.to_jsonl_bytes(records).decode().splitlines()
    assert len(lines) == 2
    first, second = map(json.loads, lines)
    assert first == {"id": 1, "vector": [1.0, None], "score": None, "missing": None,
                     "at": "2024-05-01T12:00:00+00:00", "tags": ["a", "b"]}
    assert second["score"] == 0.5 and second["vector"] == []


def test_frame_to_jsonl_has_one_object_per_row():
    lines = export.frame_to_jsonl_bytes(_frame()).decode().splitlines()
    rows = [json.loads(line) for line in lines]
    assert [r["round"] for r in rows] == [1, None, 3]
    assert rows[0]["tags"] == ["repair", "spatial"]


def _images():
    return [Image.new("RGB", (40, 30), "red"), Image.new("RGBA", (60, 20), (0, 0, 255, 255)),
            Image.new("RGB", (20, 50), "green")]


def test_gif_has_every_frame_padded_to_one_size():
    data = export.animated_gif(_images(), [100, 200, 300])
    with Image.open(io.BytesIO(data)) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == 3
        assert gif.size == (60, 50)
        durations = []
        for index in range(gif.n_frames):
            gif.seek(index)
            durations.append(gif.info["duration"])
        assert durations == [100, 200, 300]
        assert gif.info.get("loop") == 0


def test_gif_captions_add_a_strip_below():
    plain = Image.open(io.BytesIO(export.animated_gif(_images(), 500)))
    captioned = Image.open(io.BytesIO(export.animated_gif(_images(), 500, captions=["turn 1", None, "turn 3 " * 20])))
    assert captioned.n_frames == 3
    assert captioned.width == plain.width
    assert captioned.height > plain.height


def test_gif_rejects_mismatched_durations():
    with pytest.raises(ValueError):
        export.animated_gif(_images(), [100, 200])


def test_png_strip_sizes():
    images = _images()
    one_row = Image.open(io.BytesIO(export.png_strip(images, gap=10)))
    assert one_row.format == "PNG"
    assert one_row.size == (3 * 60 + 4 * 10, 50 + 2 * 10)
    grid = Image.open(io.BytesIO(export.png_strip(images, columns=2, gap=0)))
    assert grid.size == (2 * 60, 2 * 50)
    captioned = export.image_grid(images, ["a", "b", "c"], gap=0)
    assert captioned.width == 3 * 60 and captioned.height > 50
    # captions are drawn: the strip under the first cell is not all background
    strip = captioned.crop((0, 50, 60, captioned.height)).convert("L")
    assert strip.getextrema()[0] < 128
