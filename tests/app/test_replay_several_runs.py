"""Several runs side by side in the Replay (``&run=a,b``): each run's picture and scores at the step on every
demo corpus, a single-run link as before, unknown names warned about and dropped, at most four runs."""
from __future__ import annotations

from . import conftest


def open_page(**params):
    """The replay with more time: each test parses and scores the demo runs afresh."""
    return conftest.open_page("pages/replay.py", timeout=180, **params)


def _codraw_dialog() -> str:
    from data_access.corpora import load_path

    dialogs = load_path("codraw", None).dialogs
    return str(dialogs[dialogs["n_steps"] >= 2]["dialog_id"].iloc[0])


def _minecraft_sample_step() -> dict:
    from data_access.corpora import load_path

    sample = load_path("minecraft", None).frames["bap_samples"].iloc[0]
    return {"dialog": str(sample["game"]), "turn": str(int(sample["turn"]))}


def _gos_message_step() -> dict:
    from data_access.corpora import load_path

    steps = load_path("gos", None).frames["steps"]
    step = steps[steps["kind"] == "message"].iloc[3]
    return {"dialog": str(step["interaction_id"]), "round": str(int(step["round"])), "turn": str(int(step["step"]))}


def test_two_codraw_runs_show_each_canvas_with_its_scores():
    at = open_page(corpus="codraw", dialog=_codraw_dialog(), turn="2", run="baseline,noisy")
    assert not at.exception and not at.warning
    assert at.selectbox(key="replay_run").value == "baseline"
    assert at.multiselect(key="replay_run_more").value == ["noisy"]
    labels = [m.label for m in at.metric]
    assert labels.count("Paper's metric") == 3  # the human and each of the two runs
    markdown = " ".join(m.value for m in at.markdown)
    assert "Model (baseline)" in markdown and "Model (noisy)" in markdown  # each run's marks against the target
    assert at.query_params["run"] == "baseline,noisy"
    assert "&run=baseline,noisy" in conftest.state_link(at)


def test_two_minecraft_runs_show_each_runs_scores_and_picture_not_3d_charts():
    at = open_page(corpus="minecraft", run="baseline,noisy", **_minecraft_sample_step())
    assert not at.exception and not at.warning
    labels = [m.label for m in at.metric]
    assert labels.count("Net-action F1") == 2 and labels.count("Infeasible actions") == 2
    assert not at.get("plotly_chart")  # the runs are server-drawn pictures
    captions = [image.proto.imgs[0].caption for image in at.get("image")]
    assert sum(c.startswith(("baseline, BAP sample", "noisy, BAP sample")) for c in captions) == 2
    markdown = " ".join(m.value for m in at.markdown)
    assert "**baseline**" in markdown and "**noisy**" in markdown


def test_two_gos_runs_show_each_runs_images_and_scores():
    at = open_page(corpus="gos", run="baseline,noisy", **_gos_message_step())
    assert not at.exception and not at.warning
    markdown = [m.value for m in at.markdown]
    assert sum("Model says it refers to" in m for m in markdown) == 2
    assert sum("Gold (the sender's own marking)" in m for m in markdown) == 1
    labels = [m.label for m in at.metric]
    assert labels.count("F1") == 2 or any("Gold is empty here" in c.value for c in at.caption)


def test_a_single_run_link_shows_one_run_as_before():
    at = open_page(corpus="codraw", dialog=_codraw_dialog(), turn="2", run="baseline")
    assert not at.warning
    assert at.selectbox(key="replay_run").value == "baseline"
    assert at.multiselect(key="replay_run_more").value == []
    assert [m.label for m in at.metric].count("Paper's metric") == 2
    assert at.query_params["run"] == "baseline"


def test_adding_a_run_in_the_multiselect_puts_it_in_the_url():
    at = open_page(corpus="codraw", dialog=_codraw_dialog(), turn="2", run="baseline")
    at.multiselect(key="replay_run_more").select("noisy").run()
    assert not at.exception and at.query_params["run"] == "baseline,noisy"
    assert [m.label for m in at.metric].count("Paper's metric") == 3


def test_an_unknown_name_in_the_link_is_named_and_dropped():
    hostile = "<b>nope</b>" + "x" * 200
    at = open_page(corpus="codraw", dialog=_codraw_dialog(), turn="2", run=f"baseline,{hostile}")
    [warning] = [w.value for w in at.warning]
    assert "which is not a run of CoDraw" in warning
    assert "<b>" not in warning and "x" * 81 not in warning  # escaped and cut short
    assert at.query_params["run"] == "baseline"
    assert [m.label for m in at.metric].count("Paper's metric") == 2


def test_five_runs_in_the_link_keep_the_first_four():
    from data_access.access import Identity
    from data_access.runs import save_upload
    from data_access.runs.demo import demo_runs

    baseline = demo_runs("codraw")["baseline"].read_bytes()
    names = ["baseline", "noisy", "copy-a", "copy-b", "copy-c"]
    for name in names[2:]:
        save_upload("codraw", f"{name}.jsonl", baseline, actor=Identity.local())
    at = open_page(corpus="codraw", dialog=_codraw_dialog(), turn="2", run=",".join(names))
    assert not at.exception
    assert any("at most 4" in w.value for w in at.warning)
    assert at.query_params["run"] == ",".join(names[:4])
    assert [m.label for m in at.metric].count("Paper's metric") == 5  # the human and four runs
