"""Minecraft input that used to load silently wrong: each bad record is listed
with its file and place and left out, every other record loads exactly as from the clean copy, and a figure
is right or absent, never altered.

The corpus is the small FORMATS B.3 worked example of ``test_minecraft_bap`` (game C63, train) plus a second
game of another config (C64, val) so that a corpus with one game left out still loads."""
from __future__ import annotations

import json
import math

import pytest

from corpora.minecraft.data import build_frames, summarize
from corpora.minecraft.data.blocks import parse_gold_xml
from corpora.minecraft.data.reader import discover, read_game
from corpora.minecraft.data.scoring import parse_action, parse_block
from data_access.common import LoadedCorpus
from tests.unit.test_minecraft_bap import GAME, GOLD_XML, game_json, write_corpus

OTHER = "B7-A8-C64-1523304999999"
BOM = b"\xef\xbb\xbf"
SPLITS = {"train": ["C63"], "val": ["C64"], "test": []}


def quiet(*_args):
    pass


def corpus(tmp_path, game=None, splits=None):
    """The worked example (``game`` instead of its JSON when given) and one C64 game in val."""
    root = write_corpus(tmp_path / "corpus", {GAME: game if game is not None else game_json(),
                                             OTHER: game_json()}, splits or SPLITS)
    (root / "gold-configurations" / "C64.xml").write_text(GOLD_XML)
    return root


def game_file(root, game_id=GAME, date="data-4-9"):
    return root / "logs" / date / "logs" / game_id / "postprocessed-observations.json"


def record(game_id=GAME, date="data-4-9"):
    return f"logs/{date}/logs/{game_id}/postprocessed-observations.json"


def load(root):
    frames, skipped = build_frames(root, quiet)
    return frames, {s.record: s.reason for s in skipped}


def dialogs(frames):
    return frames["dialogs"].set_index("dialog_id")


def read(root, game_id=GAME):
    layout = discover(root)
    return read_game(next(g for g in layout.games if g.experiment_id == game_id), "train")


# ------------------------------------------------------------------------------------ ChatHistory as text

def test_chat_history_given_as_text_costs_its_state_not_one_utterance_per_character(tmp_path):
    clean, _ = load(corpus(tmp_path / "clean"))
    game = game_json()
    game["WorldStates"][10]["ChatHistory"] = "<Architect> xyzzy plugh"
    frames, reasons = load(corpus(tmp_path / "damaged", game))
    assert "not a list" in reasons[f"{record()} state 10"]
    assert dialogs(frames).loc[GAME, "n_utterances"] == dialogs(clean).loc[GAME, "n_utterances"]
    assert dialogs(frames).loc[GAME, "n_states"] == dialogs(clean).loc[GAME, "n_states"] - 1
    assert frames["utterances"]["text"].str.len().min() > 1


def test_chat_history_given_as_text_in_the_last_state_refuses_the_game(tmp_path):
    game = game_json()
    game["WorldStates"][-1]["ChatHistory"] = "<Builder> hello there"
    root = corpus(tmp_path, game)
    with pytest.raises(ValueError, match=r"last state \(18\) is broken \(ChatHistory is not a list"):
        read(root)
    frames, reasons = load(root)
    assert GAME not in dialogs(frames).index and OTHER in dialogs(frames).index
    assert "final build is unknown" in reasons[record()]


def test_tokenized_chat_given_as_text_costs_its_state(tmp_path):
    game = game_json()
    for state in game["WorldStates"]:
        state["ChatHistoryTokenized"] = [line.split() for line in state.pop("ChatHistory")]
    clean = read(corpus(tmp_path / "clean", game))
    game["WorldStates"][10]["ChatHistoryTokenized"] = "<Architect> xyzzy"
    game["WorldStates"][12]["ChatHistoryTokenized"][-1] = "<Architect> connect"  # a line that is no token list
    log = read(corpus(tmp_path / "damaged", game))
    assert dict(log.skipped_states) == {"state 10": "ChatHistoryTokenized is not a list of lines",
                                        "state 12": "ChatHistoryTokenized holds a line that is not a list of tokens"}
    assert log.lines == clean.lines  # state 13 brings state 12's line, as its own list of tokens


# ------------------------------------------------------------------------------------ TimeElapsed

@pytest.mark.parametrize("value", [-1e7, -1, 1e300, 86400.5, 2 ** 64 - 1, True, False, "119.2", None, [119.2], "missing"])
def test_a_time_elapsed_that_is_no_duration_is_absent_and_listed_and_the_game_loads(tmp_path, value):
    clean, _ = load(corpus(tmp_path / "clean"))
    game = game_json()
    if value == "missing":
        del game["TimeElapsed"]
    else:
        game["TimeElapsed"] = value
    root = corpus(tmp_path / "damaged", game)
    log = read(root)
    assert math.isnan(log.time_elapsed)
    assert [where for where, _ in log.skipped_states] == ["TimeElapsed"]
    frames, reasons = load(root)
    reason = reasons[f"{record()} TimeElapsed"]
    assert reason.startswith("TimeElapsed") and "duration is left absent" in reason
    table = dialogs(frames)
    assert math.isnan(table.loc[GAME, "duration_s"])
    for column in ("n_utterances", "placements", "removals", "bap_samples", "outcome_match"):
        assert table.loc[GAME, column] == dialogs(clean).loc[GAME, column]
    summary = summarize(LoadedCorpus("minecraft", str(root), False, frames, []))
    assert summary["splits"]["train"]["games"] == 1 and summary["splits"]["train"]["mean_seconds"] is None
    assert summary["splits"]["val"]["mean_seconds"] == 119.2


@pytest.mark.parametrize("value", [0, 0.0, 119, 119.2, 86400])
def test_a_plausible_time_elapsed_is_kept_exactly(tmp_path, value):
    game = game_json()
    game["TimeElapsed"] = value
    log = read(corpus(tmp_path, game))
    assert log.time_elapsed == float(value) and type(log.time_elapsed) is float and log.skipped_states == []


# ------------------------------------------------------------------------------------ true as a coordinate

@pytest.mark.parametrize("axis,value", [("X", True), ("Y", True), ("Z", False)])
def test_a_true_or_false_coordinate_costs_its_state_never_becomes_1_or_0(tmp_path, axis, value):
    clean, _ = load(corpus(tmp_path / "clean"))
    game = game_json()
    game["WorldStates"][5]["BlocksInGrid"][0]["AbsoluteCoordinates"][axis] = value
    frames, reasons = load(corpus(tmp_path / "damaged", game))
    assert f"{axis.lower()} = {value} is not an integer" in reasons[f"{record()} state 5"]
    assert dialogs(frames).loc[GAME, "n_states"] == dialogs(clean).loc[GAME, "n_states"] - 1


def test_a_true_coordinate_in_the_last_state_refuses_the_game(tmp_path):
    game = game_json()
    game["WorldStates"][-1]["BlocksInGrid"][0]["AbsoluteCoordinates"]["X"] = True
    frames, reasons = load(corpus(tmp_path, game))
    assert GAME not in dialogs(frames).index
    assert "x = True is not an integer" in reasons[record()] and "final build is unknown" in reasons[record()]


@pytest.mark.parametrize("value", ["nan", "1e400", True, None, [1]])
def test_a_builder_position_that_is_no_finite_number_costs_its_state(tmp_path, value):
    clean, _ = load(corpus(tmp_path / "clean"))
    game = game_json()
    game["WorldStates"][5]["BuilderPosition"]["Yaw"] = value
    frames, reasons = load(corpus(tmp_path / "damaged", game))
    assert f"{record()} state 5" in reasons
    assert dialogs(frames).loc[GAME, "n_states"] == dialogs(clean).loc[GAME, "n_states"] - 1
    assert frames["states"]["yaw"].map(lambda v: v == v and abs(v) < 1e300).all()


def test_the_words_true_and_false_in_chat_change_nothing(tmp_path):
    clean, _ = load(corpus(tmp_path / "clean"))
    game = game_json()
    for state in game["WorldStates"][5:]:
        state["ChatHistory"][-1] += " true false"
    frames, reasons = load(corpus(tmp_path / "words", game))
    assert reasons == {}
    assert frames["actions"].equals(clean["actions"]) and frames["states"].equals(clean["states"])


# ------------------------------------------------------------------------------------ one id in two folders

def test_one_experiment_id_in_two_date_folders_is_listed_and_neither_copy_loads(tmp_path):
    root = corpus(tmp_path)
    copy = game_file(root, date="data-4-10")
    copy.parent.mkdir(parents=True)
    copy.write_bytes(game_file(root).read_bytes())
    frames, reasons = load(root)
    assert list(dialogs(frames).index) == [OTHER]
    for date in ("data-4-9", "data-4-10"):
        assert reasons[record(date=date)].startswith("the same experiment id appears in 2 folders")
    assert [g.experiment_id for g in discover(root).games] == [OTHER]


# ------------------------------------------------------------------------------------ contradictions

def test_a_config_in_two_splits_is_listed_and_its_games_load_in_neither(tmp_path):
    root = corpus(tmp_path, splits={"train": ["C63"], "val": ["C64"], "test": ["C63"]})
    frames, reasons = load(root)
    assert reasons["logs/splits.json config C63"] == "C63 is listed in 2 splits (train, test); its games are not loaded"
    assert "more than one split" in reasons[record()]
    assert list(dialogs(frames).index) == [OTHER]
    assert set(frames["bap_samples"]["split"]) == {"val"}


def test_a_config_listed_twice_in_one_split_is_no_contradiction(tmp_path):
    frames, reasons = load(corpus(tmp_path, splits={"train": ["C63", "C63"], "val": ["C64"], "test": []}))
    assert reasons == {} and dialogs(frames).loc[GAME, "split"] == "train"


def test_a_split_given_as_text_is_refused_not_read_letter_by_letter(tmp_path):
    from data_access.common import SourceError
    with pytest.raises(SourceError, match='"test" is not a list'):
        discover(corpus(tmp_path, splits={"train": ["C63"], "val": ["C64"], "test": "C1"}))


def test_two_gold_blocks_in_one_cell_break_the_gold_configuration(tmp_path):
    with pytest.raises(ValueError, match="line 7: .*second block in the cell x=101 y=1 z=100 .line 1"):
        parse_gold_xml(GOLD_XML + GOLD_XML.splitlines(True)[0].replace("blue", "red"), "C63.xml")
    root = corpus(tmp_path)
    (root / "gold-configurations" / "C63.xml").write_text(GOLD_XML + GOLD_XML.splitlines(True)[0])
    frames, reasons = load(root)
    assert "second block in the cell" in reasons["gold-configurations/C63.xml"]
    table = dialogs(frames)
    assert GAME in table.index and math.isnan(table.loc[GAME, "outcome_f1"]) and table.loc[GAME, "bap_samples"] == 0
    assert table.loc[OTHER, "outcome_match"]


# ------------------------------------------------------------------------------------ byte order marks

def test_a_byte_order_mark_on_a_game_splits_or_gold_file_is_read_as_the_utf_8_it_is(tmp_path):
    clean, _ = load(corpus(tmp_path / "clean"))
    root = corpus(tmp_path / "bom")
    for file in (game_file(root), root / "logs" / "splits.json", root / "gold-configurations" / "C63.xml"):
        file.write_bytes(BOM + file.read_bytes())
    frames, reasons = load(root)
    assert reasons == {}
    for name in ("dialogs", "utterances", "actions", "states", "gold", "bap_samples"):
        assert frames[name].equals(clean[name]), name


# ------------------------------------------------------------------------------------ run colours

@pytest.mark.parametrize("color", ["Bored", "reddish", "redblue", "infrared", "", None, 3])
def test_a_run_colour_is_a_whole_word_never_a_substring(color):
    with pytest.raises(ValueError, match="needs a colour"):
        parse_action({"action": "place", "x": 0, "y": 1, "z": 0, "color": color})
    with pytest.raises(ValueError, match="colour"):
        parse_block({"x": 0, "y": 1, "z": 0, "color": color})


@pytest.mark.parametrize("color", ["red", "RED", "Red", "cwc_minecraft_red_rn", "cwcmod:cwc_red_rn", "red block"])
def test_a_run_colour_in_any_spelling_of_the_corpus_is_read(color):
    assert parse_action({"action": "place", "x": 0, "y": 1, "z": 0, "color": color})[4] == "red"
    assert parse_block({"x": 0, "y": 1, "z": 0, "type": color})[3] == "red"


def test_a_run_line_with_a_colour_that_is_no_colour_is_skipped(tmp_path):
    from data_access.corpora import load_path
    from data_access.runs import load_run

    loaded = load_path("minecraft", corpus(tmp_path), cache_root=tmp_path / "cache")
    run = tmp_path / "run.jsonl"
    lines = [{"game": GAME, "sample_id": 3, "actions": [{"action": "place", "x": 0, "y": y, "z": 1, "color": "blue"}
                                                        for y in range(1, 6)]},
             {"game": GAME, "sample_id": 15, "actions": [{"action": "place", "x": -1, "y": 5, "z": 1, "color": "Bored"}]}]
    run.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = load_run(loaded, run, cache_root=tmp_path / "cache")
    assert [s.record for s in result.skipped] == ["run.jsonl:2"]
    assert result.frames["samples"]["sample_id"].tolist() == [3]
