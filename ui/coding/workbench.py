"""The coding column of the Replay: the step's text to select spans from, every label of the codebook as a
button with its key, and a notes field, in an inline ``st.components.v2`` component (``ui/assets/coding_column.js``
and ``.css``) that works at the speed of the step player.

The column holds the coder's labels of the dialog and the utterances of every step in the browser and follows
the player's step there (the player says each step it shows), so a step shows its labels and text at once. A
label key (or a click) shows the label at once and sends the write behind it; the write is stored through the
store's checked path (``data_access.coding.label_ops``) by a run of this column alone (a fragment), not of the
page, and answered: stored, already there (a second press removes nothing), or refused (the label goes back,
with the reason). Shift with the key, or the label's ×, takes a label off; Ctrl+Z undoes the last label.

Contract for tests outside the repository: the column carries ``data-coding-panel``, each label control
``data-label-key="<key>"`` (``data-label-set="1"`` once the step has that label), the notes field
``data-notes-field``. Everything from the corpus or the store is set with ``textContent``.
"""
from __future__ import annotations

from collections import OrderedDict
from functools import partial
from typing import Optional

import streamlit as st

from data_access.coding import label_ops
from data_access.coding.codebook import Codebook
from data_access.coding.referents import step_utterances, turn_utterances
from data_access.coding.rules import label_colour
from data_access.corpus import Corpus
from data_access.store import CodingStore
from ui import cached
from ui.assets import asset_text
from ui.replay.step_player import follow_page_run, want_page_run
from ui.shell import auth
from ui.store import remembered

try:
    _COLUMN = st.components.v2.component("dialogue_coding_column", css=asset_text("coding_column.css"),
                                         js=asset_text("coding_column.js"), isolate_styles=False)
except Exception:  # pragma: no cover - an environment without the v2 component runtime
    _COLUMN = None  # type: ignore[assignment]

ANSWERS_KEPT = 500  # answers to the latest writes, sent with the column (the browser matches them by uid)
TEXT_BUDGET = 400_000  # characters of step text held in the browser; past it, the steps around the one shown
LABELS_HELD = 5_000  # of the coder's labels in one dialog
_ANSWERS, _SEQ, _NOTED, _PAGE_RUN = "coding_answers", "coding_seq", "coding_noted", "coding_page_run"


def available() -> bool:
    """Whether the column can be drawn (the v2 component runtime is there)."""
    return _COLUMN is not None


def coding_column(coding: CodingStore, corpus: Corpus, dialog: str, turn: int, round_: Optional[int], book: Codebook,
                  coder: str, *, player: str = "player_replay") -> None:
    """The column for ``dialog`` (its ``round``) at ``turn``, following the step player ``player``."""
    if _COLUMN is None:
        return
    _column(coding, corpus, dialog, turn, round_, book, coder, player)


@st.fragment
def _column(coding: CodingStore, corpus: Corpus, dialog: str, turn: int, round_: Optional[int], book: Codebook, coder: str,
            player: str) -> None:
    if st.session_state.pop(_PAGE_RUN, False):  # a span to link referents to: the page's linker follows
        want_page_run()
    follow_page_run()
    key = f"coding_column_{corpus.name}"
    _COLUMN(data=column_data(coding, corpus, dialog, turn, round_, book, coder, player), key=key,
            on_writes_change=partial(_received, key, coding, corpus, coder))


def column_data(coding: CodingStore, corpus: Corpus, dialog: str, turn: int, round_: Optional[int], book: Codebook,
                coder: str, player: str) -> dict:
    """What the column is sent: the codebook, the coder's labels of the dialog, the text of its steps (bounded),
    and the answers to the latest writes."""
    in_rounds = bool(corpus.package.REPLAY_IN_ROUNDS)
    unit = corpus.package.STEP_UNIT
    # the store out of reach: said once above the page, and the labels this session read last shown meanwhile
    labels: list[dict] = remembered(f"coding_column:{corpus.name}:{dialog}:{book.name}:{coder}",
                        lambda: coding.coder_labels(corpus.name, dialog, book.name, coder, LABELS_HELD), [], "Coding")
    stored = [{k: (v if v is None or isinstance(v, (str, list)) else int(v)) for k, v in label.items()}
              for label in labels]
    return {
        "key": f"coding_column_{corpus.name}",
        "token": f"{corpus.name}|{dialog}|{round_}|{book.name}|{book.version}|{coder}",
        "dialog": dialog, "round": round_, "inRounds": in_rounds, "step": turn, "unit": unit.capitalize(),
        "codebook": book.name, "player": player,
        "labels": [{"name": lab.name, "scope": lab.scope, "colour": lab.colour, "key": lab.key or "",
                    "help": lab.description} for lab in book.labels],
        "titles": {"turn": f"This {unit}", "span": "Spans (select text, then the key)",
                   "dialog": "Whole round" if in_rounds else "Whole dialog"},
        "colours": {str(label["label"]): label_colour(book, str(label["label"])) for label in stored},
        "stored": stored, "steps": _steps_text(corpus, dialog, round_, turn),
        "answers": dict(st.session_state.get(_ANSWERS, {})), "seq": st.session_state.get(_SEQ, 0),
    }


def _steps_text(corpus: Corpus, dialog: str, round_: Optional[int], turn: int) -> dict[str, list]:
    """step -> [[speaker, text], ...] of every step, or of the steps nearest ``turn`` past ``TEXT_BUDGET``."""
    steps = cached.derived(step_utterances, corpus, dialog, round_) or {}
    kept: dict[str, list] = {}
    total = 0
    for step in sorted(steps, key=lambda s: (abs(s - turn), s)):
        total += sum(len(text) + len(speaker) for speaker, text in steps[step])
        if total > TEXT_BUDGET and kept:
            break
        kept[str(step)] = [list(pair) for pair in steps[step]]
    return kept


def _received(key: str, coding: CodingStore, corpus: Corpus, coder: str) -> None:
    """The column sent its writes not yet answered: each is applied through the store's checked path and answered
    (``label_ops``), before the column runs again."""
    state = st.session_state.get(key) or {}
    seq, writes, answers = label_ops.parse_batch(state.get("writes") if hasattr(state, "get") else None)
    if not writes and not answers:
        return
    notes = coding.notes_store
    place = label_ops.Workplace(coding, notes, corpus.name, coder, auth.writer(), coding.codebook,
                                lambda dialog, round_, turn: cached.derived(turn_utterances, corpus, dialog, round_, turn))
    noted: dict = st.session_state.setdefault(_NOTED, {})
    kept: OrderedDict = st.session_state.setdefault(_ANSWERS, OrderedDict())
    answers += label_ops.apply_writes(place, label_ops.not_answered(writes, kept), noted)
    for answer in answers:
        kept[answer.uid] = {"status": answer.status, "message": answer.message}
        kept.move_to_end(answer.uid)
        if answer.annotation is not None and answer.status == "stored":
            st.session_state["coding_active"] = answer.annotation  # the span whose referents are linked next
            st.session_state[_PAGE_RUN] = True
    while len(kept) > ANSWERS_KEPT:
        kept.popitem(last=False)
    for old in list(noted)[:-ANSWERS_KEPT]:  # the oldest: a note is sent again within seconds, if at all
        del noted[old]
    st.session_state[_SEQ] = max(seq, st.session_state.get(_SEQ, 0))
