"""The shared snapshot view: one replay state drawn compactly (the picture, what changed and how it
scores, what was said), for the Compare and Present pages."""
from __future__ import annotations

from typing import Optional

import streamlit as st

from data_access import snapshots
from data_access.contract import optional
from data_access.corpus import Corpus
from data_access.links import replay_link
from data_access.snapshots import snapshot_png
from ui import cached
from ui.replay.transcript import transcript
from ui.shell.url_state import served


def step_unit(corpus: Corpus) -> str:
    """What one replay step of ``corpus`` is called (its package's ``STEP_UNIT``)."""
    return corpus.package.STEP_UNIT


def offers_same_board_plays(corpus: Corpus) -> bool:
    """Whether ``corpus`` has boards played by several pairs (the contract's optional ``same_board_plays``), which
    Compare offers to pick from."""
    return optional(corpus.package, "same_board_plays") is not None


def snapshot(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]) -> None:
    """The picture of the state (CoDraw target and canvas, both Game Of Sorts boards, the Minecraft build)."""
    st.image(cached.derived(snapshot_png, corpus, dialog_id, step, round_number), width="stretch", output_format="PNG")


def prefetch_state(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int], n_steps: int) -> None:
    """Compute the neighbouring steps' picture and details in the background (``ui.replay.prefetch``)."""
    from ui.replay.prefetch import prefetch_neighbours
    from ui.shell.corpus_views import views_of

    prefetch_neighbours(corpus, dialog_id, step, n_steps, snapshot_png, round_number, with_round=True)
    views_of(corpus).prefetch_details(corpus, dialog_id, step, round_number, n_steps)


def no_details(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]) -> None:
    """A corpus without details of its own shows its picture and transcript only."""


def no_prefetch(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int], n_steps: int) -> None:
    """A corpus without details of its own has nothing of them to compute ahead."""


def details(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]) -> None:
    """What the Replay page shows around the picture, compactly: the corpus's ``state_details`` (its views,
    ``ui.shell.corpus_views``), nothing for a corpus without."""
    from ui.shell.corpus_views import views_of

    views_of(corpus).state_details(corpus, dialog_id, step, round_number)


def step_caption(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int], n_steps: int) -> None:
    where = f"Round {round_number}, step" if round_number is not None else step_unit(corpus).capitalize()
    link = served(replay_link(corpus.name, dialog_id, step, round_number))
    st.caption(f"{where} {step} of {n_steps} · [open in Replay]({link})")


def step_lines(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]):
    """Every line of the dialog (or of the round): turn, speaker, role, text."""
    return cached.derived(snapshots.step_messages, corpus, dialog_id, 10**9, round_number, True)


def dialog_lines(corpus: Corpus, dialog_id: str, step: int, round_number: Optional[int]):
    """Every line of the dialog (or of the round), as the corpus shows them (its ``dialog_lines`` in
    ``ui.shell.corpus_views``)."""
    from ui.shell.corpus_views import views_of

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
