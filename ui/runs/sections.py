"""The Runs page's sections: uploading a run and the uploads, the runs × metrics table, two runs compared (paired
bootstrap, the units of largest difference) and the slice finder. Everything computed comes from
``data_access.runs`` through ``ui.cached``."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Optional
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from data_access.corpus import Corpus
from data_access.runs import analysis, save_upload
from ui import cached
from ui.runs.panels import number
from ui.runs.picker import humans_option, loaded_runs, run_link  # noqa: F401 - loaded_runs: the page's
from ui.share.downloads import latex_table_download
from ui.shell import auth
from ui.shell.url_state import served
from ui.widgets import download_buttons, md_escape

# ------------------------------------------------------------------------------------------- runs page

def upload_box(corpus: Corpus) -> None:
    """The uploader of run files, for those who may add runs (a caption says why not to the others)."""
    if not auth.allowed(auth.Action.ADD_RUN, "uploading runs"):
        return
    uploaded = st.file_uploader(f"Add a run of {corpus.title} (formats: docs/formats.md)",
                                type=["jsonl", "json", "gz", "txt"], key=f"upload_{corpus.name}")
    if uploaded is None:
        return
    marker = f"uploaded_{corpus.name}_{uploaded.name}_{uploaded.size}"
    if st.session_state.get(marker):
        st.success(md_escape(st.session_state[marker]))
        return
    from data_access.runs import replaces_upload, upload_dir

    uploads = Path(upload_dir(corpus.name)).resolve()
    # demo and configured runs keep their names: an upload of one of them is refused, never silently hidden
    taken = {run for run, key in cached.run_keys(corpus).items() if Path(key.file).resolve().parent != uploads}
    earlier = replaces_upload(corpus.name, uploaded.name)
    try:
        path = save_upload(corpus.name, uploaded.name, uploaded.getvalue(), actor=auth.writer(), taken=taken)
    except auth.AccessRefused as exc:  # its message says who, what and why ("Not allowed: …")
        st.error(md_escape(str(exc)))
        return
    except (ValueError, OSError) as exc:
        st.error(md_escape(f"Not saved: {exc}"))
        return
    cached.forget_run_keys(corpus)
    said = f"Saved as {path.name}" + (f", replacing the earlier upload {earlier}." if earlier else ".")
    st.session_state[marker] = said
    st.success(md_escape(said))


def collisions_box(corpus: Corpus) -> None:
    """Every run file left out because its name is taken, said (names are unique, nothing is hidden)."""
    from data_access.runs import run_name_collisions

    for message in run_name_collisions(corpus.name, corpus.is_demo):
        st.warning(md_escape(message), icon="⚠️")


def uploads_box(corpus: Corpus) -> None:
    """The runs uploaded in the browser; each that this session may remove (its own, or any for an admin) has
    a button that removes it (a run that fails to load too)."""
    from data_access.runs import folder_runs, remove_upload, upload_dir, upload_owner

    uploads = folder_runs(upload_dir(corpus.name))
    if not uploads:
        return
    person = auth.writer()
    row = st.container(horizontal=True, gap="small", vertical_alignment="center")
    row.caption("Uploaded:")
    for run in uploads:
        owner = upload_owner(corpus.name, run) or ""
        if not person.may(auth.Action.CHANGE_RUN, owner):
            row.caption(md_escape(run) + (f" ({md_escape(owner)}'s)" if owner else ""))
            continue
        if row.button(md_escape(run), icon=":material/delete:", key=f"remove_upload_{corpus.name}_{run}",
                      help=f"Remove the uploaded run {md_escape(run)}"):
            try:
                remove_upload(corpus.name, run, actor=person)
            except auth.AccessRefused as exc:
                st.error(md_escape(str(exc)))
                return
            cached.forget_run_keys(corpus)
            for key in [k for k in st.session_state if str(k).startswith(f"uploaded_{corpus.name}_")]:
                del st.session_state[key]  # the same file may then be uploaded again
            st.rerun()


# The widgets of the page's views whose choice a reader makes once (the runs compared, what a slice or a ranking is
# compared with, the slice opened), each keyed "<prefix>_<corpus>".
VIEW_CHOICES = ("compare_a", "compare_b", "slice_a", "slice_b", "slice_pick", "worst_run", "worst_versus")


def keep_view_choices(corpus: Corpus) -> None:
    """Keep the choices made in the Runs page's views while another view is open: only the open view is drawn,
    and Streamlit forgets the value of a widget on a run that does not draw it (so back on "Compare two runs",
    Run B would be the default again). Writing a value back to its own key makes it the session's, not the
    widget's, and the widget takes it when it is drawn again. AppTest keeps such values anyway, so the check
    is a browser test (tests/e2e/test_runs_browser.py)."""
    state = st.session_state
    for prefix in VIEW_CHOICES:
        key = f"{prefix}_{corpus.name}"
        if key in state:
            state[key] = state[key]


def _on(run, chosen):
    """``run`` on the slice's dialogs only (``chosen``: a ``DialogSelection``), or whole."""
    if chosen is None:
        return run
    from data_access.slices.subcorpus import restrict_run

    return restrict_run(run, chosen.ids)


def metrics_section(corpus: Corpus, runs: dict, chosen=None) -> None:
    tables = [analysis.metric_table(_on(loaded, chosen)) for _, loaded in runs.values()]
    table = pd.concat(tables, ignore_index=True).drop_duplicates(["run", "split", "metric"], keep="first")
    table["interval (95%)"] = [f"{number(lo)} – {number(hi)}" if not math.isnan(lo) else "—" for lo, hi in zip(table["low"], table["high"])]
    st.dataframe(table[["run", "split", "metric", "n", "value", "interval (95%)"]], hide_index=True, width="stretch",
                 column_config={"value": st.column_config.NumberColumn(format="%.4f")})
    note = corpus.scoring.METRIC_NOTE
    st.caption(note)
    download_buttons(table.drop(columns=["interval (95%)"]), f"runs-{corpus.name}-metrics")
    latex_table_download(table.drop(columns=["interval (95%)"]), note, f"runs-{corpus.name}-metrics", digits=3)


def _links(corpus: Corpus, frame: pd.DataFrame, run: str) -> list[str]:
    """A replay link (with the run) per unit row: dialog, its turn and (Game Of Sorts) round."""
    def number(value):
        return None if value is None or pd.isna(value) else int(value)
    rounds = frame["round"] if "round" in frame.columns else [None] * len(frame)
    return [served(run_link(corpus, d, number(t), number(r), run)) for d, t, r in zip(frame["dialog_id"], frame["turn"], rounds)]


def default_partner(corpus: Corpus, runs: dict, a: str) -> str:
    """The first other run that shares units with run ``a``, else the humans on ``a``'s own units: the pair the
    comparison opens with is never an empty one (e.g. a val-split and a test-split run)."""
    shared = set(analysis.units(runs[a][1])["unit"])
    for other in runs:
        if other != a and shared & set(analysis.units(runs[other][1])["unit"]):
            return other
    return humans_option(corpus)


COMPARED_ROWS = 200  # the comparison's table: the units with the largest differences


def comparison_figures(loaded_corpus, corpus: Corpus, key_a, key_b, humans: bool, chosen=None) -> tuple:
    """Run A against run B (the humans on A's units when ``humans``): the paired bootstrap, each side's number
    of units and the ``COMPARED_ROWS`` units of largest difference; on the slice's dialogs with ``chosen``. Cached
    by ``cached.derived``: the bootstrap over every unit (10,000 CoDraw dialogs, 2,000 resamples) would otherwise
    be drawn again at every rerun of the page. ``corpus``: the one ``loaded_corpus`` was loaded from, whose
    scored runs it reads."""
    run_a = _on(cached.model_run(corpus, key_a), chosen)
    run_b = _on(cached.model_run(corpus, key_b), chosen)
    units_a = analysis.units(run_a)
    units_b = analysis.units(run_b, humans=True) if humans else analysis.units(run_b)
    result = analysis.paired_bootstrap(units_a, units_b, loaded_corpus.corpus)
    return result, len(units_a), len(units_b), analysis.paired_units(units_a, units_b).head(COMPARED_ROWS)


def comparison_section(corpus: Corpus, runs: dict, chosen=None) -> None:
    names = list(runs)
    left, right = st.columns(2)
    a = left.selectbox("Run A", names, key=f"compare_a_{corpus.name}")
    others = [n for n in names if n != a] + [humans_option(corpus)]
    key_b = f"compare_b_{corpus.name}"
    if st.session_state.get(f"{key_b}__for") != a or st.session_state.get(key_b) not in others:
        st.session_state[key_b] = default_partner(corpus, runs, a)  # a new run A opens with a pair that shares units
        st.session_state[f"{key_b}__for"] = a
    b = right.selectbox("Run B", others, key=key_b)
    humans = b == humans_option(corpus)
    result, n_a, n_b, paired = cached.derived(comparison_figures, corpus, corpus, runs[a][0], runs[a if humans else b][0], humans,
                                              chosen)
    if result["n"] == 0:
        st.warning(f"“{md_escape(a)}” ({n_a:,} units) and “{md_escape(b)}” ({n_b:,} units) share no "
                   "unit (e.g. one run is of the val split, the other of the test split): there is nothing to "
                   f"compare. Pick another run B, or “{humans_option(corpus)}”, which is scored on run A's own units.")
        return
    statistic = corpus.scoring.STATISTIC_LABEL
    cols = st.columns(3)
    cols[0].metric(f"A: {md_escape(a)}", number(result["a"]))
    cols[1].metric(f"B: {md_escape(b)}", number(result["b"]))
    cols[2].metric("A − B", number(result["difference"]),
                   help="95% paired bootstrap interval: the same resampled units for both runs")
    st.caption(f"{statistic} on the {result['n']:,} units both have; A − B 95% paired bootstrap interval "
               f"{number(result['low'])} to {number(result['high'])}.")
    latex_table_download(pd.DataFrame([{"run A": a, "run B": b, "units": result["n"], "A": result["a"], "B": result["b"],
                                        "difference": result["difference"], "low": result["low"], "high": result["high"]}]),
                         f"{statistic}: run A vs run B, A − B with its 95% paired bootstrap interval.", f"runs-{corpus.name}-{a}-vs-{b}",
                         digits=3, column_names={"difference": "A − B"})
    paired = analysis.with_turns(paired, cached.derived(analysis.unit_turns, corpus))
    paired["open"] = _links(corpus, paired, a)
    shown = paired[["unit", "value_a", "value_b", "difference", "open"]]
    st.dataframe(shown, hide_index=True, width="stretch",
                 column_config={"open": st.column_config.LinkColumn("replay", display_text="open ▶"),
                                "value_a": st.column_config.NumberColumn(f"A ({a})", format="%.3f"),
                                "value_b": st.column_config.NumberColumn(f"B ({b})", format="%.3f"),
                                "difference": st.column_config.NumberColumn("A − B", format="%+.3f")})
    st.caption(f"Largest differences first (first {COMPARED_ROWS}).")


def _in_slice(features: pd.DataFrame, chosen) -> pd.DataFrame:
    if chosen is None:
        return features
    return features[features["dialog_id"].astype(str).isin(set(chosen.ids)).to_numpy()].reset_index(drop=True)


def slice_table(loaded_corpus, corpus: Corpus, key_a, key_b, humans: bool, chosen=None) -> pd.DataFrame:
    """The slice finder's table of run A: against its own overall score (``key_b`` None), run B, or the humans on
    A's units; within the URL's slice with ``chosen``. Each row with ``dialogs``, its dialogs' ids (a slice a click
    away). Cached by ``cached.derived``, as every rerun of the page shows it. ``corpus``: the one
    ``loaded_corpus`` was loaded from, whose scored runs it reads."""
    features = _in_slice(cached.run_derived(analysis.slice_features, corpus, key_a), chosen)
    other = None
    if key_b is not None:
        run_b = cached.model_run(corpus, key_b)
        other = analysis.units(run_b, humans=True) if humans else analysis.units(run_b)
    gaps = analysis.slice_gaps(features, loaded_corpus.corpus, other)
    gaps["slice_text"] = [_row_slice(features, f, level) for f, level in zip(gaps["feature"], gaps["slice"])]
    return gaps


def _row_slice(features: pd.DataFrame, feature: str, level: str) -> Optional[str]:
    """A slice-finder row as a slice: the dialogs of its units (None when they are too many to list in a slice)."""
    from data_access.slices import SliceError, ids_slice, parse

    try:
        text = ids_slice(features.loc[features[feature].astype(str) == level, "dialog_id"].astype(str))
        parse(text)
    except SliceError:
        return None
    return text


def slice_section(corpus: Corpus, runs: dict, chosen=None) -> None:
    names = list(runs)
    left, right = st.columns(2)
    a = left.selectbox("Run", names, key=f"slice_a_{corpus.name}")
    against = right.selectbox("Compared with", ["its own overall score"] + [n for n in names if n != a]
                              + (["humans"] if corpus.scoring.HAS_HUMANS else []), key=f"slice_b_{corpus.name}")
    features = _in_slice(cached.run_derived(analysis.slice_features, corpus, runs[a][0]), chosen)
    other = None if against == "its own overall score" else against
    key_b = None if other is None else runs[a if against == "humans" else against][0]
    gaps = cached.derived(slice_table, corpus, corpus, runs[a][0], key_b, against == "humans", chosen)
    if gaps.empty:
        st.caption("No slice has at least 3 units.")
        return
    st.caption("Every value of each domain feature, ranked by the largest gap between the slice and the whole "
               + ("(the run's own statistic)." if other is None else f"(difference {md_escape(a)} − {md_escape(against)}).")
               + " Each row's “open” makes its dialogs the slice (on the Slices page, to save, share or play).")
    shown = gaps.drop(columns=["slice_text"]).assign(open=[
        None if text is None else served("/slices?" + urlencode({"corpus": corpus.name, "slice": text}))
        for text in gaps["slice_text"]])
    st.dataframe(shown, hide_index=True, width="stretch",
                 column_config={"open": st.column_config.LinkColumn("as a slice", display_text="open ▶",
                                                                    help="Its dialogs as the slice (empty: too many to "
                                                                         "list in a slice)"),
                                **{c: st.column_config.NumberColumn(format="%+.3f" if c == "gap" else "%.3f")
                                   for c in ("value", "overall", "gap")}})
    # The choice is the slice itself ("feature = value"), never its row: the rows reorder when "Compared with"
    # changes, and a remembered row number would then list another slice's dialogs under the old label.
    slices = {f"{f} = {s}": (f, s, n, g) for f, s, n, g in zip(gaps["feature"], gaps["slice"], gaps["n"], gaps["gap"])}
    key = f"slice_pick_{corpus.name}"
    if st.session_state.get(key) not in slices:
        st.session_state[key] = next(iter(slices))
    picked = st.selectbox("Open a slice's dialogs", list(slices), key=key)
    feature, level, count, gap = slices[picked]
    st.caption(f"{md_escape(picked)}: {count:,} units, gap {gap:+.3f}"
               + ("." if other is None else f" ({md_escape(a)} − {md_escape(against)})."))
    members = analysis.with_turns(features[features[feature] == level], cached.derived(analysis.unit_turns, corpus))
    members = members.assign(open=_links(corpus, members, a))
    st.dataframe(members[["unit", "value", "open"]], hide_index=True, width="stretch",
                 column_config={"open": st.column_config.LinkColumn("replay", display_text="open ▶"),
                                "value": st.column_config.NumberColumn(f"{a}", format="%.3f")})


