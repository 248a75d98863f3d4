"""The game on the Play page: one inline ``st.components.v2`` component per corpus (``ui/assets/play.js``, the shell
every game shares, followed by the corpus's own game, ``CorpusViews.play``), what it is sent, and its "Done".

Every move is drawn in the browser. "Done" sends the step's move (trigger ``done``, with a token the shell counts);
the callback checks it with the corpus's rules and saves it in the store (``data_access.play.submit_step``: the
store checks who writes and that the play is at that step, so a second tab cannot fork it), before the page runs
again and sends the next step with the play's score: the play's moves written in the corpus's run format and scored
by the corpus's ``RunScoring`` (``data_access.play.score_moves``), cached per play and moves. A token answered once
is not saved again (a Done the shell re-sends after a dropped connection).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Optional

import streamlit as st

from data_access.access import AccessRefused
from data_access.corpus import Corpus
from data_access.play import PlayScore, person_run_name, play_file_name, rules_of, run_text, score_moves, submit_step
from data_access.play.scoring import dialog_corpus
from data_access.store import Play, PlayConflict, StoreError
from data_access.types import LoadedCorpus
from ui import cached
from ui.assets import asset_text
from ui.shell.corpus_views import PlayView
from ui.shell.reconnect import want_page_run
from ui.shell.url_state import served

if TYPE_CHECKING:
    import pandas as pd

PAGE_RUN_BOX = "play_page_run_box"  # the hidden "Run the page again" (ui.shell.reconnect; play.css hides it)
MAX_DONE_BYTES = 512 * 1024  # what one Done may send (a step's move is stored within 256 kB)
_COMPONENTS: dict[str, Any] = {}


def play_media_url(key: str, data: bytes, mimetype: str = "image/png") -> str:
    """A picture of a game (a CoDraw clip-art piece, a Game Of Sorts tile) on Streamlit's media endpoint, as the
    browser requests it: the same bytes keep the same URL, so the browser fetches each picture once. A run of the
    page must name it again (call this again) for it to stay served."""
    from streamlit import runtime

    return served(runtime.get_instance().media_file_mgr.add(data, mimetype, f"play:{key}"))


def _component(corpus: Corpus, view: PlayView):
    name = re.sub(r"[^a-z0-9_]", "_", corpus.name.lower())
    if name not in _COMPONENTS:
        _COMPONENTS[name] = st.components.v2.component(
            f"dialogue_play_{name}", css=asset_text("play.css") + "\n" + view.style(),
            js=asset_text("play.js") + "\n" + view.script(), isolate_styles=False)
    return _COMPONENTS[name]


# ------------------------------------------------------------------------------ what the rules give, cached

def moves_key(moves: list) -> str:
    """The moves of a play as one string: the key of what is cached about the play so far."""
    return json.dumps(moves, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def play_setup(loaded: LoadedCorpus, dialog_id: str, seat: str) -> dict:
    return rules_of(loaded).setup(loaded, dialog_id, seat)


def step_view(loaded: LoadedCorpus, dialog_id: str, seat: str, step: int, moves: str) -> dict:
    """What the browser needs at ``step``, read from the dialog's own rows (its cut corpus, kept for the play's next
    steps: ``dialog_corpus``), not by filtering the whole corpus at every Done."""
    return rules_of(loaded).step_view(dialog_corpus(loaded, dialog_id), dialog_id, seat, step, json.loads(moves))


@dataclass(frozen=True)
class PlayOutcome:
    """A play so far, scored as a run once: its score and its run file's text."""

    score: PlayScore
    run_file: str


def play_outcome(loaded: LoadedCorpus, dialog_id: str, seat: str, moves: str) -> PlayOutcome:
    """The play whose steps were ``moves`` scored as a run (``score_moves``), and its run file."""
    played = json.loads(moves)
    lines = rules_of(loaded).run_lines(loaded, dialog_id, seat, played)  # written once: scored, and downloaded
    _run, score = score_moves(loaded, dialog_id, seat, played, lines)
    return PlayOutcome(score, run_text(lines))


def play_units(loaded: LoadedCorpus, dialog_id: str, seat: str, moves: str) -> "pd.DataFrame":
    """The play's units as the corpus scores them (a CoDraw dialog, an A Game Of Sorts round, a Minecraft sample)
    beside the humans' (their own doing scores 1 where it is the gold): the summary of a finished play, so not
    reckoned at every Done."""
    import pandas as pd

    from data_access.contract import scoring_of

    run, _score = score_moves(loaded, dialog_id, seat, json.loads(moves))
    units = pd.DataFrame()
    if run.frames:
        scoring = scoring_of(loaded)
        mine, humans = scoring.units(run), scoring.units(run, humans=True)
        units = mine[[c for c in ("unit", "turn", "round") if c in mine.columns]].copy()
        units["you"], units["the humans"] = mine["value"].to_numpy(), humans["value"].to_numpy()
    return units


# ------------------------------------------------------------------------------------------------- Done

def _answered_key(key: str) -> str:
    return f"{key}__answered"


def _message_key(key: str) -> str:
    return f"{key}__message"


def _redraw_key(key: str) -> str:
    return f"{key}__redraw"


def say(key: str, message: str, kind: str = "error") -> None:
    """A line the game shows under its Done (a refusal, a conflict), on its next run."""
    st.session_state[_message_key(key)] = (message, kind)


def _on_done(corpus: Corpus, key: str, play_id: int, reply: bool, person) -> None:
    from ui.store import shared_store

    state = st.session_state.get(key) or {}
    payload = state.get("done") if hasattr(state, "get") else None
    if not isinstance(payload, dict):
        return
    token = str(payload.get("token"))[:100]
    if token == st.session_state.get(_answered_key(key)):
        return  # sent again after it was saved: answered already
    st.session_state[_answered_key(key)] = token
    if len(json.dumps(payload, default=str)) > MAX_DONE_BYTES:
        say(key, f"Not saved: one step sends at most {MAX_DONE_BYTES:,} bytes.")
        return
    step, move = payload.get("step"), payload.get("move")
    if isinstance(step, bool) or not isinstance(step, int):
        say(key, "Not saved: the step sent is not a step number.")
        return
    if reply and isinstance(move, dict):
        move = {**move, "reply": payload.get("reply") if isinstance(payload.get("reply"), str) else ""}
    loaded = cached.corpus(corpus)
    if isinstance(loaded, cached.LoadFailure):
        say(key, f"Not saved: {loaded.message}")
        return
    try:
        store = shared_store()
        saved = submit_step(store, loaded, store.plays.play(play_id), step, move, actor=person())
        if saved.finished:
            want_page_run()  # the page sums the play up
    except PlayConflict as exc:
        st.session_state[_redraw_key(key)] = st.session_state.get(_redraw_key(key), 0) + 1
        want_page_run()  # the play moved on in another tab: maybe ended, or left
        say(key, f"{exc} The play as the store has it is shown.", "info")
    except AccessRefused as exc:
        say(key, str(exc))
    except StoreError as exc:
        say(key, f"Not saved: the store cannot be used ({exc}). Your move is still on the board; press Done again.")
    except ValueError as exc:
        say(key, f"Not saved: {exc}.")


def show_game(corpus: Corpus, view: PlayView, play: Play, moves: list, *, can_play: bool, why_not: str,
              show_human: bool, person, rules) -> PlayScore:
    """The game of ``play`` (whose saved steps are ``moves``) at its next step; its score."""
    key = f"play_game_{corpus.name}"
    moves_text = moves_key(moves)
    step = min(play.next_step, play.n_steps + 1)
    setup = view.setup(corpus, cached.derived(play_setup, corpus, play.dialog_id, play.seat))
    outcome: Optional[PlayOutcome] = cached.derived(play_outcome, corpus, play.dialog_id, play.seat, moves_text)
    score = outcome.score if outcome is not None else PlayScore(float("nan"), 0)
    message, kind = st.session_state.pop(_message_key(key), (None, None))
    data = {
        "token": f"{corpus.name}|{play.dialog_id}|{play.seat}|{play.id}",
        "setup": setup,
        "view": cached.derived(step_view, corpus, play.dialog_id, play.seat, step, moves_text),
        "step": step, "n_steps": play.n_steps, "unit": rules.STEP_UNIT, "finished": play.finished,
        "score": None if score.score != score.score else score.score, "score_label": rules.SCORE_LABEL,
        "human": None if score.human != score.human else score.human,
        "figures": [[name, _number(yours), _number(human)] for name, yours, human in score.figures],
        "message": message, "message_kind": kind, "answered": st.session_state.get(_answered_key(key)),
        "redraw": st.session_state.get(_redraw_key(key), 0),
        "can_play": can_play, "why_not": why_not, "done_label": view.done_label, "reply": view.reply,
        "show_human": show_human,
        "export": {"name": play_file_name(play.player), "text": outcome.run_file} if moves and outcome else None,
        "run": person_run_name(play.player), "page_run": PAGE_RUN_BOX,
    }
    _component(corpus, view)(data=data, key=key, on_done_change=partial(_on_done, corpus, key, play.id, view.reply,
                                                                        person))
    return score


def _number(value: float) -> Optional[float]:
    return None if value != value else float(value)
