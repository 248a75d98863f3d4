"""Model runs in the app: the run picker (kept in the URL as ``run``, comma-separated when several runs are
shown), the replay panel that shows up to four runs side by side beside the human and the target, and the
sections of the Runs page. Everything computed comes from
``data_access.runs`` through ``ui.cached`` (``model_run``, ``run_derived``)."""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Optional, Sequence
from urllib.parse import quote

import pandas as pd
import streamlit as st

from data_access.codraw.run_views import CodrawRunView
from data_access.common import CORPUS_TITLES, skipped_total
from data_access.contract import RunStepView
from data_access.corpora import cached_summary_if_any, corpus_module
from data_access.gos.run_views import GosRunView
from data_access.links import parse_positive_int, replay_link
from data_access.minecraft.run_views import NET_ACTION_HELP, MinecraftRunView, scores_and_marks
from data_access.runs import RUNS_VARIABLE, analysis, save_upload
from ui import auth, cached
from ui.replay_prefetch import neighbours, prefetch
from ui.share import latex_table_download
from ui.url_state import linked, publish, remember_link, served
from ui.widgets import download_buttons, md_escape, md_link_value, query_param, skipped_count

NONE = "(no run)"
MAX_REPLAY_RUNS = 4  # runs side by side in the Replay: more would leave each too narrow to read


def _number(value, digits: int = 3) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def run_link(corpus: str, dialog_id: str, turn: Optional[int], round_: Optional[int], run: Optional[str]) -> str:
    """A replay link with ``run`` (one run's name, or several joined by commas, each quoted on its own)."""
    link = replay_link(corpus, dialog_id, turn, round_ if corpus_module(corpus).REPLAY_IN_ROUNDS else None)
    return f"{link}&run={','.join(quote(part, safe='') for part in run.split(','))}" if run else link


def _quoted_names(names: list[str]) -> str:
    return ", ".join(f"“{md_link_value(n)}”" for n in names)


def pick_runs(name: str, key: str = "replay_run", label: str = "Show a model's output beside the humans") -> list[str]:
    """The Replay's runs: a selectbox for the first (as a single-run link has always opened it) and a
    multiselect for up to ``MAX_REPLAY_RUNS - 1`` more, all kept in the URL as ``run=a,b,c``. Names in a link
    that are no run of the corpus are named in a warning and dropped; more than four keep the first four."""
    keys = list(cached.run_keys(name))
    if not keys:
        return []
    more_key = f"{key}_more"
    requested = query_param("run")
    if requested is not None and linked(key) != requested:
        asked = list(dict.fromkeys(n for n in requested.split(",") if n))
        unknown = [n for n in asked if n not in keys]
        known = [n for n in asked if n in keys]
        if len(unknown) == 1:
            st.warning(f"The link asks for run {_quoted_names(unknown)}, which is not a run of {CORPUS_TITLES[name]} here.")
        elif unknown:
            st.warning(f"The link asks for runs {_quoted_names(unknown)}, which are not runs of {CORPUS_TITLES[name]} here.")
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


def _loaded(name: str, run: str):
    keys = cached.run_keys(name)
    if run not in keys:
        return None, None
    result = cached.model_run(name, keys[run])
    if isinstance(result, cached.LoadFailure):
        st.error(f"The run could not be loaded: {md_escape(result.message)}", icon="⚠️")
        return None, None
    return keys[run], result


# ----------------------------------------------------------------------------------------------- replay

def replay_panel(name: str) -> None:
    """Below a replay: the chosen runs' state at this step beside the human's and the target, with scores (one
    run as it has always been shown; several side by side, each by the same per-run pieces)."""
    dialog, turn = query_param("dialog"), parse_positive_int(query_param("turn"))
    round_ = parse_positive_int(query_param("round"))
    st.divider()
    st.subheader("Model run")
    if not cached.run_keys(name):
        st.caption(f"No runs for {CORPUS_TITLES[name]}: put run files in `{RUNS_VARIABLE}/{name}/` or upload one on the Runs page.")
        return
    runs = pick_runs(name)
    if not runs or dialog is None or turn is None:
        return
    shown = []
    for run in runs:
        key, loaded = _loaded(name, run)
        if loaded is None:
            continue
        if corpus_module(name).REPLAY_IN_ROUNDS and round_ is None:
            return
        view = cached.run_derived(analysis.replay_view, name, key, dialog, turn,
                                  round_ if corpus_module(name).REPLAY_IN_ROUNDS else None)
        if view is None:
            st.info(f"This {corpus_module(name).STEP_UNIT} is not in the corpus.")
            return
        for neighbour in neighbours(turn, turn + 1):  # the next step's panel, computed while this one is read
            prefetch(cached.run_derived, analysis.replay_view, name, key, dialog, neighbour,
                     round_ if corpus_module(name).REPLAY_IN_ROUNDS else None)
        shown.append(view)
    if len(shown) == 1:
        RUN_PANELS.get(type(shown[0]), _step_view_panel)(name, shown[0], dialog, turn)
    elif shown:
        SIDE_BY_SIDE_PANELS.get(type(shown[0]), _step_views_side_by_side)(name, shown, dialog, turn)


def _step_view_panel(name: str, view: RunStepView, dialog: str, turn: int) -> None:
    """A run's view in the contract's common form (``contract.RunStepView``): pictures, scores, a note."""
    if view.note:
        st.info(view.note)
    if view.scores:
        columns = st.columns(len(view.scores))
        for column, (metric, value) in zip(columns, view.scores.items()):
            column.metric(metric, _number(value))
    if view.pictures:
        columns = st.columns(len(view.pictures))
        for column, (caption, png) in zip(columns, view.pictures):
            column.image(png, caption=md_escape(caption), width="stretch", output_format="PNG")


def _step_views_side_by_side(name: str, shown: list, dialog: str, turn: int) -> None:
    """Several runs in the contract's common form, one column each, each shown by ``_step_view_panel``."""
    for column, view in zip(st.columns(len(shown)), shown):
        with column:
            st.markdown(f"**{md_escape(view.run)}**")
            _step_view_panel(name, view, dialog, turn)


def _codraw_canvas(panel, turn: int, narrow: bool = False) -> None:
    """One canvas (the human's or a run's) marked against the target, with its scores under both metrics (in a
    ``narrow`` column one under the other when they do not fit side by side, never cut short)."""
    if panel.png is not None:
        st.image(panel.png, caption=f"{md_escape(panel.title)} after round {turn}", width="stretch", output_format="PNG")
    else:
        st.info(panel.note)
    left, right = [st.container(horizontal=True, gap="small")] * 2 if narrow else st.columns(2)
    left.metric("Paper's metric", _number(panel.score_final))
    right.metric("Original metric", _number(panel.score_original))


def _codraw_marks_and_final(shown: list) -> None:
    st.caption("Marked against the target: green correct · orange misplaced (arrow from the target position) · "
               "blue wrong pose, flip or depth · dashed red missing · magenta extra.")
    with st.expander("Clip art marked against the target"):
        columns = st.columns(1 + len(shown))
        columns[0].markdown("**Human**")
        columns[0].dataframe(shown[0].human.marks, hide_index=True, width="stretch")
        for column, view in zip(columns[1:], shown):
            column.markdown(f"**Model ({md_escape(view.run)})**")
            column.dataframe(view.model.marks, hide_index=True, width="stretch")
    for view in shown:
        final = view.final
        if final:
            st.caption(("" if len(shown) == 1 else f"{md_escape(view.run)}: ")
                       + f"Final drawing (last non-empty canvas): model round {final.get('final_round')}, paper's metric "
                       f"{_number(final.get('final_score'))} · human round {final.get('human_final_round')}, "
                       f"{_number(final.get('human_final_score'))}.")


def _codraw_panel(name: str, view, dialog: str, turn: int) -> None:
    _codraw_side_by_side(name, [view], dialog, turn)


def _codraw_side_by_side(name: str, shown: list, dialog: str, turn: int) -> None:
    """Target, the human's canvas and each run's canvas in one row, each canvas with its scores."""
    columns = st.columns(2 + len(shown))
    columns[0].image(shown[0].target_png, caption="Target", width="stretch", output_format="PNG")
    for column, panel in zip(columns[1:], (shown[0].human, *(view.model for view in shown))):
        with column:
            _codraw_canvas(panel, turn, narrow=len(shown) > 1)
    _codraw_marks_and_final(shown)


def _minecraft_panel(name: str, view, dialog: str, turn: int) -> None:
    """One run at a BAP sample: its scores, then its predicted structure beside the human's as server-drawn
    pictures (one frame), or as the interactive 3D figures behind the replay's ``view3d=1`` toggle."""
    from data_access.minecraft.run_views import gold_figure, model_figure

    if view.sample_id is None:
        st.info(view.note)
        if view.sample_turns:
            links = " · ".join(f"[utterance {t} (sample {s})]({served(run_link(name, dialog, t, None, view.run))})"
                               for s, t in view.sample_turns if t > 0)
            st.markdown(f"Samples of this game in the run: {links}")
        return
    _minecraft_scores(view, st.columns(5))
    left, right = st.columns(2)
    if query_param("view3d") == "1":
        left.plotly_chart(model_figure(view), width="stretch", key=f"run_model_{dialog}_{turn}")
        right.plotly_chart(gold_figure(view), width="stretch", key=f"run_gold_{dialog}_{turn}")
        marked = (f"solid correct ({view.counts['correct']}), magenta-edged extra ({view.counts['extra']}), grey ghosts "
                  f"missing ({view.counts['missing']})")
    else:
        left.image(view.model_png, width="stretch", output_format="PNG", caption=f"Model ({md_escape(view.run)}): predicted structure")
        right.image(view.gold_png, width="stretch", output_format="PNG", caption="Human (gold) structure after the sample")
        marked = (f"solid correct ({view.counts['correct']}), black-outlined extra ({view.counts['extra']}), outlined "
                  f"ghosts missing ({view.counts['missing']})")
    st.caption(f"BAP sample {view.sample_id}: the model's structure after its predicted actions, blocks marked against "
               f"the human (gold) structure: {marked}. {scores_and_marks(view)}")


def _minecraft_scores(view, cells: Sequence) -> None:
    """A run's net-action scores of the sample, one metric per cell (columns, or one container five times)."""
    scores = view.scores
    cells[0].metric("Net-action F1", _number(scores["f1"]))
    cells[1].metric("Precision", _number(scores["precision"]))
    cells[2].metric("Recall", _number(scores["recall"]))
    cells[3].metric("TP / FP / FN", f"{scores['tp']} / {scores['fp']} / {scores['fn']}", help=NET_ACTION_HELP)
    cells[4].metric("Infeasible actions", f"{scores['infeasible']} of {scores['n_actions']}")


def _minecraft_side_by_side(name: str, shown: list, dialog: str, turn: int) -> None:
    """Each run's predicted structure after the sample as the server-drawn picture (no WebGL scene per run),
    marked against the human's, with its scores; the human's build and target are the pictures above."""
    for column, view in zip(st.columns(len(shown)), shown):
        with column:
            st.markdown(f"**{md_escape(view.run)}**")
            if view.sample_id is None:
                st.info(view.note)
                continue
            scores = st.container(horizontal=True, gap="small")
            _minecraft_scores(view, [scores] * 5)
            st.image(view.model_png, width="stretch", output_format="PNG",
                     caption=f"{md_escape(view.run)}, BAP sample {view.sample_id}: correct {view.counts['correct']} · "
                             f"extra {view.counts['extra']} · missing {view.counts['missing']} blocks")
            st.caption(scores_and_marks(view))
    st.caption("Each run's structure after its predicted actions, marked against the human (gold) structure: "
               "solid correct, black-outlined extra, outlined ghosts missing.")


def _gos_panel(name: str, view, dialog: str, step: int) -> None:
    if view.message_number is None:
        st.info(view.note)
        return
    st.markdown(f"Message {view.message_number}:")
    st.text(view.text)
    if view.note:
        st.info(view.note)
    left, right = st.columns(2)
    left.markdown(_gos_predicted(view))
    right.markdown(_gos_gold(view))
    _gos_run_scores_and_boards(view, st.columns(4) if view.scores and not view.scores["gold_empty"] else [])
    st.caption("Green frame = gold image · magenta inner frame = the model's image, on both players' boards.")


def _gos_predicted(view) -> str:
    return "**Model says it refers to:** " + (", ".join(md_escape(i) for i in view.predicted) or "no image")


def _gos_gold(view) -> str:
    return "**Gold (the sender's own marking):** " + (", ".join(md_escape(i) for i in view.gold) or "no image")


def _gos_run_scores_and_boards(view, cells: Sequence) -> None:
    """A run's scores of the message (one metric per cell) and both boards with its images marked."""
    if view.scores and not view.scores["gold_empty"]:
        cells[0].metric("Exact set", "yes" if view.scores["exact"] else "no")
        cells[1].metric("Precision", _number(view.scores["precision"]))
        cells[2].metric("Recall", _number(view.scores["recall"]))
        cells[3].metric("F1", _number(view.scores["f1"]))
    elif view.scores:
        st.caption("Gold is empty here: " + ("the model names an image anyway." if view.scores["names_image"] else "the model names none either."))
    columns = st.columns(len(view.boards) or 1)
    for column, (username, png) in zip(columns, view.boards):
        column.image(png, caption=f"Board of {md_escape(username)}", width="stretch", output_format="PNG")


def _gos_side_by_side(name: str, shown: list, dialog: str, step: int) -> None:
    """The message and its gold once, then per run (one column each) its images, scores and marked boards."""
    first = shown[0]
    if first.message_number is None:
        st.info(first.note)
        return
    st.markdown(f"Message {first.message_number}:")
    st.text(first.text)
    st.markdown(_gos_gold(first))
    for column, view in zip(st.columns(len(shown)), shown):
        with column:
            st.markdown(f"**{md_escape(view.run)}**")
            if view.note:
                st.info(view.note)
            st.markdown(_gos_predicted(view))
            scores = st.container(horizontal=True, gap="small")
            _gos_run_scores_and_boards(view, [scores] * 4)
    st.caption("Green frame = gold image · magenta inner frame = the run's image, on both players' boards.")


# The run views with a panel of their own (by the type ``RunScoring.replay_view`` returns); any other is shown
# by ``_step_view_panel``.
RUN_PANELS = {CodrawRunView: _codraw_panel, MinecraftRunView: _minecraft_panel, GosRunView: _gos_panel}
# The same for several runs side by side (the list of views); any other by ``_step_views_side_by_side``.
SIDE_BY_SIDE_PANELS = {CodrawRunView: _codraw_side_by_side, MinecraftRunView: _minecraft_side_by_side,
                       GosRunView: _gos_side_by_side}


# ------------------------------------------------------------------------------------------- runs page

def upload_box(name: str) -> None:
    """The uploader of run files, for those who may add runs (a caption says why not to the others)."""
    if not auth.allowed(auth.Action.ADD_RUN, "uploading runs"):
        return
    uploaded = st.file_uploader(f"Add a run of {CORPUS_TITLES[name]} (formats: docs/formats.md)",
                                type=["jsonl", "json", "gz", "txt"], key=f"upload_{name}")
    if uploaded is None:
        return
    marker = f"uploaded_{name}_{uploaded.name}_{uploaded.size}"
    if st.session_state.get(marker):
        st.success(md_escape(st.session_state[marker]))
        return
    from data_access.runs import replaces_upload, upload_dir

    uploads = Path(upload_dir(name)).resolve()
    # demo and configured runs keep their names: an upload of one of them is refused, never silently hidden
    taken = {run for run, key in cached.run_keys(name).items() if Path(key.file).resolve().parent != uploads}
    earlier = replaces_upload(name, uploaded.name)
    try:
        path = save_upload(name, uploaded.name, uploaded.getvalue(), actor=auth.writer(), taken=taken)
    except auth.AccessRefused as exc:  # its message says who, what and why ("Not allowed: …")
        st.error(md_escape(str(exc)))
        return
    except (ValueError, OSError) as exc:
        st.error(md_escape(f"Not saved: {exc}"))
        return
    cached.forget_run_keys(name)
    said = f"Saved as {path.name}" + (f", replacing the earlier upload {earlier}." if earlier else ".")
    st.session_state[marker] = said
    st.success(md_escape(said))


def collisions_box(name: str) -> None:
    """Every run file left out because its name is taken, said (names are unique, nothing is hidden)."""
    from data_access.runs import run_name_collisions

    for message in run_name_collisions(name, cached.source_key(name).is_demo):
        st.warning(md_escape(message), icon="⚠️")


def uploads_box(name: str) -> None:
    """The runs uploaded in the browser; each that this session may remove (its own, or any for an admin) has
    a button that removes it (a run that fails to load too)."""
    from data_access.runs import folder_runs, remove_upload, upload_dir, upload_owner

    uploads = folder_runs(upload_dir(name))
    if not uploads:
        return
    person = auth.writer()
    row = st.container(horizontal=True, gap="small", vertical_alignment="center")
    row.caption("Uploaded:")
    for run in uploads:
        owner = upload_owner(name, run) or ""
        if not person.may(auth.Action.CHANGE_RUN, owner):
            row.caption(md_escape(run) + (f" ({md_escape(owner)}'s)" if owner else ""))
            continue
        if row.button(md_escape(run), icon=":material/delete:", key=f"remove_upload_{name}_{run}",
                      help=f"Remove the uploaded run {md_escape(run)}"):
            try:
                remove_upload(name, run, actor=person)
            except auth.AccessRefused as exc:
                st.error(md_escape(str(exc)))
                return
            cached.forget_run_keys(name)
            for key in [k for k in st.session_state if str(k).startswith(f"uploaded_{name}_")]:
                del st.session_state[key]  # the same file may then be uploaded again
            st.rerun()


# The widgets of the page's views whose choice a reader makes once (the runs compared, what a slice or a ranking is
# compared with, the slice opened), each keyed "<prefix>_<corpus>".
VIEW_CHOICES = ("compare_a", "compare_b", "slice_a", "slice_b", "slice_pick", "worst_run", "worst_versus")


def keep_view_choices(name: str) -> None:
    """Keep the choices made in the Runs page's views while another view is open: only the open view is drawn,
    and Streamlit forgets the value of a widget on a run that does not draw it (so back on "Compare two runs",
    Run B would be the default again). Writing a value back to its own key makes it the session's, not the
    widget's, and the widget takes it when it is drawn again. AppTest keeps such values anyway, so the check
    is a browser test (tests/e2e/test_runs_browser.py)."""
    state = st.session_state
    for prefix in VIEW_CHOICES:
        key = f"{prefix}_{name}"
        if key in state:
            state[key] = state[key]


def loaded_runs(name: str) -> dict:
    """name -> LoadedRun for every run of the corpus that loads; failures shown as one line each."""
    runs = {}
    for run, key in cached.run_keys(name).items():
        result = cached.model_run(name, key)
        if isinstance(result, cached.LoadFailure):
            st.error(f"Run “{md_escape(run)}” could not be loaded: {md_escape(result.message)}", icon="⚠️")
        else:
            runs[run] = (key, result)
    return runs


def metrics_section(name: str, runs: dict) -> None:
    tables = [analysis.metric_table(loaded) for _, loaded in runs.values()]
    table = pd.concat(tables, ignore_index=True).drop_duplicates(["run", "split", "metric"], keep="first")
    table["interval (95%)"] = [f"{_number(lo)} – {_number(hi)}" if not math.isnan(lo) else "—" for lo, hi in zip(table["low"], table["high"])]
    st.dataframe(table[["run", "split", "metric", "n", "value", "interval (95%)"]], hide_index=True, width="stretch",
                 column_config={"value": st.column_config.NumberColumn(format="%.4f")})
    note = analysis.scoring(name).METRIC_NOTE
    st.caption(note)
    download_buttons(table.drop(columns=["interval (95%)"]), f"runs-{name}-metrics")
    latex_table_download(table.drop(columns=["interval (95%)"]), note, f"runs-{name}-metrics", digits=3)


def _links(name: str, frame: pd.DataFrame, run: str) -> list[str]:
    """A replay link (with the run) per unit row: dialog, its turn and (Game Of Sorts) round."""
    def number(value):
        return None if value is None or pd.isna(value) else int(value)
    rounds = frame["round"] if "round" in frame.columns else [None] * len(frame)
    return [served(run_link(name, d, number(t), number(r), run)) for d, t, r in zip(frame["dialog_id"], frame["turn"], rounds)]


def humans_option(name: str) -> str:
    """How the humans are offered as "Run B": CoDraw's human Drawers are scored like a run; in the corpora whose
    gold is the humans' own doing (Minecraft, Game Of Sorts) they are offered as "gold", which scores 1."""
    return analysis.HUMANS if analysis.scoring(name).HAS_HUMANS else "gold"


def default_partner(name: str, runs: dict, a: str) -> str:
    """The first other run that shares units with run ``a``, else the humans on ``a``'s own units: the pair the
    comparison opens with is never an empty one (e.g. a val-split and a test-split run)."""
    shared = set(analysis.units(runs[a][1])["unit"])
    for other in runs:
        if other != a and shared & set(analysis.units(runs[other][1])["unit"]):
            return other
    return humans_option(name)


COMPARED_ROWS = 200  # the comparison's table: the units with the largest differences


def comparison_figures(loaded_corpus, key_a, key_b, humans: bool) -> tuple:
    """Run A against run B (the humans on A's units when ``humans``): the paired bootstrap, each side's number
    of units and the ``COMPARED_ROWS`` units of largest difference. Cached by ``cached.derived``: the bootstrap
    over every unit (10,000 CoDraw dialogs, 2,000 resamples) would otherwise be drawn again at every rerun of
    the page."""
    run_a, run_b = cached.model_run(loaded_corpus.corpus, key_a), cached.model_run(loaded_corpus.corpus, key_b)
    units_a = analysis.units(run_a)
    units_b = analysis.units(run_b, humans=True) if humans else analysis.units(run_b)
    result = analysis.paired_bootstrap(units_a, units_b, loaded_corpus.corpus)
    return result, len(units_a), len(units_b), analysis.paired_units(units_a, units_b).head(COMPARED_ROWS)


def comparison_section(name: str, runs: dict) -> None:
    names = list(runs)
    left, right = st.columns(2)
    a = left.selectbox("Run A", names, key=f"compare_a_{name}")
    others = [n for n in names if n != a] + [humans_option(name)]
    key_b = f"compare_b_{name}"
    if st.session_state.get(f"{key_b}__for") != a or st.session_state.get(key_b) not in others:
        st.session_state[key_b] = default_partner(name, runs, a)  # a new run A opens with a pair that shares units
        st.session_state[f"{key_b}__for"] = a
    b = right.selectbox("Run B", others, key=key_b)
    humans = b == humans_option(name)
    result, n_a, n_b, paired = cached.derived(comparison_figures, name, runs[a][0], runs[a if humans else b][0], humans)
    if result["n"] == 0:
        st.warning(f"“{md_escape(a)}” ({n_a:,} units) and “{md_escape(b)}” ({n_b:,} units) share no "
                   "unit (e.g. one run is of the val split, the other of the test split): there is nothing to "
                   f"compare. Pick another run B, or “{humans_option(name)}”, which is scored on run A's own units.")
        return
    statistic = analysis.scoring(name).STATISTIC_LABEL
    cols = st.columns(3)
    cols[0].metric(f"A: {md_escape(a)}", _number(result["a"]))
    cols[1].metric(f"B: {md_escape(b)}", _number(result["b"]))
    cols[2].metric("A − B", _number(result["difference"]),
                   help="95% paired bootstrap interval: the same resampled units for both runs")
    st.caption(f"{statistic} on the {result['n']:,} units both have; A − B 95% paired bootstrap interval "
               f"{_number(result['low'])} to {_number(result['high'])}.")
    latex_table_download(pd.DataFrame([{"run A": a, "run B": b, "units": result["n"], "A": result["a"], "B": result["b"],
                                        "difference": result["difference"], "low": result["low"], "high": result["high"]}]),
                         f"{statistic}: run A vs run B, A − B with its 95% paired bootstrap interval.", f"runs-{name}-{a}-vs-{b}",
                         digits=3, column_names={"difference": "A − B"})
    paired = analysis.with_turns(paired, cached.derived(analysis.unit_turns, name))
    paired["open"] = _links(name, paired, a)
    shown = paired[["unit", "value_a", "value_b", "difference", "open"]]
    st.dataframe(shown, hide_index=True, width="stretch",
                 column_config={"open": st.column_config.LinkColumn("replay", display_text="open ▶"),
                                "value_a": st.column_config.NumberColumn(f"A ({a})", format="%.3f"),
                                "value_b": st.column_config.NumberColumn(f"B ({b})", format="%.3f"),
                                "difference": st.column_config.NumberColumn("A − B", format="%+.3f")})
    st.caption(f"Largest differences first (first {COMPARED_ROWS}).")


def slice_table(loaded_corpus, key_a, key_b, humans: bool) -> pd.DataFrame:
    """The slice finder's table of run A: against its own overall score (``key_b`` None), run B, or the humans on
    A's units. Cached by ``cached.derived``, as every rerun of the page shows it."""
    features = cached.run_derived(analysis.slice_features, loaded_corpus.corpus, key_a)
    other = None
    if key_b is not None:
        run_b = cached.model_run(loaded_corpus.corpus, key_b)
        other = analysis.units(run_b, humans=True) if humans else analysis.units(run_b)
    return analysis.slice_gaps(features, loaded_corpus.corpus, other)


def slice_section(name: str, runs: dict) -> None:
    names = list(runs)
    left, right = st.columns(2)
    a = left.selectbox("Run", names, key=f"slice_a_{name}")
    against = right.selectbox("Compared with", ["its own overall score"] + [n for n in names if n != a]
                              + (["humans"] if analysis.scoring(name).HAS_HUMANS else []), key=f"slice_b_{name}")
    features = cached.run_derived(analysis.slice_features, name, runs[a][0])
    other = None if against == "its own overall score" else against
    key_b = None if other is None else runs[a if against == "humans" else against][0]
    gaps = cached.derived(slice_table, name, runs[a][0], key_b, against == "humans")
    if gaps.empty:
        st.caption("No slice has at least 3 units.")
        return
    st.caption("Every value of each domain feature, ranked by the largest gap between the slice and the whole "
               + ("(the run's own statistic)." if other is None else f"(difference {md_escape(a)} − {md_escape(against)})."))
    st.dataframe(gaps, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%+.3f" if c == "gap" else "%.3f")
                                for c in ("value", "overall", "gap")})
    # The choice is the slice itself ("feature = value"), never its row: the rows reorder when "Compared with"
    # changes, and a remembered row number would then list another slice's dialogs under the old label.
    slices = {f"{f} = {s}": (f, s, n, g) for f, s, n, g in zip(gaps["feature"], gaps["slice"], gaps["n"], gaps["gap"])}
    key = f"slice_pick_{name}"
    if st.session_state.get(key) not in slices:
        st.session_state[key] = next(iter(slices))
    picked = st.selectbox("Open a slice's dialogs", list(slices), key=key)
    feature, level, count, gap = slices[picked]
    st.caption(f"{md_escape(picked)}: {count:,} units, gap {gap:+.3f}"
               + ("." if other is None else f" ({md_escape(a)} − {md_escape(against)})."))
    members = analysis.with_turns(features[features[feature] == level], cached.derived(analysis.unit_turns, name))
    members = members.assign(open=_links(name, members, a))
    st.dataframe(members[["unit", "value", "open"]], hide_index=True, width="stretch",
                 column_config={"open": st.column_config.LinkColumn("replay", display_text="open ▶"),
                                "value": st.column_config.NumberColumn(f"{a}", format="%.3f")})


# ------------------------------------------------------------------------------------------- leaderboard

LEADERBOARD_COLUMNS = ["rank", "run", "units", "score", "low", "high", "humans", "shared_with_best", "p_holm",
                       "below_best", "model", "date", "description", "link"]


def _sidecar_stamps(run_keys: tuple) -> tuple:
    """The modification time of each run's sidecar (0 without one), so an edited sidecar is read again."""
    from pathlib import Path

    from data_access.runs.leaderboard import META_SUFFIX, run_name

    stamps = []
    for key in run_keys:
        sidecar = Path(key.file).with_name(run_name(key.file) + META_SUFFIX)
        try:
            stamps.append(sidecar.stat().st_mtime_ns)
        except OSError:
            stamps.append(0)
    return tuple(stamps)


def leaderboard_tables(loaded_corpus, run_keys: tuple, sidecar_stamps: tuple = ()) -> dict:
    """split -> the leaderboard table of the runs ``run_keys`` (``data_access.runs.leaderboard``), with each
    run's sidecar (``<run>.meta.json``) as plain-text columns. Cached by ``cached.derived`` (``sidecar_stamps``
    only keys the entry)."""
    from pathlib import Path

    from data_access.runs.leaderboard import leaderboard, run_meta

    runs, metas = [], {}
    for key in run_keys:
        loaded = cached.model_run(loaded_corpus.corpus, key)
        if isinstance(loaded, cached.LoadFailure):
            continue
        runs.append(loaded)
        metas[loaded.name] = run_meta(Path(key.file))[0]
    tables: dict[str, list[dict]] = {}
    for entry in leaderboard(runs, metas=metas):
        meta = entry.meta or {}
        for split, figures in entry.splits.items():
            tables.setdefault(split, []).append({"run": entry.run, **figures, **{k: meta.get(k, "") for k in
                                                                                 ("model", "date", "description", "link")}})
    return {split: pd.DataFrame(rows).sort_values(["rank", "run"], kind="stable")[LEADERBOARD_COLUMNS].reset_index(drop=True)
            for split, rows in sorted(tables.items())}


def leaderboard_section(name: str, runs: dict) -> None:
    """Every run per split: the corpus metric with its 95% interval, rank, the humans on the same units and
    whether the run is significantly below the split's best (paired bootstrap, Holm); CSV and LaTeX."""
    from data_access.runs.leaderboard import ALPHA

    statistic = analysis.scoring(name).STATISTIC_LABEL
    keys = tuple(key for key, _ in runs.values())
    tables = cached.derived(leaderboard_tables, name, keys, _sidecar_stamps(keys))
    for split, table in (tables or {}).items():
        st.markdown(f"**{md_escape(split)}**")
        st.dataframe(table, hide_index=True, width="stretch",
                     column_config={"score": st.column_config.NumberColumn(statistic, format="%.4f"),
                                    "low": st.column_config.NumberColumn("95% low", format="%.4f"),
                                    "high": st.column_config.NumberColumn("95% high", format="%.4f"),
                                    "humans": st.column_config.NumberColumn("humans (same units)", format="%.4f"),
                                    "shared_with_best": st.column_config.NumberColumn("units shared with the best"),
                                    "p_holm": st.column_config.NumberColumn("p (Holm)", format="%.4f"),
                                    "below_best": st.column_config.CheckboxColumn("significantly below the best"),
                                    "link": st.column_config.TextColumn("link")})
        stem = f"leaderboard-{name}-{split}"
        download_buttons(table, stem)
        latex_table_download(table.drop(columns=["description", "link"]),
                             f"Leaderboard ({split}): {statistic} with its 95% interval; below the best = one-sided "
                             f"paired bootstrap over shared units, Holm-corrected, alpha {ALPHA}.", stem, digits=3)
    st.caption(f"Per split, {statistic} over each run's units with its 95% interval, the humans on the same units, "
               f"and whether the run is below the split's best: paired bootstrap over the units both have, Holm-"
               f"corrected across runs, α = {ALPHA}. A run describes itself in a sidecar <run>.meta.json (model, "
               "date, description, link).")


def problems_section(name: str, runs: dict) -> None:
    """Unmatched and skipped rows of every run, with file and line (also shown on the Data page)."""
    for run, (_key, loaded) in runs.items():
        unmatched, skipped = loaded.unmatched, loaded.skipped
        if unmatched.empty and not skipped:
            continue
        st.warning(f"Run “{md_escape(run)}”: {len(unmatched):,} unmatched row(s) the corpus does not know and "
                   f"{skipped_count(skipped, 'malformed row(s)')} skipped; all other rows are scored.")
        if not unmatched.empty:
            st.dataframe(unmatched, hide_index=True, width="stretch")
        if skipped:
            st.dataframe(pd.DataFrame([s.as_dict() for s in skipped]), hide_index=True, width="stretch")


# A run's Data-page figures are kept in its corpus's cache entry under a name made of this module's code and
# the run file's path and version: a restart reads them back instead of scoring every run again.
_CODE = hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]
PROBLEM_ROWS = 1_000  # unmatched and skipped rows of a run kept for the Data page (the counts are complete)


def run_data_figures(name: str, key: cached.RunKey) -> Optional[dict]:
    """What the Data page shows of a run: its unmatched and skipped counts and the first ``PROBLEM_ROWS`` of
    those rows, read from the corpus's cache entry when they were computed before; None when the run could
    not be loaded (``cached.model_run`` says why)."""
    loaded = cached.corpus(name)
    if isinstance(loaded, cached.LoadFailure):
        return None
    version = hashlib.sha1(repr((key.file, key.stamp, key.is_demo, key.run)).encode()).hexdigest()[:16]

    def compute() -> Optional[dict]:
        result = cached.model_run(name, key)
        if isinstance(result, cached.LoadFailure):
            return None
        skipped = pd.DataFrame([{"file": s.record, "line": None, "record": "", "reason": s.reason} for s in result.skipped])
        problems = pd.concat([result.unmatched.assign(kind="unmatched"), skipped.assign(kind="skipped")], ignore_index=True)
        return {"unmatched": len(result.unmatched), "skipped": skipped_total(result.skipped),
                "skipped_text": skipped_count(result.skipped, "skipped"), "problem_rows": len(problems),
                "problems": json.loads(problems.head(PROBLEM_ROWS).to_json(orient="records", date_format="iso")),
                "columns": list(problems.columns)}

    return cached_summary_if_any(loaded, f"run-data-{_CODE}-{version}", compute)


def data_page_section() -> None:
    """For the Data page: every configured run, its file, counts and its unmatched / skipped rows (from a
    summary in the corpus's cache entry: no run is loaded again after a restart)."""
    from data_access.common import CORPUS_NAMES

    st.subheader("Model runs")
    st.caption(f"Runs come from `{RUNS_VARIABLE}/<corpus>/` (one sub-folder per corpus: codraw, gos, minecraft), "
               "from uploads on the Runs page and, for the demo corpora, two generated demo runs each.")
    rows: list[dict] = []
    for name in CORPUS_NAMES:
        if isinstance(cached.corpus(name), cached.LoadFailure):
            continue
        collisions_box(name)
        for run, key in cached.run_keys(name).items():
            figures = run_data_figures(name, key)
            if figures is None:
                result = cached.model_run(name, key)
                message = result.message if isinstance(result, cached.LoadFailure) else "could not be summarised"
                rows.append({"corpus": name, "run": run, "file": key.file, "status": f"error: {message}",
                             "unmatched": None, "skipped": None})
                continue
            rows.append({"corpus": name, "run": run, "file": key.file, "status": "demo run" if key.is_demo else "loaded",
                         "unmatched": figures["unmatched"], "skipped": figures["skipped"]})
            if figures["problem_rows"]:
                shown = figures["problem_rows"]
                with st.expander(f"{CORPUS_TITLES[name]} · {md_escape(run)}: {figures['unmatched']:,} unmatched, "
                                 f"{figures['skipped_text']}"):
                    if shown > len(figures["problems"]):
                        st.caption(f"The first {len(figures['problems']):,} of {shown:,} rows.")
                    st.dataframe(pd.DataFrame(figures["problems"], columns=figures["columns"]),
                                 hide_index=True, width="stretch")
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    else:
        st.caption("No runs.")
