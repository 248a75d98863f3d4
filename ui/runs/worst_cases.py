"""Worst cases first in the app: the Runs page's section (a run's units ranked worst first, or by the gap to a
second run or the humans, each a link into the Replay at the step where the run differs most from the
humans) and the Replay's case stepper ("Case k of n" with the previous and the next case). The ranking, the
steps and the case list a link carries are ``data_access.runs.worst_cases``; the list lives in the URL
(``cases``, ``case``, ``run``, ``vs``), so a link opens the same cases for anyone."""
from __future__ import annotations

import math
from typing import Optional

import pandas as pd
import streamlit as st

from data_access.corpus import Corpus
from data_access.links import parse_positive_int
from data_access.runs import analysis, worst_cases
from data_access.runs.worst_cases import CASE_PARAM, CASES_PARAM, MAX_CASES, VERSUS_PARAM
from ui import cached
from ui.replay.item_flow import Item, ItemList, item_flow
from ui.runs.picker import _loaded, humans_option, run_link
from ui.shell.url_state import page_link, query_param, served, url_list
from ui.widgets import download_buttons, md_escape, md_link_value

OWN_SCORE = "its own score"
REPLAY_PAGE = "pages/replay.py"


def _number(value, sign: bool = False) -> str:
    if value is None or pd.isna(value) or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:+.3f}" if sign else f"{value:.3f}"


def ranked_table(loaded_corpus, corpus: Corpus, key: cached.RunKey, versus_key: Optional[cached.RunKey],
                 humans: bool) -> pd.DataFrame:
    """The units of the run ``key`` worst first (against the run ``versus_key``, the humans on its own units when
    ``humans``, or its own score), each with the replay step it opens at. Cached by ``cached.derived``: the Runs
    page shows it at every rerun, and the Replay needs it at every step of a case. ``corpus``: the one
    ``loaded_corpus`` was loaded from, whose scored runs it reads."""
    run = cached.model_run(corpus, key)
    other = None
    if humans:
        other = analysis.units(run, humans=True)
    elif versus_key is not None:
        other = analysis.units(cached.model_run(corpus, versus_key))
    cases = worst_cases.ranked_cases(analysis.units(run), other)
    steps = worst_cases.worst_steps(loaded_corpus, run)
    return worst_cases.at_worst_steps(cases, steps)


def ranked(corpus: Corpus, runs: dict, run: str, versus: Optional[str]) -> pd.DataFrame:
    """The units of ``run`` worst first (against ``versus``: another run of ``runs``, the humans' option, or
    None for the run's own score), each with the replay step it opens at."""
    humans = versus == humans_option(corpus)
    versus_key = runs[versus][0] if versus is not None and not humans else None
    cases = cached.derived(ranked_table, corpus, corpus, runs[run][0], versus_key, humans)
    return cases.copy() if cases is not None else worst_cases.ranked_cases(analysis.units(runs[run][1]))


def _what(run: str, versus: Optional[str]) -> str:
    return f"the gap {md_escape(run)} − {md_escape(versus)}" if versus else f"{md_escape(run)}'s own score"


def _in_slice(corpus: Corpus, cases: pd.DataFrame, chosen) -> pd.DataFrame:
    """The ranked ``cases`` the URL's slice ``chosen`` (a ``DialogSelection``) keeps, said above them: a dialog slice's
    dialogs' units; a step slice's, the units whose step (the one each opens at) is one of its moments."""
    if chosen.steps is not None:
        kept = cases[worst_cases.at_moments(cases, chosen.steps)].reset_index(drop=True)
        st.caption(f"A step slice: only the units whose {corpus.package.STEP_UNIT} (the one each opens at, where the "
                   f"run differs most from the humans) is one of its {len(chosen.steps):,} moments, not every unit of "
                   f"their dialogs: {len(kept):,} of {len(cases):,} units.")
        return kept
    kept = cases[cases["dialog_id"].astype(str).isin(set(chosen.ids)).to_numpy()].reset_index(drop=True)
    st.caption(f"Only the units of the slice's {len(chosen.ids):,} dialogs: {len(kept):,} of {len(cases):,} units.")
    return kept


def worst_cases_section(corpus: Corpus, runs: dict, chosen=None) -> None:
    """The Runs page's "Worst cases first": pick a run and what to compare it with; the ranked units, each a link
    to its replay, and one link that steps through the first ``MAX_CASES`` in the Replay."""
    names = list(runs)
    left, right = st.columns(2)
    run = left.selectbox("Run", names, key=f"worst_run_{corpus.name}")
    options = [OWN_SCORE, *[n for n in names if n != run], humans_option(corpus)]
    key_versus = f"worst_versus_{corpus.name}"
    if st.session_state.get(key_versus) not in options:
        st.session_state[key_versus] = OWN_SCORE  # e.g. the run compared with became run A
    against = right.selectbox("Ranked against", options, key=key_versus,
                              help="Rank by the run's own unit score (lowest first), or by its gap to another run or "
                                   "the humans on the units both have (largest shortfall first).")
    versus = None if against == OWN_SCORE else against
    cases = ranked(corpus, runs, run, versus)
    if cases.empty:
        st.info(f"“{md_escape(run)}” and “{md_escape(versus)}” share no unit: there is no gap to rank by. Compare "
                f"with “{humans_option(corpus)}”, which is scored on the run's own units." if versus else
                f"“{md_escape(run)}” has no scored unit.")
        return
    if chosen is not None:  # the URL's slice: its dialogs' units, or a step slice's moments' units, in the same order
        cases = _in_slice(corpus, cases, chosen)
        if cases.empty:
            st.info("No ranked unit is in the slice.")
            return
    listed = worst_cases.capped(cases["unit"])
    spec = worst_cases.encode_cases(listed)
    package = corpus.package
    in_rounds = package.REPLAY_IN_ROUNDS
    shown = cases.head(len(listed)).copy()
    params = [worst_cases.case_params(corpus.name, row, run, spec, number, versus, in_rounds)
              for number, (_, row) in enumerate(shown.iterrows(), start=1)]
    # Each row opens its unit alone: carrying the list in every row would send the list a hundred times over.
    shown["open"] = [served(run_link(corpus, p["dialog"], parse_positive_int(p.get("turn")), parse_positive_int(p.get("round")), run))
                     for p in params]
    step_unit = package.STEP_UNIT
    columns = ["rank", "unit", "value", *(["other", "gap"] if versus else []), *(["round"] if in_rounds else []),
               "turn", "open"]
    st.dataframe(shown[columns], hide_index=True, width="stretch", column_config={
        "value": st.column_config.NumberColumn(run, format="%.3f"),
        "other": st.column_config.NumberColumn(versus or "", format="%.3f"),
        "gap": st.column_config.NumberColumn(f"{run} − {versus}", format="%+.3f"),
        "turn": st.column_config.NumberColumn(f"{step_unit} to open", help=f"The {step_unit} where the run differs "
                                              "most from the humans within the unit"),
        "open": st.column_config.LinkColumn("replay", display_text="open ▶")})
    cut = f"the first {len(listed):,} of {len(cases):,}" if len(listed) < len(cases) else f"all {len(cases):,}"
    st.caption(f"Units ranked by {_what(run, versus)}, "
               + ("largest shortfall first" if versus else "lowest first")
               + f"; ties by the run's own score, then by unit. Shown and stepped through: {cut} (a link carries at "
               f"most {MAX_CASES} cases); the whole ranking is in the downloads. Each case opens at the {step_unit} "
               "where the run differs most from the humans.")
    row = st.container(horizontal=True, vertical_alignment="center")
    page_link(REPLAY_PAGE, "Step through these in the Replay", params[0], container=row, icon=":material/skip_next:")
    with row.popover("Link to share", icon=":material/link:"):
        st.code(served(worst_cases.case_link(params[0])), language=None, wrap_lines=True)
    download_buttons(cases, f"worst-cases-{corpus.name}-{run}", "whole ranking")
    from ui.slices.current import make_slice_button

    dialogs = list(dict.fromkeys(shown["dialog_id"].astype(str)))
    make_slice_button(corpus, dialogs, key=f"worst_slice_{corpus.name}", label=f"Make a slice of the {len(dialogs):,} dialogs "
                      "of these cases")


def case_stepper(corpus: Corpus) -> None:
    """On the Replay opened from "Worst cases first" (``cases=…&case=k&run=…``): "Case k of n" with the run's
    score and gap there, and the previous and the next case (Enter), each opening at its worst step
    (``ui.replay.item_flow``)."""
    listed = worst_cases.decode_cases(query_param(CASES_PARAM))
    number = parse_positive_int(query_param(CASE_PARAM))
    if not listed or number is None:
        return
    number = min(number, len(listed))
    run = next(iter(url_list("run")), None)
    versus = query_param(VERSUS_PARAM)
    runs = {}
    for wanted in dict.fromkeys(w for w in (run, versus) if w and w != humans_option(corpus)):
        key, loaded = _loaded(corpus, wanted)
        if loaded is not None:
            runs[wanted] = (key, loaded)
    if run not in runs:
        st.caption(f"Case {number:,} of {len(listed):,}: choose the run the cases were ranked for to step through them.")
        return
    if versus is not None and versus != humans_option(corpus) and versus not in runs:
        st.warning(f"The link ranks the cases against “{md_link_value(versus)}”, which is not a run of this corpus "
                   f"here: showing {md_escape(run)}'s own scores.")
        versus = None
    cases = ranked(corpus, runs, run, versus).drop_duplicates("unit").set_index("unit", drop=False)
    unit = listed[number - 1]
    spec = worst_cases.encode_cases(listed)
    package = corpus.package
    in_rounds = package.REPLAY_IN_ROUNDS

    def params(target: Optional[int]) -> Optional[dict[str, str]]:
        if target is None or not 1 <= target <= len(listed) or listed[target - 1] not in cases.index:
            return None
        return worst_cases.case_params(corpus.name, cases.loc[listed[target - 1]], run, spec, target, versus, in_rounds)

    if unit in cases.index:
        case = cases.loc[unit]
        figures = f"score {_number(case['value'])}" + (f", gap {_number(case['gap'], sign=True)} against "
                                                        f"{md_escape(versus)}" if versus else "")
        step = "" if pd.isna(case["turn"]) else f"{package.STEP_UNIT} {int(case['turn'])}"
        if step and in_rounds and not pd.isna(case["round"]):
            step = f"round {int(case['round'])}, {step}"
        where = f"; opened at {step}, where the run differs most from the humans" if step else ""
        about = f"{md_escape(unit)} ({md_escape(run)}, {figures}){where}"
    else:
        about = f"{md_escape(unit)} is not among {md_escape(run)}'s units here."
    items = [Item(str(u)) for u in listed]
    item_flow(ItemList("Case", items, number, params, about=about, next_label="next case ▶",
                       previous_label="◀ previous case"))
