"""The Play page's parts: which corpus and dialog to play (a dialog of a split at random, of the URL's slice, or the
one a link names), from which seat, who plays (the signed-in identity, or the local user's name), and the play
itself: started (a write the store checks), resumed where it stopped, and summed up when it is over with a link to the
Replay with the play beside the humans. Deep link: ``/play?corpus=...&dialog=...`` (``&seat=`` where a dialog has
several; ``&human=1`` shows the human's move after one's own)."""
from __future__ import annotations

import random
from typing import Optional

import streamlit as st

from data_access import snapshots
from data_access.access import AccessRefused, Action, Identity
from data_access.contract import play_rules_of
from data_access.corpus import Corpus
from data_access.play import PlayScore, person_run_name
from data_access.play.game import PlayUnavailable
from data_access.store import Play, StoreError
from data_access.types import LoadedCorpus
from ui import cached
from ui.play.component import PAGE_RUN_BOX, moves_key, play_units, show_game
from ui.shell import auth
from ui.shell.corpus_views import PlayView, views_of
from ui.shell.reconnect import follow_page_run, fragment_run, full_run_after_reconnect, page_run_button
from ui.shell.run_mark import mark_run
from ui.shell.url_state import page_link, publish, query_param, seed, url_toggle
from ui.widgets import md_escape, md_link_value

PICKER_SIZE = 200  # dialogs the picker lists at once, around the one chosen (a selectbox sends them all every run)
ALL_SPLITS = "all splits"


def game_of(corpus: Corpus) -> Optional[PlayView]:
    """The corpus's game when it can be played in the browser (play rules and a game view), else None."""
    view = views_of(corpus).play
    return view if view is not None and play_rules_of(corpus.package) is not None else None


def play_link(corpus: Corpus, dialog_id: Optional[str], container=None) -> None:
    """The Replay's "Play this dialog": the Play page on the dialog shown, when the corpus can be played."""
    if dialog_id is None or game_of(corpus) is None or dialog_id not in (cached.shared(playable_set, corpus) or ()):
        return
    page_link("pages/play.py", "Play this dialog", {"corpus": corpus.name, "dialog": dialog_id}, container=container,
              icon=":material/sports_esports:")


# ------------------------------------------------------------------------------------------- what to play

def playable(loaded: LoadedCorpus) -> tuple[str, ...]:
    return tuple(play_rules_of(loaded).playable(loaded))  # type: ignore[union-attr]  # asked only of a playable corpus


def playable_set(loaded: LoadedCorpus) -> frozenset[str]:
    return frozenset(playable(loaded))


def seats_of(loaded: LoadedCorpus, dialog_id: str) -> list[str]:
    return play_rules_of(loaded).seats(loaded, dialog_id)  # type: ignore[union-attr]


def split_of(loaded: LoadedCorpus) -> dict[str, str]:
    """dialog -> its split, for the playable dialogs (shared: a corpus's dialogs are not hashed nor copied per run)."""
    dialogs = loaded.dialogs
    splits = dict(zip(dialogs["dialog_id"].astype(str), dialogs["split"].astype(str)))
    return {dialog_id: splits.get(dialog_id, "") for dialog_id in playable(loaded)}


def _pick_at_random(key: str, candidates: list[str]) -> None:
    if candidates:
        st.session_state[key] = random.choice(candidates)


def choose_dialog(corpus: Corpus) -> Optional[tuple[str, str]]:
    """(dialog, seat) to play, kept in the URL (``dialog``, ``seat``), or None when there is none."""
    from ui.slices.current import current_outcome, said, slice_ids

    ids: tuple[str, ...] = cached.shared(playable, corpus) or ()
    if not ids:
        st.info(f"{corpus.title} has no dialog to play here.")
        return None
    in_slice = slice_ids(corpus) if said(current_outcome(corpus)) else None
    if in_slice is not None:
        kept = set(in_slice)
        narrowed = tuple(d for d in ids if d in kept)
        st.caption(f"From the slice: {len(narrowed):,} of its {len(in_slice):,} dialogs can be played."
                   if narrowed else "None of the slice's dialogs can be played; choosing among all.")
        ids = narrowed or ids
    splits_of = cached.shared(split_of, corpus) or {}
    by_split: dict[str, list[str]] = {}
    for dialog_id in ids:
        by_split.setdefault(splits_of.get(dialog_id, ""), []).append(dialog_id)
    key = f"play_dialog_{corpus.name}"
    requested = query_param("dialog")
    if requested is not None and requested not in ids:
        st.warning(f"The link asks to play “{md_link_value(requested)}”, which is not a dialog of {corpus.title} that "
                   "can be played here.")
    seed(key, "dialog", str)
    if st.session_state.get(key) not in ids:
        st.session_state[key] = ids[0]
    split_column, random_column, pick_column = st.columns([1, 1, 3], vertical_alignment="bottom")
    splits = [ALL_SPLITS, *sorted(s for s in by_split if s)] if len(by_split) > 1 else [ALL_SPLITS]
    split = split_column.selectbox("Split", splits, key=f"play_split_{corpus.name}")
    candidates = list(ids) if split == ALL_SPLITS else by_split.get(split, [])
    random_column.button("Pick one at random", on_click=_pick_at_random, args=(key, candidates),
                         key=f"play_random_{corpus.name}", icon=":material/casino:")
    labels = cached.shared(snapshots.dialog_choices, corpus) or {}
    listed, _ = snapshots.dialog_window({d: labels.get(d, d) for d in ids}, st.session_state[key], "", PICKER_SIZE)
    dialog_id = pick_column.selectbox("Dialog", listed, key=key, format_func=lambda d: labels.get(d, d))
    publish(key, "dialog", dialog_id)
    seats = cached.derived(seats_of, corpus, dialog_id) or []
    if not seats:
        st.info("This dialog cannot be played.")
        return None
    if len(seats) == 1:
        publish(f"play_seat_{corpus.name}", "seat", None)
        return dialog_id, seats[0]
    seat_key = f"play_seat_{corpus.name}_{dialog_id}"
    seed(seat_key, "seat", str)
    if st.session_state.get(seat_key) not in seats:
        st.session_state[seat_key] = seats[0]
    seat = st.selectbox("Play as", seats, key=seat_key, help="Each player saw the board in their own layout.")
    publish(seat_key, "seat", None if seat == seats[0] else seat)
    return dialog_id, seat


# ---------------------------------------------------------------------------------------------- who plays

def _local_name() -> str:
    """The local user's name (no sign-in): a text box, remembered for the session as the coder name is."""
    widget = "play_player_name"
    if widget not in st.session_state:
        st.session_state[widget] = auth.current_coder()
    name = " ".join(st.text_input("Your name", key=widget, max_chars=80,
                                  help="The play is kept under it, as the run person:<name>; the same rules as a "
                                       "coder's name (not gold, not model:…).").split())
    st.session_state["coder"] = name
    return name


def player() -> tuple[Identity, str]:
    """(who writes, the name the play is kept under)."""
    if auth.sign_in_configured():
        person = auth.identity()
        st.caption(f"Playing as **{md_escape(person.coder)}**" if person.coder else "Not playing: sign in first.")
        return person, person.coder
    name = _local_name()
    return auth.identity(name), name


# ------------------------------------------------------------------------------------------------- the play

def _start(corpus: Corpus, dialog_id: str, seat: str, name: str, restart_of: Optional[int]) -> None:
    from data_access.play.game import start
    from ui.play.component import say
    from ui.store import shared_store

    loaded = cached.corpus(corpus)
    if isinstance(loaded, cached.LoadFailure):
        return
    try:
        store = shared_store()
        person = auth.identity(name)
        if restart_of is not None:
            store.plays.abandon(restart_of, actor=person)
        start(store, loaded, dialog_id, seat, player=name, actor=person)
    except (AccessRefused, StoreError, PlayUnavailable, ValueError) as exc:
        say(f"play_game_{corpus.name}", str(exc))
        st.session_state["play_start_refused"] = str(exc)


def play_area(corpus: Corpus, view: PlayView, dialog_id: str, seat: str) -> None:
    """The play of ``dialog_id`` from ``seat`` by this session's player: started, resumed or summed up."""
    from ui.store import opened, remembered

    rules = play_rules_of(corpus.package)
    assert rules is not None  # the page plays only a corpus with rules (game_of)
    person, name = player()
    may = auth.allowed(Action.WRITE_OWN, "playing")
    refused = st.session_state.pop("play_start_refused", None)
    if refused:
        st.error(md_escape(refused), icon=":material/block:")
    if may and not name:
        st.info("Type your name to play: the play is kept under it.")
        return
    store = opened("Play")
    if store is None:
        return
    play: Optional[Play] = remembered(f"play_{corpus.name}_{dialog_id}_{seat}",
                                      lambda: store.plays.latest(corpus.name, dialog_id, seat, name) if name else None,
                                      None, "Play")
    show_human = url_toggle("Show the human's move after mine", param="human", key="play_show_human",
                            help="For demos: after each Done, the move the human made at that step.")
    if play is None or (play.finished and st.session_state.get("play_again") == (dialog_id, seat)):
        st.session_state.pop("play_again", None)
        st.button(f"Start playing as the {rules.ROLE}" if len(seats_of_corpus(corpus, dialog_id)) == 1
                  else f"Start playing as {seat}", type="primary", disabled=not may, key="play_start",
                  on_click=_start, args=(corpus, dialog_id, seat, name, None), icon=":material/play_arrow:")
        return
    moves: list = remembered(f"play_moves_{play.id}", lambda: store.plays.moves(play.id), [], "Play")
    why_not = "" if may else "You cannot play here (see above): nothing is saved."
    full_run_after_reconnect()
    page_run_button(PAGE_RUN_BOX, "play_page_run")  # hidden: what the game clicks when a Done got no answer
    score = _game(corpus, view, play, moves, may, why_not, show_human, name, rules)
    if play.finished:
        if score is not None:
            _summary(corpus, play, moves, score, may, name)
    elif may:
        st.button("Start over", key="play_restart", on_click=_start, args=(corpus, dialog_id, seat, name, play.id),
                  help="Leave this play (it stays in the store, but is no one's run) and start the dialog again.")


# The game is a fragment: a Done runs the game alone (the step saved, the next step and its score), not the page's
# picker, name and links, which a step does not change. A Done that ends the play (its summary) or finds the play
# moved on in another tab runs the whole page (its callback wants the page's run: ``reconnect.want_page_run``).
@st.fragment
def _game(corpus: Corpus, view: PlayView, play: Play, moves: list, may: bool, why_not: str, show_human: bool,
          name: str, rules) -> Optional[PlayScore]:
    from ui.store import opened, remembered

    follow_page_run()
    alone = fragment_run()
    if alone:  # the play as the store has it now (the arguments are the page's last run's)
        store = opened("Play")
        if store is None:
            return None
        play = remembered(f"play_now_{play.id}", lambda: store.plays.play(play.id), play, "Play")
        moves = remembered(f"play_moves_{play.id}", lambda: store.plays.moves(play.id), moves, "Play")
    score = show_game(corpus, view, play, moves, can_play=may, why_not=why_not, show_human=show_human,
                      person=lambda: auth.identity(name), rules=rules)
    if alone:
        mark_run()  # the run is over (app.py marks the page's runs; ui/shell/run_mark.py)
    return score


def seats_of_corpus(corpus: Corpus, dialog_id: str) -> list[str]:
    return cached.derived(seats_of, corpus, dialog_id) or []


def _summary(corpus: Corpus, play: Play, moves: list, score, may: bool, name: str) -> None:
    """The play's summary: its score beside the humans', its units, the Replay with it, Play again."""
    st.success(f"Played: {play.n_steps} {md_escape(play_rules_of(corpus.package).STEP_UNIT)}s. "  # type: ignore[union-attr]
               f"Your score: {score.score:.3f}" + (f" (the human: {score.human:.3f})" if score.human == score.human else ""),
               icon=":material/emoji_events:")
    units = cached.derived(play_units, corpus, play.dialog_id, play.seat, moves_key(moves))
    if units is not None and len(units):
        st.dataframe(units, hide_index=True, width="stretch")
    run = person_run_name(play.player)
    params = {"corpus": corpus.name, "dialog": play.dialog_id, "turn": "1", "run": run}
    if corpus.package.REPLAY_IN_ROUNDS:
        params["round"] = "1"
    page_link("pages/replay.py", "Open the Replay with your play beside the humans", params,
              icon=":material/compare_arrows:")
    st.caption(f"Your plays of {corpus.title} are the run “{md_escape(run)}” on the Model runs page too, beside the "
               "models and the humans.")
    if may:
        st.button("Play again", key="play_again_button",
                  on_click=lambda: st.session_state.__setitem__("play_again", (play.dialog_id, play.seat)))
