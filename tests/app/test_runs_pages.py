"""The Runs page and the replay with a run (&run=), on the demo corpora and their two demo runs each."""
import pytest
from streamlit.testing.v1 import AppTest

from data_access.access import Identity

from . import conftest


def open_page(page: str, **params) -> AppTest:
    """The shared helper with more time: each test parses and scores the demo runs afresh."""
    return conftest.open_page(page, timeout=180, **params)


def show_view(at: AppTest, label: str) -> AppTest:
    """The Runs page with the view ``label`` (one of its tabs) opened by its link (AppTest sends the URL's
    parameters with every run, so they lead the tabs' binding)."""
    at.query_params["view"] = label
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("corpus, metric", [("codraw", "final score (paper's metric)"),
                                            ("minecraft", "net-action F1"), ("gos", "exact match")])
def test_the_runs_page_shows_both_demo_runs_with_intervals_a_comparison_and_slices(corpus, metric):
    at = open_page("pages/runs.py", corpus=corpus, view="Runs × metrics")
    table = at.dataframe[0].value
    assert {"baseline", "noisy"} <= set(table["run"])
    row = table[(table["run"] == "noisy") & (table["metric"] == metric) & (table["split"] == "all")].iloc[0]
    assert 0 < row["value"] <= 5 and "–" in row["interval (95%)"]
    at = show_view(at, "Compare two runs")
    captions = " ".join(c.value for c in at.caption)
    assert "paired bootstrap interval" in captions
    paired = at.dataframe[0].value
    assert paired["open"].str.startswith(f"/replay?corpus={corpus}&dialog=").all()
    assert paired["open"].str.contains("&run=baseline").all()
    at = show_view(at, "Slice finder")
    gaps = at.dataframe[0].value
    assert len(gaps) >= 3 and (gaps["gap"].abs().diff().dropna() <= 1e-12).all()  # largest gap first
    members = at.dataframe[1].value
    assert len(members) >= 3 and members["open"].str.contains("&run=baseline").all()


@pytest.mark.parametrize("corpus", ["codraw", "gos", "minecraft"])
def test_the_runs_page_opens_on_the_leaderboard_and_runs_only_the_view_it_shows(corpus):
    at = open_page("pages/runs.py", corpus=corpus)
    assert [tab.label for tab in at.tabs] == ["Leaderboard", "Runs × metrics", "Compare two runs", "Slice finder",
                                              "Worst cases first"]
    assert at.dataframe and all("below_best" in d.value.columns for d in at.dataframe)  # the leaderboard's grids alone
    assert not [s for s in at.selectbox if (s.key or "").startswith(("compare_", "slice_", "worst_"))]
    assert "view" not in at.query_params  # the first view is the default: the link says nothing of it
    at = show_view(at, "Slice finder")
    assert at.query_params["view"] == "Slice finder"  # a view is a link
    assert at.selectbox(key=f"slice_a_{corpus}") and not [d for d in at.dataframe if "below_best" in d.value.columns]


def test_comparing_a_codraw_run_with_the_humans():
    at = open_page("pages/runs.py", corpus="codraw", view="Compare two runs")
    at.selectbox(key="compare_b_codraw").select("humans").run()
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert "B: humans" in labels
    difference = next(m for m in at.metric if m.label == "A − B")
    assert float(difference.value) < 0  # the baseline draws worse than the human Drawers


def test_replay_with_a_codraw_run_shows_target_human_and_model_with_scores():
    browse = open_page("pages/browse.py", corpus="codraw")
    dialog = browse.dataframe[0].value["dialog_id"].iloc[0]
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="2", run="noisy")
    assert at.selectbox(key="replay_run").value == "noisy"
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Marked against the target") for c in captions)
    labels = [m.label for m in at.metric]
    assert labels.count("Paper's metric") >= 2
    link = conftest.state_link(at)
    assert "&run=noisy" in link and f"dialog={dialog}" in link and "turn=2" in link
    assert at.query_params["run"] == "noisy"


def test_switching_the_run_in_the_replay_updates_the_url():
    browse = open_page("pages/browse.py", corpus="codraw")
    dialog = browse.dataframe[0].value["dialog_id"].iloc[0]
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="1", run="noisy")
    at.selectbox(key="replay_run").select("baseline").run()
    assert not at.exception and at.query_params["run"] == "baseline"
    at.selectbox(key="replay_run").select("(no run)").run()
    assert "run" not in at.query_params


def test_replay_with_a_minecraft_run_shows_the_sample_in_3d():
    from data_access.corpora import load_path

    samples = load_path("minecraft", None).frames["bap_samples"]
    sample = samples.iloc[0]
    at = open_page("pages/replay.py", corpus="minecraft", dialog=sample["game"], turn=str(int(sample["turn"])), run="noisy")
    labels = [m.label for m in at.metric]
    assert "Net-action F1" in labels and "Infeasible actions" in labels
    assert any(f"BAP sample {int(sample['sample_id'])}" in c.value for c in at.caption)


def test_replay_with_a_gos_run_marks_both_boards():
    from data_access.corpora import load_path

    steps = load_path("gos", None).frames["steps"]
    step = steps[steps["kind"] == "message"].iloc[3]
    at = open_page("pages/replay.py", corpus="gos", dialog=step["interaction_id"], round=str(int(step["round"])),
                   turn=str(int(step["step"])), run="baseline")
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Green frame = gold image") for c in captions)
    assert any("Model says it refers to" in m.value for m in at.markdown)


def test_an_unknown_run_in_the_link_is_a_warning_not_an_error():
    browse = open_page("pages/browse.py", corpus="codraw")
    dialog = browse.dataframe[0].value["dialog_id"].iloc[0]
    at = open_page("pages/replay.py", corpus="codraw", dialog=dialog, turn="1", run="<b>nope</b>")
    assert any("which is not a run of CoDraw" in w.value for w in at.warning)


def test_the_data_page_lists_the_demo_runs():
    at = open_page("pages/data.py")
    runs = next(d.value for d in at.dataframe if "run" in d.value.columns)
    assert len(runs) == 6 and set(runs["status"]) == {"demo run"}


def test_an_upload_that_cannot_be_scored_says_why_and_can_be_removed():
    from data_access.runs import save_upload, upload_dir

    save_upload("codraw", "broken.jsonl", b"not a run at all\n", actor=Identity.local())
    at = open_page("pages/runs.py", corpus="codraw")
    assert any("broken" in error.value and "could not be loaded" in error.value for error in at.error)
    [remove] = [button for button in at.button if button.key == "remove_upload_codraw_broken"]
    remove.click().run()
    assert not (upload_dir("codraw") / "broken.jsonl").exists()
    assert not any("broken" in error.value for error in at.error)
    assert not [button for button in at.button if (button.key or "").startswith("remove_upload_")]


def test_the_chosen_slice_stays_the_same_slice_when_the_comparison_reorders_the_table():
    at = open_page("pages/runs.py", corpus="codraw", view="Slice finder")
    gaps = at.dataframe[0].value
    feature, level = gaps["feature"].iloc[2], gaps["slice"].iloc[2]
    picker = at.selectbox(key="slice_pick_codraw")
    picker.select(next(o for o in picker.options if o.startswith(f"{feature} = {level}"))).run()
    at.selectbox(key="slice_b_codraw").select("humans").run()
    assert not at.exception
    gaps = at.dataframe[0].value
    assert (gaps["feature"].iloc[2], gaps["slice"].iloc[2]) != (feature, level)  # the rows did reorder
    picker = at.selectbox(key="slice_pick_codraw")
    assert picker.options[picker.index].startswith(f"{feature} = {level}")
    [count] = gaps.loc[(gaps["feature"] == feature) & (gaps["slice"] == level), "n"]
    assert len(at.dataframe[1].value) == count  # the dialogs listed are the chosen slice's


def _configured_runs(monkeypatch, tmp_path, corpus: str, runs: dict[str, list[str]]) -> None:
    """The demo corpus configured as a corpus file (so no demo runs are added) and ``runs`` (name -> lines) as
    the corpus's runs in DIALOGUE_RUNS_DIR."""
    from data_access.corpora import corpus_module, demo_path

    monkeypatch.setenv(corpus_module(corpus).DATA_VARIABLE, str(demo_path(corpus)))
    folder = tmp_path / "runs" / corpus
    folder.mkdir(parents=True)
    for name, lines in runs.items():
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("DIALOGUE_RUNS_DIR", str(tmp_path / "runs"))


def test_compare_opens_on_a_pair_that_shares_dialogs_and_says_so_when_a_pair_shares_none(monkeypatch, tmp_path):
    import json

    from data_access.corpora import load_path
    from data_access.runs.demo import demo_runs

    dialogs = load_path("codraw", None).frames["dialogs"]
    lines = demo_runs("codraw")["baseline"].read_text().splitlines()
    by_split = {split: [line for line in lines if json.loads(line)["dialog_id"] in set(dialogs.loc[dialogs["split"] == split, "dialog_id"])]
                for split in ("val", "test")}
    _configured_runs(monkeypatch, tmp_path, "codraw", {"only-test": by_split["test"], "only-val": by_split["val"]})
    at = open_page("pages/runs.py", corpus="codraw", view="Compare two runs")
    assert at.selectbox(key="compare_a_codraw").value == "only-test"
    assert at.selectbox(key="compare_b_codraw").value == "humans"  # the other run shares no dialog with it
    difference = next(m for m in at.metric if m.label == "A − B")
    assert difference.value != "—"
    at.selectbox(key="compare_b_codraw").select("only-val").run()
    assert any("share no unit" in w.value for w in at.warning)
    assert not [m for m in at.metric if m.label == "A − B"]


@pytest.mark.parametrize("corpus", ["gos", "minecraft"])
def test_a_single_run_is_compared_with_the_gold(monkeypatch, tmp_path, corpus):
    from data_access.runs.demo import demo_runs

    _configured_runs(monkeypatch, tmp_path, corpus, {"only": demo_runs(corpus)["noisy"].read_text().splitlines()})
    at = open_page("pages/runs.py", corpus=corpus, view="Compare two runs")
    assert not any("Add a second run" in c.value for c in at.caption)
    assert "B: gold" in [m.label for m in at.metric]
    difference = next(m for m in at.metric if m.label == "A − B")
    assert float(difference.value) < 0  # the noisy run falls short of the gold


def test_the_leaderboard_ranks_the_runs_per_split_as_the_cli_does_and_shows_sidecars_as_plain_text(monkeypatch, tmp_path):
    import json

    from data_access.corpora import demo_path, load_path
    from data_access.runs.demo import demo_runs
    from data_access.runs.leaderboard import folder_leaderboard

    runs = demo_runs("codraw")
    _configured_runs(monkeypatch, tmp_path, "codraw", {name: file.read_text().splitlines() for name, file in runs.items()})
    folder = tmp_path / "runs" / "codraw"
    meta = {"model": "<b>rule</b> **based**", "date": "2026-11-30", "link": "javascript:alert(1)", "description": "[x](y)"}
    (folder / "baseline.meta.json").write_text(json.dumps(meta))
    at = open_page("pages/runs.py", corpus="codraw")
    tables = [d.value for d in at.dataframe if "below_best" in d.value.columns]
    expected = folder_leaderboard(load_path("codraw", demo_path("codraw")), folder)
    splits = sorted({split for entry in expected["runs"] for split in entry["splits"]})
    assert len(tables) == len(splits) and len(splits) == 3
    for split, table in zip(splits, tables):
        for row in table.itertuples():
            figures = next(e for e in expected["runs"] if e["run"] == row.run)["splits"][split]
            assert row.rank == figures["rank"] and row.score == figures["score"] and row.below_best == figures["below_best"]
        baseline = table[table["run"] == "baseline"].iloc[0]
        assert (baseline["model"], baseline["date"], baseline["link"], baseline["description"]) == \
            (meta["model"], meta["date"], meta["link"], meta["description"])
    assert not any("<b>rule</b>" in m.value or "javascript:" in m.value for m in at.markdown)
