"""The Runs page's leaderboard per split (``data_access.runs.leaderboard``: intervals, the paired bootstrap
against the best run with Holm's correction, each run's sidecar) and the rows every run could not score."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from data_access.corpus import Corpus
from ui import cached
from ui.share.downloads import latex_table_download
from ui.widgets import download_buttons, md_escape, skipped_count

LEADERBOARD_COLUMNS = ["rank", "run", "units", "score", "low", "high", "humans", "shared_with_best", "p_holm",
                       "below_best", "model", "date", "description", "link"]


def _sidecar_stamps(run_keys: tuple) -> tuple:
    """The modification time of each run's sidecar (0 without one), so an edited sidecar is read again."""

    from data_access.runs.leaderboard import META_SUFFIX, run_name

    stamps = []
    for key in run_keys:
        sidecar = Path(key.file).with_name(run_name(key.file) + META_SUFFIX)
        try:
            stamps.append(sidecar.stat().st_mtime_ns)
        except OSError:
            stamps.append(0)
    return tuple(stamps)


def leaderboard_tables(loaded_corpus, corpus: Corpus, run_keys: tuple, sidecar_stamps: tuple = (), chosen=None) -> dict:
    """split -> the leaderboard table of the runs ``run_keys`` (``data_access.runs.leaderboard``), with each
    run's sidecar (``<run>.meta.json``) as plain-text columns; on the slice's dialogs only with ``chosen`` (a
    ``DialogSelection``). Cached by ``cached.derived`` (``sidecar_stamps`` only keys the entry). ``corpus``: the
    one ``loaded_corpus`` was loaded from, whose scored runs it reads."""

    from data_access.runs.leaderboard import leaderboard, run_meta
    from data_access.slices.subcorpus import restrict_run

    runs, metas = [], {}
    for key in run_keys:
        loaded = cached.model_run(corpus, key)
        if isinstance(loaded, cached.LoadFailure):
            continue
        runs.append(loaded if chosen is None else restrict_run(loaded, chosen.ids))
        metas[loaded.name] = run_meta(Path(key.file))[0]
    tables: dict[str, list[dict]] = {}
    for entry in leaderboard(runs, metas=metas):
        meta = entry.meta or {}
        for split, figures in entry.splits.items():
            tables.setdefault(split, []).append({"run": entry.run, **figures, **{k: meta.get(k, "") for k in
                                                                                 ("model", "date", "description", "link")}})
    return {split: pd.DataFrame(rows).sort_values(["rank", "run"], kind="stable")[LEADERBOARD_COLUMNS].reset_index(drop=True)
            for split, rows in sorted(tables.items())}


def leaderboard_section(corpus: Corpus, runs: dict, chosen=None) -> None:
    """Every run per split: the corpus metric with its 95% interval, rank, the humans on the same units and
    whether the run is significantly below the split's best (paired bootstrap, Holm); CSV and LaTeX. With
    ``chosen`` (the URL's slice), on its dialogs only."""
    from data_access.runs.leaderboard import ALPHA

    statistic = corpus.scoring.STATISTIC_LABEL
    keys = tuple(key for key, _ in runs.values())
    tables = cached.derived(leaderboard_tables, corpus, corpus, keys, _sidecar_stamps(keys), chosen)
    if chosen is not None and not tables:
        st.info("No run has a scored unit in the slice's dialogs.")
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
        stem = f"leaderboard-{corpus.name}-{split}"
        download_buttons(table, stem)
        latex_table_download(table.drop(columns=["description", "link"]),
                             f"Leaderboard ({split}): {statistic} with its 95% interval; below the best = one-sided "
                             f"paired bootstrap over shared units, Holm-corrected, alpha {ALPHA}.", stem, digits=3)
    st.caption(f"Per split, {statistic} over each run's units with its 95% interval, the humans on the same units, "
               f"and whether the run is below the split's best: paired bootstrap over the units both have, Holm-"
               f"corrected across runs, α = {ALPHA}. A run describes itself in a sidecar <run>.meta.json (model, "
               "date, description, link).")


def problems_section(corpus: Corpus, runs: dict) -> None:
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

