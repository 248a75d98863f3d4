"""Everything people take away from the dashboard, as bytes or text: tables (CSV / Parquet / JSON Lines),
pictures of replays (GIF, PNG strip, grids), a replay as one self-contained HTML file, LaTeX transcripts and
booktabs tables, charts as SVG / PDF.

One module per kind of file: ``files`` (tables and pictures), ``html`` (the offline replay), ``latex``
(transcripts and tables for papers), ``figures`` (charts through kaleido). The names below are what the
rest of the code uses; the modules hold the details (encoding options, fallbacks) their tests reach into.
Pure functions of their inputs; nothing is written to disk here.
"""
from __future__ import annotations

from .figures import FigureExportError, corpora_of_chart, figure_bytes, source_line
from .files import (
    animated_gif,
    frame_to_jsonl_bytes,
    image_grid,
    png_bytes,
    png_strip,
    to_csv_bytes,
    to_jsonl_bytes,
    to_parquet_bytes,
)
from .html import STEP_UNITS, compare_replay_html, dialog_replay_html, note_picture, png_image, run_replay_html
from .latex import UNICODE_MARK, booktabs_table, dialog_transcript_zip, latex_escape, standalone_document, summary_frame

__all__ = [
    "FigureExportError", "STEP_UNITS", "UNICODE_MARK", "animated_gif", "booktabs_table", "compare_replay_html",
    "corpora_of_chart", "dialog_replay_html", "dialog_transcript_zip", "figure_bytes", "frame_to_jsonl_bytes",
    "image_grid", "latex_escape", "note_picture", "png_bytes", "png_image", "png_strip", "run_replay_html",
    "source_line", "standalone_document", "summary_frame", "to_csv_bytes", "to_jsonl_bytes", "to_parquet_bytes",
]
