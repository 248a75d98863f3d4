"""The shared snapshot view: one replay state drawn compactly (the picture, what changed and how it
scores, what was said), for the Compare and Present pages."""
from __future__ import annotations

import math
from typing import Optional

import streamlit as st

from data_access import snapshots
from data_access.contract import optional
from data_access.corpus import Corpus
from data_access.links import replay_link
from data_access.snapshots import snapshot_png
from ui import cached
from ui.transcript import transcript
from ui.url_state import served
from ui.widgets import md_escape


def step_unit(corpus: Corpus) -> str:
    """What one replay step of ``corpus`` is called (its package's ``STEP_UNIT``)."""
    return corpus.package.STEP_UNIT


def offers_same_board_plays(corpus: Corpus) -> bool:
    """Whether ``corpus`` has boards played by several pairs (the contract's optional ``same_board_plays``), which
    Compare offers to pick from."""
    return optional(corpus.package, "same_board_plays") is not None


def _score(value) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.2f}"


def snapshot(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]) -> None:
    """The picture of the state (CoDraw target and canvas, both Game Of Sorts boards, the Minecraft build)."""
    st.image(cached.derived(snapshot_png, corpus, dialog_id, step, round_number), width="stretch", output_format="PNG")


def _details_view(corpus: Corpus):
    """(the ``derived`` function the corpus's details read, whether it takes the round) or None."""
    from ui.corpus_views import views_of

    details_function = views_of(corpus).state_details
    if details_function is codraw_details:
        from ui.replay_codraw import shown_round

        return shown_round, False
    if details_function is gos_details:
        from data_access.gos import replay_step as gos_step

        return gos_step, True
    if details_function is minecraft_details:
        from data_access.minecraft.view import replay_step as minecraft_step

        return minecraft_step, False
    return None


def prefetch_state(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int], n_steps: int) -> None:
    """Compute the neighbouring steps' picture and details in the background (``ui.replay_prefetch``)."""
    from ui.replay_prefetch import prefetch_neighbours

    prefetch_neighbours(corpus, dialog_id, step, n_steps, snapshot_png, round_number, with_round=True)
    details_view = _details_view(corpus)
    if details_view is not None:
        function, with_round = details_view
        prefetch_neighbours(corpus, dialog_id, step, n_steps, function, round_number, with_round=with_round)


def no_details(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]) -> None:
    """A corpus without details of its own shows its picture and transcript only."""


def codraw_details(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int] = None) -> None:
    """Stored and recomputed scores, the peek and the round's changes."""
    from ui.replay_codraw import peek_note, shown_round, stored_score_metric

    shown = cached.derived(shown_round, corpus, dialog_id, step)  # the round's view, its pictures as small PNGs
    view = None if shown is None else shown.view
    if view is None or view.problem:
        st.caption(md_escape(view.problem) if view is not None else "This round cannot be shown.")
        return
    peek_note(view)
    stored, reason = stored_score_metric(view)
    left, middle, right = st.columns(3)
    left.metric("Stored score", stored, help=reason)
    if view.score_status != "present":
        st.caption(md_escape(reason))
    middle.metric("Recomputed", _score(view.original.score if view.original else None),
                  help="The original metric recomputed from the scenes")
    right.metric("Final metric", _score(view.final.score if view.final else None), help="The paper's metric (max 5)")
    st.markdown(f"**Changes in round {view.step}:** " + ("none" if view.changes.empty else f"{len(view.changes)}"))
    if not view.changes.empty:
        st.dataframe(view.changes, hide_index=True, width="stretch", height=min(36 * (len(view.changes) + 1) + 2, 220))


def gos_details(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]) -> None:
    """The step's event and the ranks so far (nothing without a round)."""
    from data_access.gos import replay_step

    if round_number is None:
        return
    view = cached.derived(replay_step, corpus, dialog_id, step, round_number)
    if view is None:
        st.caption("This round cannot be shown.")
        return
    {"success": st.success, "warning": st.warning}.get(view.event_level, st.info)(md_escape(view.event))
    st.markdown(f"**Ranks so far:** {len(view.ranks)} of 9")
    if not view.ranks.empty:
        st.dataframe(view.ranks[["rank", "image", "at step"]], hide_index=True, width="stretch",
                     height=min(36 * (len(view.ranks) + 1) + 2, 220))


def minecraft_details(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int] = None) -> None:
    """Blocks, F1 to the target and the Builder's actions after the message."""
    from data_access.minecraft.view import replay_step

    view = cached.derived(replay_step, corpus, dialog_id, step)
    if view is None:
        st.caption("This game cannot be shown.")
        return
    metrics = st.columns(3)
    metrics[0].metric("Blocks", len(view.blocks))
    metrics[1].metric("Placed / removed", f"{len(view.placed)} / {len(view.removed)}")
    metrics[2].metric("F1 to target", "–" if math.isnan(view.f1) else f"{view.f1:.2f}")
    if view.actions.empty:
        st.caption("The Builder did not change the structure after this message.")
    else:
        st.dataframe(view.actions[["kind", "x", "y", "z", "color"]], hide_index=True, width="stretch",
                     height=min(36 * (len(view.actions) + 1) + 2, 220))


def details(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]) -> None:
    """What the Replay page shows around the picture, compactly (the corpus's ``state_details`` in
    ``ui.corpus_views``): scores and peek (CoDraw), the event and the ranks so far (A Game Of Sorts), blocks,
    F1 and actions (Minecraft)."""
    from ui.corpus_views import views_of

    views_of(corpus).state_details(corpus, dialog_id, step, round_number)


def step_caption(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int], n_steps: int) -> None:
    where = f"Round {round_number}, step" if round_number is not None else step_unit(corpus).capitalize()
    link = served(replay_link(corpus.name, dialog_id, step, round_number))
    st.caption(f"{where} {step} of {n_steps} · [open in Replay]({link})")


def step_lines(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]):
    """Every line of the dialog (or of the round): turn, speaker, role, text."""
    return cached.derived(snapshots.step_messages, corpus, dialog_id, 10**9, round_number, True)


def gos_lines(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]):
    """A Game Of Sorts round's transcript also lists the lock events (+ time), as on the Replay page."""
    if round_number is not None:
        from data_access.gos import replay_step

        view = cached.derived(replay_step, corpus, dialog_id, step, round_number)
        if view is not None:
            return view.transcript.rename(columns={"step": "turn", "player": "speaker", "event": "text"})
    return step_lines(corpus, dialog_id, step, round_number)


def dialog_lines(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]):
    """Every line of the dialog (or of the round), as the corpus shows them (its ``dialog_lines`` in
    ``ui.corpus_views``)."""
    from ui.corpus_views import views_of

    return views_of(corpus).dialog_lines(corpus, dialog_id, step, round_number)


def show_state(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int], n_steps: int,
               key: str, with_details: bool = True, show_all: bool = False, height: int = 320,
               with_picture: bool = True) -> None:
    """The snapshot of ``step``, its details, and the transcript up to it with the step's lines marked.
    Without ``with_picture`` (a step player shows the picture and the transcript), the caption and details."""
    if with_picture:
        snapshot(corpus, dialog_id, step, round_number)
    prefetch_state(corpus, dialog_id, step, round_number, n_steps)
    step_caption(corpus, dialog_id, step, round_number, n_steps)
    if with_details:
        details(corpus, dialog_id, step, round_number)
    if with_picture:
        transcript(dialog_lines(corpus, dialog_id, step, round_number), step, show_all, height=height,
                   unit=step_unit(corpus), key=key)
