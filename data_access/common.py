"""Types shared by every corpus: load errors, skipped-record reports, the loaded-corpus bundle and the
common turn-level schema that lets browse, search and the overview treat all corpora alike."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

from .budgets import SKIPPED_KEPT

if TYPE_CHECKING:  # pandas is imported by whoever builds frames; the CLI starts faster without it here
    import pandas as pd

# The corpus packages that come with the dashboard, in the order pages list them. A corpus's name is its
# package's last component (``NAME``); ``corpora.register`` adds a package from elsewhere after these.
BUILT_IN_PACKAGES = ("data_access.codraw", "data_access.gos", "data_access.minecraft")
# The names of every registered corpus: one list, extended in place by ``corpora.register``, so that every
# module that imported it sees a corpus registered later.
CORPUS_NAMES: list[str] = [package.rpartition(".")[2] for package in BUILT_IN_PACKAGES]


class CorpusAttribute(Mapping):
    """corpus name -> one member of its package (``TITLE``, ``DATA_VARIABLE``...), for every registered corpus.

    The member is read from the package when asked for (the package is imported then, not when this module
    is), so a table such as ``CORPUS_TITLES`` needs no list of corpora of its own."""

    def __init__(self, member: str, convert: Callable[[Any], Any] = lambda value: value):
        self._member, self._convert = member, convert

    def __getitem__(self, name: str) -> Any:
        if name not in CORPUS_NAMES:
            raise KeyError(name)
        from .corpora import corpus_module

        return self._convert(getattr(corpus_module(name), self._member))

    def __iter__(self) -> Iterator[str]:
        return iter(list(CORPUS_NAMES))

    def __len__(self) -> int:
        return len(CORPUS_NAMES)

    def __repr__(self) -> str:
        return f"CorpusAttribute({self._member!r})"


CORPUS_TITLES: Mapping[str, str] = CorpusAttribute("TITLE")

# The words the dashboard uses, defined once; pages, column help, CSV headers and the README use them.
GLOSSARY = {
    "dialog": "One recorded session: a CoDraw dialog, an A Game Of Sorts interaction (four rounds) or a Minecraft "
              "game.",
    "message": "One chat line by one participant (also called an utterance). The Minecraft system line "
               "“Mission has started.” is not a message.",
    "round": "CoDraw: one exchange of a Teller message, a Drawer message and the Drawer's changes to the canvas. "
             "A Game Of Sorts: one ranking of the nine images of a board (four per interaction). Minecraft games "
             "have no rounds.",
    "replay step": "One stop of the replay: a CoDraw round, one A Game Of Sorts message or lock event (counted "
                   "within its round), one Minecraft message with the Builder's actions after it. Deep links "
                   "give it as turn=N.",
}

# Every corpus builds an ``utterances`` frame with exactly these columns, one row per message.
# ``round`` is the A Game Of Sorts round (1..4) and <NA> for corpora whose replay is not split into rounds
# (a CoDraw round is itself a replay step); ``turn`` is the replay step (from 1) the message belongs to,
# so (corpus, dialog_id, round, turn) is a deep link (the URL parameter is ``turn`` too).
UTTERANCE_COLUMNS = ["corpus", "dialog_id", "round", "turn", "speaker", "role", "text", "time_s"]
# Every corpus builds a ``dialogs`` frame that starts with these columns (more may follow).
DIALOG_COLUMNS = ["corpus", "dialog_id", "split", "n_rounds", "n_steps", "n_utterances", "duration_s"]

# Help text of every common column (st.column_config help, README, CSV documentation).
COLUMN_HELP = {
    "corpus": "Which corpus the dialog comes from.",
    "dialog_id": "The dialog's id in its corpus (CoDraw key, A Game Of Sorts interaction id, Minecraft experiment id).",
    "split": "The corpus's train / val / test split (A Game Of Sorts has one split, “all”).",
    "n_rounds": "Rounds: " + GLOSSARY["round"],
    "n_steps": "Replay steps: " + GLOSSARY["replay step"],
    "n_utterances": "Messages: " + GLOSSARY["message"],
    "duration_s": "Duration in seconds as the corpus logs it (empty where it does not).",
    "round": "The A Game Of Sorts round (1–4); empty for the other corpora.",
    "turn": "The replay step the message belongs to (within its round for A Game Of Sorts).",
    "speaker": "Who wrote the message (a player name, or the role where the corpus has no names).",
    "role": "Teller / Drawer, Player A / Player B, Architect / Builder.",
    "text": "The message as logged.",
    "time_s": "Seconds from the start of the dialog (empty where the corpus has no time stamps).",
    # the Overview's per-corpus table
    "dialogs": "Dialogs: " + GLOSSARY["dialog"],
    "messages": "Messages: " + GLOSSARY["message"],
    "messages_per_dialog": "Mean messages per dialog.",
    "median_messages_per_dialog": "Median messages per dialog.",
    "tokens_per_message": "Mean whitespace-separated tokens per message.",
    "tokens": "Whitespace-separated tokens over all messages.",
    "vocabulary": "Distinct lower-cased word types over all messages.",
    "rounds": "Rounds: " + GLOSSARY["round"],
    "replay_steps": "Replay steps: " + GLOSSARY["replay step"],
}
# Column headers shown to readers (tables, CSV headers) for the common columns.
COLUMN_LABELS = {
    "corpus": "corpus", "dialog_id": "dialog", "split": "split", "n_rounds": "rounds", "n_steps": "replay steps",
    "n_utterances": "messages", "duration_s": "duration (s)", "round": "round", "turn": "replay step",
    "speaker": "speaker", "role": "role", "text": "text", "time_s": "time (s)",
    "dialogs": "dialogs", "messages": "messages", "messages_per_dialog": "messages / dialog",
    "median_messages_per_dialog": "median messages / dialog", "tokens_per_message": "tokens / message",
    "tokens": "tokens", "vocabulary": "vocabulary", "rounds": "rounds", "replay_steps": "replay steps",
}

# progress(message, fraction in [0, 1] or None)
ProgressCallback = Callable[[str, Optional[float]], None]


def no_progress(message: str, fraction: Optional[float] = None) -> None:
    """Progress sink for callers that do not show progress."""


def staged_progress(progress: ProgressCallback, start: float, end: float) -> ProgressCallback:
    """``progress`` for one stage of a longer task: the stage's fractions (0..1) mapped onto ``start``..``end``
    of the whole, and each message ending in the whole's percentage, the number its bar shows, so that the
    text never claims more than the bar (a bar still moving towards its value said "Read 8 of 8 games" at 1%)."""
    def report(message: str, fraction: Optional[float] = None) -> None:
        share = start + (end - start) * min(max(float(fraction or 0.0), 0.0), 1.0)
        progress(f"{message} ({int(share * 100)}% of the load)", share)
    return report


class FramesByName(Mapping):
    """A corpus's frames by name, each made when first asked for (``cache.LazyFrames`` reads it from the
    Parquet cache, ``tables.BuiltFrames`` converts it from Arrow). Subclasses set ``_names`` and implement
    ``__getitem__``; a pickled copy (e.g. by st.cache_data) is a plain dict of every frame."""

    _names: list[str]

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __reduce__(self):
        return (dict, (dict(self.items()),))


class SourceError(Exception):
    """A whole source cannot be loaded (missing path, not JSON, wrong layout...).

    The message always names the file so that the UI and the CLI can show it as one line."""

    def __init__(self, path: Path | str, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


@dataclass(frozen=True)
class SkippedRecord:
    """One broken unit (a round, a line, a game...) that was left out while everything else loaded."""

    record: str  # where: file plus record key / line number
    reason: str

    def as_dict(self) -> dict:
        return {"record": self.record, "reason": self.reason}


class SkippedRecords(list):
    """The skipped records of one input, bounded: the first ``keep`` of them, and ``total``, how many there
    were in all. Every reader collects into one (a file of eight million bad lines costs a counter, not
    eight million records); it is a list of what it kept, so it is shown, pickled and iterated as before.
    ``left_off`` = total - kept. Extending it with another SkippedRecords carries over that one's left-off count."""

    def __init__(self, records: Iterable[SkippedRecord] = (), keep: int = SKIPPED_KEPT, total: Optional[int] = None):
        super().__init__()
        self.keep = keep
        self.total = 0
        self.extend(records)
        if total is not None:
            self.total = max(int(total), len(self))

    def append(self, record: SkippedRecord) -> None:
        self.total += 1
        if len(self) < self.keep:
            super().append(record)

    def extend(self, records: Iterable[SkippedRecord]) -> None:
        extra = records.left_off if isinstance(records, SkippedRecords) else 0
        for record in records:
            self.append(record)
        self.total += extra

    @property
    def full(self) -> bool:
        """Whether a further record would only be counted (callers may then skip describing it)."""
        return len(self) >= self.keep

    def count_more(self, n: int = 1) -> None:
        """Count ``n`` skipped records without describing them (the list is full)."""
        self.total += n

    @property
    def left_off(self) -> int:
        return self.total - len(self)

    def __reduce__(self):
        return (_restore_skipped, (list(self), self.keep, self.total))


def _restore_skipped(records, keep, total) -> SkippedRecords:
    return SkippedRecords(records, keep, total)


def skipped_total(skipped: Iterable[SkippedRecord]) -> int:
    """How many records were skipped in all (a plain list: its length)."""
    return skipped.total if isinstance(skipped, SkippedRecords) else len(list(skipped))


def skipped_report(skipped: Iterable[SkippedRecord]) -> dict:
    """The CLI keys: ``skipped`` (the records kept, as before) and ``skipped_total`` (all of them)."""
    kept = list(skipped)
    return {"skipped": [s.as_dict() for s in kept], "skipped_total": skipped_total(skipped)}


def describe_unexpected(exc: BaseException) -> str:
    """An unexpected error as one readable phrase: never "unexpected MemoryError:" with nothing after it."""
    if isinstance(exc, MemoryError):
        return "ran out of memory while reading it (is it far larger than such a file can be?)"
    text = str(exc).strip()
    return f"unexpected {type(exc).__name__}: {text}" if text else f"unexpected {type(exc).__name__}"


@dataclass
class LoadedCorpus:
    """A corpus as the app and the CLI see it: its frames plus where and how it was loaded."""

    corpus: str
    source: str  # the path, as given
    is_demo: bool
    frames: Mapping[str, pd.DataFrame]  # a dict, cache.LazyFrames (a cache hit) or tables.BuiltFrames (just built)
    skipped: list[SkippedRecord] = field(default_factory=SkippedRecords)  # bounded (SkippedRecords)
    load_seconds: float = 0.0
    from_cache: bool = False
    assets: Optional[str] = None  # clip-art / image folder, when configured
    cache_note: Optional[str] = None  # why the frames were not cached (e.g. a read-only cache folder)

    @property
    def dialogs(self) -> pd.DataFrame:
        return self.frames["dialogs"]

    @property
    def utterances(self) -> pd.DataFrame:
        return self.frames["utterances"]
