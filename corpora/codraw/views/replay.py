"""Replay section of CoDraw: the Teller's target beside the Drawer's canvas, round by round.

Deep link: ``/replay?corpus=codraw&dialog=<key>&turn=<round>``. Everything shown comes from
``corpora.codraw.data.view.replay_step`` through ``ui.cached.derived``, so stepping renders one round.
"""
from __future__ import annotations

import dataclasses
import io
import math
from functools import partial
from typing import Optional

import streamlit as st

from corpora.codraw.data.view import ReplayStep, replay_step
from corpora.codraw.views.layers import replay_crs, transcript_marks
from dialogue_dashboard.plugin.views import (
    LEADING_ROLES,
    Corpus,
    Picture,
    PlayerDialog,
    PlayerStep,
    TimelineEntry,
    corpus_ready,
    derived,
    dialog_picker,
    dialog_row,
    markdown_table,
    md_escape,
    player_step,
    query_param,
    show_player,
    source_facts,
    transcript_lines,
)


@dataclasses.dataclass(frozen=True)
class ShownRound:
    """A round as the replay shows it: its view without pictures (``replay_step``'s, images set to None) and the
    two pictures as PNG bytes. Cached so, a rerun unpickles a few KB of PNG instead of two raw images (1.2 MB)
    and hands ``st.image`` bytes it sends as they are (same bytes, same URL: the browser reuses them) rather
    than images it would encode again on every run."""

    view: ReplayStep
    target_png: Optional[bytes]
    canvas_png: Optional[bytes]
    # the round's tables as the page shows them (markdown), made once with the round
    changes_markdown: str = ""
    stored_terms_markdown: str = ""
    final_terms_markdown: str = ""


def _png(image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)  # drawn once per round, sent over loopback or a LAN
    return buffer.getvalue()


def shown_round(loaded, dialog_id: str, step: int) -> Optional[ShownRound]:
    """``replay_step`` of round ``step`` with its pictures encoded once (for ``cached.derived``)."""
    view = replay_step(loaded, dialog_id, step)
    if view is None:
        return None
    target, canvas = view.target_image, view.canvas_image
    view.target_image = view.canvas_image = None  # a fresh view of this call: nobody else holds it
    tables = {}
    if target is not None:
        tables = {"changes_markdown": "" if view.changes.empty else markdown_table(view.changes),
                  "stored_terms_markdown": markdown_table(view.stored_terms, float_format="%.3f"),
                  "final_terms_markdown": markdown_table(view.final_terms, float_format="%.3f")}
    return ShownRound(view, None if target is None else _png(target), None if canvas is None else _png(canvas), **tables)


def _score(value: Optional[float]) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


_NO_STORED_SCORE = {
    "empty": "Not scored: the game stored an empty score for this round (a dialog's first round has none).",
    "missing": "No score: this round's record has no score field.",
}


def stored_score_metric(view) -> tuple[str, str]:
    """(short value, the reason behind it) of a round's stored score: a short value keeps a narrow metric
    from being cut ("not sco…"), the reason goes into the metric's help."""
    if view.score_status == "present":
        return _score(view.stored_score), "The original 7-term metric as the game stored it"
    return "—", _NO_STORED_SCORE.get(view.score_status, _NO_STORED_SCORE["missing"])


def peek_note(view) -> None:
    """Whether and when the Teller used their one peek at the drawing, relative to this round."""
    if view.peek_at_this_round:
        st.info("The Teller peeked at the drawing before this round.", icon=":material/visibility:")
    elif view.peeked_before_this_round:
        st.caption(f"The Teller peeked before round {view.peek_round}.")
    elif view.peek_round is None:
        st.caption("The Teller never peeked in this dialog.")


def _score_panel(shown: ShownRound) -> None:
    view = shown.view
    st.subheader("Score of this round's drawing")
    stored, reason = stored_score_metric(view)
    left, middle, right = st.columns(3)
    left.metric("Stored (original metric)", stored, help=reason)
    if view.score_status != "present":
        st.caption(md_escape(reason))
    middle.metric("Recomputed, original metric", _score(view.original.score if view.original else None))
    right.metric("Paper's final metric (max 5)", _score(view.final.score if view.final else None))
    with st.expander("Term breakdown"):
        st.caption("Original 7-term metric: as stored by the game and as recomputed (weighted = weight × term × IoU).")
        st.markdown(shown.stored_terms_markdown)
        st.caption("The paper's final metric.")
        st.markdown(shown.final_terms_markdown)


def player_view(corpus: Corpus, dialog_id: str, step: int) -> Optional[PlayerStep]:
    """Round ``step`` as the step player shows it: both pictures, the scores, the peek and the changes."""
    shown = derived(shown_round, corpus, dialog_id, step)
    if shown is None:
        return None
    view = shown.view
    if shown.target_png is None:
        return PlayerStep(step, (Picture(None, view.problem or "This round cannot be shown."),))
    stored, _ = stored_score_metric(view)
    notes = []
    if view.peek_at_this_round:
        notes.append("The Teller peeked at the drawing before this round.")
    elif view.peeked_before_this_round:
        notes.append(f"The Teller peeked before round {view.peek_round}.")
    elif view.peek_round is None:
        notes.append("The Teller never peeked in this dialog.")
    if view.score_status != "present":
        notes.append(_NO_STORED_SCORE.get(view.score_status, _NO_STORED_SCORE["missing"]))
    changes = view.changes
    return PlayerStep(
        step, (Picture(shown.target_png, "Teller's target"), Picture(shown.canvas_png, f"Drawer's canvas after round {view.step}")),
        facts=(("Stored score", stored), ("Recomputed", _score(view.original.score if view.original else None)),
               ("Final metric (max 5)", _score(view.final.score if view.final else None)),
               ("Changes", str(len(changes)) if not changes.empty else "none")),
        notes=tuple(notes), table_title=f"Changes in round {view.step}" if not changes.empty else "",
        table_columns=tuple(map(str, changes.columns)),
        table_rows=tuple(tuple("" if v is None else str(v) for v in row) for row in changes.itertuples(index=False)))


def _timeline(n_steps: int, known: dict[int, PlayerStep], peek_round, crs) -> tuple:
    entries = []
    for number in range(1, n_steps + 1):
        final = dict(known[number].facts).get("Final metric (max 5)") if number in known else None
        value = float(final) if final not in (None, "—") else None
        marks = (("peek",) if peek_round == number else ()) + (("cr",) if number in crs else ())
        entries.append(TimelineEntry(value, marks, f"final metric {final}" if final else ""))
    return tuple(entries)


def show(corpus: Corpus) -> None:
    if not corpus_ready(corpus):
        return
    dialog_id, _ = dialog_picker(corpus, key="codraw_dialog")
    if dialog_id is None:
        return
    n_steps = int(derived(dialog_row, corpus, dialog_id)["n_steps"])
    step_key = f"codraw_turn_{dialog_id}"
    turn = player_step(n_steps, query_param("turn"), key=step_key, label="Round")
    shown = derived(shown_round, corpus, dialog_id, turn)
    if shown is None:
        st.warning("This dialog could not be shown.")
        return
    view = shown.view
    with st.container(key="player_fallback_all"):  # the player has its own switch (all lines)
        show_all = st.toggle("Show full transcript", key=f"codraw_all_{md_escape(dialog_id)}")
    crs = set(transcript_marks(corpus, dialog_id))
    dialog = PlayerDialog(f"{corpus.name}|{dialog_id}", "Round", n_steps, transcript_lines(view.transcript, LEADING_ROLES), (),
                          legend="Bars: each round's final metric (max 5) · 👁 the peek · ? a CR (published layer)")
    show_player("player_replay", step_key, dialog, turn, partial(player_view, corpus, dialog_id),
                timeline=lambda known: _timeline(n_steps, known, view.peek_round, crs), showAll=show_all, notesKey=True,
                panels=partial(round_panels, corpus, dialog_id))


def round_panels(corpus: Corpus, dialog_id: str, step: int) -> None:
    """Under the player, of round ``step``: what keeps it from being shown, its CRs, its score and its terms."""
    shown = derived(shown_round, corpus, dialog_id, step)
    if shown is None:
        st.warning("This round could not be shown.")
        return
    view = shown.view
    if view.problem:
        st.warning(md_escape(view.problem))
    replay_crs(dialog_id, view.step)
    if shown.target_png is not None:
        if not derived(source_facts, corpus)["assets"]:
            st.caption("Art-free rendering; set CODRAW_CLIPART to the Abstract Scenes clip-art folder for the real pictures.")
        _score_panel(shown)
