"""Coding in the UI: the coder's name, the store, and the coding panel under the replay.

The panel shows the utterances of the current step with this coder's spans highlighted (an inline
``st.components.v2`` component: select characters, then click a span label or press its key), one-click
buttons for turn- and dialog-level labels (their keys work too), and for labels that link to referents a
picture of the target (CoDraw clip art, Game Of Sorts board, Minecraft target blocks from above) whose points
are clicked to link or unlink them (a list beside it does the same without a mouse).
Everything from the corpus or the store is passed to the component as data and set with ``textContent``.
"""
from __future__ import annotations

import os
from typing import Optional

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from data_access.coding.codebook import Codebook
from data_access.coding.referents import referents, turn_utterances
from data_access.store import CodingStore
from data_access.store import StoreError as NotesStoreError
from ui import cached
from ui.store import opened, remembered, unavailable
from ui.url_state import query_param, set_url
from ui.widgets import md_escape

_CSS = """
.dc-root { font-size: 1rem; line-height: 1.9; }
.dc-utt { margin: 0.15rem 0; }
.dc-who { color: var(--st-secondary-text-color, #666); font-weight: 600; margin-right: 0.3rem; }
.dc-text mark { color: inherit; padding: 0 1px; border-radius: 2px; }
.dc-bar { display: flex; flex-wrap: wrap; gap: 0.35rem; margin: 0.3rem 0; align-items: center; }
.dc-label { border: 2px solid #888; border-radius: 0.4rem; background: transparent; color: inherit;
            padding: 0.1rem 0.55rem; cursor: pointer; font: inherit; font-size: 0.9rem; }
.dc-label:hover { background: rgba(128, 128, 128, 0.15); }
.dc-hint { font-size: 0.8rem; color: var(--st-secondary-text-color, #666); }
"""

_JS = """
export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let root = parentElement.querySelector('.dc-root');
  if (!root) { root = document.createElement('div'); root.className = 'dc-root'; parentElement.appendChild(root); }
  root.textContent = '';
  const points = (s) => Array.from(s);  // offsets count code points, as Python does
  const bar = document.createElement('div'); bar.className = 'dc-bar';
  const hint = document.createElement('span'); hint.className = 'dc-hint';
  hint.textContent = data.hint;
  data.labels.filter((l) => l.scope === 'span').forEach((l) => {
    const button = document.createElement('button');
    button.type = 'button'; button.className = 'dc-label'; button.style.borderColor = l.colour;
    button.dataset.label = l.name;
    button.textContent = l.key ? l.name + ' [' + l.key + ']' : l.name;
    button.onmousedown = (e) => e.preventDefault();  // keep the text selection
    button.onclick = () => act(l);
    bar.appendChild(button);
  });
  bar.appendChild(hint);
  data.utterances.forEach((u) => {
    const line = document.createElement('div'); line.className = 'dc-utt';
    const who = document.createElement('span'); who.className = 'dc-who'; who.textContent = u.speaker + ':';
    const body = document.createElement('span'); body.className = 'dc-text'; body.dataset.utterance = String(u.index);
    const chars = points(u.text);
    const marks = new Array(chars.length).fill(null);
    u.spans.forEach((s) => { for (let i = s.start; i < Math.min(s.end, chars.length); i++) marks[i] = s; });
    let i = 0;
    while (i < chars.length) {
      let j = i; while (j < chars.length && marks[j] === marks[i]) j++;
      const seg = document.createElement(marks[i] ? 'mark' : 'span');
      seg.textContent = chars.slice(i, j).join('');
      if (marks[i]) {
        seg.className = 'dc-span'; seg.title = marks[i].title; seg.dataset.label = marks[i].label;
        seg.style.background = marks[i].colour + '44'; seg.style.borderBottom = '3px solid ' + marks[i].colour;
      }
      body.appendChild(seg); i = j;
    }
    line.append(who, body); root.appendChild(line);
  });
  root.appendChild(bar);
  function selected() {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
    const range = sel.getRangeAt(0);
    const node = range.startContainer.nodeType === 1 ? range.startContainer : range.startContainer.parentElement;
    const body = node && node.closest('.dc-text');
    if (!body || !root.contains(body) || !body.contains(range.endContainer)) return null;
    const before = document.createRange();
    before.selectNodeContents(body); before.setEnd(range.startContainer, range.startOffset);
    const start = points(before.toString()).length;
    const text = range.toString();
    return { utterance: Number(body.dataset.utterance), start: start, end: start + points(text).length, text: text };
  }
  function act(l) {
    if (l.scope === 'span') {
      const s = selected();
      if (!s || s.end <= s.start) { hint.textContent = 'Select characters of one utterance first.'; return; }
      setTriggerValue('action', { kind: 'span', label: l.name, utterance: s.utterance, start: s.start, end: s.end, text: s.text });
      window.getSelection().removeAllRanges();
    } else {
      setTriggerValue('action', { kind: l.scope, label: l.name });
    }
  }
  const onKey = (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    const t = e.target;
    if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
    const l = data.labels.find((x) => x.key && x.key.toLowerCase() === String(e.key).toLowerCase());
    if (l) { e.preventDefault(); act(l); }
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
"""

try:
    _SPAN_EDITOR = st.components.v2.component("dialogue_coding_spans", css=_CSS, js=_JS, isolate_styles=False)
except Exception:  # pragma: no cover - an environment without the v2 component runtime
    _SPAN_EDITOR = None  # type: ignore[assignment]


def store() -> Optional[CodingStore]:
    """The coding part of the shared store (``ui.store``), or None after showing why it cannot be opened."""
    shared = opened("Coding")
    return shared.coding if shared is not None else None


def current_coder() -> str:
    """The coder's name: chosen in this browser session, else the URL's ``coder``, else ``DIALOGUE_CODER``."""
    return (st.session_state.get("coder") or query_param("coder") or os.environ.get("DIALOGUE_CODER", "")).strip()


def coder_box(key: str, container=None) -> str:
    """A text box for the coder's name; the name is remembered for the session and put into the URL."""
    where = container or st
    widget = f"coder_input_{key}"
    if widget not in st.session_state:
        st.session_state[widget] = current_coder()

    def remember() -> None:
        st.session_state["coder"] = " ".join(st.session_state[widget].split())

    where.text_input("Coder (your name)", key=widget, on_change=remember,
                     help="Every annotation carries it. Remembered in this browser session and in the URL "
                          "(?coder=...); DIALOGUE_CODER sets a default.")
    name = " ".join(st.session_state[widget].split())
    st.session_state["coder"] = name
    if name:
        set_url(coder=name)
    return name


def codebook_picker(coding: CodingStore, key: str, container=None) -> Optional[Codebook]:
    where = container or st
    books = remembered("codebooks", coding.codebooks, pd.DataFrame(columns=["name"]), "Coding")
    if books.empty:
        where.info("No codebook yet: create or import one on the Codebooks page.")
        where.page_link("pages/codebooks.py", label="Open Codebooks", icon=":material/label:")
        return None
    names = list(books["name"])
    requested = query_param("codebook") or st.session_state.get("codebook")
    name = where.selectbox("Codebook", names, index=names.index(requested) if requested in names else 0, key=key)
    st.session_state["codebook"] = name
    return remembered(f"codebook {name}", lambda: coding.codebook(name), None, "Coding")


def _same_place(frame: pd.DataFrame, round_: Optional[int], turn: Optional[int]) -> pd.Series:
    rounds = frame["round"].astype("Int64")
    turns = frame["turn"].astype("Int64")
    same_round = rounds.isna() if round_ is None else (rounds == round_).fillna(False)
    same_turn = turns.isna() if turn is None else (turns == turn).fillna(False)
    return (same_round & same_turn).astype(bool)


class Refused(ValueError):
    """A coding action that was not saved; the message says why (shown as an error, prefixed "Not saved: ")."""


def _say(kind: str, text: str) -> None:
    """Leave a message for the panel to show after the rerun; ``kind`` is "success" or "error"."""
    st.session_state["coding_message"] = (kind, text)


def _attempt(action) -> None:
    """Run ``action`` (a save, returning its message) and leave a success or a "Not saved: …" error."""
    try:
        _say("success", action())
    except (KeyError, ValueError, NotesStoreError) as exc:
        _say("error", f"Not saved: {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}")


def _show_message(message) -> None:
    kind, text = message if isinstance(message, tuple) and len(message) == 2 else ("info", str(message))
    {"success": st.success, "error": st.error}.get(kind, st.info)(md_escape(str(text)))


def _handle(action: dict, coding: CodingStore, book: Codebook, corpus: str, dialog: str, round_: Optional[int],
            turn: int, coder: str, utterances: pd.DataFrame) -> str:
    """Save what the component asked for; returns a message for the user. Raises ``Refused`` (a ValueError)
    when nothing is saved, e.g. for a selection outside the utterance."""
    label = book.label(action["label"])
    if action.get("kind") == "span":
        index = int(action["utterance"])
        if not 0 <= index < len(utterances):
            raise Refused(f"there is no utterance {index} at this step")
        text = str(utterances.loc[index, "text"])
        start, end = int(action["start"]), int(action["end"])
        if not (0 <= start < end <= len(text)):
            raise Refused(f"the selection {start}..{end} is outside the utterance, which has {len(text)} "
                          f"character(s) (offsets 0..{len(text)}, end exclusive, after the start).")
        new = coding.add_annotation(corpus, dialog, codebook=book, label=label.name, coder=coder, round=round_,
                                    turn=turn, utterance=index, start=start, end=end, span_text=text[start:end])
        if label.links_referents:
            st.session_state["coding_active"] = new
        return f"Saved “{text[start:end]}” as {label.name}" + (" — now click its referents." if label.links_referents else ".")
    return toggle_label(coding, book, label.name, corpus, dialog, round_, turn, coder)


def toggle_label(coding: CodingStore, book: Codebook, name: str, corpus: str, dialog: str, round_: Optional[int],
                 turn: int, coder: str) -> str:
    """Put a turn or dialog label on (or take it off, when this coder already put it there)."""
    label = book.label(name)
    mine = coding.annotations(corpus, dialog, codebook=book.name, coder=coder)
    place = _same_place(mine, round_ if label.scope == "turn" or corpus == "gos" else None,
                        turn if label.scope == "turn" else None)
    existing = mine[place & (mine["label"] == name) & (mine["scope"] == label.scope)]
    if len(existing):
        for annotation_id in existing["id"]:
            coding.delete_annotation(int(annotation_id))
        return f"Removed {name}."
    new = coding.add_annotation(corpus, dialog, codebook=book, label=name, coder=coder,
                                round=round_ if (label.scope == "turn" or corpus == "gos") else None, turn=turn)
    if label.links_referents:
        st.session_state["coding_active"] = new
    return f"Saved {name}."


def coding_panel(corpus: str, dialog: str, turn: int, round_: Optional[int] = None) -> None:
    """The coding panel for one replay step (called by pages/replay.py); says so when the store is unreachable."""
    coding = store()
    if coding is None:
        return
    try:
        _coding_panel(coding, corpus, dialog, turn, round_)
    except NotesStoreError as exc:
        unavailable("Coding", exc)


def _coding_panel(coding: CodingStore, corpus: str, dialog: str, turn: int, round_: Optional[int]) -> None:
    expanded = bool(query_param("coder") or st.session_state.get("coder"))
    with st.expander("Coding", expanded=expanded):
        top = st.columns([2, 2, 3])
        coder = coder_box("replay", top[0])
        book = codebook_picker(coding, "replay_codebook", top[1])
        if book is None:
            return
        top[2].caption(f"{md_escape(book.name)} v{book.version}: {len(book.labels)} label(s). Select text, then click a span "
                       "label or press its key; turn and dialog labels take one click.")
        if not coder:
            st.info("Enter your name as coder to start coding.")
            return
        utterances = cached.derived(turn_utterances, corpus, dialog, round_, turn)
        if utterances is None:
            return
        key = f"coding_{corpus}_{dialog}_{round_}_{turn}"
        message = st.session_state.pop("coding_message", None)
        mine = coding.annotations(corpus, dialog, codebook=book.name, coder=coder)
        here = mine[_same_place(mine, round_, turn)]
        spans = here[here["scope"] == "span"]
        data = {
            "hint": "Select characters of an utterance, then a label." if book.labels_for("span") else "",
            "labels": [{"name": lab.name, "scope": lab.scope, "colour": lab.colour, "key": lab.key}
                       for lab in book.labels],
            "utterances": [
                {"index": i, "speaker": str(row.speaker), "text": str(row.text),
                 "spans": [{"start": int(s.start), "end": int(s.end), "colour": book_colour(book, s.label),
                            "label": s.label, "title": f"{s.label}" + (f" → {', '.join(s.referents)}" if s.referents else "")}
                           for s in spans[spans["utterance"] == i].itertuples(index=False)]}
                for i, row in enumerate(utterances.itertuples(index=False))],
        }
        if _SPAN_EDITOR is not None:
            result = _SPAN_EDITOR(data=data, key=key, on_action_change=lambda: None)
            action = getattr(result, "action", None)
            if action:
                _attempt(lambda: _handle(action, coding, book, corpus, dialog, round_, turn, coder, utterances))
                st.rerun()
        _span_by_offsets(coding, book, corpus, dialog, round_, turn, coder, utterances)
        _label_buttons(coding, book, corpus, dialog, round_, turn, coder, mine)
        if message:
            _show_message(message)
        _referent_linker(coding, book, corpus, dialog, round_, turn, here)
        _my_annotations(coding, here)


def book_colour(book: Codebook, label: str) -> str:
    try:
        return book.label(label).colour
    except KeyError:
        return "#7f7f7f"


def _span_by_offsets(coding, book, corpus, dialog, round_, turn, coder, utterances) -> None:
    span_labels = book.labels_for("span")
    if not span_labels or utterances.empty:
        return
    with st.popover("Span by character offsets"):
        with st.form(f"span_form_{corpus}", border=False):
            options = list(range(len(utterances)))
            index = st.selectbox("Utterance", options, format_func=lambda i: f"{utterances.loc[i, 'speaker']}: "
                                 f"{str(utterances.loc[i, 'text'])[:60]}")
            left, right = st.columns(2)
            # No lower bound in the boxes: a bound drops −5 without a word; the save says why it is refused.
            start = left.number_input("Start (first character, from 0)", step=1, value=0)
            end = right.number_input("End (exclusive)", step=1, value=1)
            label = st.selectbox("Label", [lab.name for lab in span_labels])
            if st.form_submit_button("Save span"):
                action = {"kind": "span", "label": label, "utterance": index, "start": start, "end": end}
                _attempt(lambda: _handle(action, coding, book, corpus, dialog, round_, turn, coder, utterances))
                st.rerun()


def _label_buttons(coding, book, corpus, dialog, round_, turn, coder, mine) -> None:
    for scope, title, place_round, place_turn in (("turn", "This step" if corpus == "gos" else "This turn", round_, turn),
                                                  ("dialog", "Whole dialog" if corpus != "gos" else "Whole round",
                                                   round_ if corpus == "gos" else None, None)):
        labels = book.labels_for(scope)
        if not labels:
            continue
        on = set(mine.loc[_same_place(mine, place_round, place_turn) & (mine["scope"] == scope), "label"])
        columns = st.columns([1.2] + [1] * len(labels))
        columns[0].markdown(f"**{title}**")
        for column, label in zip(columns[1:], labels):
            # a button's label and help are markdown: a label's name and description are the codebook's text
            # (its key is one letter or digit, checked by the codebook)
            text = ("✅ " if label.name in on else "") + md_escape(label.name) + (f" [{label.key}]" if label.key else "")
            if column.button(text, key=f"label_{scope}_{label.name}", help=md_escape(label.description) or None,
                             type="primary" if label.name in on else "secondary"):
                _attempt(lambda name=label.name: toggle_label(coding, book, name, corpus, dialog, round_, turn, coder))
                st.rerun()


def referent_figure(points: pd.DataFrame, linked: set, corpus: str, background=None) -> go.Figure:
    """Referents as clickable points; linked ones ringed. CoDraw: over the target scene image."""
    sizes = [22 if r in linked else 14 for r in points["id"]]
    figure = go.Figure(go.Scatter(
        x=points["x"], y=points["y"], mode="markers" if corpus == "codraw" else "markers+text", text=points["name"], textposition="top center",
        customdata=points["id"], hovertemplate="%{text}<extra></extra>",
        marker=dict(size=sizes, color=points["colour"], opacity=0.85,
                    line=dict(width=[4 if r in linked else 1 for r in points["id"]],
                              color=["#d62728" if r in linked else "#333" for r in points["id"]]))))
    figure.update_layout(height=380, margin=dict(l=10, r=10, t=10, b=10), showlegend=False, dragmode=False,
                         clickmode="event+select")
    figure.update_yaxes(autorange="reversed", showgrid=False, zeroline=False, visible=False)
    figure.update_xaxes(showgrid=False, zeroline=False, visible=False)
    if corpus == "codraw":
        figure.update_xaxes(range=[0, 500])
        figure.update_yaxes(range=[400, 0], autorange=False)
        if background is not None:
            figure.add_layout_image(dict(source=background, xref="x", yref="y", x=0, y=0, sizex=500, sizey=400,
                                         sizing="stretch", layer="below", opacity=0.9))
    if corpus == "gos":
        figure.update_xaxes(range=[-0.6, 2.6])
        figure.update_yaxes(range=[2.6, -0.6], autorange=False)
    return figure


def _referent_linker(coding, book, corpus, dialog, round_, turn, here) -> None:
    linking = here[here["label"].map(lambda name: _links(book, name))]
    if linking.empty:
        return
    options: dict[int, str] = {int(r.id): _describe(r) for r in linking.itertuples(index=False)}
    active = st.session_state.get("coding_active")
    ids = list(options)
    chosen = st.selectbox("Link referents of", ids, index=ids.index(active) if active in ids else len(ids) - 1,
                          format_func=options.__getitem__, key=f"coding_link_target_{corpus}")
    st.session_state["coding_active"] = chosen
    points = cached.derived(referents, corpus, dialog, round_, turn)
    if points is None or points.empty:
        st.caption("No referents are known at this place (no target scene, board or structure).")
        return
    row = linking[linking["id"] == chosen].iloc[0]
    linked = set(row["referents"])
    background = None
    if corpus == "codraw":
        from data_access.codraw.view import replay_step

        view = cached.derived(replay_step, corpus, dialog, turn)
        background = getattr(view, "target_image", None)
    names = dict(zip(points["id"], points["name"]))
    list_key = f"coding_referents_{chosen}"

    def save(values: list) -> None:
        def link() -> str:
            coding.update_annotation(chosen, referents=values)
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
    left.plotly_chart(referent_figure(points, linked, corpus, background), key=f"coding_figure_{chosen}",
                      on_select=clicked, selection_mode="points", config={"displayModeBar": False})
    if list_key not in st.session_state:
        st.session_state[list_key] = [r for r in sorted(linked) if r in names]
    right.multiselect("Referents (click them on the picture, or pick here)", list(points["id"]), key=list_key,
                      format_func=lambda r: names.get(r, r), on_change=listed)


def _links(book: Codebook, name: str) -> bool:
    try:
        return book.label(name).links_referents
    except KeyError:
        return False


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
            coding.delete_annotation(int(row.id))
            _say("success", f"Deleted annotation {row.id} (it stays in the history).")
            st.rerun()
