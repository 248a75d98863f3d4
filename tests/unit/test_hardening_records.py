"""Issue 13, items 5 and 6: a bad value costs only its own record, and a value outside the world is kept
faithfully or skipped and listed with its file and place, never altered, in all three corpora's readers.

Each test damages one record of a generated demo corpus (the real formats) and checks that exactly that
record is listed and left out while every other record loads exactly as from the clean copy."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from corpora.codraw.data import build_frames as codraw_frames
from corpora.codraw.data.scenes import parse_scene_strings
from corpora.gos.data import build_frames as gos_frames
from corpora.gos.data import reader as gos_reader
from corpora.minecraft.data import build_frames as minecraft_frames
from corpora.minecraft.data.blocks import parse_gold_xml, strict_color_id
from data_access.common import SourceError
from data_access.corpora import demo_path

GOOD_SCENE = "2,s_3s.png,0,3,0,469,31,2,0,t_4s.png,1,4,7,279,115,1,1"
HUGE = "12345678901234567890123"


def quiet(*_args):
    pass


# ------------------------------------------------------------------------------------------ CoDraw

@pytest.mark.parametrize("field,value", [(2, HUGE), (6, HUGE), (7, HUGE), (3, HUGE), (4, "1e999"), (5, "-1e400"),
                                         (2, "99999999999999999999"), (0, HUGE)])
def test_one_huge_number_in_one_scene_costs_that_scene_only(field, value):
    """A 23-digit integer used to mark the whole 2,048-scene chunk bad (1,801 good dialogs lost)."""
    fields = GOOD_SCENE.split(",")
    index = 0 if field == 0 else 9 + field  # a field of the second clipart (or the count)
    fields[index] = value
    bad = ",".join(fields)
    scenes = [GOOD_SCENE.replace("469", str(100 + i % 900)) for i in range(5000)]
    scenes[3000] = bad
    parsed = parse_scene_strings(scenes)
    assert set(parsed.problems) == {3000}
    assert parsed.cliparts["scene_id"].nunique() == 4999


def codraw_copy(tmp_path: Path) -> tuple[Path, dict]:
    source = demo_path("codraw", tmp_path / "demo")
    document = json.loads(source.read_text())
    return tmp_path / "CoDraw_1_0.json", document


def write_text(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


def first_scored_round(document: dict) -> tuple[str, int]:
    for key, dialog in document["data"].items():
        for index, turn in enumerate(dialog["dialog"]):
            if turn.get("score"):
                return key, index
    raise AssertionError("the demo has no scored round")


def loaded_codraw(path: Path):
    frames, skipped = codraw_frames(path, quiet)
    return frames, {s.record: s.reason for s in skipped}


def same_except(clean: dict, damaged: dict, dialog_id: str, n_rounds_lost: int = 1) -> None:
    """Every dialog loads as from the clean copy; ``dialog_id`` lost exactly ``n_rounds_lost`` rounds."""
    a, b = clean["dialogs"].set_index("dialog_id"), damaged["dialogs"].set_index("dialog_id")
    assert list(a.index) == list(b.index)
    others = a.index != dialog_id
    assert a.loc[others, "n_rounds_loaded"].equals(b.loc[others, "n_rounds_loaded"])
    assert a.loc[others, "final_score"].fillna(-1).equals(b.loc[others, "final_score"].fillna(-1))
    assert b.loc[dialog_id, "n_rounds_loaded"] == a.loc[dialog_id, "n_rounds_loaded"] - n_rounds_lost


def test_a_nan_literal_in_one_score_costs_that_round_only(tmp_path):
    path, document = codraw_copy(tmp_path)
    clean, _ = loaded_codraw(write_text(path, json.dumps(document)))
    key, index = first_scored_round(document)
    document["data"][key]["dialog"][index]["score"][0] = "__NAN__"
    damaged, reasons = loaded_codraw(write_text(path, json.dumps(document).replace('"__NAN__"', "NaN")))
    assert "finite number" in reasons[f"{path.name}: {key} round {index + 1}"]
    same_except(clean, damaged, key)


@pytest.mark.parametrize("literal", ["Infinity", "-Infinity", "NaN", "1" + "0" * 400])
def test_a_non_finite_stored_term_costs_that_round_only(tmp_path, literal):
    path, document = codraw_copy(tmp_path)
    clean, _ = loaded_codraw(write_text(path, json.dumps(document)))
    key, index = first_scored_round(document)
    document["data"][key]["dialog"][index]["score"][2][3] = "__X__"
    damaged, reasons = loaded_codraw(write_text(path, json.dumps(document).replace('"__X__"', literal)))
    assert f"{path.name}: {key} round {index + 1}" in reasons
    same_except(clean, damaged, key)


def test_an_integer_beyond_64_bits_as_a_stored_term_costs_that_round_only(tmp_path):
    # msgspec (the first decoder) keeps such integers exact where orjson made them floats: the term is no
    # number a score can hold, so the round goes, named, and nothing else changes.
    path, document = codraw_copy(tmp_path)
    clean, _ = loaded_codraw(write_text(path, json.dumps(document)))
    key, index = first_scored_round(document)
    document["data"][key]["dialog"][index]["score"][2][3] = 10 ** 30
    damaged, reasons = loaded_codraw(write_text(path, json.dumps(document)))
    assert reasons == {f"{path.name}: {key} round {index + 1}": "stored score terms are not all numbers"}
    same_except(clean, damaged, key)


@pytest.mark.parametrize("digits", [5_000, 100_000])
def test_an_integer_too_long_for_python_costs_that_round_only(tmp_path, digits):
    # Python refuses to read an integer of more than 4,300 digits; one such value once failed the whole file.
    path, document = codraw_copy(tmp_path)
    clean, _ = loaded_codraw(write_text(path, json.dumps(document)))
    key, index = first_scored_round(document)
    document["data"][key]["dialog"][index]["score"][2][3] = "__X__"
    damaged, reasons = loaded_codraw(write_text(path, json.dumps(document).replace('"__X__"', "-" + "9" * digits)))
    assert reasons == {f"{path.name}: {key} round {index + 1}": "stored score terms are not all numbers"}
    same_except(clean, damaged, key)


def test_a_sequence_number_beyond_64_bits_loads_as_its_digits(tmp_path):
    path, document = codraw_copy(tmp_path)
    key = list(document["data"])[4]
    document["data"][key]["dialog"][0]["seq_t"] = 10 ** 30
    frames, reasons = loaded_codraw(write_text(path, json.dumps(document)))
    rounds = frames["rounds"]
    assert rounds.loc[(rounds["dialog_id"] == key) & (rounds["round"] == 1), "seq_t"].tolist() == ["1" + "0" * 30]
    assert reasons == {}


def test_json_nested_too_deep_for_the_decoders_is_one_error_naming_the_file(tmp_path):
    path = write_text(tmp_path / "CoDraw_1_0.json", '{"data": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(SourceError, match="CoDraw_1_0.json.*not valid JSON"):
        loaded_codraw(path)


@pytest.mark.parametrize("field", ["msg_t", "msg_d", "seq_t"])
@pytest.mark.parametrize("bad", ["\udcff", "\udce9", "\\ud800"])
def test_one_undecodable_byte_in_one_utterance_costs_that_round_with_its_position(tmp_path, field, bad):
    path, document = codraw_copy(tmp_path)
    clean, _ = loaded_codraw(write_text(path, json.dumps(document)))
    key = list(document["data"])[5]
    document["data"][key]["dialog"][1][field] = "caf__X__ au lait"
    text = json.dumps(document, ensure_ascii=False).replace("__X__", bad)
    damaged, reasons = loaded_codraw(write_text(path, text))
    reason = reasons[f"{path.name}: {key} round 2"]
    assert field in reason and "at character 4" in reason and ("byte 0x" in reason or "surrogate" in reason)
    same_except(clean, damaged, key)


@pytest.mark.parametrize("literal", [HUGE, "18446744073709551615", "-5", "1.5", "NaN"])
def test_a_huge_or_odd_image_id_is_listed_and_left_empty_never_replaced(tmp_path, literal):
    path, document = codraw_copy(tmp_path)
    key = list(document["data"])[3]
    document["data"][key]["image_id"] = "__X__"
    frames, reasons = loaded_codraw(write_text(path, json.dumps(document).replace('"__X__"', literal)))
    dialogs = frames["dialogs"].set_index("dialog_id")
    assert len(dialogs) == len(document["data"])
    assert dialogs["image_id"].isna().sum() == 1 and dialogs.loc[key, "image_id"] is not None
    assert "image_id" in reasons[f"{path.name}: {key}"]


@pytest.mark.parametrize("variant", ["plain", "white space before the colon", "another dialog lacks its rounds"])
def test_a_dialog_id_given_twice_in_the_single_file_is_listed_and_neither_copy_loads(tmp_path, variant):
    path, document = codraw_copy(tmp_path)
    keys = list(document["data"])
    first, second = keys[0], keys[1]
    if variant == "another dialog lacks its rounds":
        del document["data"][keys[5]]["dialog"]
    text = json.dumps(document)
    if variant == "white space before the colon":
        text = text.replace('"dialog": ', '"dialog"\n: ')
    # the second dialog's object once more under the first one's id, at the end of "data"
    duplicate = json.dumps({first: document["data"][second]})[1:-1]
    text = text[:text.rindex("}}")] + ", " + duplicate + "}}" if text.endswith("}}") else None
    assert text is not None
    frames, reasons = loaded_codraw(write_text(path, text))
    ids = list(frames["dialogs"]["dialog_id"])
    lost = 2 if variant == "another dialog lacks its rounds" else 1
    assert first not in ids and second in ids and len(ids) == len(keys) - lost
    assert "more than once" in reasons[f"{path.name}: {first}"]


@pytest.mark.parametrize("x,y", [(1e9, 100), (5000, 100), (100, -3000), (-501, 0)])
def test_a_clipart_far_off_the_canvas_costs_its_round(tmp_path, x, y):
    """The original metric does not cap distances: one x of 1e9 made a split's mean score -47,614.88."""
    path, document = codraw_copy(tmp_path)
    clean, _ = loaded_codraw(write_text(path, json.dumps(document)))
    key = list(document["data"])[2]
    turns = document["data"][key]["dialog"]
    index = next(i for i, t in enumerate(turns) if t.get("abs_d") and "-10000" not in t["abs_d"].split(",")[5])
    fields = turns[index]["abs_d"].split(",")
    fields[5], fields[6] = str(x), str(y)  # the first clipart's position
    turns[index]["abs_d"] = ",".join(fields)
    damaged, reasons = loaded_codraw(write_text(path, json.dumps(document)))
    assert reasons == {f"{path.name}: {key} round {index + 1}": f"abs_d: clipart 1: position {x:g},{y:g} lies far outside the canvas"}
    same_except(clean, damaged, key)


def test_the_edges_of_where_a_clipart_can_lie_are_kept():
    parsed = parse_scene_strings(["2,s_3s.png,0,3,0,-500,-400,0,0,t_4s.png,1,4,7,1000,800,0,0,"])
    assert parsed.problems == {} and sorted(parsed.cliparts["x"].tolist()) == [-500, 1000]


@pytest.mark.parametrize("value,peek", [(True, True), (False, False), (None, False), ("yes", None), (1, None)])
def test_peeked_counts_only_when_true(tmp_path, value, peek):
    """The key marks the round after the peek; "peeked": false was once counted as a peek."""
    path, document = codraw_copy(tmp_path)
    key = list(document["data"])[3]
    turns = document["data"][key]["dialog"]
    for turn in turns:
        turn.pop("peeked", None)
    turns[1]["peeked"] = value
    frames, reasons = loaded_codraw(write_text(path, json.dumps(document)))
    rounds = frames["rounds"][frames["rounds"]["dialog_id"] == key]
    if peek is None:  # a value that is neither: its round goes, named
        assert reasons == {f"{path.name}: {key} round 2": f"peeked is {str(value)!r}, neither true nor false"}
        assert not rounds["peeked"].any()
    else:
        assert reasons == {}
        assert rounds["peeked"].tolist() == [False, peek] + [False] * (len(turns) - 2)


def test_a_byte_order_mark_is_read_as_the_utf_8_it_is(tmp_path):
    path, document = codraw_copy(tmp_path)
    clean, _ = loaded_codraw(write_text(path, json.dumps(document)))
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(document).encode())
    with_bom, reasons = loaded_codraw(path)
    assert reasons == {} and with_bom["dialogs"].equals(clean["dialogs"])


def test_a_plain_file_named_gz_is_refused_even_when_read_ahead(tmp_path):
    """The command line reads its source ahead while importing; that path took any bytes as they were."""
    from data_access import readahead

    path, document = codraw_copy(tmp_path)
    path = write_text(tmp_path / "CoDraw_1_0.json.gz", json.dumps(document))
    readahead.read_ahead(path)
    with pytest.raises(SourceError, match="ends in .gz but is not a gzip file"):
        loaded_codraw(path)


def test_a_scene_with_a_huge_value_costs_its_round_in_a_load(tmp_path):
    path, document = codraw_copy(tmp_path)
    clean, _ = loaded_codraw(write_text(path, json.dumps(document)))
    key = list(document["data"])[2]
    turns = document["data"][key]["dialog"]
    index = next(i for i, t in enumerate(turns) if t.get("abs_d"))
    fields = turns[index]["abs_d"].split(",")
    fields[3] = HUGE  # the first clipart's type id
    turns[index]["abs_d"] = ",".join(fields)
    damaged, reasons = loaded_codraw(write_text(path, json.dumps(document)))
    assert f"{path.name}: {key} round {index + 1}" in reasons
    same_except(clean, damaged, key)


def test_per_dialog_files_with_bad_values_cost_only_their_rounds(tmp_path):
    _, document = codraw_copy(tmp_path)
    folder = tmp_path / "dialogs"
    folder.mkdir()
    keys = list(document["data"])[:4]
    for key in keys:
        (folder / f"{key}.json").write_text(json.dumps(document["data"][key]))
    bad = keys[1]
    document["data"][bad]["dialog"][0]["msg_t"] = "x__X__"
    with gzip.open(folder / f"{bad}.json", "wb") as out:  # gzip content under a .json name is accepted too
        out.write(json.dumps(document["data"][bad], ensure_ascii=False).replace("__X__", "\udcff")
                  .encode("utf-8", "surrogateescape"))
    frames, reasons = loaded_codraw(folder)
    assert sorted(frames["dialogs"]["dialog_id"]) == sorted(keys)
    assert "byte 0xff" in reasons[f"{bad}.json round 1"]


# ------------------------------------------------------------------------------------------ Game Of Sorts

@pytest.fixture
def gos(tmp_path):
    folder = tmp_path / "gos"
    shutil.copytree(demo_path("gos", tmp_path / "demo"), folder)
    return folder


def log_lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / gos_reader.LOG_FILE).read_text().splitlines() if line.strip()]


def write_log(folder: Path, records: list, raw_line: dict | None = None) -> None:
    lines = [json.dumps(r) for r in records]
    for number, text in (raw_line or {}).items():
        lines[number] = text
    (folder / gos_reader.LOG_FILE).write_text("\n".join(lines) + "\n")


def gos_load(folder: Path):
    frames, skipped = gos_frames(folder, quiet)
    return frames, {s.record: s.reason for s in skipped}


def where(line_index: int) -> str:
    return f"{gos_reader.LOG_FILE} line {line_index + 1}"


def _first(records, predicate):
    return next(i for i, r in enumerate(records) if predicate(r))


def test_a_lock_of_an_image_not_on_the_board_is_listed_not_ranked(gos):
    records = log_lines(gos)
    clean, _ = gos_load(gos)
    i = _first(records, lambda r: r.get("lock_event_type") == "lock")
    records[i]["image_id"] = "not_on_this_board"
    write_log(gos, records)
    damaged, reasons = gos_load(gos)
    assert "not on board" in reasons[where(i)]
    assert "not_on_this_board" not in set(damaged["ranks"]["image_id"])
    assert len(damaged["lock_events"]) == len(clean["lock_events"]) - 1


@pytest.mark.parametrize("which", ["first of its round", "later in its round"])
@pytest.mark.parametrize("names", ["another game's board", "another board of its game"])
def test_a_record_naming_another_board_is_listed_and_its_round_keeps_its_board(gos, which, names):
    """The first record of a round used to decide its board (and criterion) and of an interaction its game."""
    records = log_lines(gos)
    clean, _ = gos_load(gos)
    config = [json.loads(line) for line in (gos / gos_reader.GAME_CONFIG_FILE).read_text().splitlines() if line.strip()]
    in_round = [i for i, r in enumerate(records) if r["interaction_id"] == records[0]["interaction_id"]
                and r["round_number"] == 2 and "message_number" in r]  # a lost lock event has consequences of its own
    i = in_round[0] if which == "first of its round" else in_round[len(in_round) // 2]
    game = records[i]["game_id"]
    other = next(b for b in config if (b["game_id"] != game) == (names == "another game's board")
                 and b["board_id"] != records[i]["board_id"])
    records[i]["game_id"], records[i]["board_id"] = other["game_id"], other["board_id"]
    write_log(gos, records)
    damaged, reasons = gos_load(gos)
    assert list(reasons) == [where(i)] and "as most of its records say" in reasons[where(i)]
    key = ["interaction_id", "round"]
    columns = ["game_id", "board_id", "criterion"]
    assert damaged["rounds"].set_index(key)[columns].equals(clean["rounds"].set_index(key)[columns])
    assert damaged["dialogs"]["game_id"].tolist() == clean["dialogs"]["game_id"].tolist()
    assert len(damaged["messages"]) + len(damaged["lock_events"]) == len(clean["messages"]) + len(clean["lock_events"]) - 1


@pytest.mark.parametrize("timestamp", [0, 1, 10 ** 18, 2 ** 63 - 1, 4_102_444_800_000, -5])
def test_a_timestamp_that_is_no_time_of_the_session_is_listed_and_figures_stay(gos, timestamp):
    records = log_lines(gos)
    clean, _ = gos_load(gos)
    i = _first(records, lambda r: "message_number" in r and r["message_number"] > 3)
    records[i]["timestamp"] = timestamp
    write_log(gos, records)
    damaged, reasons = gos_load(gos)
    assert "timestamp" in reasons[where(i)]
    assert damaged["dialogs"]["duration_s"].max() == pytest.approx(clean["dialogs"]["duration_s"].max())
    assert len(damaged["messages"]) == len(clean["messages"]) - 1


def test_swapped_timestamps_are_listed_never_silently_reordered(gos):
    records = log_lines(gos)
    i = _first(records, lambda r: "message_number" in r and r["message_number"] == 3)
    j = _first(records, lambda r: "message_number" in r and r["interaction_id"] == records[i]["interaction_id"]
               and r["round_number"] == records[i]["round_number"] and r["message_number"] == 4)
    records[i]["timestamp"], records[j]["timestamp"] = records[j]["timestamp"], records[i]["timestamp"]
    write_log(gos, records)
    frames, reasons = gos_load(gos)
    assert any(w in reasons and "disagrees with its timestamp" in reasons[w] for w in (where(i), where(j)))
    messages = frames["messages"]
    one_round = messages[(messages["interaction_id"] == records[i]["interaction_id"])
                         & (messages["round"] == records[i]["round_number"])].sort_values("step")
    assert one_round["message_number"].is_monotonic_increasing
    assert one_round["timestamp"].is_monotonic_increasing


def test_a_repeated_message_number_is_listed(gos):
    records = log_lines(gos)
    i = _first(records, lambda r: "message_number" in r and r["message_number"] == 5)
    records[i]["message_number"] = 4
    write_log(gos, records)
    _frames, reasons = gos_load(gos)
    assert "disagrees" in reasons.get(where(i), "") or any("message_number 4" in r for r in reasons.values())


@pytest.mark.parametrize("round_number", [-3, 0, 5, 10 ** 18, 18446744073709551615])
def test_a_round_number_outside_the_game_makes_no_phantom_round(gos, round_number):
    records = log_lines(gos)
    clean, _ = gos_load(gos)
    i = _first(records, lambda r: "message_number" in r)
    records[i]["round_number"] = round_number
    write_log(gos, records)
    damaged, reasons = gos_load(gos)
    assert where(i) in reasons
    assert len(damaged["rounds"]) == len(clean["rounds"])
    assert set(damaged["rounds"]["round"]) == set(clean["rounds"]["round"])


@pytest.mark.parametrize("field", ["message_number", "timestamp"])
def test_a_number_beyond_64_bits_costs_its_line(gos, field):
    records = log_lines(gos)
    i = _first(records, lambda r: "message_number" in r)
    records[i][field] = 10 ** 30
    write_log(gos, records)
    frames, reasons = gos_load(gos)
    assert where(i) in reasons and len(frames["dialogs"]) > 0


@pytest.mark.parametrize("raw", [b'"body_text": "caf\xe9"', b'"body_text": NaN'])
def test_an_undecodable_byte_or_a_nan_costs_its_line_only(gos, raw):
    records = log_lines(gos)
    clean, _ = gos_load(gos)
    i = _first(records, lambda r: "message_number" in r and r["message_number"] > 2)
    lines = [json.dumps(r).encode() for r in records]
    lines[i] = lines[i].replace(b'"body_text": ' + json.dumps(records[i]["body_text"]).encode(), raw)
    (gos / gos_reader.LOG_FILE).write_bytes(b"\n".join(lines) + b"\n")
    damaged, reasons = gos_load(gos)
    assert where(i) in reasons
    if raw.endswith(b'\xe9"'):
        assert "byte 0xe9 at column" in reasons[where(i)]
    assert len(damaged["messages"]) == len(clean["messages"]) - 1


# ------------------------------------------------------------------------------------------ Minecraft

@pytest.fixture
def minecraft(tmp_path):
    root = tmp_path / "minecraft"
    shutil.copytree(demo_path("minecraft", tmp_path / "demo"), root)
    return root


def game_files(root: Path) -> list[Path]:
    return sorted(root.glob("logs/*/logs/*/postprocessed-observations.json"))


def minecraft_load(root: Path):
    frames, skipped = minecraft_frames(root, quiet)
    return frames, {s.record: s.reason for s in skipped}


def edit_game(file: Path, edit) -> dict:
    game = json.loads(file.read_text())
    edit(game["WorldStates"])
    file.write_text(json.dumps(game))
    return game


def _state_with_blocks(states, start=1):
    return next(i for i in range(start, len(states) - 1) if states[i]["BlocksInGrid"] and states[i]["BuilderPosition"])


@pytest.mark.parametrize("coordinates", [(0, 300, 0), (0, 261, 0), (-129, 1, 0), (0, 1, 128), (0.5, 1, 0),
                                         (1e300, 1, 0), (10 ** 30, 1, 0), ("2", 1, 0)])
def test_a_block_outside_the_world_costs_its_state_and_is_never_wrapped(minecraft, coordinates):
    clean, _ = minecraft_load(minecraft)
    file = game_files(minecraft)[0]
    holder = {}

    def edit(states):
        i = _state_with_blocks(states)
        holder["i"] = i
        x, y, z = coordinates
        states[i]["BlocksInGrid"].append({"AbsoluteCoordinates": {"X": x, "Y": y, "Z": z},
                                          "Type": "cwc_minecraft_red_rn"})
    edit_game(file, edit)
    damaged, reasons = minecraft_load(minecraft)
    record = str(file.relative_to(minecraft))
    assert f"{record} state {holder['i']}" in reasons
    game = file.parent.name
    states_clean = clean["states"][clean["states"]["game"] == game]
    states_damaged = damaged["states"][damaged["states"]["game"] == game]
    assert len(states_damaged) == len(states_clean) - 1
    actions = damaged["actions"]
    assert actions[["x", "y", "z"]].abs().max().max() <= 127
    assert not ((actions["x"] == 1) & (actions["y"] == 44)).any()  # (0, 300, 0) wrapped would be (1, 44, 0)


@pytest.mark.parametrize("block_type", ["cwc_minecraft_white_rn", "cwc_minecraft_reddish_rn", "redblue", None, 7])
def test_an_unknown_colour_costs_its_state_never_turns_red(minecraft, block_type):
    file = game_files(minecraft)[1]
    holder = {}

    def edit(states):
        i = _state_with_blocks(states)
        holder["i"] = i
        states[i]["BlocksInGrid"][0]["Type"] = block_type
    edit_game(file, edit)
    frames, reasons = minecraft_load(minecraft)
    assert "unknown block type" in reasons[f"{file.relative_to(minecraft)} state {holder['i']}"] \
        or "not text" in reasons[f"{file.relative_to(minecraft)} state {holder['i']}"]
    assert file.parent.name in set(frames["dialogs"]["dialog_id"])


def test_a_broken_last_state_refuses_the_game_since_its_final_build_is_unknown(minecraft):
    file = game_files(minecraft)[2]
    edit_game(file, lambda states: states[-1]["BlocksInGrid"].append(
        {"AbsoluteCoordinates": {"X": 0, "Y": 300, "Z": 0}, "Type": "cwc_minecraft_red_rn"}))
    frames, reasons = minecraft_load(minecraft)
    assert file.parent.name not in set(frames["dialogs"]["dialog_id"])
    assert "final build is unknown" in reasons[str(file.relative_to(minecraft))]


def test_a_state_without_a_builder_position_key_costs_that_state_not_the_game(minecraft):
    clean, _ = minecraft_load(minecraft)
    file = game_files(minecraft)[0]
    holder = {}

    def edit(states):
        i = _state_with_blocks(states, 2)
        holder["i"] = i
        del states[i]["BuilderPosition"]
    edit_game(file, edit)
    damaged, reasons = minecraft_load(minecraft)
    assert "no BuilderPosition" in reasons[f"{file.relative_to(minecraft)} state {holder['i']}"]
    game = file.parent.name
    assert game in set(damaged["dialogs"]["dialog_id"])
    assert (damaged["states"]["game"] == game).sum() == (clean["states"]["game"] == game).sum() - 1
    final = damaged["dialogs"].set_index("dialog_id").loc[game]
    assert final["final_blocks"] == clean["dialogs"].set_index("dialog_id").loc[game]["final_blocks"]


def test_chat_that_is_not_text_costs_its_state(minecraft):
    file = game_files(minecraft)[0]

    def edit(states):
        i = _state_with_blocks(states, 2)
        states[i]["ChatHistory"] = states[i]["ChatHistory"] + [12345]
    edit_game(file, edit)
    frames, reasons = minecraft_load(minecraft)
    assert any("not text" in r for r in reasons.values())
    assert file.parent.name in set(frames["dialogs"]["dialog_id"])


@pytest.mark.parametrize("content", ["", "\n\n", '<DrawBlock type="cwcmod:cwc_minecraft_red_rn" x="400" y="1" z="100"/>',
                                     '<DrawBlock type="cwcmod:cwc_minecraft_white_rn" x="100" y="1" z="100"/>',
                                     '<Other type="cwcmod:cwc_minecraft_red_rn" x="100" y="1" z="100"/>'])
def test_an_empty_or_out_of_world_gold_file_is_listed_never_an_empty_target(minecraft, content):
    gold = minecraft / "gold-configurations" / "C1.xml"
    gold.write_text(content)
    frames, reasons = minecraft_load(minecraft)
    assert "gold-configurations/C1.xml" in reasons
    dialogs = frames["dialogs"]
    c1 = dialogs[dialogs["config"] == "C1"]
    assert len(c1) and c1["outcome_f1"].isna().all() and not c1["outcome_match"].any()
    assert not (frames["gold"]["config"] == "C1").any()


def test_gold_parser_refuses_what_it_cannot_hold():
    with pytest.raises(ValueError, match="holds no block"):
        parse_gold_xml("", "C9.xml")
    with pytest.raises(ValueError, match="outside the world"):
        parse_gold_xml('<DrawBlock type="red" x="400" y="1" z="100"/>', "C9.xml")
    assert strict_color_id("cwcmod:cwc_red_rn") == strict_color_id("cwc_minecraft_red_rn")
    with pytest.raises(ValueError):
        strict_color_id("cwc_minecraft_reddish_rn")
    assert np.all([strict_color_id(f"cwcmod:cwc_minecraft_{c}_rn") >= 0
                   for c in ("red", "orange", "purple", "blue", "green", "yellow")])


# ------------------------------------------------------------------------------------------ item 8: renderers

@pytest.mark.parametrize("value", [1e300, -1e300, float("nan"), float("inf"), -float("inf"), 1e6])
def test_the_art_free_renderer_draws_far_off_or_non_finite_clip_art_without_raising(value):
    from corpora.codraw.data.render import render_scene, scene_changes
    from corpora.codraw.data.scenes import Clipart

    far = [Clipart(20, "hb0_0s.png", 2, 0, value, 200.0, 0, 0), Clipart(0, "s_0s.png", 0, 0, 100.0, value, 1, 1)]
    near = [Clipart(20, "hb0_0s.png", 2, 0, 100.0, 200.0, 0, 0)]
    for before, after in ((far, near), (near, far), (far, [])):
        image = render_scene(after, changes=scene_changes(before, after))
        assert image.size == (500, 400)


def test_an_id_outside_the_official_splits_is_a_split_of_its_own_and_the_splits_add_up(tmp_path):
    from corpora.codraw.data.summary import summarize
    from data_access.corpora import load_path

    path, document = codraw_copy(tmp_path)
    key = list(document["data"])[0]
    document["data"]["dev_06149"] = document["data"].pop(key)
    summary = summarize(load_path("codraw", write_text(path, json.dumps(document)), cache_root=tmp_path / "cache"))
    splits = summary["splits"]
    assert list(splits)[:3] == ["train", "val", "test"] and splits["dev"]["dialogs"] == 1
    assert sum(part["dialogs"] for part in splits.values()) == summary["dialogs"]
    assert sum(part["rounds"] for part in splits.values()) == summary["rounds"]
