"""Parsing A Game Of Sorts: the JSON Lines reader's quirks, record validation, derived frames, the
Parquet round trip, whole-source errors and the generated demo corpus."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from corpora.gos.data import build_frames, demo_source, reader, summarize, write_demo
from data_access import cache
from data_access.common import DIALOG_COLUMNS, UTTERANCE_COLUMNS, LoadedCorpus, SourceError

GAME = "game_1_dogs_1"
BOARD = f"{GAME}_board_1"
IMAGES = ["n1_a", "n2_b", "n3_c"]
IID = "61bcbb1fe90a3cc04fda05de"
A, B = "tiny-elephant-9291", "puny-badger-139"
T0 = int(IID[:8], 16) * 1000  # times count from the interaction's creation (its ObjectId), as in the real log


def message(number, user, text, images, t, active=True, round_number=1):
    return {"interaction_id": IID, "game_id": GAME, "board_id": BOARD, "round_number": round_number,
            "round_active": active, "message_number": number, "username": user, "body_text": text,
            "image_ids": images, "timestamp": T0 + t}


def lock_event(number, user, kind, image, t, round_number=1):
    return {"interaction_id": IID, "game_id": GAME, "board_id": BOARD, "round_number": round_number,
            "lock_event_number": number, "username": user, "lock_event_type": kind, "image_id": image, "timestamp": T0 + t}


ROUND = [
    message(1, A, "hi, the first one?", ["n1_a"], 1_000_000),
    message(2, B, "ok", [None], 1_005_000),
    lock_event(1, A, "lock", "n2_b", 1_010_000),
    lock_event(2, A, "unlock manual", "n2_b", 1_012_000),
    lock_event(3, A, "lock", "n1_a", 1_020_000),
    lock_event(4, B, "lock", "n3_c", 1_030_000),  # mismatch
    lock_event(5, B, "unlock automatic", "n3_c", 1_030_100),
    lock_event(6, A, "unlock automatic", "n1_a", 1_030_200),
    message(3, B, "sorry, wrong one", ["n3_c", "n1_a"], 1_040_000),
    lock_event(7, B, "lock", "n1_a", 1_050_000),
    lock_event(8, A, "lock", "n1_a", 1_060_000),  # rank 1
    lock_event(9, A, "lock", "n2_b", 1_070_000),
    lock_event(10, B, "lock", "n2_b", 1_080_000),  # rank 2
    lock_event(11, B, "lock", "n3_c", 1_090_000),
    lock_event(12, A, "lock", "n3_c", 1_100_000),  # rank 3: the round ends
    message(4, A, "thanks!", [None], 1_110_000, active=False),
]


def dump(records, final_newline=True) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + ("\n" if final_newline else "")


def write_corpus(folder: Path, log=ROUND, mappings=None, extra_log_lines=()) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = [{"game_id": GAME, "board_number": 1, "board_id": BOARD, "criterion": "Which dog guards best?",
               "instruction": "Rank them.", "image_ids": IMAGES}]
    if mappings is None:
        mappings = [{"interaction_id": IID, "game_id": GAME, "board_id": BOARD, "round_number": 1, "username": user,
                     "mapping": [{"position": p, "image_id": i} for p, i in enumerate(layout, start=1)]}
                    for user, layout in ((A, ["n3_c", "n1_a", "n2_b"]), (B, ["n2_b", "n3_c", "n1_a"]))]
    questions = [{"question_id": "q1", "question_content": "It went well.", "question_type": "multiple_choice",
                  "answer_options": [{"answer_id": "a", "answer_content": "No"}, {"answer_id": "b", "answer_content": "Yes"}]},
                 {"question_id": "q5", "question_content": "Year of birth?", "question_type": "open", "answer_options": []}]
    (folder / reader.LOG_FILE).write_text(dump(list(log) + list(extra_log_lines)), encoding="utf-8")
    (folder / reader.GAME_CONFIG_FILE).write_text(dump(config, final_newline=False), encoding="utf-8")
    (folder / reader.MAPPINGS_FILE).write_text(dump(mappings), encoding="utf-8")
    (folder / reader.SURVEY_CONFIG_FILE).write_text(dump(questions, final_newline=False), encoding="utf-8")
    (folder / reader.SURVEY_INTERACTION_FILE).write_text(dump([{"interaction_id": IID, "game_id": GAME, "username": A,
                                                                "answers": [{"answer": "b", "question_id": "q1"}]}]), encoding="utf-8")
    (folder / reader.SURVEY_USER_FILE).write_text(dump([{"username": A, "answers": [{"answer": "1990", "question_id": "q5"}]}]),
                                                  encoding="utf-8")
    return folder


@pytest.fixture
def corpus(tmp_path):
    frames, skipped = build_frames(write_corpus(tmp_path / "gos"), lambda *_: None)
    return frames, skipped


def test_ranks_mismatches_and_unlocks_of_a_hand_made_round(corpus):
    frames, skipped = corpus
    assert skipped == []
    ranks = frames["ranks"]
    assert list(ranks["image_id"]) == ["n1_a", "n2_b", "n3_c"] and list(ranks["rank"]) == [1, 2, 3]
    assert list(ranks["round_time_s"]) == [60.0, 80.0, 100.0]
    rnd = frames["rounds"].iloc[0]
    assert (rnd["mismatches"], rnd["manual_unlocks"], rnd["automatic_unlocks"]) == (1, 1, 2)
    assert rnd["fully_ranked"] and rnd["n_ranked"] == 3
    assert rnd["duration_s"] == 100.0  # first event → the last rank, not the post-round "thanks!"
    assert (rnd["n_messages"], rnd["n_lock_events"], rnd["n_steps"]) == (4, 12, 16)


def test_steps_interleave_messages_and_locks_and_carry_the_state_after_each(corpus):
    steps = corpus[0]["steps"]
    assert list(steps["step"]) == list(range(1, 17))
    assert list(steps["kind"][:4]) == ["message", "message", "lock", "unlock manual"]
    mismatch = steps[steps["mismatch"]]
    assert list(mismatch["step"]) == [6]
    assert (mismatch.iloc[0]["pending_a"], mismatch.iloc[0]["pending_b"]) == ("n1_a", "n3_c")
    after_releases = steps[steps["step"] == 8].iloc[0]
    assert pd.isna(after_releases["pending_a"]) and pd.isna(after_releases["pending_b"])
    assert list(steps.loc[steps["produced_rank"].notna(), "step"]) == [11, 13, 15]
    assert list(steps["ranks_so_far"])[-1] == 3
    assert set(steps["role"]) == {"Player A", "Player B"}


def test_messages_annotations_and_utterances(corpus):
    frames, _ = corpus
    messages = frames["messages"]
    assert [list(ids) for ids in messages["image_ids"]] == [["n1_a"], [], ["n3_c", "n1_a"], []]
    assert list(messages["refers_to_image"]) == [True, False, True, False]
    assert list(messages["in_round"]) == [True, True, True, False]
    assert list(messages["next_ranked_image_id"][:3]) == ["n1_a", "n1_a", "n1_a"]
    assert list(messages["refers_to_next_ranked"]) == [True, False, True, False]
    utterances = frames["utterances"]
    assert list(utterances.columns) == UTTERANCE_COLUMNS
    assert list(utterances["turn"]) == [1, 2, 9, 16] and list(utterances["round"]) == [1, 1, 1, 1]
    assert list(utterances["role"]) == ["Player A", "Player B", "Player B", "Player A"]
    assert list(utterances["time_s"]) == [0.0, 5.0, 40.0, 110.0]


def test_dialogs_frame(corpus):
    dialog = corpus[0]["dialogs"].iloc[0]
    assert list(corpus[0]["dialogs"].columns[:len(DIALOG_COLUMNS)]) == DIALOG_COLUMNS
    assert (dialog["corpus"], dialog["dialog_id"], dialog["split"]) == ("gos", IID, "all")
    assert (dialog["n_steps"], dialog["n_utterances"], dialog["duration_s"]) == (16, 4, 110.0)
    assert list(dialog["players"]) == [A, B]
    assert dialog["created_at"] == pd.Timestamp(int(IID[:8], 16), unit="s", tz="UTC")
    assert (dialog["mismatches"], dialog["manual_unlocks"], dialog["category"]) == (1, 1, "dogs")


def test_layouts_have_rows_and_columns_per_player(corpus):
    layouts = corpus[0]["layouts"]
    mine = layouts[layouts["username"] == A]
    assert list(mine["image_id"]) == ["n3_c", "n1_a", "n2_b"]
    assert list(mine["row"]) == [0, 0, 0] and list(mine["col"]) == [0, 1, 2]


def test_survey_answers_are_joined_to_their_questions(corpus):
    survey = corpus[0]["survey"]
    q1 = survey[survey["question_id"] == "q1"].iloc[0]
    assert (q1["level"], q1["question"], q1["answer_text"], q1["option_number"]) == ("interaction", "It went well.", "Yes", 2)
    q5 = survey[survey["question_id"] == "q5"].iloc[0]
    assert (q5["level"], q5["answer_text"], pd.isna(q5["option_number"])) == ("user", "1990", True)


def test_every_frame_round_trips_through_the_parquet_cache(corpus, tmp_path):
    frames, skipped = corpus
    cache.write_entry(tmp_path / "entry", frames, skipped)
    back, _ = cache.read_entry(tmp_path / "entry")
    assert set(back) == set(frames)
    for name, frame in frames.items():
        pd.testing.assert_frame_equal(frame, back[name], obj=name)


def test_malformed_lines_are_reported_with_their_line_number_and_the_rest_loads(tmp_path):
    bad = ["{not json", "", "[1, 2]", json.dumps({"interaction_id": IID, "note": "neither"}),
           json.dumps({**lock_event(13, A, "explode", "n1_a", 1_200_000)}),
           json.dumps({**message(5, A, "x", ["n1_a"], 1_210_000), "timestamp": "soon"}),
           json.dumps({**message(6, A, "x", ["n1_a"], 1_220_000), "round_active": 1}),
           json.dumps({**lock_event(14, A, "lock", "n1_a", 1_230_000), "board_id": "nowhere"})]
    frames, skipped = build_frames(write_corpus(tmp_path / "gos", extra_log_lines=bad), lambda *_: None)
    reasons = {s.record: s.reason for s in skipped}
    first = len(ROUND) + 1
    assert "not valid JSON" in reasons[f"{reader.LOG_FILE} line {first}"]
    assert "not an object" in reasons[f"{reader.LOG_FILE} line {first + 2}"]  # the blank line is just skipped
    assert "neither a message" in reasons[f"{reader.LOG_FILE} line {first + 3}"]
    assert "unknown type 'explode'" in reasons[f"{reader.LOG_FILE} line {first + 4}"]
    assert "'timestamp' should be int" in reasons[f"{reader.LOG_FILE} line {first + 5}"]
    assert "'round_active' should be bool" in reasons[f"{reader.LOG_FILE} line {first + 6}"]
    assert "not in" in reasons[f"{reader.LOG_FILE} line {first + 7}"]
    assert len(skipped) == 7
    assert len(frames["messages"]) == 4 and len(frames["lock_events"]) == 12


def test_a_lock_on_a_ranked_image_and_a_stray_unlock_are_reported_not_fatal(tmp_path):
    log = ROUND[:-1] + [lock_event(13, A, "lock", "n1_a", 1_105_000), lock_event(14, B, "unlock manual", "n2_b", 1_106_000)]
    frames, skipped = build_frames(write_corpus(tmp_path / "gos", log=log), lambda *_: None)
    assert len(frames["ranks"]) == 3
    assert [s.record for s in skipped] == [f"{reader.LOG_FILE} line 16", f"{reader.LOG_FILE} line 17"]
    assert "already ranked" in skipped[0].reason and "without a pending lock" in skipped[1].reason
    assert frames["rounds"].iloc[0]["anomalies"] == 2


def test_a_bad_mapping_is_skipped_and_the_board_falls_back_to_config_order(tmp_path):
    mappings = [{"interaction_id": IID, "game_id": GAME, "board_id": BOARD, "round_number": 1, "username": A,
                 "mapping": [{"position": 1, "image_id": "n1_a"}, {"position": 1, "image_id": "n2_b"}]}]
    frames, skipped = build_frames(write_corpus(tmp_path / "gos", mappings=mappings), lambda *_: None)
    assert frames["layouts"].empty and "positions" in skipped[0].reason


def test_the_repository_layout_dataset_data_is_accepted(tmp_path):
    write_corpus(tmp_path / "repo" / "dataset" / "data")
    frames, _ = build_frames(tmp_path / "repo", lambda *_: None)
    assert len(frames["ranks"]) == 3


@pytest.mark.parametrize("damage, names", [
    ("missing", "nowhere"),
    ("empty", "gos"),
    ("no log", reader.LOG_FILE),
    ("no config", reader.GAME_CONFIG_FILE),
    ("not utf-8", reader.LOG_FILE),
    ("a file", "note.txt"),
])
def test_whole_source_faults_raise_source_error_naming_the_file(tmp_path, damage, names):
    folder = tmp_path / "gos"
    if damage == "missing":
        folder = tmp_path / "nowhere"
    elif damage == "empty":
        folder.mkdir()
    else:
        write_corpus(folder)
        if damage == "no log":
            (folder / reader.LOG_FILE).unlink()
        elif damage == "no config":
            (folder / reader.GAME_CONFIG_FILE).unlink()
        elif damage == "not utf-8":
            (folder / reader.LOG_FILE).write_bytes(b'{"a": "\xff\xfe"}\n')
        elif damage == "a file":
            folder = folder / "note.txt"
            folder.write_text("hello")
    with pytest.raises(SourceError) as error:
        build_frames(folder, lambda *_: None)
    assert names in str(error.value)


def test_the_demo_corpus_is_deterministic_and_keeps_the_real_quirks(tmp_path):
    write_demo(tmp_path / "one")
    write_demo(tmp_path / "two")
    for name in reader.DATA_FILES:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    assert not (tmp_path / "one" / reader.GAME_CONFIG_FILE).read_bytes().endswith(b"\n")
    assert not (tmp_path / "one" / reader.SURVEY_CONFIG_FILE).read_bytes().endswith(b"\n")
    assert (tmp_path / "one" / reader.LOG_FILE).read_bytes().endswith(b"\n")
    frames, skipped = build_frames(demo_source(tmp_path / "one"), lambda *_: None)
    assert skipped == []
    rounds = frames["rounds"]
    assert len(frames["games"]) == 3 and len(frames["dialogs"]) == 6 and len(rounds) == 24
    assert rounds["fully_ranked"].all()
    assert rounds["mismatches"].sum() > 0 and rounds["manual_unlocks"].sum() > 0
    assert rounds["automatic_unlocks"].sum() == 2 * rounds["mismatches"].sum()
    messages = frames["messages"]
    assert (~messages["in_round"]).any() and (~messages["refers_to_image"]).any() and messages["refers_to_image"].any()
    # Post-round messages are exactly those after the last rank, as in the real data.
    last_rank = frames["ranks"].groupby(["interaction_id", "round"])["timestamp"].max()
    after = messages["timestamp"].to_numpy() > last_rank.loc[list(zip(messages["interaction_id"], messages["round"]))].to_numpy()
    assert list(after) == list(~messages["in_round"])
    layouts = frames["layouts"]
    assert len(layouts) == 24 * 2 * 9
    by_player = layouts.groupby(["interaction_id", "round", "username"])["image_id"].agg(tuple)
    for _play, pair in by_player.groupby(level=[0, 1]):
        assert pair.iloc[0] != pair.iloc[1]
    loaded = LoadedCorpus("gos", str(tmp_path / "one"), True, frames)
    summary = summarize(loaded)
    assert summary["rounds_fully_ranked"] == 24 and summary["skipped"] == []
    json.dumps(summary)


SUMMARY_KEYS = ["games", "interactions", "rounds", "messages", "lock_events", "rounds_fully_ranked", "mismatches",
                "manual_unlocks", "mean_round_seconds", "median_round_seconds", "mean_interaction_seconds",
                "messages_not_referring_to_an_image", "skipped", "skipped_total"]


def test_summary_keys_and_values(corpus):
    frames, skipped = corpus
    summary = summarize(LoadedCorpus("gos", "x", False, frames, skipped))
    assert list(summary) == SUMMARY_KEYS
    assert (summary["rounds"], summary["mismatches"], summary["manual_unlocks"]) == (1, 1, 1)
    assert (summary["mean_round_seconds"], summary["mean_interaction_seconds"]) == (100.0, 110.0)
    assert summary["messages_not_referring_to_an_image"] == 2
