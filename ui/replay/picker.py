"""The one dialog picker: a dialog of a corpus (labelled with split and length, or game and players), and
for A Game Of Sorts its round — seeded from the URL, written back to it, used by Replay, Compare and Present.

A step in the URL belongs to the dialog and round it was linked with: when the link names a dialog that is
not loaded, or the reader switches dialog or round, the step parameters are dropped, so the new dialog
starts at its first step instead of inheriting another dialog's ``turn=3``."""
from __future__ import annotations

from typing import Optional, Sequence

import streamlit as st

from data_access import snapshots
from data_access.corpus import Corpus
from data_access.links import HIGHLIGHT_PARAM, parse_positive_int
from ui import cached
from ui.shell.url_state import drop_params, forget_widget, linked, publish, query_param, remember_link, seed, set_url
from ui.widgets import md_escape, md_link_value

PICKER_SIZE = 1000  # dialogs a picker lists at once (a search box finds the others)
_SLOT = "_dialog_picker_slot"


def dialog_picker_in(container) -> None:
    """The next dialog picker of this run that keeps its dialog in the URL's ``dialog`` and has no container of
    its own draws into ``container``, compactly (its labels as placeholders): the Replay's header row, where the
    page's title, the corpus picker and the dialog finder share one line."""
    st.session_state[_SLOT] = container


def _steps_label(corpus: Corpus, dialog_id: str, compact: bool = False):
    def label(round_number: int) -> str:
        steps = cached.derived(snapshots.step_count, corpus, dialog_id, round_number)
        return f"R{round_number} · {steps}" if compact else f"Round {round_number} ({steps} steps)"
    return label


def dialog_picker(corpus: Corpus, key: str, label: str = "Dialog", *, param: Optional[str] = "dialog",
                  round_param: str = "round", step_params: Sequence[str] = ("turn", HIGHLIGHT_PARAM), default_index: int = 0,
                  plays: Optional[list[tuple[str, int]]] = None, container=None) -> tuple[Optional[str], Optional[int]]:
    """(dialog id, round or None). With ``param`` the choice lives in the URL under ``param`` and
    ``round_param``; ``plays`` restricts the choice to given (dialog, round) plays of A Game Of Sorts."""
    compact = container is None and param == "dialog" and st.session_state.get(_SLOT) is not None
    if compact:
        container = st.session_state.pop(_SLOT)
    where = container or st
    choices: dict[str, str] = cached.shared(snapshots.dialog_choices, corpus) or {}
    if not choices:
        where.info("This corpus has no dialogs to show.")
        return None, None
    if plays is not None:
        return _play_picker(where, choices, key, label, plays, param, round_param, step_params)
    if param in ("dialog", "left", "right"):  # Replay's, Present's and Compare's pickers offer the URL's slice
        from ui.slices.current import slice_choices

        choices = slice_choices(corpus, choices, query_param(param))

    ids = list(choices)
    requested = query_param(param) if param else None
    if requested is not None and requested not in choices:
        where.warning(f"The link asks for dialog “{md_link_value(requested)}”, which is not in the loaded corpus; "
                      f"showing “{md_escape(ids[min(default_index, len(ids) - 1)])}” from its first step instead.")
        drop_params(param, round_param, *step_params)  # type: ignore[arg-type]  # param is set: requested came from it
        forget_widget(key)
        requested = None
    if param:
        seed(key, param, str)
    large = len(ids) > PICKER_SIZE
    if large and st.session_state.get(key) not in (None, *choices):
        _take_typed(choices, key, linked(key) if param else None)
    if key not in st.session_state or st.session_state[key] not in choices:
        st.session_state[key] = ids[min(default_index, len(ids) - 1)]
    pick_in = round_in = where
    rounds_beside = not large and _has_rounds(corpus, st.session_state.get(key, ids[0]))
    if rounds_beside and (container is None or compact):  # the round beside the dialog: the step keeps the screen
        pick_in, round_in = where.columns([1.6, 3] if compact else [3, 2], gap="small")
    shown = "collapsed" if compact else "visible"
    if large:
        # A selectbox sends all its options to the browser on every rerun: past a few thousand dialogs that is
        # the slowest part of a replay step, so a large corpus offers a window of them and a search box (beside
        # the list on a page's top level: the step below keeps the screen).
        if container is None or compact:
            where, pick_in = where.columns([2, 3], gap="small")
        typed = str(st.session_state.get(f"{key}_find") or "")
        ids, matching = snapshots.dialog_window(choices, st.session_state[key], typed, PICKER_SIZE)
        listed = (f"{matching:,} of {len(choices):,} dialogs match; {min(matching, PICKER_SIZE):,} listed."
                  if typed.strip() else f"{len(ids):,} of {len(choices):,} dialogs listed, around the current one.")
        where.text_input(f"Find a {label.lower()}", key=f"{key}_find", on_change=_open_found, args=(choices, key),
                         placeholder=f"Find a {label.lower()}: id, split or words" if compact
                         else "id, split or words of its label", label_visibility=shown,
                         help=f"The list shows {PICKER_SIZE:,} dialogs at a time: those around the current one, or "
                              f"the first that match what you type. {listed}")
        if not compact:
            where.caption(listed)
    # Over a window of a large corpus, what is typed into the list itself may name a dialog it does not show:
    # accepted as a new option, it is looked up among all of them on the next run (``_take_typed``).
    dialog_id = pick_in.selectbox(label, ids, key=key, format_func=lambda d: choices.get(d, d), label_visibility=shown,
                                accept_new_options=large, filter_mode="contains" if large else "fuzzy")
    if param:
        if query_param(param) not in (None, dialog_id):  # the reader picked another dialog
            drop_params(round_param, *step_params)
        publish(key, param, dialog_id)

    rounds = cached.derived(snapshots.rounds_of, corpus, dialog_id)
    if not rounds or rounds == [None]:
        if param:
            drop_params(round_param)
        return dialog_id, None
    return dialog_id, _round_picker(round_in, corpus, dialog_id, rounds, f"{key}_round_{dialog_id}",
                                    round_param if param else None, step_params, shown)


def _has_rounds(corpus: Corpus, dialog_id: str) -> bool:
    rounds = cached.derived(snapshots.rounds_of, corpus, dialog_id)
    return bool(rounds) and rounds != [None]


def _open_found(choices: dict[str, str], key: str) -> None:
    """What was typed into the Find box names one dialog (its id, or the only one that matches): it opens, rather
    than the list saying "1 of 9,993 dialogs match" while the old dialog stays on screen."""
    found = snapshots.typed_dialog(choices, str(st.session_state.get(f"{key}_find") or ""))
    if found is not None:
        st.session_state[key] = found


def _take_typed(choices: dict[str, str], key: str, current: Optional[str]) -> None:
    """What the reader typed into a large picker's list (a value it did not list): the dialog it names, or, when
    it names none or several, the current dialog again with the text in the Find box, which lists the matches."""
    typed = str(st.session_state[key])
    found = snapshots.typed_dialog(choices, typed)
    if found is None:
        st.session_state[f"{key}_find"] = typed.strip()
        found = current
    if found in choices:
        st.session_state[key] = found
    else:
        st.session_state.pop(key)


def _round_picker(where, corpus: Corpus, dialog_id: str, rounds: list[int], key: str, param: Optional[str],
                  step_params: Sequence[str], shown: str = "visible") -> int:
    if param:
        requested = query_param(param)
        if requested is not None and linked(key) != requested and parse_positive_int(requested) not in rounds:
            where.warning(f"The link asks for round “{md_link_value(requested)}”, but this dialog has rounds {rounds[0]} to "
                          f"{rounds[-1]}; showing round {rounds[0]} from its first step.")
            drop_params(param, *step_params)
        else:
            seed(key, param, parse_positive_int)
    if st.session_state.get(key) not in rounds:
        st.session_state[key] = rounds[0]
    choice = where.radio("Round", rounds, key=key, horizontal=True, label_visibility=shown,
                         format_func=_steps_label(corpus, dialog_id, compact=shown == "collapsed"),
                         help="Each round with its number of steps" if shown == "collapsed" else None)
    if param:
        if query_param(param) not in (None, str(choice)):  # the reader picked another round
            drop_params(*step_params)
        publish(key, param, choice)
    return int(choice)


def _play_picker(where, choices: dict[str, str], key: str, label: str, plays: list[tuple[str, int]],
                 param: Optional[str], round_param: str, step_params: Sequence[str]):
    options = [f"{d}|{r}" for d, r in plays]
    if not options:
        where.info("No other play of this board.")
        return None, None
    play_key = f"{key}_play"
    if param:
        wanted = f"{query_param(param)}|{query_param(round_param)}"
        if wanted in options and linked(play_key) != wanted:
            st.session_state[play_key] = wanted
            remember_link(play_key, wanted)
    if st.session_state.get(play_key) not in options:
        st.session_state[play_key] = options[0]
    picked = where.selectbox(label, options, key=play_key,
                             format_func=lambda o: f"{choices.get(o.split('|')[0], o)} · round {o.split('|')[1]}")
    dialog_id, round_text = picked.split("|")
    if param:
        if (query_param(param), query_param(round_param)) not in ((None, None), (dialog_id, round_text)):
            drop_params(*step_params)
        set_url(**{param: dialog_id, round_param: round_text})
        remember_link(play_key, picked)  # the play, dialog and round together, as the URL said it above
    return dialog_id, int(round_text)
