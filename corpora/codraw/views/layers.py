"""CoDraw's published instruction clarification requests (Madureira & Schlangen, EACL 2023) in the app: the round's
CR on the Replay, the CR rounds a transcript marks, Browse's CRs column and filter, the score by CR on the scores
page, and the layer's Data-page figures and exports."""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from corpora.codraw.data import icr_analysis, icr_layer
from dialogue_dashboard.plugin.views import Corpus, layer_derived, layer_ready, linked_layer, loaded_layer, url_toggle

LAYER = icr_layer.LAYER


def replay_crs(dialog_id: str, turn: int) -> None:
    """The published CR annotation of this round's Drawer message, and the dialog's CR rounds."""
    if not layer_ready(LAYER):
        return
    rows = layer_derived(icr_analysis.dialog_crs, LAYER, dialog_id)
    if rows is None or rows.empty:
        st.caption("The published CR layer has no row aligned to this dialog.")
        return
    here = rows[rows["round"] == int(turn)]
    crs = sorted(set(rows.loc[rows["is_cr"], "round"].astype(int)))
    if here["is_cr"].any():
        st.warning(f"Clarification request: the Drawer's message in round {turn} is an instruction CR "
                   "(published annotation).", icon=":material/contact_support:")
    elif not here.empty:
        unsure = " (the annotator could not tell)" if here["impossible"].any() else ""
        st.caption(f"Published CR layer: the Drawer's message in round {turn} is not a CR{unsure}.")
    st.caption("Rounds with a CR: " + (", ".join(map(str, crs)) if crs else "none") +
               f" · rounds annotated: {', '.join(map(str, sorted(set(rows['round'].astype(int)))))}.")


def transcript_marks(corpus: Corpus, dialog_id: str) -> tuple[int, ...]:
    """The steps of a dialog its corpus's published layer marks for a transcript: CoDraw's CR rounds (empty
    when the corpus has no such layer or it is not loaded)."""
    if not layer_ready(LAYER):
        return ()
    rows = layer_derived(icr_analysis.dialog_crs, LAYER, dialog_id)
    if rows is None or rows.empty:
        return ()
    return tuple(sorted(set(rows.loc[rows["is_cr"], "round"].astype(int))))


def _cr_marks(layer, loaded, chosen) -> dict[str, tuple]:
    """dialog -> its CR rounds in the published layer (for ``layer_derived``)."""
    frame = layer.annotations
    mine = frame[frame["dialog_id"].astype(str).isin(set(chosen.ids)).to_numpy() & frame["is_cr"].fillna(False).to_numpy(bool)]
    return {str(d): tuple(sorted(set(part["turn"].astype(int)))) for d, part in mine.groupby("dialog_id")}


def slice_marks(corpus: Corpus, chosen) -> Optional[dict[str, tuple]]:
    """A slice's transcripts: each chosen dialog's CR rounds (``chosen``: a ``DialogSelection``); None when the
    layer is not loaded."""
    if not layer_ready(LAYER):
        return None
    return layer_derived(_cr_marks, LAYER, chosen)


def browse_cr_filter(corpus: Corpus, table: pd.DataFrame) -> pd.DataFrame:
    """CoDraw Browse: a CRs column from the published layer and an "only with a CR" filter (``cr=1``)."""
    if not layer_ready(LAYER):
        return table
    per_dialog = layer_derived(icr_analysis.cr_by_dialog, LAYER)
    counts = per_dialog.set_index("dialog_id")["crs"] if per_dialog is not None else pd.Series(dtype="int64")
    table = table.copy()
    table["CRs"] = table["dialog_id"].map(counts).astype("Int64")
    only = url_toggle("Only dialogs with a CR", "cr", key="browse_only_cr",
                      help="Dialogs with at least one instruction clarification request of the published layer "
                           "(Madureira & Schlangen, 2023) aligned to one of their rounds. The CRs column is empty for "
                           "dialogs with no uniquely aligned row.")
    return table[table["CRs"].fillna(0) > 0] if only else table


def score_by_cr(charts_module, splits: tuple) -> None:
    """CoDraw scores page: final score by presence of a published CR."""
    st.header("Score and clarification requests (published layer)")
    if not layer_ready(LAYER):
        loaded_layer(LAYER, explain=True)
        return
    from corpora.codraw.data import figures  # the charts only when a page shows them

    charts_module.show(charts_module.layer_build(figures.score_by_cr_chart, LAYER, tuple(splits)))




def layer_report(corpus: Corpus, name: str, figures: dict, unmatched: list) -> None:
    """The Data page's figures of the aligned layer."""
    metrics = st.columns(5)
    metrics[0].metric("Rows", f"{figures['rows']:,}")
    metrics[1].metric("Aligned uniquely", f"{figures['aligned_unique']:,}")
    metrics[2].metric("Aligned ambiguously", f"{figures['aligned_ambiguous']:,}")
    metrics[3].metric("Not aligned", f"{figures['not_aligned']:,}")
    metrics[4].metric("CRs", f"{figures['crs']:,}", f"{figures['crs_aligned']:,} aligned uniquely",
                      delta_color="off", delta_arrow="off")
    st.caption("Rows are aligned to (dialog, round) by their normalised text: the Drawer message plus the Teller "
               "messages before and after it where the row gives them. Unique = one round matches; ambiguous = "
               "several (e.g. “ok” with no context given); only unique alignments are shown in the app.")
    splits = pd.DataFrame([{"split": s, **v} for s, v in figures["splits"].items()])
    st.dataframe(splits, hide_index=True, width="content")


def layer_exports(corpus: Corpus, name: str, file_name: str) -> None:
    """The Data page's downloads: the rows in the published layout and with their alignment."""
    left, right = st.columns(2)
    left.download_button("⬇ Rows in the published layout (TSV)", data=lambda: icr_layer.to_tsv(linked_layer(name).rows),
                         file_name=file_name, mime="text/tab-separated-values", key=f"layer_export_{name}",
                         on_click="ignore")
    right.download_button("⬇ Rows with their alignment (CSV)", data=lambda: linked_layer(name).rows.to_csv(index=False),
                          file_name="icr-codraw-alignment.csv", mime="text/csv", key=f"layer_alignment_{name}",
                          on_click="ignore")
