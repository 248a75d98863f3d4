"""CoDraw parsing: layouts, quirks, record faults, whole-source faults and the Parquet round trip."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from corpora.codraw.data import build_frames, demo_source, write_demo
from corpora.codraw.data.frames import ROUND_COLUMNS
from corpora.codraw.data.scenes import parse_scene, parse_scene_strings
from data_access import cache
from data_access.common import DIALOG_COLUMNS, UTTERANCE_COLUMNS, SourceError

TARGET = "2,s_3s.png,0,3,0,469,31,2,0,t_4s.png,1,4,7,279,115,1,1"
DRAWN = "3,s_3s.png,0,3,0,448.5,-2,2,0,t_4s.png,1,4,7,343,167,0,1,a_1s.png,2,1,4,-10000,-10000,0,0,"


def round_(n, msg_t="describe", msg_d="ok", abs_b="", abs_d="", **extra):
    return {"seq_t": str(n), "seq_d": n, "msg_t": msg_t, "msg_d": msg_d, "abs_b": abs_b, "abs_d": abs_d, **extra}


def dialog(*rounds, abs_t=TARGET, socket="/#aaaa/#bbbb"):
    return {"image_id": 7, "abs_t": abs_t, "socketId": socket, "dialog": list(rounds)}


def quirky_dialog():
    return dialog(
        round_(1, msg_t="", msg_d="hi, ready", score=[]),  # Drawer first, empty canvas, score []
        round_(2, msg_t="a sun top right", abs_d=DRAWN),  # no score key
        round_(3, msg_t="and a ball", abs_b=DRAWN, abs_d=DRAWN, peeked=True,
               score=[1.0, [5, -1, -1, -1, -1, -0.5, -0.5], [1, 0, 0, 0, 0.1, 0, 0], [5, 0, 0, 0, -0.1, 0, 0]]),
        round_(4, msg_t="done", msg_d="", abs_b=DRAWN, abs_d=DRAWN, abs_t=TARGET),
    )


def write_file(tmp_path, data, stat=None, name="CoDraw_1_0.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"count": len(data), "stat": stat or {}, "data": data}))
    return path


def test_single_file_frames_and_quirks(tmp_path):
    stat = {"/#aaaa": {"start": [1_500_000_000_000], "end": 1_500_000_090_000, "duration": 95, "round": 4},
            "/#bbbb": {"start": [1_500_000_000_000], "end": 1_500_000_120_000, "round": 4}}
    path = write_file(tmp_path, {"train_00007": quirky_dialog(), "test_00009": quirky_dialog()}, stat)
    frames, skipped = build_frames(path)
    assert skipped == []
    dialogs, rounds, cliparts, utterances = (frames[k] for k in ("dialogs", "rounds", "cliparts", "utterances"))
    assert list(dialogs.columns[:len(DIALOG_COLUMNS)]) == DIALOG_COLUMNS and list(utterances.columns) == UTTERANCE_COLUMNS
    assert list(rounds.columns) == ROUND_COLUMNS
    first = dialogs.iloc[0]
    assert (first["dialog_id"], first["split"], first["n_steps"], first["n_utterances"]) == ("train_00007", "train", 4, 6)
    assert first["duration_s"] == 120.0  # the longer session; the second from end - start in milliseconds
    assert first["peek_round"] == 3 and first["rounds_after_peek"] == 2
    assert dialogs["split"].tolist() == ["train", "test"]
    r = rounds[rounds["dialog_id"] == "train_00007"]
    assert r["score_status"].tolist() == ["empty", "missing", "present", "missing"]
    assert r["seq_d"].tolist() == ["1", "2", "3", "4"] and r["peeked"].tolist() == [False, False, True, False]
    assert r["after_scene"].isna().tolist() == [True, False, False, False]
    assert np.isnan(r["score_final"].iloc[0]) and not np.isnan(r["score_final"].iloc[1])
    assert len(r["stored_terms"].iloc[0]) == 0 and len(r["stored_terms"].iloc[2]) == 7
    # the score before the peek is that of round 2's drawing, the final one that of round 4
    assert first["score_before_peek"] == pytest.approx(r["score_final"].iloc[1])
    assert first["final_score"] == pytest.approx(r["score_final"].iloc[3])
    # palette items are not cliparts; 448.5 and -2 are kept as stored
    drawn = cliparts[cliparts["scene_id"] == r["after_scene"].iloc[1]]
    assert drawn["name"].tolist() == ["s_3s.png", "t_4s.png"]
    assert drawn["x"].tolist() == [448.5, 343.0] and drawn["y"].tolist() == [-2.0, 167.0]
    teller = utterances[(utterances["dialog_id"] == "train_00007")]
    assert teller["role"].tolist() == ["Drawer", "Teller", "Drawer", "Teller", "Drawer", "Teller"]
    assert teller["turn"].tolist() == [1, 2, 2, 3, 3, 4]


def test_folder_of_dialog_files_and_a_truncated_file(tmp_path):
    (tmp_path / "train_00007.json").write_text(json.dumps(quirky_dialog()))
    (tmp_path / "val_00008.json").write_text(json.dumps(quirky_dialog()))
    (tmp_path / "test_00009.json").write_text(json.dumps(quirky_dialog())[:200])
    frames, skipped = build_frames(tmp_path)
    assert frames["dialogs"]["dialog_id"].tolist() == ["train_00007", "val_00008"]
    assert [s.record for s in skipped] == ["test_00009.json"]
    assert "not valid JSON" in skipped[0].reason
    assert frames["dialogs"]["duration_s"].isna().all()  # no stat section in the folder layout


def test_gzip_file(tmp_path):
    path = tmp_path / "CoDraw_1_0.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"count": 1, "stat": {}, "data": {"val_00001": quirky_dialog()}}).encode()))
    frames, _ = build_frames(path)
    assert frames["dialogs"]["split"].tolist() == ["val"]


@pytest.mark.parametrize("scene, reason", [
    (TARGET.replace(",1,1", ",1"), "fields"),  # wrong field count
    (TARGET.replace(",0,3,0,469", ",0,3,9,469"), "unknown type"),
    (TARGET.replace("469", "nan"), "finite"),
    (TARGET.replace("469", "inf"), "finite"),
    (TARGET.replace("469", "left"), "finite"),
])
def test_a_broken_scene_skips_its_rounds_only(tmp_path, scene, reason):
    bad = dialog(round_(1, abs_d=DRAWN), round_(2, abs_b=DRAWN, abs_d=scene), round_(3, abs_b=DRAWN, abs_d=DRAWN))
    path = write_file(tmp_path, {"train_00001": bad, "train_00002": quirky_dialog()})
    frames, skipped = build_frames(path)
    assert [s.record for s in skipped] == ["CoDraw_1_0.json: train_00001 round 2"]
    assert reason in skipped[0].reason
    assert frames["rounds"]["round"].tolist() == [1, 3, 1, 2, 3, 4]
    assert frames["dialogs"].set_index("dialog_id").loc["train_00001", "n_steps"] == 3


def test_record_faults_skip_the_smallest_unit(tmp_path):
    data = {
        "train_00001": {"image_id": 1, "abs_t": TARGET, "dialog": "not a list"},
        "train_00002": dialog(abs_t=TARGET.replace(",1,1", ",1")),  # broken target: whole dialog
        "train_00003": dialog(round_(1, msg_t=5), round_(2, abs_d=DRAWN, score="high"), round_(3, seq_t=None, abs_d=DRAWN)),
        "train_00004": quirky_dialog(),
    }
    frames, skipped = build_frames(write_file(tmp_path, data))
    where = {s.record: s.reason for s in skipped}
    assert "is not a list" in where["CoDraw_1_0.json: train_00001"]
    assert "target scene" in where["CoDraw_1_0.json: train_00002"]
    assert "msg_t is int" in where["CoDraw_1_0.json: train_00003 round 1"]
    assert "score" in where["CoDraw_1_0.json: train_00003 round 2"]
    assert frames["dialogs"]["dialog_id"].tolist() == ["train_00003", "train_00004"]
    assert frames["rounds"].query("dialog_id == 'train_00003'")["round"].tolist() == [3]


@pytest.mark.parametrize("content, problem", [
    (b"", "is empty"),
    (b'{"count": 1, "data": {"train_00001": ', "not valid JSON"),
    (b"[1, 2, 3]", "not a CoDraw file"),
    (b'{"interaction_id": "a", "type": "x"}\n{"interaction_id": "b"}\n{"interaction_id": "c"}\n', "JSON Lines"),
    (b'{"data": {"train_00001": {"abs_t": "\xff\xfe", "dialog": []}}}', "UTF-8"),
])
def test_whole_file_faults_name_the_file(tmp_path, content, problem):
    path = tmp_path / "CoDraw_1_0.json"
    path.write_bytes(content)
    with pytest.raises(SourceError) as error:
        build_frames(path)
    assert str(path) in str(error.value) and problem in str(error.value)


def test_missing_path_not_gzip_and_empty_or_wrong_folders(tmp_path):
    with pytest.raises(SourceError, match="does not exist"):
        build_frames(tmp_path / "nope.json")
    fake = tmp_path / "CoDraw_1_0.json.gz"
    fake.write_bytes(b'{"data": {}}')
    with pytest.raises(SourceError, match="not a gzip"):
        build_frames(fake)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SourceError, match="no CoDraw files"):
        build_frames(empty)
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    (wrong / "notes.json").write_text('{"hello": 1}')
    with pytest.raises(SourceError, match="none of its 1 .json files"):
        build_frames(wrong)


def test_vectorised_scene_parser_matches_the_reference():
    scenes = [TARGET, DRAWN, TARGET + ",", "0,"]
    parsed = parse_scene_strings(scenes)
    assert not parsed.problems
    for i, scene in enumerate(scenes):
        rows = parsed.cliparts[parsed.cliparts["scene_id"] == i]
        reference = parse_scene(scene)
        assert rows["identity"].tolist() == [c.identity for c in reference]
        assert rows["x"].tolist() == [c.x for c in reference]
        assert rows["flip"].tolist() == [c.flip for c in reference]


def test_demo_corpus_has_the_quirks_and_reproduces_its_scores(tmp_path):
    write_demo(tmp_path)
    raw = json.loads(demo_source(tmp_path).read_text())
    rounds = [r for d in raw["data"].values() for r in d["dialog"]]
    assert {k.split("_")[0] for k in raw["data"]} == {"train", "val", "test"}
    assert any(isinstance(r["seq_t"], int) for r in rounds) and any(isinstance(r["seq_t"], str) for r in rounds)
    assert any("score" not in r for r in rounds) and any(r.get("score") == [] for r in rounds)
    assert any(r["msg_t"] == "" for r in rounds) and any("abs_t" in r for r in rounds)
    assert any(r["abs_d"].endswith(",") for r in rounds) and any(".5," in r["abs_d"] for r in rounds)
    assert 0 < len(raw["stat"]) < len(raw["data"])
    frames, skipped = build_frames(demo_source(tmp_path))
    assert skipped == []
    rounds = frames["rounds"]
    present = rounds[rounds["score_status"] == "present"]
    assert len(present) > 100 and present["stored_reproduced"].all()
    dialogs = frames["dialogs"]
    assert 0 < dialogs["peek_round"].isna().sum() < len(dialogs) / 2
    assert dialogs["duration_s"].notna().sum() == len(raw["stat"])
    assert (rounds.groupby("dialog_id")["peeked"].sum() <= 1).all()
    other = tmp_path / "again"
    write_demo(other)
    assert demo_source(other).read_bytes() == demo_source(tmp_path).read_bytes()


def test_frames_round_trip_through_the_parquet_cache(tmp_path):
    write_demo(tmp_path / "demo")
    frames, skipped = build_frames(demo_source(tmp_path / "demo"))
    entry = tmp_path / "cache" / "codraw-test"
    cache.write_entry(entry, frames, skipped)
    back, back_skipped = cache.read_entry(entry)
    assert back_skipped == skipped
    for name, frame in frames.items():
        pd.testing.assert_frame_equal(frame, back[name], check_dtype=True)
