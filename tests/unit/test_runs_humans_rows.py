"""The humans' rows of the runs x metrics table stand beside one run and are computed on that run's dialogs
only, and say so: two CoDraw runs over different splits each get their own humans rows."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from data_access.corpora import load_path
from data_access.runs import analysis, load_run
from data_access.runs.demo import demo_runs


def split_run(tmp_path, corpus, split: str):
    """The demo baseline restricted to the dialogs of one split, as a run file named after the split."""
    dialogs = corpus.frames["dialogs"]
    wanted = set(dialogs.loc[dialogs["split"] == split, "dialog_id"])
    lines = [line for line in demo_runs("codraw", tmp_path)["baseline"].read_text().splitlines()
             if json.loads(line)["dialog_id"] in wanted]
    path = tmp_path / f"only-{split}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return load_run(corpus, path, cache_root=tmp_path)


def test_each_run_gets_humans_rows_on_its_own_dialogs_named_after_it(tmp_path):
    corpus = load_path("codraw", None, cache_root=tmp_path)
    val, test = split_run(tmp_path, corpus, "val"), split_run(tmp_path, corpus, "test")
    table = pd.concat([analysis.metric_table(val), analysis.metric_table(test)], ignore_index=True)
    # the page keeps the first of repeated (run, split, metric): no humans row may hide another run's
    assert not table.duplicated(["run", "split", "metric"]).any()
    for run in (val, test):
        label = analysis.humans_label(run.name)
        assert run.name in label
        humans = table[(table["run"] == label) & (table["split"] == "all") & (table["metric"] == "final score (paper's metric)")]
        assert len(humans) == 1
        dialogs = run.frames["dialogs"]
        scored = dialogs[dialogs["final_score"].notna()]
        assert humans["n"].iloc[0] == len(scored)
        assert humans["value"].iloc[0] == pytest.approx(scored["human_final_score"].mean())
    assert not (table["run"] == analysis.HUMANS).any()  # a bare "humans" says not which dialogs
