"""Browse: every dialog of a corpus in one sortable, filterable table (split, then id in numeric order);
selecting a row opens its replay. Each loaded model run adds its score (and gap to the humans) per dialog.
Every filter — split, id, a range on any numeric column (a run's too), notes, a label, the current slice — and
the sort live in the URL, so a filtered view can be shared; the view is one click from its slice. A step slice's
moments come first, each opening the Replay at its step."""
import streamlit as st

from ui.browse.by_run import label_filter, run_column_config, with_runs
from ui.browse.filters import (
    COLUMN_HELP,
    COMMON_COLUMNS,
    DialogFilter,
    apply_filter,
    browse_table,
    range_filters,
    sort_control,
    table_height,
    with_note_counts,
)
from ui.cached import corpus_ready, shared
from ui.coding.notes import note_counts
from ui.glossary import column_config as glossary_columns
from ui.shell.corpus_edge import corpus_selector
from ui.shell.corpus_views import views_of
from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.shell.url_state import open_page, served_links, url_filter, url_text_input, url_toggle
from ui.slices.current import apply_slice, browse_slice, current_outcome, current_slice
from ui.slices.moments import moments_section
from ui.widgets import download_buttons, set_url

ensure_routed()

st.title("Browse dialogs")
corpus = corpus_selector("browse_corpus")
if not corpus_ready(corpus):
    stop_run()

table, run_help = with_runs(corpus, with_note_counts(shared(browse_table, corpus), note_counts(corpus)))
splits = [s for s in dict.fromkeys(table["split"].dropna())]
filters = st.columns([3, 3, 2], vertical_alignment="bottom")
chosen_splits = ()  # all (a dialog whose id names no split included); one split needs no filter
if len(splits) > 1:
    chosen_splits = url_filter("Split", splits, "split", key=f"browse_split_{corpus.name}", container=filters[0])
    chosen_splits = () if len(chosen_splits) == len(splits) else chosen_splits
else:
    set_url(split=None)
id_contains = url_text_input("Dialog id contains", "q", key=f"browse_q_{corpus.name}", container=filters[1])
only_noted = url_toggle("Only with notes", "noted", key=f"browse_noted_{corpus.name}", container=filters[2])
ranges = range_filters(table, corpus, run_help)

shown = apply_filter(table, DialogFilter(tuple(chosen_splits), id_contains, only_with_notes=only_noted, ranges=ranges))
shown = views_of(corpus).browse_filter(corpus, shown)  # its own columns and filter (CoDraw's CRs)
shown = label_filter(corpus, shown)
shown = apply_slice(corpus, shown)
outcome = current_outcome(corpus)
if outcome is not None and outcome.is_moments:  # a step slice: its moments first, then their dialogs
    moments_section(corpus, outcome.text, outcome.steps, key=f"browse_moments_{corpus.name}")
    st.subheader("Their dialogs")
shown, order = sort_control(shown, corpus)
st.caption(f"{len(shown):,} of {len(table):,} dialogs, {order}. Select a row to open its replay; hover a column "
           "header for what it means (a click on it sorts this view only, not its link).")
column_config = {column: st.column_config.Column(help=text) for column, text in COLUMN_HELP.items() if column in shown}
column_config.update(glossary_columns(c for c in shown.columns if c in COMMON_COLUMNS))  # labels and help of the glossary
column_config.update(run_column_config(run_help, shown))
column_config.update({
    "replay": st.column_config.LinkColumn("Replay", display_text="open ▶", help=COLUMN_HELP["replay"]),
    "duration_s": st.column_config.NumberColumn("duration (s)", format="%.0f", help=COLUMN_HELP["duration_s"]),
})
selection = st.dataframe(
    served_links(shown, "replay"), hide_index=True, on_select="rerun", selection_mode="single-row",
    key=f"browse_table_{corpus.name}", height=table_height(len(shown)), column_config=column_config,
)
if selection.selection.rows:
    dialog_id = shown.iloc[selection.selection.rows[0]]["dialog_id"]
    in_slice = {"slice": current_slice()} if current_slice() else {}  # the Replay then steps through the slice
    open_page("pages/replay.py", corpus=corpus.name, dialog=dialog_id, **in_slice)
download_buttons(shown.drop(columns=["replay"]), f"{corpus.name}-dialogs")
as_slice, why_not = browse_slice(corpus, shown, splits=chosen_splits, ranges=ranges, id_contains=id_contains,
                                 only_noted=only_noted, run_help=run_help)
if as_slice is not None and st.button(f"Make a slice of these {len(shown):,} dialogs", key=f"browse_slice_{corpus.name}",
                                      help="Opens the Slices page with this view as a slice, to save or share"):
    open_page("pages/slices.py", corpus=corpus.name, slice=as_slice)
views_of(corpus).browse_extra(corpus)
