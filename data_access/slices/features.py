"""The per-dialog features a slice can test besides the dialog table's own columns: the ones a corpus package
computes (its optional ``dialog_features``, taken from the very functions behind its charts, so a slice and a chart
never disagree) and the ones a published annotation layer gives (its module's ``dialog_features``).

``derived_features(loaded)`` and ``layer_features(layer_name, loaded_layer)`` return frames indexed by
``dialog_id``; ``feature_text`` says how a description and the documentation name each feature.
"""
from __future__ import annotations

import pandas as pd

from ..common import COLUMN_LABELS, LoadedCorpus
from ..contract import FeatureText, optional, package_of
from ..registry import CorpusAttribute

# The texts of features that are every corpus's (the dialogs frame's own columns); a corpus package adds those of
# its features (its optional ``FEATURE_TEXTS``), a layer module those of its layer's.
FEATURE_TEXT: dict[str, FeatureText] = {
    "duration_s": FeatureText("duration (s)"),
}
_CORPUS_FEATURE_TEXTS = CorpusAttribute("FEATURE_TEXTS", missing={})


def feature_text(name: str) -> FeatureText:
    """How a description names column or feature ``name``: the corpus's or layer's own text for it, else its
    glossary label, else its words."""
    if name in FEATURE_TEXT:
        return FEATURE_TEXT[name]
    for texts in _CORPUS_FEATURE_TEXTS.values():
        if name in texts:
            return texts[name]
    return FeatureText(COLUMN_LABELS.get(name) or name.replace("_", " "))


def derived_features(loaded: LoadedCorpus) -> pd.DataFrame:
    """The analysis pages' per-dialog features of ``loaded``'s corpus, by dialog_id (may have no columns)."""
    compute = optional(package_of(loaded), "dialog_features")
    frame = compute(loaded) if compute is not None else None
    return frame if frame is not None else pd.DataFrame(index=pd.Index([], dtype="str", name="dialog_id"))


def layer_features(layer_name: str, layer) -> pd.DataFrame:
    """The per-dialog features of a loaded published layer, by dialog_id (its module's optional
    ``dialog_features``)."""
    from ..layers import layer_module

    compute = getattr(layer_module(layer_name), "dialog_features", None)
    return compute(layer) if compute is not None else pd.DataFrame()
