"""The Data page's section on model runs: every configured run with its file, counts and unmatched / skipped rows,
kept in its corpus's cache entry so that no run is loaded again after a restart."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

import pandas as pd
import streamlit as st

from data_access.common import skipped_total
from data_access.corpora import cached_summary_if_any
from data_access.corpus import Corpus
from data_access.runs import RUNS_VARIABLE
from ui import cached
from ui.runs.sections import collisions_box
from ui.shell.corpus_edge import every_corpus
from ui.widgets import md_escape, skipped_count

# A run's Data-page figures are kept in its corpus's cache entry under a name made of this module's code and
# the run file's path and version: a restart reads them back instead of scoring every run again.
_CODE = hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]
PROBLEM_ROWS = 1_000  # unmatched and skipped rows of a run kept for the Data page (the counts are complete)


def run_data_figures(corpus: Corpus, key: cached.RunKey) -> Optional[dict]:
    """What the Data page shows of a run: its unmatched and skipped counts and the first ``PROBLEM_ROWS`` of
    those rows, read from the corpus's cache entry when they were computed before; None when the run could
    not be loaded (``cached.model_run`` says why)."""
    loaded = cached.corpus(corpus)
    if isinstance(loaded, cached.LoadFailure):
        return None
    version = hashlib.sha1(repr((key.file, key.stamp, key.is_demo, key.run)).encode()).hexdigest()[:16]

    def compute() -> Optional[dict]:
        result = cached.model_run(corpus, key)
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
    st.subheader("Model runs")
    st.caption(f"Runs come from `{RUNS_VARIABLE}/<corpus>/` (one sub-folder per corpus: codraw, gos, minecraft), "
               "from uploads on the Runs page and, for the demo corpora, two generated demo runs each.")
    rows: list[dict] = []
    for corpus in every_corpus():
        if isinstance(cached.corpus(corpus), cached.LoadFailure):
            continue
        collisions_box(corpus)
        for run, key in cached.run_keys(corpus).items():
            figures = run_data_figures(corpus, key)
            if figures is None:
                result = cached.model_run(corpus, key)
                message = result.message if isinstance(result, cached.LoadFailure) else "could not be summarised"
                rows.append({"corpus": corpus.name, "run": run, "file": key.file, "status": f"error: {message}",
                             "unmatched": None, "skipped": None})
                continue
            rows.append({"corpus": corpus.name, "run": run, "file": key.file, "status": "demo run" if key.is_demo else "loaded",
                         "unmatched": figures["unmatched"], "skipped": figures["skipped"]})
            if figures["problem_rows"]:
                shown = figures["problem_rows"]
                with st.expander(f"{corpus.title} · {md_escape(run)}: {figures['unmatched']:,} unmatched, "
                                 f"{figures['skipped_text']}"):
                    if shown > len(figures["problems"]):
                        st.caption(f"The first {len(figures['problems']):,} of {shown:,} rows.")
                    st.dataframe(pd.DataFrame(figures["problems"], columns=figures["columns"]),
                                 hide_index=True, width="stretch")
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
