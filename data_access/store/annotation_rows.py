"""The coding store's annotation rows: their columns, a new row validated (``_annotation_row``: the label's scope
decides which place fields it needs) and inserted, a change kept as a revision, and stored rows read back as the
annotation frame, a column at a time. Shared by the parts of ``store.coding`` (annotations, the model-label
import, gold decisions)."""
from __future__ import annotations

import json
import uuid
from typing import Iterable, Optional, Sequence

import numpy as np
import orjson
import pandas as pd

from ..access import MODEL_CODER_PREFIX, checked_coder_name
from ..coding import codebook as cb
from ..links import Place
from .notes import NoteConflict, NoteNotFound
from .values import optional_step as _optional_step
from .values import required_text as _required_text
from .values import typed_frame as _typed

ANNOTATION_FRAME_COLUMNS = ["id", "kind", "corpus", "dialog_id", "round", "turn", "utterance", "scope", "start",
                            "end", "span_text", "codebook", "codebook_version", "label", "referents", "coder",
                            "layer", "comment", "created_at", "updated_at", "deleted_at", "link"]
GOLD_LAYER = "gold"
LAYERS = ("coding", GOLD_LAYER)
# Coder names of this form are imported model labels (data_access.coding.model_labels): no person codes as one,
# and an import only ever replaces annotations it wrote itself (their uid starts with MODEL_UID_PREFIX).
MODEL_UID_PREFIX = "model-import-"
_SELECT = ("SELECT id, corpus, dialog_id, round, turn, utterance, scope, start_char, end_char, span_text, codebook, "
           "codebook_version, label, referents, coder, layer, comment, created_at, updated_at, deleted_at, "
           "changed_by FROM annotations")
_KEYS = ("id", "corpus", "dialog_id", "round", "turn", "utterance", "scope", "start", "end", "span_text",
         "codebook", "codebook_version", "label", "referents", "coder", "layer", "comment", "created_at",
         "updated_at", "deleted_at", "changed_by")
# compare.SOURCE_COLUMNS: what ``coded_labels`` returns
CODED_COLUMNS = ["corpus", "dialog_id", "round", "turn", "utterance", "start", "end", "label", "referents", "coder",
                 "scope", "span_text"]


class AnnotationNotFound(NoteNotFound):
    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "annotation not found"


class AnnotationConflict(NoteConflict):
    """The annotation changed since the caller read it; nothing was written."""


def _coder(value, imported: bool = False) -> str:
    """The coder name a row is written under; a person's may not read as the gold layer or a model's labels
    (``access.checked_coder_name``), which only adjudication and an import (``imported``) write as."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("every annotation needs a coder: choose your name (or set DIALOGUE_CODER)")
    return " ".join(value.split()) if imported else checked_coder_name(value)


def _referents(values: Optional[Iterable]) -> list[str]:
    out: list[str] = []
    for value in values or ():
        text = str(value).strip()
        if not text:
            continue
        if text not in out:
            out.append(text)
    return sorted(out)


def _live_annotation(cur, annotation_id: int) -> dict:
    """The live (not deleted) annotation ``annotation_id``, locked for the caller's transaction."""
    row = cur.execute(_SELECT + " WHERE id = ? AND deleted_at IS NULL" + cur.lock_clause,
                      [int(annotation_id)]).fetchone()
    if row is None:
        raise AnnotationNotFound(f"there is no annotation {annotation_id} (it may have been deleted)")
    return _annotation(row)


def _record_revision(cur, current: dict, action: str, now: str) -> None:
    """Keep the annotation's version ``current`` in its history before ``action`` changes it."""
    cur.execute("INSERT INTO annotation_revisions (annotation_id, action, label, referents, start_char, end_char, "
                "comment, coder, version_updated_at, recorded_at, changed_by) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [current["id"], action, current["label"], json.dumps(current["referents"], ensure_ascii=False),
                 current["start"], current["end"], current["comment"], current["coder"], current["updated_at"],
                 now, current["changed_by"]])


def _label_frame(rows: list[tuple]) -> pd.DataFrame:
    """Stored annotation rows (``_SELECT``) as ANNOTATION_FRAME_COLUMNS of kind "label", built a column at a time:
    a dict and a ``Place`` per row took 29 s for the 1.1 million spans one model labels file may hold."""
    columns = _columns(rows, _KEYS)
    size = len(rows)
    frame = pd.DataFrame({
        "id": columns["id"].astype("int64"),
        "kind": np.full(size, "label", dtype=object),
        **{key: columns[key] for key in ("corpus", "dialog_id", "scope", "span_text", "codebook", "label", "coder",
                                         "layer", "comment")},
        **{key: pd.array(columns[key], dtype="Int64") for key in ("round", "turn", "utterance", "start", "end",
                                                                  "codebook_version")},
        "referents": _referent_lists(columns["referents"]),
        **{key: _times(columns[key]) for key in ("created_at", "updated_at", "deleted_at")},
        "link": _objects(_links(columns["corpus"], columns["dialog_id"], columns["round"], columns["turn"])),
    }, columns=ANNOTATION_FRAME_COLUMNS)
    return _typed(frame, ["created_at", "updated_at", "deleted_at"])


def _columns(rows: list[tuple], keys: Sequence[str], order_by: Optional[str] = None) -> dict[str, np.ndarray]:
    """Fetched rows as one object array per column (one C pass, where ``zip(*rows)`` took three times as long),
    in the order of the column ``order_by`` when given."""
    table = np.empty((len(rows), len(keys)), dtype=object)
    if rows:
        table[:] = rows
    if order_by is not None and len(rows):
        table = table[np.argsort(table[:, list(keys).index(order_by)].astype("int64"), kind="stable")]
    return {key: table[:, number] for number, key in enumerate(keys)}


def _objects(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _referent_lists(texts) -> np.ndarray:
    """Stored referents (JSON lists; None for none) as lists, a fresh one per row (a caller may change its own)."""
    return _objects([[] if text is None or text == "[]" else orjson.loads(text) for text in texts])


def _times(values) -> pd.Series:
    """ISO texts (or None) as UTC datetimes, each distinct text parsed once (an import stamps all its rows alike)."""
    codes, uniques = pd.factorize(_objects(values))
    parsed = pd.to_datetime(pd.Index(uniques, dtype=object), utc=True, format="ISO8601")
    return pd.Series(parsed.take(codes, allow_fill=True)).astype("datetime64[us, UTC]")


def _links(corpora, dialogs, rounds, turns) -> list[str]:
    """``Place(...).link()`` of each row: the (corpus, dialog) part once per dialog, the round and step per row."""
    prefixes: dict = {}
    links: dict = {}
    out = []
    for place in zip(corpora, dialogs, rounds, turns):
        link = links.get(place)
        if link is None:
            corpus, dialog, round_, turn = place
            link = prefixes.get((corpus, dialog))
            if link is None:
                link = prefixes[(corpus, dialog)] = Place(corpus, dialog).link()
            if round_ is not None:
                link = f"{link}&round={round_}"
            link = links[place] = link if turn is None else f"{link}&turn={turn}"
        out.append(link)
    return out


def _annotation(row: tuple) -> dict:
    record = dict(zip(_KEYS, row))
    record["referents"] = json.loads(record["referents"])
    return record


def _annotation_row(corpus, dialog_id, *, codebook: cb.Codebook, label: str, coder: str, round=None, turn=None,
                    utterance=None, start=None, end=None, span_text=None, referents=None, layer: str = "coding",
                    comment: str = "", uid: Optional[str] = None, imported: bool = False) -> dict:
    """A validated annotation row: the label's scope (from the saved codebook version) decides which place
    fields are needed; ValueError says what is missing. Only an import of model labels (``imported``) writes
    as a ``model:…`` coder."""
    if codebook.version < 1:
        raise ValueError(f"codebook {codebook.name!r} must be saved before coding with it")
    entry = codebook.label(label)
    row = {
        "uid": uid or uuid.uuid4().hex,
        "corpus": _required_text(corpus, "corpus"),
        "dialog_id": _required_text(str(dialog_id) if dialog_id is not None else None, "dialog_id"),
        "round": _optional_step(round, "round"),
        "turn": _optional_step(turn, "turn"),
        "utterance": None, "start": None, "end": None, "span_text": None,
        "scope": entry.scope, "codebook": codebook.name, "codebook_version": int(codebook.version),
        "label": entry.name, "referents": _referents(referents) if entry.links_referents else [],
        "coder": _coder(coder, imported=imported), "layer": layer, "comment": comment or "",
    }
    if layer not in LAYERS:
        raise ValueError(f"layer must be one of {', '.join(LAYERS)}; got {layer!r}")
    coder_name = str(row["coder"])
    if coder_name.startswith(MODEL_CODER_PREFIX) and not (imported and layer == "coding"):
        raise ValueError(f"coder names starting with {MODEL_CODER_PREFIX!r} are kept for imported model labels; "
                         f"choose another name than {coder_name!r}")
    if entry.scope == "dialog":
        row["turn"] = None
    elif row["turn"] is None:
        raise ValueError(f"label {entry.name!r} is a {entry.scope} label: it needs a turn")
    if entry.scope == "span":
        if utterance is None or start is None or end is None:
            raise ValueError(f"label {entry.name!r} is a span label: select characters of an utterance")
        if int(utterance) < 0 or int(start) < 0 or int(end) <= int(start):
            raise ValueError(f"a span needs 0 <= start < end; got {start}..{end}")
        row.update(utterance=int(utterance), start=int(start), end=int(end), span_text=span_text)
    return row


INSERT_COLUMNS = ("uid", "corpus", "dialog_id", "round", "turn", "utterance", "scope", "start_char", "end_char",
                  "span_text", "codebook", "codebook_version", "label", "referents", "coder", "layer", "comment",
                  "created_at", "updated_at", "changed_by")


def _insert_values(row: dict, now: str, changed_by: Optional[str]) -> tuple:
    """A validated row's values in ``INSERT_COLUMNS`` order."""
    return (row["uid"], row["corpus"], row["dialog_id"], row["round"], row["turn"], row["utterance"],
            row["scope"], row["start"], row["end"], row["span_text"], row["codebook"], row["codebook_version"],
            row["label"], json.dumps(row["referents"], ensure_ascii=False), row["coder"], row["layer"],
            row["comment"], now, now, changed_by)


def _insert_annotation(cur, row: dict, now: str, changed_by: Optional[str]) -> int:
    """INSERT one validated row inside the caller's transaction; the same ``uid`` again returns the first id."""
    inserted = cur.execute(
        f"INSERT INTO annotations ({', '.join(INSERT_COLUMNS)}) VALUES ({', '.join('?' * len(INSERT_COLUMNS))}) "
        "ON CONFLICT (uid) DO NOTHING RETURNING id", _insert_values(row, now, changed_by)).fetchone()
    if inserted is None:
        inserted = cur.execute("SELECT id FROM annotations WHERE uid = ?", [row["uid"]]).fetchone()
    return int(inserted[0])
