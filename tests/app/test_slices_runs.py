"""The Runs page on the URL's slice (issue 37): the leaderboard, runs × metrics, the comparison of two runs, the
slice finder and the worst cases on the slice's dialogs only (checked against pandas on the demo run); each
slice-finder row is a link that makes its dialogs the slice; a worst-cases list is one click from its slice; a step
slice's worst cases are the units at its moments (issue 46)."""
from __future__ import annotations

import math
from urllib.parse import parse_qs, urlsplit

from data_access import slices
from data_access.corpora import demo_path, load_path
from data_access.runs import analysis, load_run, worst_cases
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


def test_worst_cases_of_a_step_slice_are_the_units_at_its_moments():
    """A step slice keeps the units whose step is one of its moments, not every unit of its dialogs (issue 46)."""
    text = "steps(removals > 0)"
    loaded = load_path("minecraft", demo_path("minecraft"))
    moments = slices.step_keys(text, slices.slice_data(loaded))
    run = load_run(loaded, demo_runs("minecraft")["baseline"], is_demo=True)
    cases = worst_cases.at_worst_steps(worst_cases.ranked_cases(analysis.units(run)),
                                       worst_cases.worst_steps(loaded, run))
    at = set(zip(moments["dialog_id"], moments["turn"].astype(int)))  # Minecraft's steps: dialog and turn
    expected = [u for u, d, t in zip(cases["unit"], cases["dialog_id"], cases["turn"]) if (d, int(t)) in at]
    of_dialogs = cases["dialog_id"].isin(set(moments["dialog_id"])).sum()
    assert 0 < len(expected) < of_dialogs  # the demo tells the two apart
    page = open_page("runs", corpus="minecraft", view="Worst cases first", slice=text)
    assert page.dataframe[0].value["unit"].tolist() == expected
    said = " ".join(c.value for c in page.caption)
    assert f"is one of its {len(moments):,} moments" in said and f"{len(expected):,} of {len(cases):,} units" in said
