"""Notes: every tag and note written on the replay page, filterable, editable, exportable with deep links."""
import pandas as pd
import streamlit as st

from ui.cached import CORPUS_NAMES, CORPUS_TITLES
from ui.coding.notes import apply_edits, forget_edits, note_editor_frame, shown_places, store, table_edits
from ui.shell import auth
from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.shell.url_state import app_address, served_links, url_choice, url_text_input
from ui.store import StoreError, remembered
from ui.widgets import md_escape

ensure_routed()

st.title("Notes")
notes = store()
if notes is None:
    stop_run()
# While the store is unreachable the page shows what it read last, and edits made in the table stay there.
if remembered("notes empty", notes.is_empty, False, "Notes"):
    st.info("No notes yet: open a dialog in Replay and use the Notes panel under it.")
    stop_run()

filters = st.columns([2, 2, 3, 2], vertical_alignment="bottom")
corpus = url_choice("selectbox", "Corpus", ["all", *CORPUS_NAMES], "corpus", key="notes_corpus", default="all",
                    container=filters[0], format_func=lambda c: CORPUS_TITLES.get(c, "All corpora"))
tags = remembered(f"tags {corpus}", lambda: notes.tag_counts(None if corpus == "all" else corpus),
                  pd.DataFrame({"tag": pd.Series(dtype="str")}), "Notes")
tag = url_choice("selectbox", "Tag", ["any", *tags["tag"]], "tag", key="notes_tag", default="any", container=filters[1],
                 format_func=lambda t: t if t == "any" else f"#{t}")
text = url_text_input("Text contains", "text", key="notes_text", container=filters[2])
show_deleted = filters[3].toggle("Show deleted", value=False)

selection = dict(corpus=None if corpus == "all" else corpus, tag=None if tag == "any" else tag, text=text or None)
shown = note_editor_frame(notes, selection, show_deleted)
if shown is None:  # the store is unreachable and nothing was read before (said above)
    stop_run()
frame, newer = shown
st.caption(f"{len(frame):,} note(s) in {md_escape(notes.location)}. Edit a text or its tags in the table and press Save; "
           "deleting only hides a note (toggle “Show deleted” to bring it back).")
if newer:
    st.info(f"{newer} note(s) were added, changed or deleted in another session while you edit; "
            "they appear once you save or discard your edits.")
if frame.empty:
    st.info("No note matches these filters." if show_deleted else
            "No note matches these filters (deleted notes are hidden: toggle “Show deleted” to see them too).")
    stop_run()

# A viewer sees the table read only; a coder edits it, and the store refuses edits of another coder's notes.
may_write = auth.allowed(auth.Action.WRITE_OWN, "editing notes")
if may_write and auth.sign_in_configured():
    st.caption(f"Editing as **{md_escape(auth.writer().coder)}**: only your own notes can be changed.")
editable = served_links(frame.assign(tags=frame["tags"].map(", ".join), deleted=frame["deleted_at"].notna()), "link")
edited = st.data_editor(
    shown_places(editable[["id", "corpus", "dialog_id", "round", "turn", "tags", "text", "deleted", "updated_at", "link"]]),
    hide_index=True, key="notes_editor",
    disabled=["id", "corpus", "dialog_id", "round", "turn", "updated_at", "link"] if may_write else True,
    column_config={"link": st.column_config.LinkColumn("Replay", display_text="open ▶"),
                   "text": st.column_config.TextColumn("Note", width="large")},
)
save, discard, _ = st.columns([1, 1, 4])
if save.button("Save changes", type="primary", disabled=not may_write):
    try:
        outcome = apply_edits(notes, table_edits(editable, edited), actor=auth.writer())
    except StoreError as exc:  # the edits stay in the table, to be saved once the store is back
        st.error(f"Not saved (your edits are still in the table): {md_escape(exc)}")
    else:
        st.session_state["notes_saved"] = ("warning" if outcome.problems else "success", outcome.message())
        forget_edits()
        st.rerun()
if discard.button("Discard edits", disabled=not may_write):
    forget_edits()
    st.rerun()
if "notes_saved" in st.session_state:
    kind, message = st.session_state.pop("notes_saved")
    getattr(st, kind)(md_escape(message))

# Each file is read from the store when its button is clicked, not on every run.
downloads = st.container(horizontal=True, gap="small")
# The files leave the app (e-mail, a spreadsheet): their links carry this server's address.
address = app_address()
downloads.download_button("⬇ Notes as CSV", lambda: notes.export_csv(link_base=address, **selection), "notes.csv",
                          "text/csv", on_click="ignore")
downloads.download_button("⬇ Notes as JSON Lines", lambda: notes.export_jsonl(link_base=address, **selection),
                          "notes.jsonl", "application/jsonl", on_click="ignore")
