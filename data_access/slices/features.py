"""The per-dialog features a slice can test besides the dialog table's own columns: the ones the analysis pages
compute (taken from the very functions behind their charts, so a slice and a chart never disagree) and the
ones a published annotation layer gives.

``derived_features(loaded)`` and ``layer_features(layer_name, loaded_layer)`` return frames indexed by
``dialog_id``; ``FEATURE_TEXT`` says how a description and the documentation name each feature.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import pandas as pd

from ..codraw import figures as codraw_figures
from ..codraw import icr_analysis as layer_analysis
from ..common import COLUMN_LABELS, LoadedCorpus


@dataclass(frozen=True)
class FeatureText:
    label: str  # how a description names it: "peek gain"
    has: Optional[str] = None  # the bare feature in a description: "has a CR" (None: the label)
    lacks: Optional[str] = None  # its negation: "no CR" (None: "not " + the above)
    help: str = ""


def _peek_gain(loaded: LoadedCorpus) -> pd.Series:
    """The peek chart's gain (final score − score of the last drawing before the peek), by dialog."""
    table = codraw_figures.peek_table(loaded.dialogs)
    return pd.Series(table["gain"].to_numpy(dtype=float), index=pd.Index(table["dialog_id"].astype(str)))


# corpus -> feature -> function of the loaded corpus (a Series by dialog_id; dialogs without a value are absent)
DERIVED: dict[str, dict[str, Callable[[LoadedCorpus], pd.Series]]] = {
    codraw_figures.CORPUS: {"peek_gain": _peek_gain},
}


def _crs(layer) -> pd.DataFrame:
    table = layer_analysis.cr_by_dialog(layer)
    return pd.DataFrame({"crs": table["crs"].to_numpy(dtype="int64"),
                         "annotated_rounds": table["annotated"].to_numpy(dtype="int64")},
                        index=pd.Index(table["dialog_id"].astype(str), name="dialog_id"))


def _mentions(layer) -> pd.DataFrame:
    frame = layer.annotations
    counts = frame.groupby(frame["dialog_id"].astype(str)).size() if len(frame) else pd.Series(dtype="int64")
    return pd.DataFrame({"mentions": counts.astype("int64")})


# layer -> function of the loaded layer: a frame by dialog_id. A dialog the layer does not cover has no value
# (NaN), not 0: "crs = 0" means "annotated, and no CR", as the CoDraw scores page's groups say.
LAYER_FEATURES: dict[str, Callable[[object], pd.DataFrame]] = {"codraw-icr": _crs, "gos-mentions": _mentions}

FEATURE_TEXT: dict[str, FeatureText] = {
    "peek_gain": FeatureText("peek gain", help="final score − score of the last drawing before the Teller's peek "
                                               "(the peek chart's value); empty without a peek"),
    "crs": FeatureText("CRs", "has a CR", "no CR", help="clarification requests of the published layer aligned to the dialog; "
                                          "empty where no row of the layer is aligned to it"),
    "annotated_rounds": FeatureText("rounds in the CR layer"),
    "mentions": FeatureText("mentions", "has a mention", "no mention", help="referring expressions of the published mentions layer"),
    "outcome_match": FeatureText("exact build", "exact build", "not an exact build"),
    "final_score": FeatureText("final score"),
    "mismatches": FeatureText("mismatched locks", "has a mismatched lock", "no mismatched lock"),
    "duration_s": FeatureText("duration (s)"),
}


def feature_text(name: str) -> FeatureText:
    """How a description names column or feature ``name`` (its glossary label, else its words)."""
    if name in FEATURE_TEXT:
        return FEATURE_TEXT[name]
    return FeatureText(COLUMN_LABELS.get(name) or name.replace("_", " "))


def derived_features(loaded: LoadedCorpus) -> pd.DataFrame:
    """The analysis pages' per-dialog features of ``loaded``'s corpus, by dialog_id (may have no columns)."""
    columns = {name: compute(loaded) for name, compute in DERIVED.get(loaded.corpus, {}).items()}
    return pd.DataFrame(columns) if columns else pd.DataFrame(index=pd.Index([], dtype="str", name="dialog_id"))


def layer_features(layer_name: str, layer) -> pd.DataFrame:
    """The per-dialog features of a loaded published layer, by dialog_id."""
    compute = LAYER_FEATURES.get(layer_name)
    return compute(layer) if compute is not None else pd.DataFrame()
