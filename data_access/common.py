"""The common turn-level schema that lets browse, search and the overview treat all corpora alike (its columns,
their help and labels, the glossary of its words), and per-corpus tables read from the registry
(``CORPUS_TITLES``). The value types (``SourceError``, ``LoadedCorpus``...) live in ``types.py``; they are
re-exported here for the modules that always found them here."""
from __future__ import annotations

from .budgets import SKIPPED_KEPT
from .registry import BUILT_IN_PACKAGES, CORPUS_NAMES, CORPUS_TITLES, CorpusAttribute
from .types import (  # noqa: F401 - the value types, re-exported
    FramesByName,
    LoadedCorpus,
    ProgressCallback,
    SkippedRecord,
    SkippedRecords,
    SourceError,
    _restore_skipped,
    describe_unexpected,
    no_progress,
    skipped_report,
    skipped_total,
    staged_progress,
)

__all__ = ["SKIPPED_KEPT", "BUILT_IN_PACKAGES", "CORPUS_NAMES", "CORPUS_TITLES", "COLUMN_HELP", "COLUMN_LABELS", "CorpusAttribute",
           "DIALOG_COLUMNS", "FramesByName", "GLOSSARY", "LoadedCorpus", "ProgressCallback", "SkippedRecord",
           "SkippedRecords", "SourceError", "UTTERANCE_COLUMNS", "describe_unexpected", "no_progress",
           "skipped_report", "skipped_total", "staged_progress"]


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
