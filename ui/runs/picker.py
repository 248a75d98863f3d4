"""Model runs in the app: the run picker (kept in the URL as ``run``, comma-separated when several runs are
shown), the runs of a corpus loaded, and the replay panel that shows up to four runs side by side beside the
human and the target, each by its corpus's run panel (``ui.shell.corpus_views``). The Runs page's sections are in
``ui.runs.sections`` and ``ui.runs.leaderboard``, the Data page's in ``ui.runs.data_page``. Everything computed comes
from ``data_access.runs`` through ``ui.cached`` (``model_run``, ``run_derived``)."""
from __future__ import annotations

from typing import Optional
from urllib.parse import quote

import streamlit as st

from data_access.corpus import Corpus
from data_access.links import parse_positive_int, replay_link
from data_access.runs import RUNS_VARIABLE, analysis
from ui import cached
from ui.replay.prefetch import neighbours, prefetch
from ui.shell.corpus_views import views_of
from ui.shell.url_state import linked, publish, remember_link
from ui.widgets import md_escape, md_link_value, query_param

NONE = "(no run)"
MAX_REPLAY_RUNS = 4  # runs side by side in the Replay: more would leave each too narrow to read


def run_link(corpus: Corpus, dialog_id: str, turn: Optional[int], round_: Optional[int], run: Optional[str]) -> str:
    """A replay link with ``run`` (one run's name, or several joined by commas, each quoted on its own)."""
    link = replay_link(corpus.name, dialog_id, turn, round_ if corpus.package.REPLAY_IN_ROUNDS else None)
    return f"{link}&run={','.join(quote(part, safe='') for part in run.split(','))}" if run else link


def _quoted_names(names: list[str]) -> str:
    return ", ".join(f"“{md_link_value(n)}”" for n in names)


def pick_runs(corpus: Corpus, key: str = "replay_run", label: str = "Show a model's output beside the humans") -> list[str]:
    """The Replay's runs: a selectbox for the first (as a single-run link has always opened it) and a
    multiselect for up to ``MAX_REPLAY_RUNS - 1`` more, all kept in the URL as ``run=a,b,c``. Names in a link
    that are no run of the corpus are named in a warning and dropped; more than four keep the first four."""
    keys = list(cached.run_keys(corpus))
    if not keys:
        return []
    more_key = f"{key}_more"
    requested = query_param("run")
    if requested is not None and linked(key) != requested:
        asked = list(dict.fromkeys(n for n in requested.split(",") if n))
        unknown = [n for n in asked if n not in keys]
        known = [n for n in asked if n in keys]
        if len(unknown) == 1:
            st.warning(f"The link asks for run {_quoted_names(unknown)}, which is not a run of {corpus.title} here.")
        elif unknown:
            st.warning(f"The link asks for runs {_quoted_names(unknown)}, which are not runs of {corpus.title} here.")
        if len(known) > MAX_REPLAY_RUNS:
            st.warning(f"The link asks for {len(known)} runs; the Replay shows at most {MAX_REPLAY_RUNS} side by side: "
                       f"{_quoted_names(known[:MAX_REPLAY_RUNS])}.")
            known = known[:MAX_REPLAY_RUNS]
        if known:
            st.session_state[key], st.session_state[more_key] = known[0], known[1:]
        remember_link(key, requested)
    first = st.selectbox(label, [NONE] + keys, key=key)
    chosen = [] if first == NONE else [first]
    if chosen:
        others = [k for k in keys if k != first]
        # a run that became the first, or is gone, leaves the list (a multiselect refuses values it does not offer)
        st.session_state[more_key] = [r for r in st.session_state.get(more_key, []) if r in others][:MAX_REPLAY_RUNS - 1]
        if others:
            chosen += st.multiselect(f"More runs side by side (up to {MAX_REPLAY_RUNS - 1})", others, key=more_key,
                                     max_selections=MAX_REPLAY_RUNS - 1)
    publish(key, "run", ",".join(chosen) or None)
    return chosen


def _loaded(corpus: Corpus, run: str):
    keys = cached.run_keys(corpus)
    if run not in keys:
        return None, None
    result = cached.model_run(corpus, keys[run])
    if isinstance(result, cached.LoadFailure):
        st.error(f"The run could not be loaded: {md_escape(result.message)}", icon="⚠️")
        return None, None
    return keys[run], result


# ----------------------------------------------------------------------------------------------- replay

def _chosen_runs(corpus: Corpus) -> list[str]:
    """The runs the Replay shows: as its run picker holds them in this session, else as the URL names them (the
    picker is drawn under the replay, after the player that shows them)."""
    keys = cached.run_keys(corpus)
    if "replay_run" in st.session_state:
        first = st.session_state["replay_run"]
        names = [] if first == NONE else [first, *st.session_state.get("replay_run_more", [])]
    else:
        names = list(dict.fromkeys(n for n in (query_param("run") or "").split(",") if n))
    return [n for n in names if n in keys][:MAX_REPLAY_RUNS]


def runs_beside_steps(corpus: Corpus) -> None:
    """The chosen runs' pictures of each step beside the humans' in the Replay's step player (up to four runs,
    each by its corpus's ``run_pictures``): the model's output is in the first screen and steps with the player."""
    runs = _chosen_runs(corpus)
    if not runs or not cached.run_keys(corpus):
        return
    from data_access.player import Picture
    from ui.replay.step_player import beside_steps

    in_rounds = bool(corpus.package.REPLAY_IN_ROUNDS)
    keys = cached.run_keys(corpus)
    shown = views_of(corpus).run_pictures

    def pictures(step: int) -> tuple:
        dialog, round_ = query_param("dialog"), parse_positive_int(query_param("round")) if in_rounds else None
        if dialog is None:
            return ()
        out = []
        for run in runs:
            if isinstance(cached.model_run(corpus, keys[run]), cached.LoadFailure):
                continue  # the run panel under the replay says why
            view = cached.run_derived(analysis.replay_view, corpus, keys[run], dialog, step, round_)
            if view is not None:
                out += [Picture(png, caption) for caption, png in shown(corpus, view, step)]
        return tuple(out)

    beside_steps("runs:" + ",".join(runs), pictures)


def replay_panel(corpus: Corpus) -> None:
    """Below a replay: the chosen runs' state at this step beside the human's and the target, with scores (one
    run as it has always been shown; several side by side, each by the same per-run pieces)."""
    dialog, turn = query_param("dialog"), parse_positive_int(query_param("turn"))
    round_ = parse_positive_int(query_param("round"))
    st.divider()
    st.subheader("Model run")
    if not cached.run_keys(corpus):
        st.caption(f"No runs for {corpus.title}: put run files in `{RUNS_VARIABLE}/{corpus.name}/` or upload one on the "
                   "Runs page.")
        return
    runs = pick_runs(corpus)
    if not runs or dialog is None or turn is None:
        return
    shown = []
    package = corpus.package
    in_rounds = bool(package.REPLAY_IN_ROUNDS)
    for run in runs:
        key, loaded = _loaded(corpus, run)
        if loaded is None:
            continue
        if in_rounds and round_ is None:
            return
        view = cached.run_derived(analysis.replay_view, corpus, key, dialog, turn, round_ if in_rounds else None)
        if view is None:
            st.info(f"This {package.STEP_UNIT} is not in the corpus.")
            return
        for neighbour in neighbours(turn, turn + 1):  # the next step's panel, computed while this one is read
            prefetch(cached.run_derived, analysis.replay_view, corpus, key, dialog, neighbour, round_ if in_rounds else None)
        shown.append(view)
    if len(shown) == 1:
        views_of(corpus).run_panel(corpus, shown[0], dialog, turn)
    elif shown:
        views_of(corpus).run_side_by_side(corpus, shown, dialog, turn)


def loaded_runs(corpus: Corpus) -> dict:
    """run name -> (its key, LoadedRun) for every run of the corpus that loads; failures shown as one line each."""
    runs = {}
    for run, key in cached.run_keys(corpus).items():
        result = cached.model_run(corpus, key)
        if isinstance(result, cached.LoadFailure):
            st.error(f"Run “{md_escape(run)}” could not be loaded: {md_escape(result.message)}", icon="⚠️")
        else:
            runs[run] = (key, result)
    return runs


def humans_option(corpus: Corpus) -> str:
    """How the humans are offered as "Run B": CoDraw's human Drawers are scored like a run; in the corpora whose
    gold is the humans' own doing (Minecraft, Game Of Sorts) they are offered as "gold", which scores 1."""
    return analysis.HUMANS if corpus.scoring.HAS_HUMANS else "gold"
