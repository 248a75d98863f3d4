"""CoDraw runs: both formats, hand-worked scores, the final-drawing rule, unmatched / malformed rows,
whole-file errors, and agreement with the readable one-pair metric functions on the demo corpus."""
from __future__ import annotations

import gzip
import json
import math

import pytest

from corpora.codraw.data.metrics import final_score, original_score
from corpora.codraw.data.scenes import parse_scene
from data_access.access import Identity
from data_access.common import SourceError
from data_access.corpora import load_path
from data_access.runs import load_run, summarize
from data_access.runs.demo import demo_runs

# target: one sun (type 0, object 3) at (100, 100), depth 0, not flipped
TARGET = "1,s_3s.png,0,3,0,100,100,0,0,"
SAME = "1,s_3s.png,0,3,0,100,100,0,0,"
FLIPPED = "1,s_3s.png,0,3,0,100,100,0,1,"
EXTRA = "2,s_3s.png,0,3,0,100,100,0,0,t_4s.png,1,4,7,300,300,0,0,"  # plus a ball: union 2, common 1


def write_corpus(folder):
    def rounds(n):
        return [{"seq_t": str(i), "seq_d": i, "msg_t": "draw a sun", "msg_d": "ok", "abs_b": "", "abs_d": SAME,
                 "abs_t": TARGET, "score": []} for i in range(1, n + 1)]
    data = {"train_00001": {"image_id": 1, "abs_t": TARGET, "socketId": "a", "dialog": rounds(3)},
            "test_00002": {"image_id": 2, "abs_t": TARGET, "socketId": "b", "dialog": rounds(2)}}
    path = folder / "CoDraw_1_0.json"
    path.write_text(json.dumps({"count": 2, "stat": {}, "data": data}))
    return path


def corpus_file(tmp_path):
    return tmp_path / "CoDraw_1_0.json"


@pytest.fixture
def corpus(tmp_path):
    return load_path("codraw", write_corpus(tmp_path), cache_root=tmp_path / "cache")


def jsonl(path, *lines):
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_hand_worked_scores_per_round_and_final(corpus, tmp_path):
    run = jsonl(tmp_path / "model.jsonl",
                {"dialog_id": "train_00001", "round": 1, "scene": SAME},
                {"dialog_id": "train_00001", "round": 2, "scene": FLIPPED},
                {"dialog_id": "train_00001", "round": 3, "scene": ""},  # empty canvas: not the final drawing
                {"dialog_id": "test_00002", "round": 2, "scene": EXTRA})
    loaded = load_run(corpus, run, cache_root=tmp_path / "cache")
    rounds = loaded.frames["rounds"].set_index(["dialog_id", "round"])
    # identical: IoU 1, nothing wrong -> 5 under both metrics
    assert rounds.loc[("train_00001", 1), "score_final"] == 5.0
    assert rounds.loc[("train_00001", 1), "score_original"] == 5.0
    # flipped: final 5 - 1 * 1/1 = 4; original 5 - 1 * (1 flip / 1 object) * IoU 1 = 4
    assert rounds.loc[("train_00001", 2), "score_final"] == 4.0
    assert rounds.loc[("train_00001", 2), "score_original"] == 4.0
    assert math.isnan(rounds.loc[("train_00001", 3), "score_final"])
    # an extra clipart: IoU 1/2 -> 2.5 under both
    assert rounds.loc[("test_00002", 2), "score_final"] == 2.5
    assert rounds.loc[("test_00002", 2), "score_original"] == 2.5
    # the humans drew the target exactly every round
    assert set(rounds["human_score_final"]) == {5.0}
    dialogs = loaded.frames["dialogs"].set_index("dialog_id")
    assert dialogs.loc["train_00001", "final_round"] == 2 and dialogs.loc["train_00001", "final_score"] == 4.0
    assert dialogs.loc["train_00001", "human_final_round"] == 3 and dialogs.loc["train_00001", "human_final_score"] == 5.0
    summary = summarize(loaded)
    assert summary["run"] == "model" and summary["matched_dialogs"] == 2 and summary["scored_rounds"] == 3
    assert summary["splits"]["train"] == {"dialogs": 1, "mean_final_score": 4.0, "mean_final_score_original_metric": 4.0}
    assert summary["splits"]["test"]["mean_final_score"] == 2.5
    assert summary["unmatched"] == 0 and summary["skipped"] == []


def test_unmatched_malformed_and_duplicate_rows_are_listed_and_the_rest_scores(corpus, tmp_path):
    run = jsonl(tmp_path / "messy.jsonl",
                {"dialog_id": "train_00001", "round": 1, "scene": SAME},
                "this is not json",
                {"dialog_id": "nope_00001", "round": 1, "scene": SAME},
                {"dialog_id": "train_00001", "round": 9, "scene": SAME},
                {"dialog_id": "train_00001", "round": 1, "scene": FLIPPED},
                {"dialog_id": "train_00001", "round": 2, "scene": "2,s_3s.png,0,3"},
                {"dialog_id": "train_00001", "round": "3", "scene": SAME},
                "")
    loaded = load_run(corpus, run, cache_root=tmp_path / "cache")
    unmatched = loaded.unmatched
    assert unmatched["line"].tolist() == [3, 4]
    assert unmatched["file"].tolist() == ["messy.jsonl"] * 2
    assert unmatched["reason"].tolist() == ["unknown dialog", "the dialog has no round 9 (it has 1..3)"]
    records = [s.record for s in loaded.skipped]
    assert records == ["messy.jsonl:2", "messy.jsonl:7", "messy.jsonl:5", "messy.jsonl:6"]
    assert "second prediction" in loaded.skipped[2].reason and "fields" in loaded.skipped[3].reason
    assert loaded.frames["rounds"]["score_final"].tolist() == [5.0]  # the first prediction of round 1 counts


def test_the_corpus_layout_gz_is_a_run_and_reproduces_the_human_scores(corpus, tmp_path):
    source = json.loads(corpus_file(tmp_path).read_text())
    source["data"]["train_00001"]["dialog"][1]["abs_d"] = FLIPPED
    run = tmp_path / "human-machine.json.gz"
    run.write_bytes(gzip.compress(json.dumps(source).encode()))
    loaded = load_run(corpus, run, cache_root=tmp_path / "cache")
    rounds = loaded.frames["rounds"]
    assert len(rounds) == 5 and rounds["line"].isna().all()
    assert rounds["record"].iloc[0] == "data.test_00002.dialog[0]"
    assert rounds["score_final"].tolist() == [5.0, 5.0, 5.0, 4.0, 5.0]
    assert loaded.name == "human-machine"


@pytest.mark.parametrize("content, message", [
    ("", "holds no JSON object line"),
    ('{"game": "B1-A1-C1-1", "sample_id": 3, "actions": []}\n', "looks like a run of Minecraft"),
    ('{"interaction_id": "x", "round_number": 1, "message_number": 1, "image_ids": []}\n', "looks like a run of A Game Of Sorts"),
    ('{"dialog_id": 5}\n{"dialog_id": "a"}\n', "has no usable line"),
    ("[1, 2]\n", "holds no JSON object line"),
])
def test_whole_file_faults_are_one_source_error_naming_the_file(corpus, tmp_path, content, message):
    run = tmp_path / "bad.jsonl"
    run.write_text(content)
    with pytest.raises(SourceError) as error:
        load_run(corpus, run, cache_root=tmp_path / "cache")
    assert str(error.value).startswith(str(run)) and message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_run_is_parsed_once_and_then_read_from_the_parquet_cache(corpus, tmp_path):
    run = jsonl(tmp_path / "m.jsonl", {"dialog_id": "train_00001", "round": 2, "scene": FLIPPED}, "broken")
    first = load_run(corpus, run, cache_root=tmp_path / "cache")
    second = load_run(corpus, run, cache_root=tmp_path / "cache")
    assert not first.from_cache and second.from_cache
    assert second.frames["rounds"]["score_final"].tolist() == [4.0]
    assert [s.record for s in second.skipped] == ["m.jsonl:2"]
    jsonl(run, {"dialog_id": "train_00001", "round": 2, "scene": SAME})  # a changed file misses the cache
    third = load_run(corpus, run, cache_root=tmp_path / "cache")
    assert not third.from_cache and third.frames["rounds"]["score_final"].tolist() == [5.0]


def test_demo_run_scores_agree_with_the_readable_one_pair_metrics(tmp_path):
    """The vectorised run scoring against the straightforward per-pair functions, round by round."""
    corpus = load_path("codraw", None, cache_root=tmp_path)
    cliparts = corpus.frames["cliparts"]
    from corpora.codraw.data.scenes import cliparts_of

    for _name, file in demo_runs("codraw", tmp_path).items():
        rounds = load_run(corpus, file, cache_root=tmp_path).frames["rounds"]
        human = corpus.frames["rounds"].set_index(["dialog_id", "round"])["target_scene"]
        assert len(rounds) > 100
        for row in rounds.itertuples(index=False):
            target = cliparts_of(cliparts[cliparts["scene_id"] == int(human[(row.dialog_id, row.round)])])
            drawing = parse_scene(row.scene)
            if not row.scene:
                assert math.isnan(row.score_final)
                continue
            assert row.score_final == pytest.approx(final_score(drawing, target).score, abs=1e-12)
            assert row.score_original == pytest.approx(original_score(drawing, target).score, abs=1e-12)


@pytest.mark.parametrize("damage", ["nan", "bad byte", "bom"])
def test_one_bad_value_in_a_corpus_layout_run_costs_its_round_not_the_run(corpus, tmp_path, damage):
    """The corpus layout was decoded by msgspec only: one NaN or undecodable byte made the whole run
    "hold no JSON object line"; it is now read as the corpus is, leniently where it must be."""
    source = json.loads(corpus_file(tmp_path).read_text())
    source["data"]["train_00001"]["dialog"][1]["abs_d"] = "__SCENE__"
    source["data"]["train_00001"]["dialog"][2]["score"] = "__SCORE__"
    text = json.dumps(source).encode().replace(b'"__SCORE__"', b"NaN" if damage == "nan" else b"[]")
    text = text.replace(b'"__SCENE__"', json.dumps(FLIPPED if damage != "bad byte" else "1,s_3s.png,0,3,0,100,100,0,1,\udcff",
                                                    ensure_ascii=False).encode("utf-8", "surrogateescape"))
    run = tmp_path / "run.json"
    run.write_bytes((b"\xef\xbb\xbf" if damage == "bom" else b"") + text)
    loaded = load_run(corpus, run, cache_root=tmp_path / "cache")
    rounds = loaded.frames["rounds"]
    if damage == "bad byte":
        assert [(s.record, s.reason) for s in loaded.skipped] == [
            ("run.json data.train_00001.dialog[1]", "abs_d holds bytes that are not UTF-8")]
        assert len(rounds) == 4
    else:
        assert loaded.skipped == [] and len(rounds) == 5
        assert rounds["score_final"].tolist() == [5.0, 5.0, 5.0, 4.0, 5.0]


def test_a_round_number_beyond_64_bits_is_a_skipped_line_not_a_failed_run(corpus, tmp_path):
    run = jsonl(tmp_path / "huge.jsonl",
                {"dialog_id": "train_00001", "round": 1, "scene": SAME},
                '{"dialog_id": "train_00001", "round": 18446744073709551615, "scene": ""}',
                '\ufeff{"dialog_id": "train_00001", "round": 2, "scene": ""}')  # a stray BOM mid-file is no JSON
    loaded = load_run(corpus, run, cache_root=tmp_path / "cache")
    assert [(s.record, s.reason) for s in loaded.skipped][0] == ("huge.jsonl:2", "round is missing or not a positive integer")
    assert loaded.frames["rounds"]["score_final"].tolist() == [5.0]


def test_a_byte_order_mark_before_the_first_line_is_not_a_bad_line(corpus, tmp_path):
    run = tmp_path / "bom.jsonl"
    run.write_bytes(b"\xef\xbb\xbf" + json.dumps({"dialog_id": "train_00001", "round": 1, "scene": SAME}).encode() + b"\n")
    loaded = load_run(corpus, run, cache_root=tmp_path / "cache")
    assert loaded.skipped == [] and loaded.frames["rounds"]["score_final"].tolist() == [5.0]


def test_only_an_upload_can_be_removed(tmp_path, monkeypatch):
    from data_access.runs import available_runs, remove_upload, save_upload

    configured = tmp_path / "runs" / "codraw"
    configured.mkdir(parents=True)
    (configured / "kept.jsonl").write_text("{}\n")
    monkeypatch.setenv("DIALOGUE_RUNS_DIR", str(tmp_path / "runs"))
    save_upload("codraw", "mine.jsonl", b"{}\n", cache_root=tmp_path / "cache", actor=Identity.local())
    assert set(available_runs("codraw", False, tmp_path / "cache")) == {"kept", "mine"}
    assert not remove_upload("codraw", "kept", actor=Identity.local(), cache_root=tmp_path / "cache")  # a configured run file is not the app's to delete
    assert remove_upload("codraw", "mine", actor=Identity.local(), cache_root=tmp_path / "cache") and not remove_upload("codraw", "mine", actor=Identity.local(), cache_root=tmp_path / "cache")
    assert set(available_runs("codraw", False, tmp_path / "cache")) == {"kept"}
