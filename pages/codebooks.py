"""Codebooks: named, versioned label sets for coding on the Replay; create, edit, import and export."""
import pandas as pd
import streamlit as st

from ui.coding.codebooks import cb, import_file, label_editor, labels_from_frame, pick_version, save
from ui.coding.panel import coder_box, store
from ui.shell import auth
from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.store import remembered
from ui.widgets import md_escape

ensure_routed()

st.title("Codebooks")
coding = store()
if coding is None:
    stop_run()
st.caption(f"Stored in {md_escape(coding.location)}. Saving an edited codebook makes a new version; annotations keep the "
           "version they were made under.")
coder = coder_box("codebooks")
may_manage = auth.allowed(auth.Action.MANAGE, "editing and importing codebooks")

if "codebooks_message" in st.session_state:
    kind, message = st.session_state.pop("codebooks_message")
    getattr(st, kind)(md_escape(message))

# While the store is unreachable the page shows what it read last, so the editor and what was typed stay.
books = remembered("codebooks", coding.codebooks, pd.DataFrame(columns=["name"]), "Codebooks")
if not books.empty:
    st.dataframe(books, hide_index=True, width="stretch",
                 column_config={"n_labels": "labels", "created_by": "saved by", "created_at": "saved at"})

names = list(books["name"]) if not books.empty else []
choice = st.selectbox("Edit", ["➕ New codebook", *names],
                      index=(1 + names.index(st.session_state["codebooks_selected"])
                             if st.session_state.get("codebooks_selected") in names else 0))
book = None if choice == "➕ New codebook" else remembered(f"codebook {choice}", lambda: coding.codebook(choice),
                                                          None, "Codebooks")
if book is not None and (version := pick_version(book)) != book.version:
    book = remembered(f"codebook {book.name} {version}", lambda: coding.codebook(book.name, version), book,
                      "Codebooks")

with st.container(border=True):
    name = st.text_input("Name", value=book.name if book else "", disabled=book is not None or not may_manage,
                         key=f"codebook_name_{choice}")
    shown = f"{choice}_{book.version if book else 0}"  # each version shown has widgets of its own
    description = st.text_area("Description", value=book.description if book else "", key=f"codebook_desc_{shown}",
                               height=68, disabled=not may_manage)
    edited = label_editor(book, key=f"codebook_labels_{shown}", disabled=not may_manage)
    if st.button("Save as new version" if book else "Create codebook", type="primary", disabled=not may_manage):
        try:
            labels = labels_from_frame(edited)
        except cb.CodebookError as exc:
            st.session_state["codebooks_message"] = ("error", f"Not saved: {exc}")
        else:
            save(coding, name, description, labels, coder)
        st.rerun()

if book is not None:
    left, right, _ = st.columns([1, 1, 4])
    stem = f"{book.name}-v{book.version}"
    left.download_button("⬇ JSON", cb.to_json(book), f"{stem}.json", "application/json", on_click="ignore")
    right.download_button("⬇ YAML", cb.to_yaml(book), f"{stem}.yaml", "application/yaml", on_click="ignore")

if may_manage:  # importing saves a new version: for admins only
    with st.expander("Import a codebook (JSON or YAML)"):
        st.caption("For example:")
        st.text(cb.to_yaml(cb.Codebook("example", (
            cb.Label("CR", scope="turn", description="clarification request", colour="#d62728", key="c"),
            cb.Label("refers-to", scope="span", links_referents=True, colour="#1f77b4", key="r"),
            cb.Label("success", scope="dialog", colour="#2ca02c")))))
        upload = st.file_uploader("Codebook file", type=["json", "yaml", "yml"], key="codebook_upload")
        if upload is not None and st.button("Import"):
            import_file(coding, upload, coder)
            st.rerun()
