"""The Runs page on the URL's slice (issue 37): the leaderboard, runs × metrics, the comparison of two runs, the
slice finder and the worst cases on the slice's dialogs only (checked against pandas on the demo run); each
slice-finder row is a link that makes its dialogs the slice; a worst-cases list is one click from its slice."""
from __future__ import annotations

import math
from urllib.parse import parse_qs, urlsplit

from data_access.corpora import demo_path, load_path
from data_access.runs import load_run
from data_access.runs.demo import demo_runs
from data_access.slices import parse

from .conftest import open_page


def _train_scores() -> tuple[int, float]:
    """Independently: the demo baseline's dialogs of the train split, and their mean final score."""
    loaded = load_path("codraw", demo_path("codraw"))
    run = load_run(loaded, demo_runs("codraw")["baseline"], is_demo=True)
    dialogs = run.frames["dialogs"]
    train = set(loaded.dialogs.loc[loaded.dialogs["split"] == "train", "dialog_id"])
    scores = dialogs.loc[dialogs["dialog_id"].isin(train), "final_score"].dropna()
    return len(scores), float(scores.mean())


def test_the_leaderboard_is_on_the_slice():
    at = open_page("runs", corpus="codraw", slice="split = train")
    assert "split \\= train · 28 dialogs" in at.info[0].value
    assert len(at.dataframe) == 1  # one split left: the slice's
    board = at.dataframe[0].value
    n, mean = _train_scores()
    baseline = board[board["run"] == "baseline"].iloc[0]
    assert baseline["units"] == n == 28
    assert math.isclose(baseline["score"], mean, rel_tol=1e-9)


def test_the_comparison_and_the_metrics_are_on_the_slice():
    at = open_page("runs", corpus="codraw", view="Compare two runs", slice="split = train")
    assert at.dataframe[0].value["unit"].str.startswith("train_").all()
    n, mean = _train_scores()
    assert at.metric[0].value == f"{mean:.3f}"
    metrics = open_page("runs", corpus="codraw", view="Runs × metrics", slice="split = train").dataframe[0].value
    final = metrics[(metrics["run"] == "baseline") & (metrics["metric"] == "final score (paper's metric)")].head(1)
    assert final["n"].tolist() == [n] and math.isclose(final["value"].iloc[0], mean, rel_tol=1e-9)


def test_each_slice_finder_row_is_a_slice():
    at = open_page("runs", corpus="codraw", view="Slice finder", slice="split = train")
    table = at.dataframe[0].value
    row = table.iloc[0]
    link = urlsplit(row["open"])
    assert link.path == "/slices"
    ids = parse(parse_qs(link.query)["slice"][0]).values
    assert len(ids) <= row["n"] and all(str(d).startswith("train_") for d in ids)


def test_a_worst_cases_list_is_one_click_from_its_slice():
    at = open_page("runs", corpus="codraw", view="Worst cases first", slice="split = train")
    assert at.dataframe[0].value["unit"].str.startswith("train_").all()
    button = next(b for b in at.button if b.label.startswith("Make a slice of the"))
    assert button.label == "Make a slice of the 28 dialogs of these cases"
    button.click().run()
    text = at.query_params["slice"]
    text = text[0] if isinstance(text, list) else text
    assert text.startswith("split = train and dialog_id in (")
