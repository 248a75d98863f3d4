"""The CoDraw instruction-clarification layer (``icr-codraw-data.tsv``): read, align to rounds, summarise, export.

The file is tab-separated with one header line and no quoting (texts may contain ``"``): previous Teller
message, Drawer message, next Teller message, ``is CR?`` (1/0) and ``impossible to know?`` (1 or empty).
``---`` means the context was not given. The rows carry no ids, so each is aligned to a CoDraw round by text:
the Drawer message is ``msg_d`` of round k, the previous Teller message ``msg_t`` of round k and the next
one ``msg_t`` of round k+1 (empty after the last round).

Texts are compared in a normalised form (``normalise``): lower case, every run of characters that are not
letters or digits replaced by one space, trimmed -- so the layer's tokenised ``it 's`` and the corpus's
``it's``, or ``1 2`` and ``1/2``, compare equal. Alignment indexes the corpus's rounds by their normalised
Drawer message (one dictionary look-up per row), then keeps the candidates whose Teller context agrees with
the row's given context. Several candidates are narrowed by the texts with their punctuation (``exact_form``: lower
case, white space removed, so ``ok , thanks !`` meets ``ok, thanks!`` but not ``ok thanks``) when that leaves
one. One candidate left: ``aligned_unique``; several: ``aligned_ambiguous`` (e.g. "ok check please" with no
context given); none: ``not_aligned``. Only unique alignments become annotations.

A line with the wrong number of fields, or an ``is CR?`` / ``impossible to know?`` value other than 1/0/empty,
is skipped and listed; a file whose header is not the published one is not this layer (SourceError).
"""
from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from dialogue_dashboard.plugin import (
    ANNOTATION_COLUMNS,
    LayerContent,
    LoadedCorpus,
    SkippedRecord,
    SkippedRecords,
    SourceError,
    read_lines,
    skipped_report,
)

CORPUS = "codraw"  # the package's NAME (the package hands this module out: importing it here would be a cycle)
LAYER = "codraw-icr"
FILE_NAME = "icr-codraw-data.tsv"
HEADER = ["previous utterance by the teller", "drawer's utterance", "next utterance by the teller", "is CR?",
          "impossible to know?"]
NOT_GIVEN = "---"
SPLITS = ("train", "val", "test")
EXTRA_COLUMNS = ["is_cr", "impossible", "split"]
COLUMNS = ANNOTATION_COLUMNS + EXTRA_COLUMNS
ROW_COLUMNS = ["line", "previous", "drawer", "next", "is_cr", "impossible", "alignment", "candidates", "dialog_id",
               "round", "split"]
UNIQUE, AMBIGUOUS, NOT_ALIGNED = "unique", "ambiguous", "not aligned"


@dataclass(frozen=True)
class IcrRow:
    line: int
    previous: str  # as published; "---" when not given
    drawer: str
    next: str
    is_cr: bool
    impossible: bool


@dataclass
class IcrLayer:
    path: str
    rows: list[IcrRow]
    skipped: list[SkippedRecord] = field(default_factory=list)

    @property
    def file(self) -> str:
        return Path(self.path).name


def _flag(value: str, allow_empty: bool) -> Optional[bool]:
    value = value.strip()
    if value == "1":
        return True
    if value == "0" or (allow_empty and value == ""):
        return False
    return None


def read_layer(path: Path | str) -> IcrLayer:
    """Parse the TSV; raises SourceError (naming the file) when it is not this layer at all."""
    path = Path(path)
    name = path.name
    rows: list[IcrRow] = []
    skipped: list[SkippedRecord] = SkippedRecords()
    header_seen = False
    for number, text, problem in read_lines(path):
        where = f"{name} line {number}"
        if not header_seen:
            fields = [f.strip() for f in (text or "").split("\t")]
            if [f.lower() for f in fields] != [h.lower() for h in HEADER]:
                raise SourceError(path, f"line {number} is not the published header ({' | '.join(HEADER)})")
            header_seen = True
            continue
        if text is None:
            skipped.append(SkippedRecord(where, problem))
            continue
        fields = text.split("\t")
        if len(fields) != len(HEADER):
            skipped.append(SkippedRecord(where, f"has {len(fields)} tab-separated fields; expected {len(HEADER)}"))
            continue
        previous, drawer, following, cr, impossible = fields
        is_cr, cannot_tell = _flag(cr, allow_empty=False), _flag(impossible, allow_empty=True)
        if is_cr is None:
            skipped.append(SkippedRecord(where, f"has is CR? {cr!r}; expected 1 or 0"))
            continue
        if cannot_tell is None:
            skipped.append(SkippedRecord(where, f"has impossible to know? {impossible!r}; expected 1, 0 or empty"))
            continue
        rows.append(IcrRow(number, previous, drawer, following, is_cr, cannot_tell))
    if not header_seen:
        raise SourceError(path, "is empty; expected the published header and rows")
    return IcrLayer(str(path), rows, skipped)


def _text_array(texts) -> pa.Array:
    """Texts as one Arrow string array, missing values as empty strings."""
    if isinstance(texts, pd.Series):
        texts = texts.array
    try:
        array = pa.array(texts, type=pa.string())
    except (TypeError, pa.ArrowException):
        array = pa.array([str(t) for t in texts], type=pa.string())
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return pc.fill_null(array, "")


def normalise(texts) -> pa.Array:
    """Lower case, runs of non-letters/digits → one space, trimmed (vectorised with Arrow)."""
    array = pc.replace_substring_regex(pc.utf8_lower(_text_array(texts)), r"[^\p{L}\p{N}]+", " ")
    return pc.utf8_trim_whitespace(array)


def exact_form(texts) -> pa.Array:
    """The tie-break form: lower case with every white space removed, punctuation kept (so the layer's
    tokenised ``ok , thanks !`` meets the corpus's ``ok, thanks!`` but not ``ok thanks``)."""
    return pc.replace_substring_regex(pc.utf8_lower(_text_array(texts)), r"\s+", "")


def corpus_rounds(loaded: LoadedCorpus) -> pd.DataFrame:
    """dialog_id, split, round, msg_t, msg_d of every round, in dialog and round order."""
    rounds = loaded.frames["rounds"]
    frame = pd.DataFrame({
        "dialog_id": rounds["dialog_id"].astype(str).to_numpy(),
        "split": rounds["split"].astype(str).to_numpy(),
        "round": rounds["round"].astype("int64").to_numpy(),
        "msg_t": rounds["msg_t"].fillna("").astype(str).to_numpy(),
        "msg_d": rounds["msg_d"].fillna("").astype(str).to_numpy(),
    })
    return frame.sort_values(["dialog_id", "round"], kind="stable").reset_index(drop=True)


@dataclass
class AlignedLayer:
    rows: pd.DataFrame  # ROW_COLUMNS: every row read, with its alignment
    annotations: pd.DataFrame  # COLUMNS: the uniquely aligned rows in the common form
    figures: dict
    skipped: list[SkippedRecord]


def align(layer: IcrLayer, rounds: pd.DataFrame) -> AlignedLayer:
    """Align every row to (dialog, round) of ``corpus_rounds`` and build the annotation frame."""
    n = len(rounds)
    dialog_ids = rounds["dialog_id"].to_numpy()
    teller = normalise(rounds["msg_t"])
    same_dialog_next = np.zeros(n, dtype=bool)
    if n > 1:
        same_dialog_next[:-1] = dialog_ids[1:] == dialog_ids[:-1]
    # The next Teller message: msg_t of round k+1, empty after a dialog's last round.
    following = pc.if_else(pa.array(same_dialog_next), pc.take(teller, pa.array(np.minimum(np.arange(n) + 1, max(n - 1, 0)))), "") \
        if n else teller
    teller_exact = exact_form(rounds["msg_t"])
    following_exact = pc.if_else(pa.array(same_dialog_next), pc.take(teller_exact, pa.array(np.minimum(np.arange(n) + 1, max(n - 1, 0)))), "") \
        if n else teller_exact
    corpus = pd.DataFrame({"d": normalise(rounds["msg_d"]).to_numpy(zero_copy_only=False),
                           "p": teller.to_numpy(zero_copy_only=False), "n": following.to_numpy(zero_copy_only=False),
                           "D": exact_form(rounds["msg_d"]).to_numpy(zero_copy_only=False),
                           "P": teller_exact.to_numpy(zero_copy_only=False),
                           "N": following_exact.to_numpy(zero_copy_only=False),
                           "i": np.arange(n)})

    rows = layer.rows
    given = pd.DataFrame({
        "d": normalise([r.drawer for r in rows]).to_numpy(zero_copy_only=False),
        "p": normalise([r.previous for r in rows]).to_numpy(zero_copy_only=False),
        "n": normalise([r.next for r in rows]).to_numpy(zero_copy_only=False),
        "D": exact_form([r.drawer for r in rows]).to_numpy(zero_copy_only=False),
        "P": exact_form([r.previous for r in rows]).to_numpy(zero_copy_only=False),
        "N": exact_form([r.next for r in rows]).to_numpy(zero_copy_only=False),
        "has_p": [r.previous.strip() != NOT_GIVEN for r in rows],
        "has_n": [r.next.strip() != NOT_GIVEN for r in rows],
    })
    # Index the corpus by the normalised Drawer message plus whichever Teller context the row gives: one
    # grouped count per kind of context and one join per row, however common the Drawer message ("ok").
    counts = np.zeros(len(rows), dtype=np.int64)
    first = np.full(len(rows), -1, dtype=np.int64)
    for has_p, has_n in ((True, True), (True, False), (False, True), (False, False)):
        keys = ["d"] + (["p"] if has_p else []) + (["n"] if has_n else [])
        mask = ((given["has_p"] == has_p) & (given["has_n"] == has_n)).to_numpy()
        if not mask.any() or not n:
            continue
        index = corpus.groupby(keys, sort=False)["i"].agg(["size", "first"])
        hits = given.loc[mask, keys].join(index, on=keys)
        found = hits["size"].fillna(0).to_numpy(dtype=np.int64).copy()
        at = hits["first"].fillna(-1).to_numpy(dtype=np.int64).copy()
        # Tie-break: of several rounds equal once normalised, the one whose texts also agree in punctuation
        # (case and spacing still ignored) is the row's, when it is the only one.
        exact = [k.upper() for k in keys]
        tie = corpus.groupby(keys + exact, sort=False)["i"].agg(["size", "first"])
        tied = given.loc[mask, keys + exact].join(tie, on=keys + exact)
        settled = (found > 1) & (tied["size"].fillna(0).to_numpy(dtype=np.int64) == 1)
        found[settled] = 1
        at[settled] = tied["first"].to_numpy()[settled].astype(np.int64)
        counts[mask] = found
        first[mask] = at
    statuses = np.where(counts == 1, UNIQUE, np.where(counts > 1, AMBIGUOUS, NOT_ALIGNED))
    matched = [int(i) if c == 1 else None for i, c in zip(first, counts)]

    splits = rounds["split"].to_numpy()
    round_numbers = rounds["round"].to_numpy()
    table = pd.DataFrame({
        "line": [r.line for r in rows], "previous": [r.previous for r in rows], "drawer": [r.drawer for r in rows],
        "next": [r.next for r in rows], "is_cr": [r.is_cr for r in rows], "impossible": [r.impossible for r in rows],
        "alignment": statuses.tolist(), "candidates": counts,
        "dialog_id": [dialog_ids[i] if i is not None else None for i in matched],
        "round": pd.array([int(round_numbers[i]) if i is not None else None for i in matched], dtype="Int64"),
        "split": [splits[i] if i is not None else None for i in matched],
    }, columns=ROW_COLUMNS)
    table = table.astype({"line": "int64", "is_cr": "bool", "impossible": "bool", "candidates": "int64"})

    unique = table[table["alignment"] == UNIQUE]
    file = layer.file
    corpus_text = rounds["msg_d"].to_numpy()
    annotations = pd.DataFrame({
        "corpus": CORPUS, "dialog_id": unique["dialog_id"].astype(str), "round": pd.array([None] * len(unique), dtype="Int64"),
        "turn": unique["round"].astype("Int64"), "message": unique["round"].astype("Int64"), "role": "Drawer",
        "start": pd.array([None] * len(unique), dtype="Int64"), "end": pd.array([None] * len(unique), dtype="Int64"),
        "text": [corpus_text[i] for i in matched if i is not None],
        "label": np.where(unique["is_cr"], "CR", "not CR"), "referents": [[] for _ in range(len(unique))],
        "source": LAYER, "record": [f"{file} line {line}" for line in unique["line"]],
        "is_cr": unique["is_cr"].astype(bool), "impossible": unique["impossible"].astype(bool),
        "split": unique["split"].astype(str),
    }, columns=COLUMNS).reset_index(drop=True)
    for column in ("corpus", "dialog_id", "role", "text", "label", "source", "record", "split"):
        annotations[column] = annotations[column].astype("str")

    crs = annotations[annotations["is_cr"]]
    present_splits = [s for s in SPLITS if s in set(splits)] + sorted(set(splits) - set(SPLITS))
    figures = {
        "rows": len(rows),
        "aligned_unique": int((table["alignment"] == UNIQUE).sum()),
        "aligned_ambiguous": int((table["alignment"] == AMBIGUOUS).sum()),
        "not_aligned": int((table["alignment"] == NOT_ALIGNED).sum()),
        "crs": int(table["is_cr"].sum()),
        "crs_aligned": len(crs),
        "splits": {split: {"dialogs_with_cr": int(crs.loc[crs["split"] == split, "dialog_id"].nunique()),
                           "rounds_with_cr": int(len(crs.loc[crs["split"] == split, ["dialog_id", "turn"]].drop_duplicates()))}
                   for split in present_splits},
        **skipped_report(layer.skipped),
    }
    return AlignedLayer(table, annotations, figures, SkippedRecords(layer.skipped))


def load(loaded: LoadedCorpus, path: Path | str) -> AlignedLayer:
    return align(read_layer(path), corpus_rounds(loaded))


def summary(aligned: AlignedLayer) -> dict:
    """The ``layer-summary codraw-icr`` figures (exactly these keys).

    rows: rows read; aligned_unique / aligned_ambiguous / not_aligned: rows matching one, several or no round;
    crs: rows with is CR? = 1; crs_aligned: those aligned uniquely; splits.<split>.dialogs_with_cr /
    rounds_with_cr: dialogs and rounds of that split with at least one uniquely aligned CR; skipped: lines
    left out, each with its file, line and reason."""
    return dict(aligned.figures)


def layer_content(loaded: LoadedCorpus, path: Path) -> LayerContent:
    """The contract's ``AnnotationLayer.layer_content``: every row aligned to a CoDraw round by its text."""
    aligned = load(loaded, path)
    return LayerContent(aligned.annotations, summary(aligned), rows=aligned.rows, skipped=aligned.skipped)


def demo_lines(corpus_source: Path) -> list[str]:
    """The demo layer's lines over the CoDraw demo corpus file ``corpus_source``."""
    return codraw_icr_lines(Path(corpus_source))


# The generated demo layer (layers/demo.py writes it beside the other), kept with the format it writes.
SEED = 20230502
_PUNCTUATION = re.compile(r"([^\w\s'])")


def tokenise(text: str) -> str:
    """Roughly the published file's form: lower case, spaces around punctuation, ``it's`` → ``it 's``."""
    text = _PUNCTUATION.sub(r" \1 ", text.lower())
    text = re.sub(r"(\w)'(\w)", r"\1 '\2", text)
    return " ".join(text.split())


def codraw_icr_lines(corpus_file: Path) -> list[str]:
    """The demo CR layer of the demo CoDraw corpus (``CoDraw_1_0.json``)."""
    rng = random.Random(SEED)
    document = json.loads(Path(corpus_file).read_text(encoding="utf-8"))
    lines = ["\t".join(HEADER)]
    for key in sorted(document["data"]):
        rounds = document["data"][key]["dialog"]
        for k, turn in enumerate(rounds):
            drawer = turn.get("msg_d", "")
            if not drawer.strip() or rng.random() < 0.33:
                continue
            previous = tokenise(turn.get("msg_t", ""))
            following = tokenise(rounds[k + 1].get("msg_t", "")) if k + 1 < len(rounds) else ""
            if rng.random() < 1 / 12:
                previous = following = NOT_GIVEN
            is_cr = drawer.startswith("is the ")
            impossible = not is_cr and drawer.endswith("?") and rng.random() < 0.2
            lines.append("\t".join([previous, tokenise(drawer), following, "1" if is_cr else "0", "1" if impossible else ""]))
    lines.append("\t".join(["there is a big tree on the left", "sorry , which tree ?", "the pine tree", "1", ""]))
    return lines


def _row_line(previous: str, drawer: str, following: str, is_cr: bool, impossible: bool) -> str:
    fields = [previous, drawer, following, "1" if is_cr else "0", "1" if impossible else ""]
    return "\t".join(f.replace("\t", " ").replace("\n", " ").replace("\r", " ") for f in fields)


def to_tsv(rows: pd.DataFrame) -> str:
    """Rows as read (``AlignedLayer.rows`` or any frame with previous, drawer, next, is_cr, impossible) →
    the published TSV layout."""
    lines = ["\t".join(HEADER)]
    lines += [_row_line(r.previous, r.drawer, r.next, bool(r.is_cr), bool(r.impossible)) for r in rows.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def annotations_to_tsv(annotations: pd.DataFrame, rounds: pd.DataFrame) -> str:
    """CR labels in the common form (one per dialog and turn = round; label ``CR`` or anything else) → the
    published TSV layout, the Teller context taken from the corpus (``corpus_rounds``) so the rows align back."""
    by_round = {(d, int(r)): i for i, (d, r) in enumerate(zip(rounds["dialog_id"], rounds["round"]))}
    msg_t, msg_d, dialog_ids = rounds["msg_t"].tolist(), rounds["msg_d"].tolist(), rounds["dialog_id"].tolist()
    lines = ["\t".join(HEADER)]
    impossible = annotations["impossible"] if "impossible" in annotations.columns else pd.Series(False, index=annotations.index)
    for row, cannot_tell in zip(annotations.itertuples(index=False), impossible):
        i = by_round.get((str(row.dialog_id), int(row.turn)))
        if i is None:
            continue
        following = msg_t[i + 1] if i + 1 < len(msg_t) and dialog_ids[i + 1] == dialog_ids[i] else ""
        lines.append(_row_line(msg_t[i], msg_d[i], following, row.label == "CR", bool(cannot_tell)))
    return "\n".join(lines) + "\n"


def dialog_features(layer):
    """The layer's slice features by dialog_id: ``crs`` (its CRs aligned to the dialog) and ``annotated_rounds``.
    A dialog the layer does not cover has no value (NaN), not 0: "crs = 0" means "annotated, and no CR", as the
    CoDraw scores page's groups say."""
    from corpora.codraw.data import icr_analysis

    table = icr_analysis.cr_by_dialog(layer)
    return pd.DataFrame({"crs": table["crs"].to_numpy(dtype="int64"),
                         "annotated_rounds": table["annotated"].to_numpy(dtype="int64")},
                        index=pd.Index(table["dialog_id"].astype(str), name="dialog_id"))


def step_features(layer):
    """The layer's step features: ``cr`` per round (dialog_id, turn = the round) with an aligned row, whether its
    Drawer message is a clarification request; a round the layer does not cover has no row (no value)."""
    frame = layer.annotations
    if frame.empty:
        return pd.DataFrame({"dialog_id": pd.Series(dtype="str"), "round": pd.Series(dtype="Int64"),
                             "turn": pd.Series(dtype="int64"), "cr": pd.Series(dtype="bool")})
    grouped = frame.groupby([frame["dialog_id"].astype(str), frame["turn"].astype("int64")], sort=True)["is_cr"].any()
    return pd.DataFrame({"dialog_id": grouped.index.get_level_values(0), "round": pd.array([pd.NA] * len(grouped), dtype="Int64"),
                         "turn": grouped.index.get_level_values(1).to_numpy(dtype="int64"),
                         "cr": grouped.to_numpy(dtype=bool)})
