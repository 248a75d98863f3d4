"""Model runs (issue 26, items 4, 6 and 9): one rule for duplicates in every format (the first counts, the
rest listed); run names unique with every collision said; a generated_sentences file recognised whatever its
first metric's name holds; an unexpected error never "unexpected MemoryError:" with nothing after it."""
from __future__ import annotations

import json

import pytest

from data_access.access import Identity
from data_access.common import describe_unexpected
from data_access.corpora import load_path
from data_access.runs import (
    available_runs,
    load_run,
    replaces_upload,
    run_name_collisions,
    save_upload,
    summarize,
)
from tests.unit.test_runs_codraw import EXTRA, FLIPPED, SAME, corpus_file, write_corpus


@pytest.fixture
def corpus(tmp_path):
    return load_path("codraw", write_corpus(tmp_path), cache_root=tmp_path / "cache")


def test_a_dialog_key_given_twice_in_a_corpus_layout_run_keeps_the_first_and_lists_the_second(corpus, tmp_path):
    """As in JSON Lines: a JSON parser keeps the last copy of a key, so the second copy was scored, unlisted."""
    source = json.loads(corpus_file(tmp_path).read_text())
    first = json.dumps({"dialog": [{"abs_d": FLIPPED}, {"abs_d": FLIPPED}]})
    second = json.dumps({"dialog": [{"abs_d": SAME}, {"abs_d": EXTRA}]})
    test_dialog = json.dumps(source["data"]["test_00002"])
    run = tmp_path / "twice.json"
    run.write_text(f'{{"data": {{"train_00001": {first}, "test_00002": {test_dialog}, "train_00001": {second}}}}}')
    loaded = load_run(corpus, run, cache_root=tmp_path / "cache")
    rounds = loaded.frames["rounds"]
    train = rounds[rounds["dialog_id"] == "train_00001"]
    assert train["scene"].tolist() == [FLIPPED, FLIPPED]  # the first copy
    assert [(s.record, s.reason) for s in loaded.skipped] == [
        ("twice.json data.train_00001", "a second copy of dialog train_00001 (the first one counts)")]
    assert summarize(loaded)["skipped_total"] == 1
    jsonl = tmp_path / "twice.jsonl"  # the same rule in JSON Lines
    jsonl.write_text("".join(json.dumps({"dialog_id": "train_00001", "round": 1, "scene": s}) + "\n" for s in (FLIPPED, SAME)))
    lines = load_run(corpus, jsonl, cache_root=tmp_path / "cache")
    assert lines.frames["rounds"]["scene"].tolist() == [FLIPPED] and "second prediction" in lines.skipped[0].reason


def test_two_files_of_one_run_name_are_both_said(tmp_path, monkeypatch):
    folder = tmp_path / "runs" / "codraw"
    folder.mkdir(parents=True)
    (folder / "x.json").write_text("{}\n")
    (folder / "x.jsonl").write_text("{}\n")
    monkeypatch.setenv("DIALOGUE_RUNS_DIR", str(tmp_path / "runs"))
    cache = tmp_path / "cache"
    assert available_runs("codraw", False, cache) == {"x": (folder / "x.json", False)}
    assert run_name_collisions("codraw", False, cache) == [
        f"x.jsonl in {folder} is not used: the run name “x” is already given by x.json beside it; rename one of them"]


def test_an_upload_named_like_a_configured_run_is_refused_and_a_reupload_says_it_replaces(tmp_path, monkeypatch):
    folder = tmp_path / "runs" / "codraw"
    folder.mkdir(parents=True)
    (folder / "kept.jsonl").write_text("{}\n")
    monkeypatch.setenv("DIALOGUE_RUNS_DIR", str(tmp_path / "runs"))
    cache = tmp_path / "cache"
    with pytest.raises(ValueError, match="a run named “kept” already exists"):
        save_upload("codraw", "kept.json", b"{}\n", cache_root=cache, taken={"kept"}, actor=Identity.local())
    assert set(available_runs("codraw", False, cache)) == {"kept"}
    assert replaces_upload("codraw", "mine.jsonl", cache) is None
    save_upload("codraw", "mine.json", b"{}\n", cache_root=cache, taken={"kept"}, actor=Identity.local())
    assert replaces_upload("codraw", "mine.jsonl", cache) == "mine.json"
    path = save_upload("codraw", "mine.jsonl", b"{}\n", cache_root=cache, taken={"kept"}, actor=Identity.local())
    assert sorted(p.name for p in path.parent.iterdir()) == ["mine.jsonl"]  # one run of that name, the new file
    # a file left in the upload folder under a configured name (e.g. from before) is said, not hidden
    (path.parent / "kept.jsonl").write_text("{}\n")
    assert available_runs("codraw", False, cache)["kept"][0] == folder / "kept.jsonl"
    assert any(m.startswith("kept.jsonl in ") and "already given by kept.jsonl in" in m
               for m in run_name_collisions("codraw", False, cache))


def test_a_demo_run_name_is_taken_too(tmp_path, monkeypatch):
    from data_access.runs.demo import demo_runs

    name = next(iter(demo_runs("codraw", tmp_path / "cache")))
    folder = tmp_path / "runs" / "codraw"
    folder.mkdir(parents=True)
    (folder / f"{name}.jsonl").write_text("{}\n")
    monkeypatch.setenv("DIALOGUE_RUNS_DIR", str(tmp_path / "runs"))
    assert available_runs("codraw", True, tmp_path / "cache")[name][1] is True
    assert run_name_collisions("codraw", True, tmp_path / "cache") == [
        f"{name}.jsonl in {folder} is not used: the run name “{name}” is already given by a demo run; rename one of them"]


@pytest.mark.parametrize("first_line", [b"bleu4 0.31", b"f1_score: 0.5", b"net_action_f1 0.2", b"Loss 1.5e-3"])
def test_a_generated_sentences_file_is_recognised_whatever_its_first_metric_holds(first_line):
    from corpora.minecraft.data.scoring import _generated_sentences

    data = first_line + b"\nprecision 0.5\n\n" + json.dumps([{"generated_seq": [], "ground_truth_seq": []}]).encode()
    assert _generated_sentences(data) == [{"generated_seq": [], "ground_truth_seq": []}]


def test_an_unexpected_error_always_says_something():
    assert describe_unexpected(MemoryError()) == "ran out of memory while reading it (is it far larger than such a file can be?)"
    assert describe_unexpected(ValueError()) == "unexpected ValueError"
    assert describe_unexpected(KeyError("x")) == "unexpected KeyError: 'x'"
