"""Coding in the UI: the coder's name, the store, and the coding panel of the replay.

The panel's coding column (``ui.coding.workbench``, an inline ``st.components.v2`` component) shows the text of
the step with this coder's spans highlighted (select characters, then press a span label's key or click it),
every label of the codebook as a button with its key, and a notes field; labels show at once and are stored
behind them. Under it: a span by character offsets, and for labels that link to referents a picture of the
target (CoDraw clip art, Game Of Sorts board, Minecraft target blocks from above) whose points are clicked to
link or unlink them (a list beside it does the same without a mouse), and this coder's annotations at the step.
The server's label buttons stay as the fallback without JavaScript. What an action means (where a label is
stored, what is refused) is ``data_access.coding.rules``.
"""
from __future__ import annotations

from functools import partial
from typing import Callable, Optional

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from data_access.coding import rules
from data_access.coding.codebook import Codebook
from data_access.coding.queue import empty_sample_reason as empty_sample_reason  # the Coding queue page samples
from data_access.coding.queue import sample_items as sample_items
from data_access.coding.referents import ReferentCanvas, referent_canvas, referents, turn_utterances
from data_access.coding.rules import CodingContext, Saved, links_referents, same_place
from data_access.corpus import Corpus
from data_access.store import CodingStore
from data_access.store import StoreError as NotesStoreError
from ui import cached
from ui.coding.workbench import available, coding_column
from ui.replay.step_parts import step_part, step_place
from ui.shell import auth
from ui.shell.url_state import query_param, set_url
from ui.store import opened, remembered, unavailable
from ui.widgets import md_escape


def store() -> Optional[CodingStore]:
    """The coding part of the shared store (``ui.store``), or None after showing why it cannot be opened."""
    shared = opened("Coding")
    return shared.coding if shared is not None else None


def coder_box(key: str, container=None, compact: bool = False) -> str:
    """A text box for the coder's name; the name is remembered for the session and put into the URL. Signed
    in, no box: the coder is the signed-in identity ("Coding as alice"). ``compact``: its label as a placeholder."""
    if auth.sign_in_configured():
        return auth.coding_as(container)
    where = container or st
    widget = f"coder_input_{key}"
    if widget not in st.session_state:
        st.session_state[widget] = auth.current_coder()

    def remember() -> None:
        st.session_state["coder"] = " ".join(st.session_state[widget].split())

    where.text_input("Coder (your name)", key=widget, on_change=remember, placeholder="Coder (your name)",
                     label_visibility="collapsed" if compact else "visible",
                     help="Every annotation carries it. Remembered in this browser session and in the URL "
                          "(?coder=...); DIALOGUE_CODER sets a default.")
    name = " ".join(st.session_state[widget].split())
    st.session_state["coder"] = name
    if name:
        set_url(coder=name)
    return name


def codebook_picker(coding: CodingStore, key: str, container=None, compact: bool = False) -> Optional[Codebook]:
    """The codebook coded with (the URL's ``codebook``, the session's, or the first), or None after saying there
    is none. ``compact``: without its label (the coding column)."""
    where = container or st
    books = remembered("codebooks", coding.codebooks, pd.DataFrame(columns=["name"]), "Coding")
    if books.empty:
        where.info("No codebook yet: create or import one on the Codebooks page.")
        where.page_link("pages/codebooks.py", label="Open Codebooks", icon=":material/label:")
        return None
    names = list(books["name"])
    requested = query_param("codebook") or st.session_state.get("codebook")
    name = where.selectbox("Codebook", names, index=names.index(requested) if requested in names else 0, key=key,
                           label_visibility="collapsed" if compact else "visible",
                           format_func=lambda n: f"Codebook: {n}" if compact else n)
    st.session_state["codebook"] = name
    return remembered(f"codebook {name}", lambda: coding.codebook(name), None, "Coding")


def _say(kind: str, text: str) -> None:
    """Leave a message for the panel to show after the rerun; ``kind`` is "success" or "error"."""
    st.session_state["coding_message"] = (kind, text)


def _attempt(action: Callable[[], Saved | str]) -> None:
    """Run ``action`` (a save) and leave its success message or a "Not saved: …" error; an annotation whose
    referents are to be linked next becomes the one the referent picture links."""
    try:
        done = action()
    except auth.AccessRefused as exc:  # its message says who, what and why ("Not allowed: …")
        _say("error", str(exc))
        return
    except (KeyError, ValueError, NotesStoreError) as exc:
        _say("error", f"Not saved: {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}")
        return
    if isinstance(done, Saved) and done.link_next is not None:
        st.session_state["coding_active"] = done.link_next
    _say("success", done.message if isinstance(done, Saved) else done)


def _show_message(message) -> None:
    kind, text = message if isinstance(message, tuple) and len(message) == 2 else ("info", str(message))
    {"success": st.success, "error": st.error}.get(kind, st.info)(md_escape(str(text)))


def coding_panel(corpus: Corpus, dialog: str, turn: int, round_: Optional[int] = None, *, workbench: bool = False) -> None:
    """The coding panel for one replay step (called by pages/replay.py); says so when the store is unreachable.
    ``workbench``: the panel is the column beside the step (``coding_open``), not an expander under it."""
    coding = store()
    if coding is None:
        return
    try:
        _coding_panel(coding, corpus, dialog, turn, round_, workbench)
    except NotesStoreError as exc:
        unavailable("Coding", exc)


def coding_open() -> bool:
    """Whether the Replay opens as a workbench, the coding column beside the step from the first open: the link
    says ``code=1``, or a coder who may code is named (in the link, earlier in the session, or signed in) and a
    codebook is there to code with."""
    if query_param("code") == "1":
        return True
    person = auth.writer()
    if not person.coder or not person.may(auth.Action.WRITE_OWN):
        return False
    coding = store()
    books = remembered("codebooks", coding.codebooks, pd.DataFrame(columns=["name"]), "Coding") if coding else None
    return books is not None and not books.empty


def _coding_panel(coding: CodingStore, corpus: Corpus, dialog: str, turn: int, round_: Optional[int], workbench: bool) -> None:
    with st.container(key="coding_workbench") if workbench else st.expander("Coding", expanded=False):
        top = st.columns(2, gap="small")
        coder = coder_box("replay", top[0], compact=workbench)
        book = codebook_picker(coding, "replay_codebook", top[1], compact=workbench)
        if book is None:
            return
        if not coder:
            st.info("Enter your name as coder to start coding.")
            return
        if not auth.allowed(auth.Action.WRITE_OWN, "coding"):  # a viewer: nothing of theirs to show or change
            return
        if cached.derived(turn_utterances, corpus, dialog, round_, turn) is None:
            return
        coding_column(coding, corpus, dialog, turn, round_, book, coder)  # follows the player's step in the browser
        step_part("coding_here")(_coding_here)(coding, corpus, book, coder)


def _coding_here(coding: CodingStore, corpus: Corpus, book: Codebook, coder: str) -> None:
    """What the panel shows of the step in the URL (the player's, once the reader rests on it: a part of the step,
    ``ui.replay.step_parts``): the server's label buttons, the last action's answer, spans, referents and the
    coder's annotations there."""
    place = step_place(corpus)
    if place is None:
        return
    try:
        _coding_at(coding, corpus, book, coder, *place)
    except NotesStoreError as exc:  # a part of its own: the panel's handler above does not see it
        unavailable("Coding", exc)


def _coding_at(coding: CodingStore, corpus: Corpus, book: Codebook, coder: str, dialog: str, turn: int,
               round_: Optional[int]) -> None:
    utterances = cached.derived(turn_utterances, corpus, dialog, round_, turn)
    if utterances is None:
        return
    context = CodingContext.at(corpus.name, dialog, round_, turn, coder, book, actor=auth.writer())
    message = st.session_state.pop("coding_message", None)
    mine = rules.my_annotations(coding, context)
    here = mine[same_place(mine, round_, turn)]
    with st.container(key="coding_fallback"):  # without JavaScript (and in AppTest): the server's buttons
        if not available():
            st.caption(f"{md_escape(book.name)} v{book.version}: turn and dialog labels take one click.")
        _label_buttons(coding, context, mine)
    if message:
        _show_message(message)
    linking = st.session_state.get("coding_active") in set(here["id"])
    with st.expander(f"Spans by offsets, referents, your annotations here ({len(here)})", expanded=linking):
        _span_by_offsets(coding, context, utterances)
        _referent_linker(coding, corpus, context, here)
        _my_annotations(coding, here)


def _span_by_offsets(coding: CodingStore, context: CodingContext, utterances: pd.DataFrame) -> None:
    span_labels = context.codebook.labels_for("span")
    if not span_labels or utterances.empty:
        return
    with st.popover("Span by character offsets"):
        with st.form(f"span_form_{context.corpus}", border=False):
            options = list(range(len(utterances)))
            index = st.selectbox("Utterance", options, format_func=lambda i: f"{utterances.loc[i, 'speaker']}: "
                                 f"{str(utterances.loc[i, 'text'])[:60]}")
            left, right = st.columns(2)
            # No lower bound in the boxes: a bound drops −5 without a word; the save says why it is refused.
            start = left.number_input("Start (first character, from 0)", step=1, value=0)
            end = right.number_input("End (exclusive)", step=1, value=1)
            label = st.selectbox("Label", [lab.name for lab in span_labels])
            if st.form_submit_button("Save span"):
                _attempt(partial(rules.save_span, coding, context, utterances, label, int(index), int(start), int(end)))
                st.rerun()


def _label_buttons(coding: CodingStore, context: CodingContext, mine: pd.DataFrame) -> None:
    # Where the corpus replays in rounds, a "dialog" label describes the round and a turn label the step.
    titles = {"turn": "This step" if context.replay_in_rounds else "This turn",
              "dialog": "Whole round" if context.replay_in_rounds else "Whole dialog"}
    book = context.codebook
    for scope, title in titles.items():
        labels = book.labels_for(scope)
        if not labels:
            continue
        on = set(mine.loc[same_place(mine, *context.place(scope)) & (mine["scope"] == scope), "label"])
        columns = st.columns([1.2] + [1] * len(labels))
        columns[0].markdown(f"**{title}**")
        for column, label in zip(columns[1:], labels):
            # a button's label and help are markdown: a label's name and description are the codebook's text
            # (its key is one letter or digit, checked by the codebook)
            text = ("✅ " if label.name in on else "") + md_escape(label.name) + (f" [{label.key}]" if label.key else "")
            if column.button(text, key=f"label_{scope}_{label.name}", help=md_escape(label.description) or None,
                             type="primary" if label.name in on else "secondary"):
                _attempt(partial(rules.put_label, coding, context, label.name))  # again: "already labelled"
                st.rerun()


def referent_figure(points: pd.DataFrame, linked: set, canvas: ReferentCanvas) -> go.Figure:
    """Referents as clickable points; linked ones ringed; drawn on the corpus's ``canvas`` (e.g. CoDraw's
    target scene)."""
    sizes = [22 if r in linked else 14 for r in points["id"]]
    figure = go.Figure(go.Scatter(
        x=points["x"], y=points["y"], mode="markers+text" if canvas.named else "markers", text=points["name"],
        textposition="top center", customdata=points["id"], hovertemplate="%{text}<extra></extra>",
        marker=dict(size=sizes, color=points["colour"], opacity=0.85,
                    line=dict(width=[4 if r in linked else 1 for r in points["id"]],
                              color=["#d62728" if r in linked else "#333" for r in points["id"]]))))
    figure.update_layout(height=380, margin=dict(l=10, r=10, t=10, b=10), showlegend=False, dragmode=False,
                         clickmode="event+select")
    figure.update_yaxes(autorange="reversed", showgrid=False, zeroline=False, visible=False)
    figure.update_xaxes(showgrid=False, zeroline=False, visible=False)
    if canvas.x_range is not None:
        figure.update_xaxes(range=list(canvas.x_range))
    if canvas.y_range is not None:
        figure.update_yaxes(range=list(canvas.y_range), autorange=False)
    if canvas.background is not None and canvas.x_range is not None and canvas.y_range is not None:
        (left, right), (bottom, top) = canvas.x_range, canvas.y_range
        figure.add_layout_image(dict(source=canvas.background, xref="x", yref="y", x=left, y=top, sizex=right - left,
                                     sizey=abs(bottom - top), sizing="stretch", layer="below", opacity=0.9))
    return figure


def _referent_linker(coding: CodingStore, corpus: Corpus, context: CodingContext, here: pd.DataFrame) -> None:
    book = context.codebook
    linking = here[here["label"].map(lambda name: links_referents(book, name))]
    if linking.empty:
        return
    options: dict[int, str] = {int(r.id): _describe(r) for r in linking.itertuples(index=False)}
    active = st.session_state.get("coding_active")
    ids = list(options)
    chosen = st.selectbox("Link referents of", ids, index=ids.index(active) if active in ids else len(ids) - 1,
                          format_func=options.__getitem__, key=f"coding_link_target_{context.corpus}")
    st.session_state["coding_active"] = chosen
    place = (corpus, context.dialog, context.round, context.turn)
    points = cached.derived(referents, *place)
    if points is None or points.empty:
        st.caption("No referents are known at this place (no target scene, board or structure).")
        return
    canvas = cached.derived(referent_canvas, *place) or ReferentCanvas()
    row = linking[linking["id"] == chosen].iloc[0]
    linked = set(row["referents"])
    names = dict(zip(points["id"], points["name"]))
    list_key = f"coding_referents_{chosen}"

    def save(values: list) -> None:
        def link() -> str:
            coding.update_annotation(chosen, referents=values, actor=auth.writer())
            return f"Linked {len(values)} referent(s)."

        _attempt(link)

    def clicked() -> None:
        event = st.session_state.get(f"coding_figure_{chosen}")
        picked = [p.get("customdata") for p in (event or {}).get("selection", {}).get("points", [])]
        current = set(coding.get_annotation(chosen)["referents"])
        for referent in picked:
            if referent:
                current ^= {referent}
        save(sorted(current))
        st.session_state[list_key] = [r for r in sorted(current) if r in names]

    def listed() -> None:
        save(list(st.session_state[list_key]))

    left, right = st.columns([3, 2])
    left.plotly_chart(referent_figure(points, linked, canvas), key=f"coding_figure_{chosen}",
                      on_select=clicked, selection_mode="points", config={"displayModeBar": False})
    if list_key not in st.session_state:
        st.session_state[list_key] = [r for r in sorted(linked) if r in names]
    right.multiselect("Referents (click them on the picture, or pick here)", list(points["id"]), key=list_key,
                      format_func=lambda r: names.get(r, r), on_change=listed)


def _describe(row) -> str:
    where = f"“{row.span_text}”" if row.scope == "span" else row.scope
    return f"#{row.id} {row.label} · {where}"


def _my_annotations(coding: CodingStore, here: pd.DataFrame) -> None:
    if here.empty:
        return
    st.caption(f"Your annotations here ({len(here)})")
    for row in here.itertuples(index=False):
        left, right = st.columns([6, 1])
        refs = f" → {', '.join(row.referents)}" if row.referents else ""
        span = f" “{row.span_text}” [{row.start}:{row.end}]" if row.scope == "span" else ""
        left.text(f"#{row.id} {row.label} ({row.scope}){span}{refs}")
        if right.button("Delete", key=f"coding_delete_{row.id}"):
            _attempt(partial(_delete, coding, int(row.id)))
            st.rerun()


def _delete(coding: CodingStore, annotation_id: int) -> str:
    coding.delete_annotation(annotation_id, actor=auth.writer())
    return f"Deleted annotation {annotation_id} (it stays in the history)."
