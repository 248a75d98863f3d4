"""Agreement: how alike coders (and the gold layer, and a published layer) coded, per label and overall, with
bootstrap intervals; the items they coded differently, each a click from its replay; a model's labels imported
as a coder and compared with the humans; adjudication into gold."""
import pandas as pd
import streamlit as st

from ui.coding.agreement import (
    OVERALL_NOTE,
    UNITS_ANYONE,
    adjudicate,
    compare,
    disagreement_layout,
    gold_exports,
    layer_choice,
    linked,
    queue_unit_choice,
    shown_places,
    statistics_table,
)
from ui.coding.agreement import agreement_statistics as ag
from ui.coding.model_labels import import_box, is_model, model_section
from ui.coding.panel import codebook_picker, coder_box, store
from ui.share.downloads import latex_table_download
from ui.shell import auth
from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.slices.charts import within_slice
from ui.store import ANNOTATION_FRAME_COLUMNS, remembered
from ui.widgets import md_escape

ensure_routed()

st.title("Agreement")
coding = store()
if coding is None:
    stop_run()
EMPTY = compare.coded_sources(pd.DataFrame(columns=ANNOTATION_FRAME_COLUMNS))
top = st.columns([2, 2, 2])
me = coder_box("agreement", top[0])
book = codebook_picker(coding, "agreement_codebook", top[1])
if book is None:
    stop_run()
scopes = [scope for scope in ("turn", "dialog", "span") if book.labels_for(scope)]
scope = top[2].segmented_control("Scope", scopes, default=scopes[0], key="agreement_scope") or scopes[0]
if "agreement_message" in st.session_state:
    kind, message = st.session_state.pop("agreement_message")
    getattr(st, kind)(md_escape(message))
import_box(coding, book)

# While the store is unreachable the page shows what it read last (and keeps the choices made on it).
frame = remembered(f"coded labels {book.name}", lambda: coding.coded_labels(book.name), EMPTY, "Agreement")
frame = frame[frame["scope"] == scope]
layer = layer_choice(book, scope, "agreement")
if layer is not None:
    name, layer_frame, mapping = layer
    frame = pd.concat([frame, compare.layer_source(layer_frame, name, mapping, scope)], ignore_index=True)
frame, in_slice = within_slice(frame)  # with a slice= in the URL: only the codes of its dialogs
available = sorted(frame["coder"].unique())
# The widget's options change with the layer, which resets it; the coders chosen before are kept by hand (and the
# layer added), or choosing a layer dropped them.
kept = f"agreement_coders_kept_{book.name}_{scope}"
people_first = sorted(available, key=is_model)  # a model is compared with the humans below, not chosen by default
before = [c for c in st.session_state.get(kept, people_first[:2]) if c in available]
default = before + ([layer[0]] if layer is not None and layer[0] not in before else [])
coders = st.multiselect("Compare", available, default=default,
                        key=f"agreement_coders_{book.name}_{scope}_{layer[0] if layer else ''}")
st.session_state[kept] = coders
if len(coders) < 2:
    st.info("Choose at least two coders (or a coder and the gold or a published layer). Coders appear here once "
            "they have coded with this codebook on the Replay.")
    stop_run()
chosen = frame[frame["coder"].isin(coders)]
units, assigned, units_note = None, None, UNITS_ANYONE
if layer is not None and layer[0] in coders and scope != "span":
    others = chosen[chosen["coder"] != layer[0]]
    units = compare.layer_units(layer[1], within=others)  # the layer's units in dialogs the coders coded
elif scope != "span":
    units, assigned, units_note = queue_unit_choice(coding, chosen, scope)
if in_slice is not None and units is not None:
    units = [unit for unit in units if (str(unit[0]), str(unit[1])) in in_slice]

st.subheader("Agreement")
if scope == "span":
    pairs = compare.span_pairs(chosen, coders)
    st.dataframe(pairs, hide_index=True, width="stretch", column_config={
        "exact_f1": st.column_config.NumberColumn("F1 exact", format="%.3f"),
        "overlap_f1": st.column_config.NumberColumn("F1 overlap", format="%.3f"),
        "same_referents": st.column_config.NumberColumn("same referent set", format="%.3f"),
        "referent_jaccard": st.column_config.NumberColumn("referent Jaccard", format="%.3f")})
    st.caption("Spans match exactly (same utterance, offsets and label) or by overlap (same utterance and label, "
               "overlapping characters, one-to-one). Referent agreement is over the spans matched by overlap.")
    table = compare.span_disagreements(chosen, coders)
    compared = int(pairs["dialogs"].sum()) > 0 if not pairs.empty else False
else:
    stats = ag.agreement_table(chosen, coders, units=units, assigned=assigned, n_resamples=500, seed=0)
    st.dataframe(statistics_table(stats, len(coders)), hide_index=True, width="stretch")
    latex_table_download(stats.rename(columns={"kappa_low": "cohen_kappa_low", "kappa_high": "cohen_kappa_high"}),
                         "Inter-coder agreement per label (95% percentile-bootstrap intervals).", "agreement_statistics", digits=3)
    st.caption(f"{units_note} {OVERALL_NOTE} "
               "Intervals: percentile bootstrap over units, 500 resamples, seed 0.")
    table = compare.disagreements(chosen, coders, units, assigned)
    compared = bool((stats["units"] > 0).any())

st.subheader(f"Disagreements ({len(table)})")
if table.empty and not compared:
    st.caption("None compared: no item was coded by both." if len(coders) == 2 else
               "None compared: no item was coded by two of them.")
elif table.empty:
    st.caption("None: every item was coded alike.")
else:
    column_config, row_height = disagreement_layout(table, coders)
    st.dataframe(shown_places(linked(table)), hide_index=True, width="stretch", column_config=column_config,
                 row_height=row_height)

model_section(frame, coders, scope, units, assigned)

st.subheader("Adjudication")
st.caption("Gold annotations form their own layer (coder “gold” above), compared and exported like any other.")
if auth.allowed(auth.Action.WRITE_GOLD, "adjudicating into gold"):
    adjudicate(coding, book, scope, table, chosen, coders, me, "agreement_adjudicate")
gold_exports(coding, book)
