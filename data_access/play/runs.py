"""Plays as runs: each person's finished plays of a corpus written as one run file, ``person:<name>.jsonl``, in the
corpus's run format, into the plays folder the run loader lists (``data_access.runs.plays_dir``). The Runs page, its
leaderboard, the Replay's run panels, worst cases first and ``score(RUN)`` slices then take a person's plays as they
take a model's run, with no code of their own.

A person's run holds their latest finished play of each dialog (a dialog played again replaces the earlier play in
the run; both stay in the store). A file is rewritten only when its text changes, so the run's cache entry (keyed by
the file's identity) stays valid until a play is added.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from pathlib import Path
from typing import Sequence

from ..store import Play, Store
from ..types import LoadedCorpus

PERSON_PREFIX = "person:"
RUN_SUFFIX = ".jsonl"
_UNSAFE = re.compile(r"[^A-Za-z0-9@._+-]")


def person_run_name(player: str) -> str:
    """The run a person's plays make: ``person:<name>``."""
    return f"{PERSON_PREFIX}{player}"


def play_file_name(player: str) -> str:
    """The file name of a person's run: ``person:<name>.jsonl``, every character of the name that does not belong
    in a file name made ``_`` (then a short digest of the name tells apart two names that become one)."""
    safe = _UNSAFE.sub("_", player)[:80]
    if safe != player:
        safe += "-" + hashlib.sha1(player.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{PERSON_PREFIX}{safe}{RUN_SUFFIX}"


def run_text(lines: Sequence[dict]) -> str:
    """Run lines as JSON Lines text."""
    return "".join(json.dumps(line, ensure_ascii=False, separators=(", ", ": ")) + "\n" for line in lines)


def person_lines(store: Store, loaded: LoadedCorpus) -> dict[str, list[dict]]:
    """player -> the run lines of their latest finished play of each dialog of the corpus."""
    from .game import rules_of

    rules = rules_of(loaded)
    latest: dict[tuple[str, str], Play] = {}
    for play in store.plays.finished(loaded.corpus):  # oldest first: a later play of a dialog replaces it
        latest[(play.player, play.dialog_id)] = play
    lines: dict[str, list[dict]] = {}
    for (player, dialog_id), play in sorted(latest.items(), key=lambda item: item[0]):
        lines.setdefault(player, []).extend(rules.run_lines(loaded, dialog_id, play.seat, store.plays.moves(play.id)))
    return lines


def write_person_runs(store: Store, loaded: LoadedCorpus, folder: Path) -> list[Path]:
    """Write every person's run of the corpus into ``folder`` (only files whose text changed; files of nobody's
    plays are removed); the files of the runs."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for player, lines in person_lines(store, loaded).items():
        path = folder / play_file_name(player)
        text = run_text(lines)
        try:
            unchanged = path.read_text(encoding="utf-8") == text
        except OSError:
            unchanged = False
        if not unchanged:
            tmp = folder / f".{path.name}.{os.getpid()}.{threading.get_ident()}.part"
            try:
                tmp.write_text(text, encoding="utf-8")
                os.replace(tmp, path)  # never half a run under its name
            finally:
                tmp.unlink(missing_ok=True)
        written.append(path)
    for stale in folder.glob(f"{PERSON_PREFIX}*{RUN_SUFFIX}"):
        if stale not in written:
            stale.unlink(missing_ok=True)
    return written
