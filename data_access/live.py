"""Live games of two people over the corpora (issue 50): a game created with its corpus's two roles, each event
checked by the corpus's rules (``contract.LiveRules``) inside the store's write, and finished games written in the
corpus's own files, which the corpus's own reader opens as a source of its own.

The store (``data_access.store.live_games``) knows who may do what and keeps every event; this module joins it to
a corpus package, named by the package, never by a corpus name. See docs/live-games.md.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from .access import Identity
from .contract import CorpusPackage, LiveRecord, LiveRules, live_rules_of
from .store import LiveEvent, LiveGame, Store

DEFAULT_SPLIT = "test"  # the split a collection's games load under unless the study names one
KEPT_OLDER_EXPORTS = 1  # exports of an earlier set of finished games kept beside the newest (a page reading one)
MAX_STUDY_GAMES = 500  # games one call creates (a class, a pilot study: tens)


def rules_of(package: CorpusPackage) -> LiveRules:
    """The corpus's live rules; ValueError naming the corpus when its game is not played live."""
    rules = live_rules_of(package)
    if rules is None:
        raise ValueError(f"{package.TITLE} is not played live: its package offers no live_rules().")
    return rules


def create(store: Store, package: CorpusPackage, item: str, my_role: str, setup: Mapping[str, Any], *,
           player: Optional[str] = None, actor: Optional[Identity] = None) -> tuple[LiveGame, str]:
    """A new game of ``package``'s corpus over ``item`` with the creator in ``my_role``, and its invitation token."""
    rules = rules_of(package)
    return store.live_games.create(package.NAME, item, rules.ROLES, my_role, setup, player=player,
                                   actor=actor)


def create_study(store: Store, package: CorpusPackage, loaded: Any, items: Sequence[str], *, seed: int,
                 actor: Optional[Identity] = None) -> list[dict]:
    """A study's games, one per item of ``items`` (a slice's dialogs, targets or games, each set up by the corpus's
    rules from ``loaded``, the random draws of game ``n`` made with ``seed + n``), both roles open; one row per
    game and role: ``game_id``, ``item``, ``role`` and ``token`` (its invitation, shown once). An admin's: a
    study's organiser. ValueError before anything is created for an item the corpus lacks or too many items."""
    rules = rules_of(package)
    if not 0 < len(items) <= MAX_STUDY_GAMES:
        raise ValueError(f"A study creates 1 to {MAX_STUDY_GAMES:,} games at once; {len(items):,} items were given.")
    setups = [(item, rules.setup(loaded, item, seed + number)) for number, item in enumerate(items)]
    rows = []
    for item, setup in setups:
        game, tokens = store.live_games.create_open(package.NAME, item, rules.ROLES, setup, actor=actor)
        rows += [{"game_id": game.id, "item": item, "role": role, "token": tokens[role]} for role in rules.ROLES]
    return rows


def study_items(package: CorpusPackage, loaded: Any, dialog_ids: Sequence[str]) -> list[str]:
    """The items a study over the dialogs ``dialog_ids`` (a slice's) creates games over: what each dialog was played
    over (its scene, game or target), each once; ValueError when none of them can be played."""
    items = rules_of(package).dialog_items(loaded, dialog_ids)
    if not items:
        raise ValueError(f"none of the {len(dialog_ids):,} dialogs of the slice is played over an item "
                         f"{package.TITLE} can set up a live game with")
    return items


def send(store: Store, package: CorpusPackage, game_id: int, client_id: str, kind: str, payload: Any, *,
         player: Optional[str] = None, actor: Optional[Identity] = None) -> LiveEvent:
    """Send a message or move in a game of ``package``'s corpus, checked by its rules inside the store's write (the
    rules say who sees it); a resend of ``client_id`` returns the stored event."""
    rules = rules_of(package)
    game = store.live_games.game(game_id, viewer=actor)
    if game.corpus != package.NAME:
        raise ValueError(f"live game {game_id} is a game of {game.corpus}, not of {package.NAME}")
    return store.live_games.append(game_id, client_id, kind, payload, rule=rules.checked_event, player=player,
                                   actor=actor)


def export(store: Store, package: CorpusPackage, game_ids: Optional[Sequence[int]], folder: Path, *,
           split: str = DEFAULT_SPLIT, viewer: Optional[Identity] = None) -> Path:
    """Write the finished games ``game_ids`` of ``package``'s corpus (None: every finished game of it, a study's
    collection) into ``folder`` as the corpus's own files; the path its reader opens. Only finished games the viewer
    may see are written (``LiveGameNotFound`` otherwise); ValueError naming a game that is not of this corpus or
    cannot be written, before anything is written."""
    rules = rules_of(package)
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ValueError(f"{folder} is not an empty folder; a collection is written into a folder of its own")
    if game_ids is None:
        game_ids = store.live_games.finished_ids(package.NAME, viewer=viewer)
    records = []
    for game_id in dict.fromkeys(game_ids):
        game, setup, events = store.live_games.record(game_id, viewer=viewer)
        if game.corpus != package.NAME:
            raise ValueError(f"live game {game_id} is a game of {game.corpus}, not of {package.NAME}")
        records.append(LiveRecord(game, setup, events))
    if not records:
        raise ValueError("no game to write: choose finished games")
    return rules.write_games(Path(folder), records, split)


def exported_collection(store: Store, package: CorpusPackage, root: Path, *,
                        viewer: Optional[Identity] = None) -> Optional[Path]:
    """Every finished game of ``package``'s corpus the viewer may see, written once into ``root`` (the cache
    folder) as the corpus's own files: the path its reader opens, a collection beside the corpus. None when there
    is no such game. A folder per set of games (named by their digest): a game finished since makes a new one,
    and a folder written whole is renamed into place, so two servers writing it at once both find it whole."""
    game_ids = store.live_games.finished_ids(package.NAME, viewer=viewer)
    if not game_ids:
        return None
    digest = hashlib.sha256(",".join(map(str, game_ids)).encode("ascii")).hexdigest()[:24]
    parent = Path(root) / "collections" / package.NAME
    folder = parent / digest
    written = folder / "collection.json"  # where the reader's path lies in the folder, written last
    if not written.is_file():
        parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{digest}-", dir=parent))
        try:
            path = export(store, package, game_ids, scratch / "games", viewer=viewer)
            (scratch / "collection.json").write_text(json.dumps({"path": str(path.relative_to(scratch)),
                                                                 "games": len(game_ids)}))
            try:
                os.replace(scratch, folder)
            except OSError:  # another server renamed its copy first: theirs is the same games
                pass
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        _drop_older_exports(parent, keep=folder)
    return folder / json.loads(written.read_text())["path"]


def _drop_older_exports(parent: Path, keep: Path) -> None:
    """Remove the exports of earlier sets of games but the newest of them (a page may be reading it still): each
    finished game makes a new export of every game, which would otherwise pile up in the cache folder."""
    older = sorted((p for p in parent.iterdir() if p.is_dir() and not p.name.startswith(".") and p != keep),
                   key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for stale in older[KEPT_OLDER_EXPORTS:]:
        shutil.rmtree(stale, ignore_errors=True)
