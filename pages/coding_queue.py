"""Coding queue: sample N dialogs, turns or (with a step slice) moments of a corpus slice, assign them to coders, work through your own
queue (each item a link to its replay, mark done, resume later) and see everyone's progress."""
import pandas as pd
import streamlit as st

from ui import cached
from ui.coding.panel import coder_box, empty_sample_reason, sample_items, store
from ui.coding.queue_flow import item_link, opening_queue
from ui.shell import auth
from ui.shell.corpus_edge import corpus_selector
from ui.shell.router import ensure_routed
from ui.shell.run_mark import stop_run
from ui.shell.url_state import served
from ui.slices.current import current_outcome, said, slice_ids
from ui.slices.moments import moment_items
from ui.store import QUEUE_COLUMNS, StoreError, remembered
from ui.widgets import md_escape

ensure_routed()

st.title("Coding queue")
coding = store()
if coding is None:
    stop_run()
me = coder_box("queue")
if "queue_message" in st.session_state:
    st.success(st.session_state.pop("queue_message"))

# While the store is unreachable the page shows what it read last; the form keeps what was typed into it.
progress = remembered("queues", coding.queues, pd.DataFrame(columns=["queue", "coder", "items", "done"]), "Coding queue")
queues = sorted(progress["queue"].unique()) if not progress.empty else []

with st.expander("➕ New queue (or add items to one)", expanded=not queues):
    may_manage = auth.allowed(auth.Action.MANAGE, "creating coding queues")
    corpus = corpus_selector("queue_corpus") if may_manage else None
    loaded = cached.loaded_corpus(corpus) if corpus is not None else None
    # with a slice= the sample is drawn from its dialogs (said above the form)
    in_slice = slice_ids(corpus) if corpus is not None and loaded is not None and said(current_outcome(corpus)) else None
    outcome = current_outcome(corpus) if in_slice is not None and corpus is not None else None
    moments = moment_items(corpus, outcome.steps) if outcome is not None and outcome.is_moments else None
    if corpus is not None and loaded is not None:
        with st.form("new_queue"):
            name = st.text_input("Queue name", value=f"{corpus.name}-pilot")
            left, middle, right = st.columns(3)
            units = (["moment"] if moments is not None else []) + ["dialog", "turn"]  # a step slice: its moments first
            unit = left.radio("Sample", units, format_func=lambda u: f"{u}s", horizontal=True,
                              help="moments: the steps of the URL's step slice" if moments is not None else None)
            n = middle.number_input("How many", min_value=1, max_value=10_000, value=10, step=1)
            seed = right.number_input("Seed", min_value=0, value=0, step=1)
            splits = st.multiselect("Splits (none: all)", sorted(loaded.dialogs["split"].dropna().unique()))
            contains = st.text_input("Only dialogs with an utterance containing (optional)")
            coders = st.text_input("Coders (comma-separated)", value=me)
            if st.form_submit_button("Create / extend queue", type="primary"):
                names = [c for c in (part.strip() for part in coders.split(",")) if c]
                try:
                    items = sample_items(loaded, unit, int(n), int(seed), splits, contains or None, in_slice, moments)
                    added = coding.create_queue(name, items, names, actor=auth.writer()) if items else None
                except auth.AccessRefused as exc:
                    st.error(md_escape(exc))
                except (ValueError, StoreError) as exc:
                    st.error(f"No queue created: {md_escape(exc)}")
                else:
                    if added is None:  # the form keeps its values: change a filter and submit again
                        st.warning(f"Nothing matched: {md_escape(empty_sample_reason(unit, splits, contains))} "
                                   "No queue was created or extended.")
                    else:
                        st.session_state["queue_message"] = (
                            f"{md_escape(name)}: {len(items)} {unit}(s) sampled, "
                            f"{added} new assignment(s) for {md_escape(', '.join(names))}.")
                        st.rerun()

if not queues:
    st.info("No queue yet: create one above.")
    stop_run()

st.subheader("Progress")
st.dataframe(progress.assign(progress=progress["done"] / progress["items"]), hide_index=True, width="stretch",
             column_config={"progress": st.column_config.ProgressColumn("progress", min_value=0.0, max_value=1.0,
                                                                        format="percent")})

queue = st.selectbox("Queue", queues, index=queues.index(opening_queue(progress, me)), key="queue_name")
if not me:
    st.info("Enter your name as coder to see your items.")
    stop_run()
mine = remembered(f"queue {queue} {me}", lambda: coding.queue_items(queue, coder=me), pd.DataFrame(columns=QUEUE_COLUMNS),
                  "Coding queue")
if mine.empty:
    st.info(f"Nothing in {md_escape(queue)} is assigned to {md_escape(me)}.")
    stop_run()
todo = mine[mine["status"] == "todo"]
may_tick = auth.allowed(auth.Action.WRITE_OWN, "marking items done")
st.caption(f"{len(mine) - len(todo)} of {len(mine)} done. Open an item and code it on the Replay: “Done, next” (or "
           "Enter) there marks it done and opens the next one; or tick it here.")
links = [served(item_link(link, queue, position, me)) for position, link in enumerate(mine["link"], start=1)]
if len(todo):
    first = int(todo.index[0])  # mine's index is its order (0-based)
    st.markdown(f"[▶ Resume with the next item: {md_escape(mine['dialog_id'].iloc[first])}]({links[first]})")
edited = st.data_editor(
    mine.assign(done=mine["status"] == "done", link=links)[
        ["id", "corpus", "dialog_id", "round", "turn", "done", "link"]],
    hide_index=True, key=f"queue_editor_{queue}",
    disabled=["id", "corpus", "dialog_id", "round", "turn", "link"] if may_tick else True,
    column_config={"link": st.column_config.LinkColumn("Replay", display_text="open ▶"),
                   "done": st.column_config.CheckboxColumn("Done")})
changed = [(int(i), bool(d)) for i, d, was in zip(edited["id"], edited["done"], mine["status"] == "done") if d != was]
if changed:
    try:
        for item_id, done in changed:
            coding.set_done(item_id, done, actor=auth.writer())
    except auth.AccessRefused as exc:
        st.error(md_escape(exc))
    except StoreError as exc:  # the ticks stay in the table, to be saved once the store is back
        st.error(f"Not marked: {md_escape(exc)}")
    else:
        st.session_state.pop(f"queue_editor_{queue}", None)
        st.session_state["queue_message"] = f"Marked {len(changed)} item(s)."
        st.rerun()
