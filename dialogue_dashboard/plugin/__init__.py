"""The public API of a corpus plugin: every name a corpus package needs from the dashboard, and the only module it
imports from it (docs/architecture.md, "Writing a corpus plugin"). These names are stable: they keep their meaning
from one release to the next, and a change to one is a new major version. The corpora that come with the dashboard
(``corpora/``) import nothing else of it either.

Pure Python, no Streamlit: the value types and the corpus contract (``LoadedCorpus``, ``SourceError``,
``SkippedRecord``, ``Provenance``, ``CorpusPackage``, ``RunScoring``...), the common frames' columns, bounded file
reading (``read_capped``, ``LIMITS``...), the run-line reader and metric rows of a run scoring (``json_lines``,
``Tally``, ``metric_row``...), pictures, and the chart kit (``Chart``, ``mean_ci``...). A plugin's views (its Replay
section...) import from ``dialogue_dashboard.plugin.views``. Run scoring and published layers are optional parts of
the contract (``OptionalCapabilities``)."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from data_access import readahead as readahead
    from data_access.analysis.charts import PALETTE as PALETTE
    from data_access.analysis.charts import PLOT_HEIGHT as PLOT_HEIGHT
    from data_access.analysis.charts import Chart as Chart
    from data_access.analysis.charts import ci_error_bars as ci_error_bars
    from data_access.analysis.charts import count_phrase as count_phrase
    from data_access.analysis.charts import empty_chart as empty_chart
    from data_access.analysis.charts import row_positions as row_positions
    from data_access.analysis.charts import split_colour as split_colour
    from data_access.analysis.charts import style as style_chart
    from data_access.analysis.splits import filter_splits as filter_splits
    from data_access.analysis.splits import splits_in as splits_in
    from data_access.analysis.stats import INTERVALS as INTERVALS
    from data_access.analysis.stats import grouped_mean_ci as grouped_mean_ci
    from data_access.analysis.stats import interval_note as interval_note
    from data_access.analysis.stats import kendall_tau as kendall_tau
    from data_access.analysis.stats import kendall_w as kendall_w
    from data_access.analysis.stats import mean_ci as mean_ci
    from data_access.analysis.stats import paired_difference as paired_difference
    from data_access.analysis.stats import spearman_rho as spearman_rho
    from data_access.annotation_form import ANNOTATION_COLUMNS as ANNOTATION_COLUMNS
    from data_access.annotation_form import is_int as is_int
    from data_access.annotation_form import read_lines as read_lines
    from data_access.annotation_form import segments as segments
    from data_access.budgets import CORPUS as CORPUS_BUDGET
    from data_access.cache import read_columns as read_columns
    from data_access.common import DIALOG_COLUMNS as DIALOG_COLUMNS
    from data_access.common import UTTERANCE_COLUMNS as UTTERANCE_COLUMNS
    from data_access.contract import REFERENT_COLUMNS as REFERENT_COLUMNS
    from data_access.contract import AnnotationLayer as AnnotationLayer
    from data_access.contract import CorpusPackage as CorpusPackage
    from data_access.contract import FeatureText as FeatureText
    from data_access.contract import LiveRecord as LiveRecord
    from data_access.contract import LiveRules as LiveRules
    from data_access.contract import OptionalCapabilities as OptionalCapabilities
    from data_access.contract import ReferentPlane as ReferentPlane
    from data_access.contract import RunScoring as RunScoring
    from data_access.contract import RunStepView as RunStepView
    from data_access.contract import no_referents as no_referents
    from data_access.exports import to_jsonl_bytes as to_jsonl_bytes
    from data_access.links import replay_link as replay_link
    from data_access.pictures import image_grid as image_grid
    from data_access.pictures import note_picture as note_picture
    from data_access.pictures import png_image as png_image
    from data_access.safe_io import LIMITS as LIMITS
    from data_access.safe_io import check_lines as check_lines
    from data_access.safe_io import gunzip_capped as gunzip_capped
    from data_access.safe_io import iter_lines as iter_lines
    from data_access.safe_io import read_capped as read_capped
    from data_access.safe_io import without_bom as without_bom
    from data_access.scoring.lines import Lines as Lines
    from data_access.scoring.lines import Tally as Tally
    from data_access.scoring.lines import first_line as first_line
    from data_access.scoring.lines import frame_part as frame_part
    from data_access.scoring.lines import json_lines as json_lines
    from data_access.scoring.lines import no_usable_line as no_usable_line
    from data_access.scoring.lines import prf as prf
    from data_access.scoring.lines import read_bytes as read_bytes
    from data_access.scoring.lines import run_lines as run_lines
    from data_access.scoring.statistics import HUMANS as HUMANS
    from data_access.scoring.statistics import bins as bins
    from data_access.scoring.statistics import bootstrap_micro as bootstrap_micro
    from data_access.scoring.statistics import metric_row as metric_row
    from data_access.tables import BuiltFrames as BuiltFrames
    from data_access.tables import frame_table as frame_table
    from data_access.tables import to_pandas as to_pandas
    from data_access.types import LayerContent as LayerContent
    from data_access.types import LoadedCorpus as LoadedCorpus
    from data_access.types import LoadedLayer as LoadedLayer
    from data_access.types import LoadedRun as LoadedRun
    from data_access.types import ProgressCallback as ProgressCallback
    from data_access.types import Provenance as Provenance
    from data_access.types import SkippedRecord as SkippedRecord
    from data_access.types import SkippedRecords as SkippedRecords
    from data_access.types import SourceError as SourceError
    from data_access.types import no_progress as no_progress
    from data_access.types import skipped_report as skipped_report

# public name -> (the module that defines it, its name there)
NAMES: dict[str, tuple[str, str]] = {
    "LoadedCorpus": ("data_access.types", "LoadedCorpus"),
    "LoadedLayer": ("data_access.types", "LoadedLayer"),
    "LoadedRun": ("data_access.types", "LoadedRun"),
    "SourceError": ("data_access.types", "SourceError"),
    "SkippedRecord": ("data_access.types", "SkippedRecord"),
    "SkippedRecords": ("data_access.types", "SkippedRecords"),
    "skipped_report": ("data_access.types", "skipped_report"),
    "ProgressCallback": ("data_access.types", "ProgressCallback"),
    "no_progress": ("data_access.types", "no_progress"),
    "LayerContent": ("data_access.types", "LayerContent"),
    "Provenance": ("data_access.types", "Provenance"),
    "CorpusPackage": ("data_access.contract", "CorpusPackage"),
    "RunScoring": ("data_access.contract", "RunScoring"),
    "LiveRules": ("data_access.contract", "LiveRules"),
    "LiveRecord": ("data_access.contract", "LiveRecord"),
    "AnnotationLayer": ("data_access.contract", "AnnotationLayer"),
    "OptionalCapabilities": ("data_access.contract", "OptionalCapabilities"),
    "FeatureText": ("data_access.contract", "FeatureText"),
    "ReferentPlane": ("data_access.contract", "ReferentPlane"),
    "RunStepView": ("data_access.contract", "RunStepView"),
    "REFERENT_COLUMNS": ("data_access.contract", "REFERENT_COLUMNS"),
    "no_referents": ("data_access.contract", "no_referents"),
    "DIALOG_COLUMNS": ("data_access.common", "DIALOG_COLUMNS"),
    "UTTERANCE_COLUMNS": ("data_access.common", "UTTERANCE_COLUMNS"),
    "CORPUS_BUDGET": ("data_access.budgets", "CORPUS"),
    "LIMITS": ("data_access.safe_io", "LIMITS"),
    "check_lines": ("data_access.safe_io", "check_lines"),
    "gunzip_capped": ("data_access.safe_io", "gunzip_capped"),
    "iter_lines": ("data_access.safe_io", "iter_lines"),
    "read_capped": ("data_access.safe_io", "read_capped"),
    "without_bom": ("data_access.safe_io", "without_bom"),
    "BuiltFrames": ("data_access.tables", "BuiltFrames"),
    "frame_table": ("data_access.tables", "frame_table"),
    "to_pandas": ("data_access.tables", "to_pandas"),
    "read_columns": ("data_access.cache", "read_columns"),
    "replay_link": ("data_access.links", "replay_link"),
    "ANNOTATION_COLUMNS": ("data_access.annotation_form", "ANNOTATION_COLUMNS"),
    "is_int": ("data_access.annotation_form", "is_int"),
    "read_lines": ("data_access.annotation_form", "read_lines"),
    "segments": ("data_access.annotation_form", "segments"),
    "image_grid": ("data_access.pictures", "image_grid"),
    "note_picture": ("data_access.pictures", "note_picture"),
    "png_image": ("data_access.pictures", "png_image"),
    "Chart": ("data_access.analysis.charts", "Chart"),
    "PALETTE": ("data_access.analysis.charts", "PALETTE"),
    "PLOT_HEIGHT": ("data_access.analysis.charts", "PLOT_HEIGHT"),
    "ci_error_bars": ("data_access.analysis.charts", "ci_error_bars"),
    "count_phrase": ("data_access.analysis.charts", "count_phrase"),
    "empty_chart": ("data_access.analysis.charts", "empty_chart"),
    "row_positions": ("data_access.analysis.charts", "row_positions"),
    "split_colour": ("data_access.analysis.charts", "split_colour"),
    "style_chart": ("data_access.analysis.charts", "style"),
    "filter_splits": ("data_access.analysis.splits", "filter_splits"),
    "splits_in": ("data_access.analysis.splits", "splits_in"),
    "INTERVALS": ("data_access.analysis.stats", "INTERVALS"),
    "grouped_mean_ci": ("data_access.analysis.stats", "grouped_mean_ci"),
    "interval_note": ("data_access.analysis.stats", "interval_note"),
    "kendall_tau": ("data_access.analysis.stats", "kendall_tau"),
    "kendall_w": ("data_access.analysis.stats", "kendall_w"),
    "mean_ci": ("data_access.analysis.stats", "mean_ci"),
    "paired_difference": ("data_access.analysis.stats", "paired_difference"),
    "spearman_rho": ("data_access.analysis.stats", "spearman_rho"),
    "Lines": ("data_access.scoring.lines", "Lines"),
    "Tally": ("data_access.scoring.lines", "Tally"),
    "first_line": ("data_access.scoring.lines", "first_line"),
    "frame_part": ("data_access.scoring.lines", "frame_part"),
    "json_lines": ("data_access.scoring.lines", "json_lines"),
    "no_usable_line": ("data_access.scoring.lines", "no_usable_line"),
    "prf": ("data_access.scoring.lines", "prf"),
    "read_bytes": ("data_access.scoring.lines", "read_bytes"),
    "run_lines": ("data_access.scoring.lines", "run_lines"),
    "HUMANS": ("data_access.scoring.statistics", "HUMANS"),
    "bins": ("data_access.scoring.statistics", "bins"),
    "bootstrap_micro": ("data_access.scoring.statistics", "bootstrap_micro"),
    "metric_row": ("data_access.scoring.statistics", "metric_row"),
    "to_jsonl_bytes": ("data_access.exports", "to_jsonl_bytes"),
    "readahead": ("data_access", "readahead"),
}
__all__ = ["ANNOTATION_COLUMNS", "AnnotationLayer", "BuiltFrames", "CORPUS_BUDGET", "Chart", "CorpusPackage",
           "DIALOG_COLUMNS", "FeatureText", "HUMANS", "INTERVALS", "LIMITS", "LayerContent", "Lines", "LiveRecord", "LiveRules",
           "LoadedCorpus", "LoadedLayer", "LoadedRun", "OptionalCapabilities", "PALETTE", "PLOT_HEIGHT",
           "ProgressCallback", "Provenance", "REFERENT_COLUMNS", "ReferentPlane", "RunScoring", "RunStepView",
           "SkippedRecord", "SkippedRecords", "SourceError", "Tally", "UTTERANCE_COLUMNS", "bins",
           "bootstrap_micro", "check_lines", "ci_error_bars", "count_phrase", "empty_chart", "filter_splits",
           "first_line", "frame_part", "frame_table", "grouped_mean_ci", "gunzip_capped", "image_grid",
           "interval_note", "is_int", "iter_lines", "json_lines", "kendall_tau", "kendall_w", "mean_ci",
           "metric_row", "no_progress", "no_referents", "no_usable_line", "note_picture", "paired_difference",
           "png_image", "prf", "read_bytes", "read_capped", "read_columns", "read_lines", "readahead",
           "replay_link", "row_positions", "run_lines", "segments", "skipped_report", "spearman_rho",
           "split_colour", "splits_in", "style_chart", "to_jsonl_bytes", "to_pandas", "without_bom"]  # the keys of NAMES (tests/unit/test_plugin_api.py)


def __getattr__(name: str) -> Any:
    """Each name is imported when first used: a corpus package that needs the run-line reader does not
    import the charts (plotly)."""
    if name not in NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = NAMES[name]
    imported = importlib.import_module(module)
    if not hasattr(imported, attribute):  # a module of the package (``charts``, ``readahead``)
        importlib.import_module(f"{module}.{attribute}")
    value = getattr(imported, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *NAMES])
