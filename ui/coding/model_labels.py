"""The Agreement page's model sections: importing a model's labels for the chosen codebook (whoever may code
may import; the store checks it), and the models against the humans per label — mean pairwise Cohen's κ and
Krippendorff's α beside the humans' own — with the units a model labels differently, each a click from its
replay. What a model labels file holds and how it is checked is ``data_access.coding.model_labels``."""
from __future__ import annotations

import math
from typing import Optional, Sequence

import pandas as pd
import streamlit as st

from data_access.access import AccessRefused
from data_access.coding import model_agreement as ma
from data_access.coding import model_labels as ml
from data_access.coding.agreement import UNIT_KEYS
from data_access.coding.codebook import Codebook
from data_access.coding.compare import GOLD
from data_access.common import CORPUS_NAMES, LoadedCorpus, SourceError
from data_access.store import CodingStore, StoreError
from ui import cached
from ui.coding.agreement import LAYER_SCOPES, disagreement_layout, fmt, linked
from ui.shell import auth
from ui.shell.corpus_edge import resolve
from ui.widgets import md_escape

_OUTCOME = "model_labels_outcome"


def is_model(coder: str) -> bool:
    return ml.is_model(coder)


def _loaded(name: str) -> Optional[LoadedCorpus]:
    """The corpus an imported file's lines name (a registered one: ``ml.parse`` checks), loaded; None when not."""
    result = cached.corpus(resolve(name))  # a name from outside: the uploaded file's
    return result if isinstance(result, LoadedCorpus) else None


def import_box(coding: CodingStore, book: Codebook) -> None:
    """"Import a model's labels": an upload for the chosen codebook, and the outcome of the last import (how
    many items and labels, which lines were skipped and why) shown after the page's rerun."""
    outcome = st.session_state.get(_OUTCOME)
    with st.expander("Import a model's labels", expanded=outcome is not None):
        st.caption(f"JSON Lines, one coded item a line, with labels of codebook “{md_escape(book.name)}” "
                   "(docs/formats.md, “Model labels”). Each model becomes the coder model:NAME; importing a model "
                   "again replaces its labels with this codebook in that corpus. For example:")
        st.code(ml.example_line(book, CORPUS_NAMES[0]), language="json", wrap_lines=True)
        if not auth.allowed(auth.Action.WRITE_OWN, "importing a model's labels"):
            return
        upload = st.file_uploader("Model labels (.jsonl, or gzip)", type=["jsonl", "json", "txt", "gz"],
                                  key="model_labels_upload")
        if upload is not None and st.button("Import labels", key="model_labels_import"):
            st.session_state[_OUTCOME] = _import(coding, book, upload)
            st.rerun()
        if outcome is not None:
            _show(outcome)


def _import(coding: CodingStore, book: Codebook, upload) -> dict:
    name = str(getattr(upload, "name", "") or "model labels")
    read: Optional[ml.ModelLabels] = None
    try:
        with st.spinner(f"Reading {name}…"):
            read = ml.parse(ml.decoded(upload.getvalue(), name), name, book, _loaded)
            done = ml.import_labels(coding, read, actor=auth.writer())
    except (AccessRefused, SourceError, ValueError, StoreError) as exc:
        text = str(exc) if isinstance(exc, AccessRefused) else f"Not imported: {exc}"
        return {"kind": "error", "text": text, **_skipped(read)}
    return {"kind": "success", "text": done.message(), **_skipped(read)}


def _skipped(read: Optional[ml.ModelLabels]) -> dict:
    if read is None:
        return {"skipped": [], "left_off": 0}
    return {"skipped": [s.as_dict() for s in read.skipped], "left_off": read.skipped_total - len(read.skipped)}


def _show(outcome: dict) -> None:
    (st.success if outcome["kind"] == "success" else st.error)(md_escape(outcome["text"]))
    if outcome["skipped"]:
        # a table's cells are plain text: the reasons quote the file's own values
        st.dataframe(pd.DataFrame(outcome["skipped"], columns=["record", "reason"]), hide_index=True, width="stretch",
                     key="model_labels_skipped")
        if outcome["left_off"]:
            st.caption(f"… and {outcome['left_off']:,} more skipped line(s), not listed.")


def humans_among(coders: Sequence[str]) -> list[str]:
    """The chosen coders that are people: not a model, the gold layer or a published layer."""
    return [c for c in coders if not is_model(c) and c != GOLD and c not in LAYER_SCOPES]


def model_section(frame: pd.DataFrame, coders: Sequence[str], scope: str, units: Optional[list],
                  assigned: Optional[dict]) -> None:
    """The models against the chosen human coders: per label the humans' κ and α beside each model's, then the
    units a model labels differently from a human (turn and dialog scope) or the span agreement of each model
    with each human (span scope). Nothing when no model has labels of this codebook and scope."""
    models = sorted(c for c in frame["coder"].unique() if is_model(c))
    if not models:
        return
    st.subheader("Models against the humans")
    humans = humans_among(coders)
    if not humans:
        st.info("Choose human coders under “Compare” to see the models against them.")
        return
    if scope == "span":
        st.dataframe(ma.model_span_pairs(frame, humans, models), hide_index=True, width="stretch", column_config={
            "exact_f1": st.column_config.NumberColumn("F1 exact", format="%.3f"),
            "overlap_f1": st.column_config.NumberColumn("F1 overlap", format="%.3f"),
            "same_referents": st.column_config.NumberColumn("same referent set", format="%.3f"),
            "referent_jaccard": st.column_config.NumberColumn("referent Jaccard", format="%.3f")},
            key="model_span_pairs")
        st.caption("Each model's spans against each human's, matched as above.")
        return
    table = ma.model_agreement(frame, humans, models, units=units, assigned=assigned)
    shown = pd.DataFrame({
        "label": table["label"],
        "coders": [f"humans ({', '.join(humans)})" if c == ma.HUMANS else f"{c} vs the humans" for c in table["coders"]],
        "units": table["units"],
        "Cohen's κ (mean pairwise)": table["cohen_kappa"].map(fmt),
        "Krippendorff's α": table["alpha"].map(fmt),
    })
    st.dataframe(shown, hide_index=True, width="stretch", key="model_agreement")
    st.caption("Per label (labelled or not) and overall (label sets). Humans: the mean of Cohen's κ over each pair "
               "of them and α among them. A model: the mean of its Cohen's κ with each human, and α of the humans "
               "with the model added, over the units the model and a human both have a value for. "
               + ("" if len(humans) > 1 else "With one human the humans' own agreement is n/a."))
    model = models[0] if len(models) == 1 else st.selectbox("Disagreements of", models, key=f"model_disagreements_{scope}")
    disagreements = ma.model_disagreements(frame, humans, model, units=units, assigned=assigned)
    st.markdown(f"**Where {md_escape(model)} differs from a human ({len(disagreements)})**")
    if disagreements.empty:
        st.caption("None: the model labelled every compared unit as each human did." if _compared(table, model)
                   else "None compared: the model and the humans share no unit.")
        return
    column_config, row_height = disagreement_layout(disagreements, [*humans, model])
    for coder in (model, *humans):  # the link and the model's labels first, in view without scrolling sideways
        column_config[coder] = st.column_config.TextColumn(coder, width="medium")
    st.dataframe(linked(disagreements), hide_index=True, width="stretch", column_config=column_config,
                 row_height=row_height, key=f"model_disagreements_table_{scope}",
                 column_order=["replay", *UNIT_KEYS, model, *humans])


def _compared(table: pd.DataFrame, model: str) -> bool:
    units = table.loc[(table["coders"] == model) & (table["label"] == "(overall)"), "units"]
    return bool(len(units)) and not math.isnan(float(units.iloc[0])) and int(units.iloc[0]) > 0
