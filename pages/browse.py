"""Browse: every dialog of a corpus in one sortable, filterable table; selecting a row opens its replay.
The filters live in the URL, so a filtered view can be shared."""
import streamlit as st

from data_access.browse import DialogFilter, apply_filter, dialog_table
from data_access.links import parse_positive_int
from ui.cached import corpus_ready, dialogs_frame
from ui.layers import browse_cr_filter
from ui.minecraft_export import bap_samples_download
from ui.notes import note_counts
from ui.router import ensure_routed
from ui.widgets import corpus_selector, download_buttons, query_param, set_url, url_list

ensure_routed()

st.title("Browse dialogs")
corpus = corpus_selector("browse_corpus")
if not corpus_ready(corpus):
    st.stop()

table = dialog_table(dialogs_frame(corpus), corpus, note_counts(corpus))
splits = sorted(table["split"].dropna().unique())
filters = st.columns([3, 3, 2, 2, 2], vertical_alignment="bottom")
chosen_splits = filters[0].multiselect("Split", splits, default=[s for s in url_list("split") if s in splits])
id_contains = filters[1].text_input("Dialog id contains", value=query_param("q") or "")
min_turns = filters[2].number_input("Min. turns", min_value=0, value=parse_positive_int(query_param("min_turns")) or 0)
max_turns = filters[3].number_input("Max. turns", min_value=0, value=parse_positive_int(query_param("max_turns")) or 0,
                                    help="0 = no upper limit")
only_noted = filters[4].toggle("Only with notes", value=query_param("noted") == "1")
set_url(split=chosen_splits, q=id_contains, min_turns=min_turns or None, max_turns=max_turns or None, noted=only_noted)

shown = apply_filter(table, DialogFilter(tuple(chosen_splits), id_contains, min_turns or None, max_turns or None, only_noted))
shown = browse_cr_filter(corpus, shown)
st.caption(f"{len(shown):,} of {len(table):,} dialogs. Click a column header to sort; select a row to open its replay.")
selection = st.dataframe(
    shown, hide_index=True, on_select="rerun", selection_mode="single-row", key=f"browse_table_{corpus}",
    column_config={"replay": st.column_config.LinkColumn("Replay", display_text="open ▶"),
                   "duration_s": st.column_config.NumberColumn("duration (s)", format="%.0f")},
)
if selection.selection.rows:
    dialog_id = shown.iloc[selection.selection.rows[0]]["dialog_id"]
    st.switch_page("pages/replay.py", query_params={"corpus": corpus, "dialog": dialog_id})
download_buttons(shown.drop(columns=["replay"]), f"{corpus}-dialogs")
if corpus == "minecraft":
    bap_samples_download(corpus)
