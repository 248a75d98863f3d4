"""Slices: the current slice (the URL's ``slice=``, shared by every page) in words, saved with a name and a
description (private or shared with the team), set against another slice in the contrast builder, the saved slices
with their counts per corpus and links, and a read-only SQL console over the corpus whose result becomes a slice of
any size (docs/slices.md)."""
import streamlit as st

from ui.cached import corpus_ready
from ui.shell import auth
from ui.shell.corpus_edge import corpus_selector
from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.shell.url_state import page_link as same_tab_link
from ui.shell.url_state import set_url, url_text_input
from ui.slices.charts import analysis_page
from ui.slices.console import LIMITS, SqlRefused, result_level, result_slice, run_sql, sql_console
from ui.slices.contrasts import contrast_builder
from ui.slices.current import SLICE_PARAM, current_outcome, said
from ui.slices.exports import slice_exports
from ui.slices.moments import moment_items
from ui.slices.saved import COUNT_SECONDS, may_remove_shared, not_counted, said_counts, saved_table, write_saved
from ui.slices.sql_result import refresh_saved, result_grid
from ui.widgets import md_escape

ensure_routed()

GRAMMAR_HELP = ("A condition on the dialogs: a column or feature compared with a value (peek_gain < 0, split = train), "
                "a test (crs > 0, code(CR, gold), tag(repair), text(left, Drawer), re(\"\\?$\"), score(RUN) > 0.5), "
                "combined with and, or, not and parentheses; or on the replay steps, steps(role = Architect and "
                "next(1, removals > 0)); a saved slice by its id (@12); a SQL query (sql:SELECT dialog_id, round FROM "
                "rounds …). The grammar and every feature: docs/slices.md.")
EXAMPLE_QUERY = "SELECT dialog_id, split, n_rounds FROM dialogs ORDER BY n_rounds DESC LIMIT 20"

st.title("Slices")
corpus = corpus_selector("slices_corpus")
if not corpus_ready(corpus):
    stop_run()

# ---------------------------------------------------------------------------- the current slice
st.subheader("The current slice")
url_text_input("Slice", SLICE_PARAM, key="slices_text", placeholder="crs > 0 and peek_gain < 0", help=GRAMMAR_HELP)
outcome = current_outcome(corpus)
if said(outcome) and outcome is not None:
    links = st.columns(3)  # same-tab links, each with the slice
    in_slice = {"corpus": corpus.name, SLICE_PARAM: outcome.text}
    same_tab_link("pages/browse.py", "Open in Browse", in_slice, container=links[0], icon=":material/table_rows:")
    if outcome.is_moments:  # a step slice plays from its first moment, at its step in its round
        first = next(iter(moment_items(corpus, outcome.steps)), None)
        if first is not None:
            place = {"dialog": first[0], "turn": str(first[2]), **({"round": str(first[1])} if first[1] else {})}
            same_tab_link("pages/replay.py", "Play its moments in the Replay", {**in_slice, **place},
                          container=links[1], icon=":material/play_circle:")
    elif outcome.ordered_ids:
        same_tab_link("pages/replay.py", "Play in the Replay", {**in_slice, "dialog": outcome.ordered_ids[0]},
                      container=links[1], icon=":material/play_circle:")
    charts_page = analysis_page(corpus)
    if charts_page is not None:
        same_tab_link(charts_page, "Its charts", in_slice, container=links[2],
                      icon=":material/bar_chart:",
                      help="The corpus's analysis page on the slice, with the slice against the rest")
    slice_exports(corpus, outcome, f"slice-{corpus.name}")
    if auth.allowed(auth.Action.WRITE_OWN, "saving slices"):
        with st.form("slices_save", clear_on_submit=True):
            st.markdown("**Save this slice**")
            row = st.columns([2, 3, 1], vertical_alignment="bottom")
            name = row[0].text_input("Name", max_chars=120)
            description = row[1].text_input("Description", max_chars=4000)
            shared = row[2].checkbox("Shared with the team", help="Private: listed for you only.")
            if st.form_submit_button("Save"):
                refused = write_saved("save", name, outcome.text, description=description, corpus=corpus.name,
                                      shared=shared)
                if refused:
                    st.error(f"Not saved: {md_escape(refused)}", icon="⚠️")
                else:
                    st.success(f"Saved as “{md_escape(' '.join(name.split()))}”.")
elif outcome is None:
    st.caption("No slice: type one above, or make one from Browse's filters, a chart's bar or a SQL result below.")

# ---------------------------------------------------------------------------- the contrast builder
contrast_builder(corpus, outcome.text if outcome is not None and outcome.kept is not None else None)

# ---------------------------------------------------------------------------- saved slices
st.subheader("Saved slices")
saved = saved_table()
if saved is not None and saved.empty:
    st.caption("None saved yet.")
elif saved is not None:
    counts = [c for c in saved.columns if c not in {"id", "name", "description", "slice", "corpus", "owner", "shared",
                                                   "created_at", "updated_at", "changed_by", "note", "link", "counts"}]
    chosen = st.dataframe(
        saved[["id", "name", "description", "slice", "owner", "shared", "note", "counts", *counts, "link"]],
        hide_index=True,
        on_select="rerun", selection_mode="single-row", key="slices_saved",
        column_config={"link": st.column_config.LinkColumn("Open", display_text="in Browse ▶"),
                       "slice": st.column_config.TextColumn(width="medium"),
                       "note": st.column_config.TextColumn("Why no count", width="medium", help="Why a count is "
                                                           "missing: not counted yet, or why the slice cannot be used"),
                       "id": st.column_config.NumberColumn("id", help="Its id: a link to it is slice=@<id>, "
                                                           "evaluated again when opened"),
                       "counts": st.column_config.TextColumn("Counts of", help="What its counts are: its steps (a "
                                                             "step slice), its dialogs, or its query's rows'"),
                       **{c: st.column_config.NumberColumn(help=f"Dialogs (steps of a step slice) the slice keeps in "
                                                              f"{c} (empty: it names what this corpus does not have)")
                          for c in counts}})
    waiting = not_counted(saved)
    if waiting:
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.caption(f"{waiting:,} of the {len(saved):,} saved slices are not counted yet (a run of this page counts "
                     f"for {COUNT_SECONDS:g} s): choose one to count it now.")
        right.button("Count more", key="slices_count_more", help=f"Counts the next ones for {COUNT_SECONDS:g} s")
    rows = chosen.selection.rows
    if rows:
        record = saved.iloc[rows[0]]
        st.caption(md_escape(f"“{record['name']}”: {said_counts(record['slice'])}"))
        if st.button("Make it the current slice", key="slices_use",
                     help=f"The current slice becomes @{int(record['id'])}: this saved slice, evaluated again wherever "
                          "it is used"):
            set_url(**{SLICE_PARAM: f"@{int(record['id'])}"})
            st.rerun()
        if auth.allowed(auth.Action.WRITE_OWN, "editing saved slices", owner=record["owner"] or None):
            with st.form(f"slices_edit_{record['id']}"):
                st.markdown("**Edit the saved slice**")
                name = st.text_input("Name", value=record["name"], max_chars=120)
                description = st.text_input("Description", value=record["description"], max_chars=4000)
                text = st.text_input("Slice", value=record["slice"], help=GRAMMAR_HELP)
                shared = st.checkbox("Shared with the team", value=bool(record["shared"]))
                save, delete = st.columns(2)
                if save.form_submit_button("Save changes"):
                    refused = write_saved("update", int(record["id"]), name=name, description=description,
                                          slice_text=text, shared=shared, expected_updated_at=record["updated_at"])
                    st.error(f"Not saved: {md_escape(refused)}", icon="⚠️") if refused else st.rerun()
                if delete.form_submit_button("Delete"):
                    refused = write_saved("delete", int(record["id"]))
                    st.error(f"Not deleted: {md_escape(refused)}", icon="⚠️") if refused else st.rerun()
        elif may_remove_shared(record) and st.button("Delete this shared slice", key="slices_admin_delete",
                                                     help="As an admin: it is removed for everyone"):
            refused = write_saved("delete", int(record["id"]))
            st.error(f"Not deleted: {md_escape(refused)}", icon="⚠️") if refused else st.rerun()

# ---------------------------------------------------------------------------- the SQL console
st.subheader("SQL console")
console = sql_console(corpus)
if console is None:
    stop_run()
with st.expander("Tables and columns"):
    st.caption(f"{LIMITS} A result is shown whole, page by page, a selected row in full. A result with a dialog_id "
               "column becomes a slice of any size: its query, evaluated again wherever the slice is used (with a "
               "turn or round column: a slice of steps). step_features holds the replay steps with their features, "
               "saved_slices and saved_slice_members the saved slices you may read, codes the store's codes.")
    st.dataframe(console.schema(), hide_index=True, height=300)
query = st.text_area("Query", value=EXAMPLE_QUERY, key=f"slices_sql_{corpus.name}", height=120)
buttons = st.columns([1, 1, 6])
run = buttons[0].button("Run", type="primary", key="slices_sql_run")
buttons[1].button("Stop", key="slices_sql_stop", help="Stops a running query")
status = st.empty()
if run:
    try:
        refresh_saved(console, corpus, query)  # the saved slices this session may read, for a query naming them
        st.session_state["slices_sql_result"] = (corpus.name, query, run_sql(console, corpus, query, status))
        status.empty()
    except SqlRefused as exc:
        st.session_state.pop("slices_sql_result", None)
        status.error(md_escape(exc), icon="⚠️")
kept = st.session_state.get("slices_sql_result")
if kept is not None and kept[0] == corpus.name:
    result = kept[2]
    more = f" ({len(result.rows):,} a page)" if result.truncated else ""
    counted = f"{result.row_count:,}" if result.row_count_complete else f"more than {result.row_count:,}"
    st.caption(f"{counted} rows{more} in {result.seconds:.2f} s.")
    if result.note:
        st.warning(md_escape(result.note), icon="✂️")
    result_grid(console, corpus, kept[1], result, status, "slices_sql")
    text, reason = result_slice(kept[1], result)
    if text is None:
        st.caption(md_escape(reason))
    elif st.button(f"Make a slice of this query (its {result_level(result)}: {counted} rows)", key="slices_sql_slice",
                   help="The slice is the query itself, evaluated again wherever it is used: a result of any size"):
        set_url(**{SLICE_PARAM: text})
        st.rerun()
