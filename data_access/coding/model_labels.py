"""A model's labels as one more coder: the JSON Lines format (docs/formats.md, "Model labels"), its reader
(validated against a codebook and the loaded corpus) and the import into the store (its agreement with the
humans is ``model_agreement``).

One line is one coded item of one corpus::

    {"model": "gpt-x", "corpus": "codraw", "dialog": "d17", "round": 3, "labels": ["CR"],
     "spans": [{"utterance": 0, "start": 4, "end": 13, "label": "refers-to", "referents": ["clipart:2"]}]}

The step is named as the corpus names it (its ``STEP_UNIT``: CoDraw ``round``, Minecraft ``message``, A Game Of
Sorts ``step`` within its ``round``); a line without one holds dialog labels (A Game Of Sorts: of the round).
``labels`` are the turn (or dialog) labels of the codebook put there, ``[]`` for "looked, put none";
``referents`` (ids as the coding panel names them; not looked up in the corpus, which would cost a scene per
step) link the labels that link referents; ``spans`` are as the store keeps them (0-based utterance of the
step, character offsets, end exclusive). Each model becomes the coder ``model:<model>`` (no person may code under
that prefix, see ``data_access.store``). A bad line is skipped with its reason (a bounded list, as a run's); a
file over its budget (``budgets.MODEL_LABELS``) or a gzip bomb is refused while it is read; a line over its own
budget (``budgets.MODEL_LINE_BYTES``, ``MAX_SPANS_PER_LINE``, ``MAX_REFERENTS``, at most ``MAX_LABELS`` labels) or
of a model past ``MAX_MODELS_PER_FILE`` is skipped. Reading and importing are linear in the lines and spans: what
is read is kept as one tuple per annotation, and the store writes them in bulk. Importing a model again replaces
that model's labels with the codebook in the corpus, in one transaction.
"""
from __future__ import annotations

import json
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional, Protocol, Sequence

import pandas as pd

from ..access import MODEL_CODER_PREFIX, Identity
from ..budgets import (
    MAX_LABEL_NAME,
    MAX_LABELS,
    MAX_MODELS_PER_FILE,
    MAX_REFERENTS,
    MAX_SPANS_PER_LINE,
    MODEL_LABELS,
    MODEL_LINE_BYTES,
)
from ..common import CORPUS_NAMES, CORPUS_TITLES, LoadedCorpus, SkippedRecord, SkippedRecords, SourceError
from ..contract import package_of
from ..registry import CorpusAttribute
from ..runs.common import Line, Tally, json_lines
from ..safe_io import check_lines, gunzip_capped, read_budgeted, without_bom
from .codebook import Codebook
from .rules import stored_round

# corpus name -> its package's members, for the example line of a corpus named by the Agreement page
_REPLAY_IN_ROUNDS = CorpusAttribute("REPLAY_IN_ROUNDS")
_STEP_UNITS = CorpusAttribute("STEP_UNIT")
STEP_KEYS = ("step", "round", "message", "turn")  # what a line may call its step, in one corpus or another
MODELS_NAMED = 10  # in an import's message; the rest are counted


def coder_name(model: str) -> str:
    """The coder a model's labels are stored under: ``model:<name>`` (its whitespace collapsed)."""
    return MODEL_CODER_PREFIX + " ".join(str(model).split())


def is_model(coder: object) -> bool:
    return isinstance(coder, str) and coder.startswith(MODEL_CODER_PREFIX)


@dataclass
class ModelLabels:
    """What a model labels file holds that can be imported: the annotations (``add_annotation`` keywords with
    ``dialog_id`` and ``coder``) of the models (coder names) in one corpus, how many items (good lines) they
    come from, and the lines skipped with their reasons (bounded: ``skipped.total`` counts them all)."""

    file: str
    codebook: Codebook
    corpus: Optional[str] = None
    annotations: "Annotations" = field(default_factory=lambda: Annotations())
    models: list[str] = field(default_factory=list)
    items: int = 0
    skipped: list[SkippedRecord] = field(default_factory=SkippedRecords)

    @property
    def skipped_total(self) -> int:
        return self.skipped.total if isinstance(self.skipped, SkippedRecords) else len(self.skipped)


class Annotations(SequenceABC):
    """The annotations read, each an ``add_annotation`` keyword dict when looked at, but kept as one tuple
    (dialog, label, coder, round, turn, utterance, start, end, span_text, referents): a dict per annotation cost
    about 1 kB, so a file of a million spans took 1.5 GB."""

    __slots__ = ("_rows",)

    def __init__(self) -> None:
        self._rows: list[tuple] = []

    def extend(self, rows: list[tuple]) -> None:
        self._rows.extend(rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [_as_dict(row) for row in self._rows[index]]
        return _as_dict(self._rows[index])

    def __iter__(self) -> Iterator[dict]:
        return map(_as_dict, self._rows)


def _as_dict(row: tuple) -> dict:
    dialog, label, coder, round_, turn, utterance, start, end, span_text, referents = row
    out = {"dialog_id": dialog, "label": label, "coder": coder, "round": round_, "turn": turn}
    if utterance is not None:
        out.update(utterance=utterance, start=start, end=end, span_text=span_text, referents=list(referents))
    elif referents:
        out["referents"] = list(referents)
    return out


@dataclass(frozen=True)
class Imported:
    """What an import did: the labels read, the earlier labels of the same models it replaced."""

    labels: ModelLabels
    replaced: int

    def message(self) -> str:
        read = self.labels
        who = ", ".join(read.models[:MODELS_NAMED]) + (f" and {len(read.models) - MODELS_NAMED:,} more model(s)"
                                                        if len(read.models) > MODELS_NAMED else "")
        where = CORPUS_TITLES.get(read.corpus or "", read.corpus or "")
        text = (f"Imported {read.items:,} item(s) with {len(read.annotations):,} label(s) of {who} "
                f"(codebook {read.codebook.name} v{read.codebook.version}, {where}) from {read.file}")
        if self.replaced:
            text += f"; they replace the {self.replaced:,} label(s) imported for {who} before"
        if read.skipped_total:
            text += f"; {read.skipped_total:,} line(s) skipped (listed below)"
        return text + "."


def example_line(book: Codebook, corpus: str) -> str:
    """One line of a model labels file for ``corpus`` with labels of ``book`` (the import box shows it)."""
    record: dict = {"model": "my-model", "corpus": corpus, "dialog": "DIALOG-ID"}
    if _REPLAY_IN_ROUNDS[corpus]:
        record["round"] = 1
    turn, span = book.labels_for("turn"), book.labels_for("span")
    if turn or span or not book.labels_for("dialog"):
        record[str(_STEP_UNITS[corpus])] = 2
        record["labels"] = [turn[0].name] if turn else []
        if span:
            record["spans"] = [{"utterance": 0, "start": 4, "end": 9, "label": span[0].name}]
    else:
        record["labels"] = [book.labels_for("dialog")[0].name]
    return json.dumps(record, ensure_ascii=False)


# -- reading ------------------------------------------------------------------------------------------------------

def decoded(data: bytes, file: str) -> bytes:
    """An uploaded file's content within the model labels budget: refused (one SourceError naming it) when it
    is larger, has more lines, or is gzip that inflates past either (checked while it inflates)."""
    if len(data) > MODEL_LABELS.max_bytes:
        raise SourceError(file, f"is {len(data):,} bytes, more than a {MODEL_LABELS.what} can be "
                                f"({MODEL_LABELS.max_bytes:,} bytes)")
    if data[:2] == b"\x1f\x8b":
        data = gunzip_capped(data, MODEL_LABELS.max_bytes, file, MODEL_LABELS.what, MODEL_LABELS.max_lines)
    else:
        check_lines(data, MODEL_LABELS.max_lines, file, MODEL_LABELS.what)
    return without_bom(data)


def read_file(path: Path | str, codebook: Codebook,
              corpora: Callable[[str], Optional[LoadedCorpus]]) -> ModelLabels:
    """``parse`` of a file on disk (read within ``budgets.MODEL_LABELS``)."""
    return parse(read_budgeted(path, MODEL_LABELS), Path(path).name, codebook, corpora)


def _step_number(value) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return None
    return value


class _Bad(ValueError):
    """One line is unusable; the message says why."""


class _Corpus:
    """What validating lines of one corpus needs, looked up once per dialog, step or place."""

    def __init__(self, name: str, loaded: LoadedCorpus):
        self.name, self.loaded = name, loaded
        self.package = package_of(loaded)
        self.in_rounds = bool(self.package.REPLAY_IN_ROUNDS)
        self.step_key = str(self.package.STEP_UNIT)
        # the corpus's own string for each dialog id, so a million lines of one dialog hold one copy of its id
        self.dialogs = {d: d for d in loaded.dialogs["dialog_id"].astype(str)}
        self._shared: dict = {}
        self._steps: dict = {}
        if not self.in_rounds:  # a dialog's replay steps are its n_steps: one pass, not a look-up per dialog
            self._steps = {(str(d), None): int(n) for d, n in zip(loaded.dialogs["dialog_id"], loaded.dialogs["n_steps"])
                           if not pd.isna(n)}
        self._utterances: Optional[dict] = None

    def shared(self, text: str) -> str:
        """One copy of each coder name or referent id, however many lines repeat it."""
        return self._shared.setdefault(text, text)

    def steps(self, dialog: str, round_: Optional[int]) -> int:
        key = (dialog, round_)
        if key not in self._steps:
            self._steps[key] = int(self.package.step_count(self.loaded, dialog, round_) or 0)
        return self._steps[key]

    def texts(self, dialog: str, round_: Optional[int], turn: int) -> list[str]:
        """The step's utterances in frame order (their position is a span's ``utterance``), as
        ``referents.turn_utterances`` lists them; indexed by one pass over the utterances on first use."""
        if self._utterances is None:
            frame = self.loaded.utterances
            self._rounds = bool(frame["round"].notna().any())
            index: dict = {}
            no_round, no_turn = frame["round"].isna().to_numpy(), frame["turn"].isna().to_numpy()
            for d, r, t, text, r_na, t_na in zip(frame["dialog_id"].astype(str).tolist(), frame["round"].tolist(),
                                                 frame["turn"].tolist(), frame["text"].tolist(), no_round, no_turn):
                if not t_na:
                    index.setdefault((d, int(t)), []).append((None if r_na else int(r), str(text)))
            self._utterances = index
        found = self._utterances.get((dialog, turn), [])
        if round_ is not None and self._rounds:
            return [text for r, text in found if r == round_]
        return [text for _, text in found]


def _lines(data: bytes, tally: Tally) -> Iterator[Line]:
    """Every line that is a JSON object (``json_lines``), a line over ``MODEL_LINE_BYTES`` skipped before it is
    parsed (a 60 MB line made a million objects)."""
    def too_long(size: int) -> Optional[str]:
        if size <= MODEL_LINE_BYTES:
            return None
        return (f"is {size:,} bytes, more than a line of a {MODEL_LABELS.what} may be ({MODEL_LINE_BYTES:,} bytes; "
                "one line is one coded item)")

    return json_lines(data, tally, too_long)


def parse(data: bytes, file: str, codebook: Codebook, corpora: Callable[[str], Optional[LoadedCorpus]]) -> ModelLabels:
    """The importable labels of a model labels file's content (``decoded`` or ``read_budgeted``) against
    ``codebook`` (a saved version) and the loaded corpora (``corpora(name)``: the corpus, or None when it cannot
    be loaded). A file holds one corpus (its first usable line's) and at most ``MAX_MODELS_PER_FILE`` models;
    every bad line is skipped with its reason. Linear in the lines and the spans."""
    if codebook.version < 1:
        raise ValueError(f"codebook {codebook.name!r} must be saved before importing labels for it")
    tally = Tally(file)
    out = ModelLabels(file, codebook, skipped=tally.skipped)
    corpus: Optional[_Corpus] = None
    seen: dict = {}
    models: set = set()
    for line in _lines(data, tally):
        try:
            name = _text(line.record, "corpus")
            if name not in CORPUS_NAMES:
                raise _Bad(f"corpus {name!r} is not one of {', '.join(CORPUS_NAMES)}")
            if corpus is None:
                loaded = corpora(name)
                if loaded is None:
                    raise _Bad(f"{CORPUS_TITLES[name]} could not be loaded")
                corpus = _Corpus(name, loaded)
                out.corpus = name
            elif name != corpus.name:
                raise _Bad(f"corpus {name!r}, but this file's labels are of {corpus.name!r} (its first line): "
                           "a file holds one corpus")
            rows, key = _line(line.record, corpus, codebook)
        except _Bad as exc:
            tally.skip(line.number, str(exc))
            continue
        if key in seen:
            tally.skip(line.number, f"the same item as line {seen[key]} (one line per item and model)")
            continue
        if key[0] not in models:
            if len(models) >= MAX_MODELS_PER_FILE:
                tally.skip(line.number, f"a file holds the labels of at most {MAX_MODELS_PER_FILE} models, and "
                                        f"{key[0]!r} would be one more")
                continue
            models.add(key[0])
            out.models.append(key[0])
        seen[key] = line.number
        out.items += 1
        out.annotations.extend(rows)
    return out


def _text(record: dict, key: str) -> str:
    value = record.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and key == "dialog":
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"needs “{key}”, a non-empty string")
    return value.strip()


def _line(record: dict, corpus: _Corpus, book: Codebook) -> tuple[list[tuple], tuple]:
    """The annotations of one line (``Annotations`` rows) and the item's key (coder, dialog, round, step); ``_Bad``
    says why not."""
    model = _text(record, "model")
    if len(model) > MAX_LABEL_NAME:
        raise _Bad(f"a model's name has at most {MAX_LABEL_NAME} characters (this one {len(model)})")
    coder = corpus.shared(coder_name(model))
    dialog = corpus.dialogs.get(_text(record, "dialog"))
    if dialog is None:
        raise _Bad(f"dialog {_text(record, 'dialog')!r} is not in the loaded {CORPUS_TITLES[corpus.name]}")
    title = CORPUS_TITLES[corpus.name]
    allowed = {corpus.step_key} | ({"round"} if corpus.in_rounds else set())
    for other in STEP_KEYS:
        if other in record and other not in allowed:
            raise _Bad(f"{title} names its steps “{corpus.step_key}”" + (" within a “round”" if corpus.in_rounds else "")
                       + f", not “{other}”")
    round_: Optional[int] = None
    if corpus.in_rounds:
        round_ = _step_number(record.get("round"))
        if round_ is None or round_ < 1 or corpus.steps(dialog, round_) == 0:
            raise _Bad(f"needs “round”, a round of dialog {dialog!r} (got {record.get('round')!r})")
    step: Optional[int] = None
    if corpus.step_key in record:
        step = _step_number(record[corpus.step_key])
        n_steps = corpus.steps(dialog, round_)
        if step is None or not 1 <= step <= n_steps:
            raise _Bad(f"“{corpus.step_key}” must be one of 1..{n_steps} of dialog {dialog!r}"
                       + (f" round {round_}" if round_ is not None else "") + f" (got {record[corpus.step_key]!r})")
    scope = "turn" if step is not None else "dialog"
    names = record.get("labels", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _Bad("“labels” must be a list of label names")
    if len(names) > MAX_LABELS:
        raise _Bad(f"“labels” has {len(names):,} names; a line has at most {MAX_LABELS} (the most a codebook has)")
    labels = []
    linking = False
    for name in dict.fromkeys(n.strip() for n in names):
        try:
            label = book.label(name)
        except KeyError:
            raise _Bad(f"label {name!r} is not in codebook {book.name!r}") from None
        if label.scope != scope:
            where = f"a line with its “{corpus.step_key}”" if step is not None else f"a line without “{corpus.step_key}”"
            raise _Bad(f"label {name!r} is a {label.scope} label, and {where} holds {scope} labels"
                       + (" (spans go in “spans”)" if label.scope == "span" else ""))
        linking |= label.links_referents
        labels.append(label)
    referents = _referents(record.get("referents"), "“referents”", corpus)
    if referents and not linking:
        raise _Bad("“referents” are given, but none of its labels links referents")
    stored = stored_round(scope, round_, corpus.in_rounds)
    rows = [(dialog, label.name, coder, stored, step, None, None, None, None,
             referents if label.links_referents else ()) for label in labels]
    spans = record.get("spans", [])
    if not isinstance(spans, list):
        raise _Bad("“spans” must be a list of {utterance, start, end, label}")
    if spans and step is None:
        raise _Bad(f"spans need the line's “{corpus.step_key}”")
    if len(spans) > MAX_SPANS_PER_LINE:
        raise _Bad(f"has {len(spans):,} spans, more than a line may have ({MAX_SPANS_PER_LINE:,}; one line is one "
                   "step)")
    for number, span in enumerate(spans, 1):
        rows.append(_span(span, number, corpus, book, coder, dialog, round_, step or 0))
    return rows, (coder, dialog, round_, step)


def _referents(value, what: str, corpus: "_Corpus") -> tuple:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _Bad(f"{what} must be a list of referent ids")
    if len(value) > MAX_REFERENTS:
        raise _Bad(f"{what} has {len(value):,} ids, more than one label or span may link ({MAX_REFERENTS:,})")
    return tuple(corpus.shared(v) for v in sorted({v.strip() for v in value}))


def _span(span, number: int, corpus: _Corpus, book: Codebook, coder: str, dialog: str, round_: Optional[int],
          step: int) -> tuple:
    where = f"span {number}"
    if not isinstance(span, dict):
        raise _Bad(f"{where} is not an object {{utterance, start, end, label}}")
    name = span.get("label")
    if not isinstance(name, str):
        raise _Bad(f"{where} needs “label”, a label name")
    try:
        label = book.label(name.strip())
    except KeyError:
        raise _Bad(f"{where}: label {name!r} is not in codebook {book.name!r}") from None
    if label.scope != "span":
        raise _Bad(f"{where}: label {label.name!r} is a {label.scope} label, not a span label")
    utterance, start, end = (_step_number(span.get(k)) for k in ("utterance", "start", "end"))
    texts = corpus.texts(dialog, round_, step)
    if not texts:
        raise _Bad(f"{where}: this step has no utterance to put a span on")
    if utterance is None or not 0 <= utterance < len(texts):
        raise _Bad(f"{where}: “utterance” must be one of 0..{len(texts) - 1} at this step "
                   f"(got {span.get('utterance')!r})")
    text = texts[utterance]
    if start is None or end is None or not 0 <= start < end <= len(text):
        raise _Bad(f"{where}: {span.get('start')!r}..{span.get('end')!r} is outside the utterance, which has "
                   f"{len(text)} character(s) (offsets 0..{len(text)}, end exclusive, after the start)")
    referents = _referents(span.get("referents"), f"{where}: “referents”", corpus)
    if referents and not label.links_referents:
        raise _Bad(f"{where}: label {label.name!r} does not link referents")
    return (dialog, label.name, coder, round_, step, utterance, start, end, text[start:end], referents)


class LabelStore(Protocol):
    """What an import writes into: ``store.CodingStore`` (named by what it does, so that the coding stays below
    the store)."""

    def replace_model_annotations(self, codebook: Codebook, corpus: str, coders: Sequence[str],
                                  annotations: Sequence[dict], *, actor: Optional[Identity] = None) -> int: ...


def import_labels(store: LabelStore, labels: ModelLabels, *, actor: Optional[Identity] = None) -> Imported:
    """Store what ``parse`` read: each model's earlier labels with the codebook in the corpus are replaced, all
    in one transaction (``CodingStore.replace_model_annotations``). Raises ValueError when nothing is usable."""
    if not labels.items or labels.corpus is None:
        raise ValueError(f"{labels.file}: no usable line" + (f" ({labels.skipped_total:,} skipped)"
                                                              if labels.skipped_total else ""))
    replaced = store.replace_model_annotations(labels.codebook, labels.corpus, labels.models, labels.annotations,
                                               actor=actor)
    return Imported(labels, replaced)
