"""The A Game Of Sorts mention layer: reading (hostile lines skipped and listed), linking spans to the
corpus's messages (never shifted), the layer-summary figures and the published-layout round trip."""
from __future__ import annotations

import json

import pytest

from corpora.gos.data import mentions_layer as gos_mentions
from data_access.common import SourceError
from data_access.corpora import load_path
from data_access.layers import ANNOTATION_COLUMNS
from data_access.layers.load import demo_layer_path, load_layer


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return load_path("gos", None, cache_root=tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def messages(corpus):
    return gos_mentions.corpus_messages(corpus)


def _message(messages, with_text_longer_than=20):
    row = messages[messages["text"].str.len() > with_text_longer_than].iloc[0]
    return row["dialog_id"], int(row["round"]), int(row["message"]), row["text"], list(row["board_images"])


def _line(dialog, round_, message, annotations):
    return json.dumps({"interaction_id": dialog, "round_number": round_, "message_number": message,
                       "annotations": annotations})


def test_hostile_lines_are_skipped_and_listed_and_good_ones_load(tmp_path, messages):
    dialog, round_, number, text, board = _message(messages)
    other = messages.iloc[5]
    good = {"mention": text[0:5], "single": True, "image_ids": [board[0]], "start": 0, "end": 5}
    beyond = {"mention": "far away", "single": True, "image_ids": [board[1]], "start": len(text) + 3, "end": len(text) + 11}
    wrong_text = {"mention": "not this", "single": False, "image_ids": board[:2], "start": 1, "end": 9}
    lines = [
        _line(dialog, round_, number, [good, beyond, wrong_text, {"mention": "x", "start": "0", "end": 1, "single": True,
                                                                  "image_ids": []}]),
        "{not json",
        "[1, 2]",
        _line("ffffffffffffffffffffffff", 1, 1, [good]),  # unknown message keys
        json.dumps({"interaction_id": dialog, "round_number": "1", "message_number": 1, "annotations": []}),
        _line(dialog, round_, number, [good]),  # the same message again
        _line(str(other["dialog_id"]), int(other["round"]), int(other["message"]),
              [{"mention": other["text"][:1], "single": True, "image_ids": ["no-such-image"], "start": 0, "end": 1}]),
        "",
    ]
    path = tmp_path / "gos-mentions.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    linked = gos_mentions.link(gos_mentions.read_layer(path), messages)
    figures = gos_mentions.summary(linked)
    assert list(figures) == ["messages", "mentions", "mentions_single", "images_linked", "unmatched_messages",
                             "spans_out_of_range", "skipped", "skipped_total"]
    assert {k: v for k, v in figures.items() if k not in ("skipped", "skipped_total")} == {
        "messages": 3, "mentions": 5, "mentions_single": 4, "images_linked": 4, "unmatched_messages": 1,
        "spans_out_of_range": 2}
    reasons = {s["record"]: s["reason"] for s in figures["skipped"]}
    assert set(reasons) == {"gos-mentions.jsonl line 1 mention 4", "gos-mentions.jsonl line 2", "gos-mentions.jsonl line 3",
                            "gos-mentions.jsonl line 5", "gos-mentions.jsonl line 6", "gos-mentions.jsonl line 7 mention 1"}
    assert reasons["gos-mentions.jsonl line 2"].startswith("not JSON")
    assert "repeats the message of line 1" in reasons["gos-mentions.jsonl line 6"]
    assert "no-such-image" in reasons["gos-mentions.jsonl line 7 mention 1"]
    assert linked.unmatched == ["gos-mentions.jsonl line 4: interaction ffffffffffffffffffffffff, round 1, message 1 "
                                "is not in the corpus"]

    frame = linked.annotations
    assert list(frame.columns[:len(ANNOTATION_COLUMNS)]) == ANNOTATION_COLUMNS
    assert len(frame) == 4
    first = frame[frame["record"] == "gos-mentions.jsonl line 1 mention 1"].iloc[0]
    assert (first["start"], first["end"], first["span_ok"], first["referents"]) == (0, 5, True, [board[0]])
    far = frame[frame["record"] == "gos-mentions.jsonl line 1 mention 2"].iloc[0]
    assert (far["start"], far["end"], far["span_ok"]) == (len(text) + 3, len(text) + 11, False)  # kept as published
    assert frame.loc[frame["record"].str.endswith("line 1 mention 3"), "span_ok"].tolist() == [False]
    assert frame.loc[frame["record"].str.startswith("gos-mentions.jsonl line 7"), "referents"].tolist() == [[]]
    row = messages[(messages["dialog_id"] == dialog) & (messages["round"] == round_) & (messages["message"] == number)].iloc[0]
    assert (first["turn"], first["round"], first["role"]) == (row["turn"], round_, row["role"])


def test_a_file_without_one_valid_line_is_not_this_layer(tmp_path):
    path = tmp_path / "gos-mentions.jsonl"
    path.write_text("{broken\n[]\n", encoding="utf-8")
    with pytest.raises(SourceError, match="gos-mentions.jsonl: holds no valid line"):
        gos_mentions.read_layer(path)
    with pytest.raises(SourceError, match="does not exist"):
        gos_mentions.read_layer(tmp_path / "missing.jsonl")


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_an_empty_file_is_an_error_as_for_the_other_layer(tmp_path, content):
    path = tmp_path / "gos-mentions.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SourceError, match="gos-mentions.jsonl: is empty"):
        gos_mentions.read_layer(path)


def test_offsets_beyond_64_bits_are_out_of_range_not_a_failed_layer(tmp_path, messages):
    dialog, round_, number, text, board = _message(messages)
    good = {"mention": text[0:5], "single": True, "image_ids": [board[0]], "start": 0, "end": 5}
    huge = {"mention": "x", "single": True, "image_ids": [board[1]], "start": 2 ** 63, "end": 2 ** 64 - 1}
    path = tmp_path / "gos-mentions.jsonl"
    path.write_text(_line(dialog, round_, number, [good, huge]) + "\n", encoding="utf-8")
    linked = gos_mentions.link(gos_mentions.read_layer(path), messages)
    assert gos_mentions.summary(linked)["spans_out_of_range"] == 1
    frame = linked.annotations
    assert frame["start"].isna().tolist() == [False, True] and frame["span_ok"].tolist() == [True, False]


def test_not_utf8_line_is_skipped(tmp_path, messages):
    dialog, round_, number, _text, _board = _message(messages)
    path = tmp_path / "gos-mentions.jsonl"
    path.write_bytes(_line(dialog, round_, number, []).encode() + b"\n\xff\xfe{}\n")
    layer = gos_mentions.read_layer(path)
    assert len(layer.messages) == 1
    assert [s.record for s in layer.skipped] == ["gos-mentions.jsonl line 2"]


def test_demo_layer_links_cleanly_and_has_group_mentions(tmp_path, corpus):
    path = demo_layer_path("gos-mentions", tmp_path)
    again = demo_layer_path("gos-mentions", tmp_path / "other")
    assert path.read_bytes() == again.read_bytes()  # deterministic
    layer = load_layer("gos-mentions", corpus, path, is_demo=True)
    figures = layer.figures
    assert figures["messages"] > 20 and figures["mentions"] > figures["mentions_single"] > 0
    assert (figures["unmatched_messages"], figures["spans_out_of_range"], figures["skipped"]) == (0, 0, [])
    assert layer.annotations["span_ok"].all()


def test_read_export_read_gives_the_same(tmp_path, corpus, messages):
    linked = gos_mentions.link(gos_mentions.read_layer(demo_layer_path("gos-mentions", tmp_path)), messages)
    exported = tmp_path / "export" / "gos-mentions.jsonl"
    exported.parent.mkdir()
    exported.write_text(gos_mentions.to_jsonl(linked.annotations), encoding="utf-8")
    again = gos_mentions.link(gos_mentions.read_layer(exported), messages)
    assert again.figures == linked.figures
    assert again.annotations.equals(linked.annotations)
    # The published layout itself: the same objects, line by line, as the demo file.
    original = [json.loads(line) for line in demo_layer_path("gos-mentions", tmp_path).read_text().splitlines()]
    assert [json.loads(line) for line in exported.read_text().splitlines()] == original


def test_coded_mentions_export_with_message_numbers_looked_up(tmp_path, messages):
    """Coded data in the common form whose ``message`` is not the corpus's message_number (and a turn-level
    label without offsets) exports in the published layout and reads back onto the same messages."""
    linked = gos_mentions.link(gos_mentions.read_layer(demo_layer_path("gos-mentions", tmp_path)), messages)
    coded = linked.annotations.drop(columns=["single"]).assign(message=0, source="coder-a")
    coded.loc[len(coded)] = {**coded.iloc[0].to_dict(), "start": None, "end": None, "label": "dialog act"}
    path = tmp_path / "coded.jsonl"
    path.write_text(gos_mentions.to_jsonl(coded, messages), encoding="utf-8")
    again = gos_mentions.link(gos_mentions.read_layer(path), messages).annotations
    columns = ["dialog_id", "round", "turn", "message", "start", "end", "text", "referents"]
    assert again[columns].equals(linked.annotations[columns])
