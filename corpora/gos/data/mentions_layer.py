"""The A Game Of Sorts mention layer (``gos-mentions.jsonl``): read, link to the corpus, summarise, export.

One JSON object per line: ``interaction_id``, ``round_number``, ``message_number`` (the message's keys in
``a-game-of-sorts_log_interaction_all.jsonl``) and ``annotations``, a list of mentions with ``mention`` (the
text), ``start``/``end`` (character offsets into the message's ``body_text``, end exclusive), ``single``
(one image, not a group) and ``image_ids`` (the board images it refers to).

A line that is not a JSON object with those fields, a mention without valid fields and a second line for the
same message are skipped and listed (``SkippedRecord``); the rest loads. Linking checks every span against
the message text: a span whose offsets fall outside the text, or whose slice is not the mention's text, is
kept with ``span_ok`` False and counted in ``spans_out_of_range`` -- never shifted. A link to an image that
is not on the message's board is dropped and listed.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pandas as pd

from dialogue_dashboard.plugin import (
    ANNOTATION_COLUMNS,
    LayerContent,
    LoadedCorpus,
    SkippedRecord,
    SkippedRecords,
    SourceError,
    is_int,
    read_lines,
    skipped_report,
)

CORPUS = "gos"  # the package's NAME (the package hands this module out: importing it here would be a cycle)
LAYER = "gos-mentions"
FILE_NAME = "gos-mentions.jsonl"
EXTRA_COLUMNS = ["single", "span_ok"]
COLUMNS = ANNOTATION_COLUMNS + EXTRA_COLUMNS


@dataclass(frozen=True)
class Mention:
    index: int  # 1-based position in the line's annotations
    mention: str
    start: int
    end: int
    single: bool
    image_ids: tuple[str, ...]


@dataclass(frozen=True)
class MessageMentions:
    line: int
    interaction_id: str
    round_number: int
    message_number: int
    mentions: tuple[Mention, ...]

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.interaction_id, self.round_number, self.message_number)


@dataclass
class MentionLayer:
    path: str
    messages: list[MessageMentions]
    skipped: list[SkippedRecord] = field(default_factory=list)

    @property
    def file(self) -> str:
        return Path(self.path).name


def _mention(value: Any, index: int) -> tuple[Mention | None, str]:
    if not isinstance(value, dict):
        return None, f"is {type(value).__name__}, not an object"
    text, start, end, single, images = (value.get(k) for k in ("mention", "start", "end", "single", "image_ids"))
    if not isinstance(text, str):
        return None, "has no text (`mention` must be a string)"
    if not is_int(start) or not is_int(end):
        return None, f"has offsets {start!r}, {end!r}; `start` and `end` must be integers"
    if not isinstance(single, bool):
        return None, f"has `single` {single!r}; expected true or false"
    if not isinstance(images, list) or not all(isinstance(i, str) and i for i in images):
        return None, "has `image_ids` that are not a list of image ids"
    return Mention(index, text, start, end, single, tuple(images)), ""


def read_layer(path: Path | str) -> MentionLayer:
    """Parse the layer; raises SourceError (naming the file) when nothing of it can be read."""
    path = Path(path)
    name = path.name
    messages: list[MessageMentions] = []
    skipped: list[SkippedRecord] = SkippedRecords()
    seen: dict[tuple, int] = {}
    n_lines = 0
    for number, text, problem in read_lines(path):
        n_lines += 1
        where = f"{name} line {number}"
        if text is None:
            skipped.append(SkippedRecord(where, problem))
            continue
        try:
            record = json.loads(text)
        except ValueError as exc:
            skipped.append(SkippedRecord(where, f"not JSON ({exc})"))
            continue
        if not isinstance(record, dict):
            skipped.append(SkippedRecord(where, f"is a JSON {type(record).__name__}, not an object"))
            continue
        interaction, round_number, message_number = (record.get(k) for k in ("interaction_id", "round_number", "message_number"))
        annotations = record.get("annotations")
        if not isinstance(interaction, str) or not interaction:
            skipped.append(SkippedRecord(where, "has no `interaction_id` string"))
            continue
        if not is_int(round_number) or not is_int(message_number):
            skipped.append(SkippedRecord(where, f"has round_number {round_number!r} and message_number {message_number!r}; "
                                                "both must be integers"))
            continue
        if not isinstance(annotations, list):
            skipped.append(SkippedRecord(where, "has no `annotations` list"))
            continue
        key = (interaction, round_number, message_number)
        if key in seen:
            skipped.append(SkippedRecord(where, f"repeats the message of line {seen[key]} "
                                                f"({interaction}, round {round_number}, message {message_number})"))
            continue
        seen[key] = number
        mentions = []
        for index, value in enumerate(annotations, start=1):
            mention, problem = _mention(value, index)
            if mention is None:
                skipped.append(SkippedRecord(f"{where} mention {index}", problem))
            else:
                mentions.append(mention)
        messages.append(MessageMentions(number, interaction, round_number, message_number, tuple(mentions)))
    if not n_lines:
        raise SourceError(path, "is empty; expected one JSON object per annotated message")
    if not messages:
        raise SourceError(path, f"holds no valid line of the {LAYER} layer (first problem: {skipped[0].reason})")
    return MentionLayer(str(path), messages, skipped)


def _column(frame: pd.DataFrame, *names: str) -> str:
    for name in names:
        if name in frame.columns:
            return name
    raise KeyError(f"none of {names} in {list(frame.columns)}")


def corpus_messages(loaded: LoadedCorpus) -> pd.DataFrame:
    """The corpus's messages keyed as the layer keys them: dialog_id, round, message, turn, role, text,
    board_images (the images on the message's board)."""
    messages = loaded.frames["messages"]
    boards = loaded.frames["boards"]
    board_images = dict(zip(boards["board_id"], (tuple(v) for v in boards["image_ids"])))
    return pd.DataFrame({
        "dialog_id": messages[_column(messages, "interaction_id", "dialog_id")].astype(str).to_numpy(),
        "round": messages[_column(messages, "round_number", "round")].astype("int64").to_numpy(),
        "message": messages["message_number"].astype("int64").to_numpy(),
        "turn": messages[_column(messages, "step", "turn")].astype("int64").to_numpy(),
        "role": messages["role"].astype(str).to_numpy(),
        "text": messages["text"].astype(str).to_numpy(),
        "board_images": [board_images.get(b, ()) for b in messages["board_id"]],
    })


@dataclass
class LinkedMentions:
    """The layer linked to a corpus: the annotation frame plus the figures of ``summary``."""

    annotations: pd.DataFrame  # COLUMNS, one row per mention of a message found in the corpus
    figures: dict
    skipped: list[SkippedRecord]
    unmatched: list[str]  # "<file> line N: (interaction, round, message)" of messages not in the corpus


def empty_frame() -> pd.DataFrame:
    return _typed(pd.DataFrame({c: [] for c in COLUMNS}))


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    for column in ("round", "turn", "message", "start", "end"):
        frame[column] = frame[column].astype("Int64")
    for column in ("corpus", "dialog_id", "role", "text", "label", "source", "record"):
        frame[column] = frame[column].astype("str")
    for column in ("single", "span_ok"):
        frame[column] = frame[column].astype("bool")
    return frame[COLUMNS].reset_index(drop=True)


def link(layer: MentionLayer, messages: pd.DataFrame) -> LinkedMentions:
    """Attach every mention to its corpus message (``corpus_messages``) and check its span."""
    by_key = {(d, int(r), int(m)): i for i, (d, r, m) in enumerate(zip(messages["dialog_id"], messages["round"], messages["message"]))}
    texts, turns, roles, boards = (messages[c].tolist() for c in ("text", "turn", "role", "board_images"))
    skipped = SkippedRecords(layer.skipped)
    rows: list[dict] = []
    unmatched: list[str] = []
    corpus = CORPUS
    n_mentions = n_single = images_linked = out_of_range = 0
    for message in layer.messages:
        n_mentions += len(message.mentions)
        n_single += sum(m.single for m in message.mentions)
        where = f"{layer.file} line {message.line}"
        row = by_key.get(message.key)
        if row is None:
            unmatched.append(f"{where}: interaction {message.interaction_id}, round {message.round_number}, "
                             f"message {message.message_number} is not in the corpus")
            continue
        text, board = texts[row], set(boards[row])
        for mention in message.mentions:
            fits = 0 <= mention.start < mention.end <= len(text)
            span_ok = fits and text[mention.start:mention.end] == mention.mention
            # Offsets beyond 64 bits are out of range like any other, and kept as missing: no column holds them.
            start, end = (offset if -2 ** 63 <= offset < 2 ** 63 else None for offset in (mention.start, mention.end))
            out_of_range += not span_ok
            referents = []
            for image in mention.image_ids:
                if image in board:
                    referents.append(image)
                else:
                    skipped.append(SkippedRecord(f"{where} mention {mention.index}",
                                                 f"links image {image}, which is not on the message's board; link dropped"))
            images_linked += len(referents)
            rows.append({
                "corpus": corpus, "dialog_id": message.interaction_id, "round": message.round_number, "turn": turns[row],
                "message": message.message_number, "role": roles[row], "start": start, "end": end,
                "text": mention.mention, "label": "mention", "referents": referents, "source": LAYER,
                "record": f"{where} mention {mention.index}", "single": mention.single, "span_ok": span_ok,
            })
    annotations = _typed(pd.DataFrame(rows, columns=COLUMNS)) if rows else empty_frame()
    figures = {
        "messages": len(layer.messages),
        "mentions": n_mentions,
        "mentions_single": n_single,
        "images_linked": images_linked,
        "unmatched_messages": len(unmatched),
        "spans_out_of_range": out_of_range,
        **skipped_report(skipped),
    }
    return LinkedMentions(annotations, figures, skipped, unmatched)


def load(loaded: LoadedCorpus, path: Path | str) -> LinkedMentions:
    return link(read_layer(path), corpus_messages(loaded))


def summary(linked: LinkedMentions) -> dict:
    """The ``layer-summary gos-mentions`` figures (exactly these keys).

    messages: annotated messages read; mentions / mentions_single: their mentions, and those naming one image;
    images_linked: mention → image links to an image of the message's board (messages found in the corpus);
    unmatched_messages: annotated messages not in the corpus; spans_out_of_range: mentions whose offsets do not
    fit the message text (outside it, or selecting other text than the mention); skipped: lines, mentions and
    links left out, each with its file, line and reason."""
    return dict(linked.figures)


def layer_content(loaded: LoadedCorpus, path: Path) -> LayerContent:
    """The contract's ``AnnotationLayer.layer_content``: the mentions linked to their messages."""
    linked = load(loaded, path)
    return LayerContent(linked.annotations, summary(linked), skipped=linked.skipped, unmatched=linked.unmatched)


def demo_lines(corpus_source: Path) -> list[str]:
    """The demo layer's lines over the A Game Of Sorts demo corpus in the folder ``corpus_source``."""
    from corpora.gos.data.reader import LOG_FILE

    return gos_mentions_lines(Path(corpus_source) / LOG_FILE)


def to_jsonl(annotations: pd.DataFrame, messages: Optional[pd.DataFrame] = None) -> str:
    """Mentions in the common form → the published JSON Lines layout (one line per message, in frame order).

    ``single`` is taken from the column when present, else true for a mention with exactly one referent. With
    ``messages`` (``corpus_messages``) the message_number is looked up from (dialog_id, round, turn), for coded
    data whose ``message`` column is not the corpus's message_number; spans without offsets are left out."""
    by_step = None
    if messages is not None:
        by_step = {(d, int(r), int(t)): int(m) for d, r, t, m in
                   zip(messages["dialog_id"], messages["round"], messages["turn"], messages["message"])}
    lines: dict[tuple, list] = {}
    has_single = "single" in annotations.columns
    for row in annotations.itertuples(index=False):
        if pd.isna(row.start) or pd.isna(row.end) or pd.isna(row.round):
            continue
        if by_step is not None:
            number = by_step.get((str(row.dialog_id), int(row.round), int(row.turn)))
            if number is None:
                continue
        else:
            number = int(row.message)
        key = (str(row.dialog_id), int(row.round), number)
        referents = [str(i) for i in (row.referents if row.referents is not None else [])]
        single = bool(row.single) if has_single else len(referents) == 1
        lines.setdefault(key, []).append({"mention": str(row.text), "single": single, "image_ids": referents,
                                          "start": int(row.start), "end": int(row.end)})
    out = [json.dumps({"interaction_id": d, "round_number": r, "message_number": m, "annotations": mentions},
                      ensure_ascii=False) for (d, r, m), mentions in lines.items()]
    return "".join(line + "\n" for line in out)


# -- the demo layer ---------------------------------------------------------------------------------------------

def gos_mentions_lines(log_file: Path) -> list[str]:
    """The demo mention layer of the demo A Game Of Sorts log (``a-game-of-sorts_log_interaction_all.jsonl``): every
    demo message that names an image by one of the demo game's phrases ("the pug", "the red convertible") gets a
    single mention per phrase with its offsets and image id; a message naming two or more images also gets a
    group mention spanning them (``single`` false)."""
    from corpora.gos.data.demo import GAMES

    phrases = {game: info["images"] for game, info in GAMES.items()}
    lines = []
    for raw in Path(log_file).read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        record = json.loads(raw)
        if "message_number" not in record:
            continue
        text = record["body_text"]
        found = []
        for image_id, phrase in phrases.get(record["game_id"], []):
            start = text.find(phrase)
            if start >= 0:
                found.append((start, start + len(phrase), image_id))
        if not found:
            continue
        found.sort()
        annotations = [{"mention": text[s:e], "single": True, "image_ids": [i], "start": s, "end": e} for s, e, i in found]
        if len(found) > 1:
            s, e = found[0][0], found[-1][1]
            annotations.append({"mention": text[s:e], "single": False, "image_ids": [i for _s, _e, i in found], "start": s, "end": e})
        lines.append(json.dumps({"interaction_id": record["interaction_id"], "round_number": record["round_number"],
                                 "message_number": record["message_number"], "annotations": annotations}))
    return lines


def dialog_features(layer):
    """The layer's slice feature by dialog_id: ``mentions``, its referring expressions in the dialog."""
    frame = layer.annotations
    counts = frame.groupby(frame["dialog_id"].astype(str)).size() if len(frame) else pd.Series(dtype="int64")
    return pd.DataFrame({"mentions": counts.astype("int64")})


def step_features(layer):
    """The layer's step features: ``mentions``, its referring expressions in the step's message, by dialog_id,
    round and turn (a step without one has no row; ``slices.features`` counts it 0 in a dialog the layer covers)."""
    frame = layer.annotations
    if frame.empty:
        return pd.DataFrame({"dialog_id": pd.Series(dtype="str"), "round": pd.Series(dtype="Int64"),
                             "turn": pd.Series(dtype="int64"), "mentions": pd.Series(dtype="int64")})
    keys = [frame["dialog_id"].astype(str), frame["round"].astype("Int64"), frame["turn"].astype("int64")]
    counts = frame.groupby(keys, sort=True).size()
    return pd.DataFrame({"dialog_id": counts.index.get_level_values(0), "round": counts.index.get_level_values(1).astype("Int64"),
                         "turn": counts.index.get_level_values(2).to_numpy(dtype="int64"),
                         "mentions": counts.to_numpy(dtype="int64")})
